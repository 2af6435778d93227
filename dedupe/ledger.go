package dedupe

import (
	"hash/maphash"

	"github.com/a2astream/a2astream/a2a"
)

// Ledger assembles one task from the events of all the connections of a
// stream and computes the deltas to deliver. A Ledger is not safe for
// concurrent use.
//
// Every Apply and Reconcile method appends the deltas it computed to dst and
// returns the extended slice. Deltas are *a2a.StatusUpdate,
// *a2a.ArtifactUpdate, *a2a.Message and *a2a.MessageRevision values, never
// *a2a.Task. They share part values with the ledger; callers must not modify
// them.
type Ledger struct {
	task *a2a.Task
	sent []a2a.Message // sent before any task was known

	msgs messages // every message delivered or recorded, by ID

	arts     artifacts
	statuses statusCursor
	seed     maphash.Seed

	win window
	// sentAfter is the ID of a message the client sent after the current
	// status was applied: a snapshot listing it is newer than that status.
	sentAfter string
}

// New returns an empty ledger.
func New() *Ledger {
	seed := maphash.MakeSeed()
	return &Ledger{msgs: newMessages(seed), seed: seed, arts: newArtifacts(seed), statuses: newStatusCursor(seed)}
}

// Task returns the assembled task, or nil while no task is known. The ledger
// keeps ownership: callers must not modify it.
func (l *Ledger) Task() *a2a.Task { return l.task }

// OpenReplayWindow starts a replay window. Call it when a resubscribe
// succeeds.
func (l *Ledger) OpenReplayWindow() {
	l.win.start()
	l.arts.newWindow()
}

// CloseReplayWindow ends the replay window, and drops the artifact versions
// it held pending. Call it when a connection that replays nothing starts,
// such as the stream of a reply.
func (l *Ledger) CloseReplayWindow() {
	l.win.close()
}

// Pending reports how many artifact versions the replay window holds until
// the replay shows whether they are old or new. While it is not zero, one
// live event may yield several deltas: the versions, then the event.
func (l *Ledger) Pending() int { return len(l.win.pending) }

// RecordSent records a message the client sent (the user's request or a
// reply to a prompt): it joins the history and its ID is marked as seen, so
// that a server echoing it back does not deliver it.
func (l *Ledger) RecordSent(m *a2a.Message) {
	held := &l.sent
	if l.task != nil {
		held = &l.task.History
	}
	if m.ID != "" {
		if !l.msgs.add(m.ID, len(*held)) {
			return
		}
		l.sentAfter = m.ID
	}
	l.msgs.holdWithoutID(m, false)
	*held = append(*held, *m.Clone())
}

// Resume returns a ledger for a stream resumed from a checkpoint: it holds
// t, the task as the application holds it, folded without delivering
// anything. delivered lists the IDs of messages the application was handed
// that t does not hold (a server that keeps no status messages in its
// history): they are never delivered again, nor a later version of them,
// since no version is held to compare it with. shown lists the statuses the
// application was shown at the newest time it was shown one, and those
// without a timestamp: a replay of one of them is recognised.
//
// Such a ledger has not seen every status of the past: a status at the
// newest time seen that it did not see is judged as a status without a
// timestamp is (by its message), not taken as news for its time alone,
// until a status newer in time arrives.
func Resume(t *a2a.Task, delivered []string, shown []a2a.TaskStatus) *Ledger {
	l := New()
	l.Reconcile(nil, t, true)
	for _, id := range delivered {
		if id != "" {
			l.msgs.add(id, -1)
		}
	}
	for i := range shown {
		l.statuses.note(&shown[i])
		if m := shown[i].Message; m != nil && l.msgs.known(m.ID) {
			l.msgs.markStatus(m.ID)
		}
	}
	l.statuses.partial = true
	return l
}

// Hold records that the application holds a, an artifact of the ledger's
// task, as it is, at index at of the task's artifacts (the place it has in
// the application's task; past the last, it goes last): nothing is handed
// over, and what follows is judged against it, as for the artifacts of
// Resume's task. A resumed stream calls it when an artifact the
// application holds was missing from the task it was resumed from, and a
// later task lists it. Hold does nothing, and reports false, when the
// ledger knows no task or holds an artifact with a's ID already.
func (l *Ledger) Hold(a a2a.Artifact, at int) bool {
	if l.task == nil {
		return false
	}
	if held, _ := l.arts.lookup(l.task, a.ID); held != nil {
		return false
	}
	st := l.arts.add(l.task, a.Clone())
	l.arts.setCursor(st, verCurrent, len(a.Parts))
	// Moved from the end to its place: the artifacts after it, and their
	// records, one place on.
	return l.Place(a.ID, at)
}

// Apply folds one live event into the ledger. A *a2a.Task is reconciled as
// a non-authoritative snapshot; a *a2a.Message outside any task is
// deduplicated by ID but creates no task.
//
// Apply takes ownership of ev: an *a2a.ArtifactUpdate may be changed (its
// parts cut to the unseen tail, its IDs set to the task's) and yielded as
// the delta itself, which saves an allocation per event, and the parts of
// an artifact it opens or replaces are held by the ledger as they are, not
// copied.
func (l *Ledger) Apply(dst []a2a.Event, ev a2a.Event) []a2a.Event {
	switch e := ev.(type) {
	case *a2a.Task:
		return l.Reconcile(dst, e, false)
	case *a2a.StatusUpdate:
		t := l.ensureTask(e.TaskID, e.ContextID)
		if l.win.open && l.statusReplayed(&e.Status) {
			l.win.replayed()
			return dst
		}
		if len(l.win.pending) > 0 && l.statuses.newer(&e.Status) {
			dst = l.flushPending(dst, t)
		}
		// A status update that is not a replay is news: its metadata
		// folds into the task's, its values winning, even when the status
		// itself is the one held.
		foldMetadata(t, e.Metadata, true)
		return l.applyStatus(dst, t, e.Status, e.Final, e.Metadata, false, l.win.open, false)
	case *a2a.ArtifactUpdate:
		return l.applyArtifact(dst, l.ensureTask(e.TaskID, e.ContextID), e)
	case *a2a.Message:
		return l.applyMessage(dst, e)
	}
	return dst
}

// Reconcile folds a whole task into the ledger: the first event of a send, a
// snapshot after a resubscribe, or a get-task result. It yields the unseen
// agent messages of the history, then the artifacts' missing parts and the
// status if it is new, in the order a stream would have shown them: a
// status that still works (submitted, working) before the artifacts, a
// prompt (input-required, auth-required) or an ending (a terminal state)
// after them.
//
// An authoritative task (a get-task result) wins every disagreement, unless
// it lags (see lags): it is then folded as a non-authoritative one, and its
// status is not delivered. A non-authoritative one may be stale: an
// artifact of which it holds only a prefix of the parts held, or an earlier
// version, is left alone, and inside the replay window a status already
// seen is not delivered again.
func (l *Ledger) Reconcile(dst []a2a.Event, t *a2a.Task, authoritative bool) []a2a.Event {
	if authoritative && l.lags(&t.Status) {
		authoritative = false
	}
	return l.reconcile(dst, t, authoritative, authoritative)
}

// flushPending delivers the versions the replay window held: the task has
// moved on, so they were new.
func (l *Ledger) flushPending(dst []a2a.Event, t *a2a.Task) []a2a.Event {
	for _, p := range l.win.pending {
		a, st := l.arts.lookup(t, p.ID)
		if a == nil {
			continue
		}
		l.arts.replaceCurrent(st, a, p)
		dst = append(dst, &a2a.ArtifactUpdate{TaskID: t.ID, ContextID: t.ContextID, Artifact: p})
	}
	l.win.clearPending()
	return dst
}

// lags reports whether a task with status st comes from a store or a
// replica behind what was delivered: its state was seen before, and its
// timestamp is older than the newest seen. A state never seen is news,
// however old its timestamp (a server clock that went back).
func (l *Ledger) lags(st *a2a.TaskStatus) bool {
	return l.statuses.older(st) && l.statuses.sawState(st.State)
}

// ReconcileSnapshot folds the first Task of a subscription, which is the
// server's task as it is now (A2A 1.0 requires it; a2a-js sends it), as its
// store has it: a store may lag the events the client received. Unlike
// Reconcile(dst, t, false), it trusts what was never delivered: an artifact
// version the client never held is delivered as a replacement, a name,
// description or metadata value it changes is delivered, and a message may
// go back to a shorter version. What was delivered is not news: an artifact
// it holds as a strict prefix of the parts held, or in a version since
// replaced, or without a label held, lags, and the events that follow are
// taken as a replay. A truncation or a restore is delivered when it comes
// as its own event, or with a get-task result (Reconcile with authoritative
// true).
// Its status is still checked for a replay. When the task lacks an artifact
// held (artifacts are never removed), or its status is older than the
// newest status seen, or one seen before that is not the current one, the
// task is the start of a replay (the first event of a server that replays
// from the start), not the present: it is folded as Reconcile(dst, t, false)
// folds it, and the replay window stays open for the rest of the
// connection.
func (l *Ledger) ReconcileSnapshot(dst []a2a.Event, t *a2a.Task) []a2a.Event {
	st := &t.Status
	current := l.task != nil && st.State == l.task.Status.State && sameMessage(st.Message, l.task.Status.Message)
	past := l.statuses.older(st) || (!current && l.task != nil && l.statusReplayed(st)) || l.lacksArtifact(t)
	if past {
		// The start of a replay, or a store that lags: what follows on
		// this connection may be old too, even after a part that looks
		// new (a version since replaced may extend the current one).
		l.win.replayed()
	}
	return l.reconcile(dst, t, false, !past)
}

// lacksArtifact reports whether t lacks an artifact the ledger holds.
func (l *Ledger) lacksArtifact(t *a2a.Task) bool {
	if l.task == nil {
		return false
	}
	if len(t.Artifacts) < len(l.task.Artifacts) {
		return true
	}
	ids := make(map[string]struct{}, len(t.Artifacts))
	for i := range t.Artifacts {
		ids[t.Artifacts[i].ID] = struct{}{}
	}
	for i := range l.task.Artifacts {
		if _, ok := ids[l.task.Artifacts[i].ID]; !ok {
			return true
		}
	}
	return false
}

// reconcile folds a whole task. A present task is the server's task as it
// is now, not the start of a replay: its artifact versions never delivered,
// the label values it changes and its messages win. Only an authoritative
// one takes back parts or labels delivered, or goes back to a version
// replaced.
func (l *Ledger) reconcile(dst []a2a.Event, t *a2a.Task, authoritative, present bool) []a2a.Event {
	// Its metadata wins when it is the task as it is now: authoritative,
	// present, or met on a live connection and not lagging. Otherwise it
	// may be the past, and only adds keys.
	metadataWins := authoritative || present || !l.win.open && !l.lags(&t.Status)
	if !present && l.win.open && !l.Covers(t) {
		// A snapshot older than what is held: the server is replaying.
		l.win.replayed()
	}
	lt := l.ensureTask(t.ID, t.ContextID)
	if authoritative {
		// The server's task is the truth: the window and the versions it
		// held pending are moot.
		l.win.close()
	}
	foldMetadata(lt, t.Metadata, metadataWins)
	start := len(dst)
	for i := range t.Artifacts {
		dst = l.reconcileArtifact(dst, lt, i, &t.Artifacts[i], authoritative, present)
	}
	arts := len(dst) - start
	statusMsg := messageID(t.Status.Message)
	statusCopy := l.statusCopyWithoutID(t)
	statusHeld := false       // the status message has no ID, and its copy is held
	var places map[uint64]int // messages without an ID met so far, by content
	for i := range t.History {
		m := &t.History[i]
		if m.ID == "" {
			// Told apart by content and place: the k-th message of a
			// content is held when the history holds k. The status
			// message's copy travels with the status update.
			k := l.msgs.contentKey(m)
			if places == nil {
				places = map[uint64]int{}
			}
			places[k]++
			held := places[k] <= l.msgs.withoutID[k].held
			if i == statusCopy {
				statusHeld = held
			}
			if held || i == statusCopy {
				continue
			}
			l.msgs.holdWithoutID(m, false)
			lt.History = append(lt.History, *m.Clone())
			if m.Role != a2a.RoleUser {
				dst = append(dst, m)
			}
			continue
		}
		if m.ID == statusMsg {
			// The current status message travels with the status update, as
			// it does on a live stream, not as a Message of its own.
			continue
		}
		if l.msgs.known(m.ID) {
			if m.Role != a2a.RoleUser {
				dst = l.revise(dst, lt, m, l.win.open && !present)
			}
			continue
		}
		l.msgs.add(m.ID, len(lt.History))
		lt.History = append(lt.History, *m.Clone())
		if m.Role != a2a.RoleUser {
			dst = append(dst, m)
		}
	}
	msgs := len(dst) - start - arts
	checkReplay := l.lags(&t.Status) || l.win.open && !authoritative && !l.listsSentAfter(t)
	dst = l.applyStatus(dst, lt, t.Status, false, nil, checkReplay, l.win.open && !present, statusHeld)
	inStreamOrder(dst[start:], arts, msgs, t.Status.State)
	if ts := t.Status.Timestamp; !ts.IsZero() && ts.Equal(l.statuses.latest) {
		// A whole task shows one status of its instant: others the agent
		// set at that instant may never have been seen.
		l.statuses.partial = true
	}
	return dst
}

// statusCopyWithoutID returns the index in t's history of the last copy of
// t's status message when that message has no ID (a2a-js lists the status
// message in the history too), or -1.
func (l *Ledger) statusCopyWithoutID(t *a2a.Task) int {
	sm := t.Status.Message
	if sm == nil || sm.ID != "" {
		return -1
	}
	k := l.msgs.contentKey(sm)
	for i := len(t.History) - 1; i >= 0; i-- {
		if m := &t.History[i]; m.ID == "" && l.msgs.contentKey(m) == k {
			return i
		}
	}
	return -1
}

// listsSentAfter reports whether t's history lists the message the client
// sent after the current status: such a task is newer than that status, so
// its status is news even if an equal one was seen before.
func (l *Ledger) listsSentAfter(t *a2a.Task) bool {
	if l.sentAfter == "" {
		return false
	}
	for i := range t.History {
		if t.History[i].ID == l.sentAfter {
			return true
		}
	}
	return false
}

// ChangesStatus reports whether applying ev, a status update or a task,
// would change the assembled status: it differs from the status held, and
// inside the replay window it is not a replay of one seen before.
func (l *Ledger) ChangesStatus(ev a2a.Event) bool {
	var st *a2a.TaskStatus
	checkReplay := l.win.open
	switch e := ev.(type) {
	case *a2a.StatusUpdate:
		st = &e.Status
	case *a2a.Task:
		st = &e.Status
		checkReplay = checkReplay && !l.listsSentAfter(e)
	default:
		return false
	}
	if l.task == nil {
		return true
	}
	if checkReplay && l.statusReplayed(st) {
		return false
	}
	if st.State != l.task.Status.State || !sameMessage(st.Message, l.task.Status.Message) {
		return true
	}
	m := st.Message
	if m == nil || m.ID == "" {
		return false
	}
	v, _ := l.msgs.classify(m, l.task.History, l.win.open)
	return v == versionRevised
}

// Covers reports whether t holds everything the ledger holds: every
// artifact held is in t, the parts held are a prefix of t's, and t's
// artifact has every name, description and metadata key held. A snapshot
// that covers the ledger closes a gap; one that does not is stale (for
// example the first event of a server that replays from the start, or a
// store that lags), or shows a truncation that only a get-task can tell.
func (l *Ledger) Covers(t *a2a.Task) bool {
	if l.task == nil {
		return true
	}
	if len(l.task.Artifacts) > len(t.Artifacts) {
		return false
	}
	index := make(map[string]int, len(t.Artifacts))
	for i := range t.Artifacts {
		index[t.Artifacts[i].ID] = i
	}
	for i := range l.task.Artifacts {
		a := &l.task.Artifacts[i]
		j, ok := index[a.ID]
		if !ok || !isPrefix(a.Parts, t.Artifacts[j].Parts) || !labelsReach(a, &t.Artifacts[j]) {
			return false
		}
	}
	return true
}

func (l *Ledger) ensureTask(id, contextID string) *a2a.Task {
	if l.task == nil {
		l.task = &a2a.Task{ID: id, ContextID: contextID, Status: a2a.TaskStatus{State: a2a.StateUnknown}, History: l.sent}
		l.sent = nil
	}
	if l.task.ContextID == "" {
		l.task.ContextID = contextID
	}
	return l.task
}

// revise delivers m, whose ID is known, when it is a revision of the
// version held in t's history; with inWindow, a replay of an older version
// is not, and marks the replay window as replaying.
func (l *Ledger) revise(dst []a2a.Event, t *a2a.Task, m *a2a.Message, inWindow bool) []a2a.Event {
	switch v, held := l.msgs.classify(m, t.History, inWindow); v {
	case versionRevised:
		return append(dst, l.msgs.revise(t, held, m))
	case versionOld:
		l.win.replayed()
	}
	return dst
}

func messageID(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	return m.ID
}
