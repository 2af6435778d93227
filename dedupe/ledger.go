package dedupe

import (
	"github.com/a2astream/a2astream/a2a"
)

// Ledger assembles one task from the events of all the connections of a
// stream and computes the deltas to deliver. A Ledger is not safe for
// concurrent use.
//
// Every Apply and Reconcile method appends the deltas it computed to dst and
// returns the extended slice. Deltas are *a2a.StatusUpdate,
// *a2a.ArtifactUpdate and *a2a.Message values, never *a2a.Task. They share
// part values with the ledger; callers must not modify them.
type Ledger struct {
	task     *a2a.Task
	ids      *IDSet
	statuses *IDSet
	window   bool
	cursors  map[string]int
	sent     []a2a.Message // sent before any task was known
}

// New returns an empty ledger whose message-ID set holds maxIDs IDs
// (DefaultMaxIDs when maxIDs <= 0).
func New(maxIDs int) *Ledger {
	if maxIDs <= 0 {
		maxIDs = DefaultMaxIDs
	}
	return &Ledger{ids: NewIDSet(maxIDs), statuses: NewIDSet(256), cursors: map[string]int{}}
}

// Task returns the assembled task, or nil while no task is known. The ledger
// keeps ownership: callers must not modify it.
func (l *Ledger) Task() *a2a.Task { return l.task }

// Seen reports whether a message with this ID was delivered or recorded.
func (l *Ledger) Seen(messageID string) bool { return messageID != "" && l.ids.Has(messageID) }

// OpenReplayWindow starts a replay window. Call it when a resubscribe
// succeeds.
func (l *Ledger) OpenReplayWindow() {
	l.window = true
	clear(l.cursors)
}

// InReplayWindow reports whether the replay window is open.
func (l *Ledger) InReplayWindow() bool { return l.window }

// RecordSent records a message the client sent (the user's request or a
// reply to a prompt): it joins the history and its ID is marked as seen, so
// that a server echoing it back does not deliver it.
func (l *Ledger) RecordSent(m *a2a.Message) {
	if m.ID != "" && !l.ids.Add(m.ID) {
		return
	}
	if l.task != nil {
		l.task.History = append(l.task.History, *m.Clone())
	} else {
		l.sent = append(l.sent, *m.Clone())
	}
}

// Apply folds one live event into the ledger. A *a2a.Task is reconciled as
// a non-authoritative snapshot; a *a2a.Message outside any task is
// deduplicated by ID but creates no task.
//
// Apply takes ownership of ev: an *a2a.ArtifactUpdate may be changed (its
// parts cut to the unseen tail, its IDs set to the task's) and yielded as
// the delta itself, which saves an allocation per event.
func (l *Ledger) Apply(dst []a2a.Event, ev a2a.Event) []a2a.Event {
	switch e := ev.(type) {
	case *a2a.Task:
		return l.Reconcile(dst, e, false)
	case *a2a.StatusUpdate:
		t := l.ensureTask(e.TaskID, e.ContextID)
		return l.applyStatus(dst, t, e.Status, e.Final, e.Metadata, l.window)
	case *a2a.ArtifactUpdate:
		return l.applyArtifact(dst, e)
	case *a2a.Message:
		return l.applyMessage(dst, e)
	}
	return dst
}

// Reconcile folds a whole task into the ledger: the first event of a send, a
// snapshot after a resubscribe, or a get-task result. It yields, in order,
// the artifacts' missing parts, the unseen agent messages of the history,
// then the status if it is new.
//
// An authoritative task (a get-task result) wins every disagreement. A
// non-authoritative one may be stale: an artifact of which it holds only a
// prefix of the parts held is left alone, and inside the replay window a
// status already seen is not delivered again.
func (l *Ledger) Reconcile(dst []a2a.Event, t *a2a.Task, authoritative bool) []a2a.Event {
	lt := l.ensureTask(t.ID, t.ContextID)
	if lt.Metadata == nil && t.Metadata != nil {
		lt.Metadata = t.Metadata
	}
	for i := range t.Artifacts {
		sa := &t.Artifacts[i]
		a := lt.Artifact(sa.ID)
		switch {
		case a == nil:
			lt.Artifacts = append(lt.Artifacts, sa.Clone())
			l.setCursor(sa.ID, len(sa.Parts))
			l.newContent(len(sa.Parts))
			dst = append(dst, &a2a.ArtifactUpdate{TaskID: lt.ID, ContextID: lt.ContextID, Artifact: *sa})
		case isPrefix(a.Parts, sa.Parts):
			l.setCursor(sa.ID, len(sa.Parts))
			if len(a.Parts) == len(sa.Parts) {
				continue
			}
			tail := sa.Parts[len(a.Parts):]
			a.Parts = appendClones(a.Parts, tail)
			l.newContent(len(tail))
			dst = append(dst, &a2a.ArtifactUpdate{TaskID: lt.ID, ContextID: lt.ContextID, Append: true,
				Artifact: a2a.Artifact{ID: sa.ID, Parts: tail}})
		case !authoritative && isPrefix(sa.Parts, a.Parts):
			l.setCursor(sa.ID, len(sa.Parts))
		default:
			*a = sa.Clone()
			l.setCursor(sa.ID, len(sa.Parts))
			l.newContent(len(sa.Parts))
			dst = append(dst, &a2a.ArtifactUpdate{TaskID: lt.ID, ContextID: lt.ContextID, Artifact: *sa})
		}
	}
	statusMsg := messageID(t.Status.Message)
	for i := range t.History {
		m := &t.History[i]
		if m.ID != "" && m.ID == statusMsg {
			// The current status message travels with the status update, as
			// it does on a live stream, not as a Message of its own.
			continue
		}
		if m.ID != "" && !l.ids.Add(m.ID) {
			continue
		}
		lt.History = append(lt.History, *m.Clone())
		if m.Role != a2a.RoleUser {
			dst = append(dst, m)
		}
	}
	return l.applyStatus(dst, lt, t.Status, false, nil, l.window && !authoritative)
}

// Covers reports whether t holds everything the ledger holds: every
// artifact held is in t, and the parts held are a prefix of t's. A snapshot
// that covers the ledger closes a gap; one that does not is stale (for
// example the first event of a server that replays from the start).
func (l *Ledger) Covers(t *a2a.Task) bool {
	if l.task == nil {
		return true
	}
	for i := range l.task.Artifacts {
		a := &l.task.Artifacts[i]
		sa := t.Artifact(a.ID)
		if sa == nil || !isPrefix(a.Parts, sa.Parts) {
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

func (l *Ledger) applyStatus(dst []a2a.Event, t *a2a.Task, st a2a.TaskStatus, final bool, md map[string]any, checkReplay bool) []a2a.Event {
	key := statusKey(&st)
	if checkReplay && l.statuses.Has(key) {
		return dst
	}
	if st.State == t.Status.State && messageID(st.Message) == messageID(t.Status.Message) {
		return dst
	}
	l.statuses.Add(key)
	out := st
	if m := st.Message; m != nil {
		if m.ID != "" && !l.ids.Add(m.ID) {
			out.Message = nil
		} else {
			t.History = append(t.History, *m.Clone())
		}
	}
	t.Status = st
	return append(dst, &a2a.StatusUpdate{TaskID: t.ID, ContextID: t.ContextID, Status: out, Final: final, Metadata: md})
}

func (l *Ledger) applyArtifact(dst []a2a.Event, u *a2a.ArtifactUpdate) []a2a.Event {
	t := l.ensureTask(u.TaskID, u.ContextID)
	u.TaskID, u.ContextID = t.ID, t.ContextID
	id := u.Artifact.ID
	parts := u.Artifact.Parts
	a := t.Artifact(id)
	if a == nil {
		// An append to an artifact never seen is delivered as a new artifact,
		// so that applying the deltas still reproduces the ledger.
		t.Artifacts = append(t.Artifacts, u.Artifact.Clone())
		l.setCursor(id, len(parts))
		l.newContent(len(parts))
		u.Append = false
		return append(dst, u)
	}
	if !u.Append {
		if l.window && isPrefix(parts, a.Parts) {
			l.setCursor(id, len(parts))
			return dst
		}
		if partsEqual(parts, a.Parts) {
			return dst
		}
		*a = u.Artifact.Clone()
		l.newContent(len(parts))
		return append(dst, u)
	}
	start := 0
	if l.window {
		// Without an anchor (an append:false or a snapshot seen in this
		// window), a replay of this artifact starts from its first part: an
		// agent may open an artifact with append:true. Against a server that
		// resends nothing, a new part equal to a held one is skipped here,
		// and the get-task that closes every such gap appends it back.
		c := l.cursors[id]
		for start < len(parts) && c < len(a.Parts) && parts[start].Equal(&a.Parts[c]) {
			start++
			c++
		}
		l.cursors[id] = c
		if start == len(parts) {
			return dst
		}
	}
	tail := parts[start:]
	a.Parts = appendClones(a.Parts, tail)
	l.newContent(len(tail))
	u.Artifact.Parts = tail
	return append(dst, u)
}

func (l *Ledger) applyMessage(dst []a2a.Event, m *a2a.Message) []a2a.Event {
	if m.ID != "" && !l.ids.Add(m.ID) {
		return dst
	}
	if l.task != nil {
		l.task.History = append(l.task.History, *m.Clone())
	}
	return append(dst, m)
}

// newContent closes the replay window once n > 0 new parts were delivered.
func (l *Ledger) newContent(n int) {
	if n > 0 {
		l.window = false
	}
}

func (l *Ledger) setCursor(id string, n int) {
	if l.window {
		l.cursors[id] = n
	}
}

func statusKey(st *a2a.TaskStatus) string {
	return string(st.State) + "\x00" + messageID(st.Message)
}

func messageID(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	return m.ID
}

func isPrefix(p, q []a2a.Part) bool {
	if len(p) > len(q) {
		return false
	}
	for i := range p {
		if !p[i].Equal(&q[i]) {
			return false
		}
	}
	return true
}

func partsEqual(p, q []a2a.Part) bool { return len(p) == len(q) && isPrefix(p, q) }

func appendClones(dst, src []a2a.Part) []a2a.Part {
	for i := range src {
		dst = append(dst, src[i].Clone())
	}
	return dst
}
