package ledger

import "github.com/a2astream/a2astream/a2a"

// A whole task (the first event of a send, a Task event, a subscription's
// first task, a get-task result) is folded in three stages: what the task
// is, decided here when it arrives; then each of its artifacts
// (artifact_reconcile.go) and each message of its history
// (history_reconcile.go); then its status (status_apply.go), whether it is
// checked for a replay decided here, after the artifacts, since a new part
// may have closed the window.
//
// taskFacts gathers what the ledger knows of the task, decideTask says what
// it is, and reconcile acts on that. "Lags" is a status seen before (its
// state) and older than the newest seen: a store or a replica behind what
// was delivered. An authoritative task wins every disagreement; a present
// one is the server's task as it is now, whose artifact versions never
// delivered, label values and messages win; any other may be the past. The
// decision, row by row (the first row that fits wins):
//
//	reason           | facts                                                     | verdict
//	-----------------+-----------------------------------------------------------+--------------------------------------------------------
//	result           | a get-task result that does not lag                       | authoritative and present: the window closes; its
//	                 |                                                           | metadata wins
//	snapshot past    | a subscription's first task whose status is older than    | the start of a replay, or a store that lags: the window
//	                 | the newest seen, or not the status held and a replay of   | replays (and stays open for the connection); its
//	                 | one seen (decideStatusReplay), or that lacks an artifact  | metadata wins only when the window is closed and it
//	                 | held (artifacts are never removed)                        | does not lag
//	snapshot present | any other first task of a subscription                    | present: its metadata wins
//	stale            | any other task (a Task event, a get-task result that      | the window replays; its metadata only adds keys
//	                 | lags), the window open, not covering the ledger (Covers)  |
//	whole task       | any other                                                 | its metadata wins when the window is closed and it
//	                 |                                                           | does not lag; otherwise it only adds keys
//
// Its status, once its artifacts and history are folded:
//
//	reason  | facts                                                              | verdict
//	--------+--------------------------------------------------------------------+----------------------------
//	lags    | its status lags                                                    | checked for a replay
//	window  | the window open, not authoritative, and its history not listing    | checked for a replay
//	        | the message the client sent after the status held (listsSentAfter) |
//	news    | any other                                                          | taken as it is
//
// A message version, in the history or the status, is classified inside
// the window when the window is open and the task is not present.

// taskKind says how a whole task reached the ledger.
type taskKind uint8

const (
	taskEvent    taskKind = iota // a first event, a Task event, or a task the caller does not vouch for (Reconcile, not authoritative)
	taskResult                   // a get-task result (Reconcile, authoritative)
	taskSnapshot                 // the first task of a subscription (ReconcileSnapshot)
)

// taskFacts is what the ledger knows of a whole task when it arrives.
// Facts no row can read are left zero.
type taskFacts struct {
	kind taskKind
	lags bool // its status lags
	open bool // the replay window is open

	// A snapshot: its status older than the newest seen, a task known
	// whose status it is (state and message), its status a replay, and
	// the task lacking an artifact held.
	older, task, current, replayed, lacks bool

	covers bool // not a snapshot nor a result that is believed, the window open: Covers
}

// taskVerdict is what decideTask makes of a whole task.
type taskVerdict struct {
	reason        string
	authoritative bool // it wins every disagreement; the window closes
	present       bool // the server's task as it is now
	replayed      bool // the window replays
	metadataWins  bool // its metadata values win over those held; otherwise it only adds keys
}

// decideTask is the first table in this file's comment. It is pure: it
// reads the facts only.
func decideTask(f taskFacts) taskVerdict {
	switch {
	case f.kind == taskResult && !f.lags:
		return taskVerdict{reason: "result", authoritative: true, present: true, metadataWins: true}
	case f.kind == taskSnapshot && (f.older || f.task && !f.current && f.replayed || f.lacks):
		return taskVerdict{reason: "snapshot past", replayed: true, metadataWins: !f.open && !f.lags}
	case f.kind == taskSnapshot:
		return taskVerdict{reason: "snapshot present", present: true, metadataWins: true}
	case f.open && !f.covers:
		return taskVerdict{reason: "stale", replayed: true}
	}
	return taskVerdict{reason: "whole task", metadataWins: !f.open && !f.lags}
}

// taskStatusFacts is what the ledger knows of a whole task's status once
// its artifacts and history are folded.
type taskStatusFacts struct {
	lags           bool // its status lags
	open           bool // the replay window is open
	authoritative  bool // the task is authoritative
	listsSentAfter bool // its history lists the message the client sent after the status held
}

// checksStatus is the second table in this file's comment: whether a
// whole task's status is checked for a replay, and its row's reason. It is
// pure: it reads the facts only.
func checksStatus(f taskStatusFacts) (check bool, reason string) {
	switch {
	case f.lags:
		return true, "lags"
	case f.open && !f.authoritative && !f.listsSentAfter:
		return true, "window"
	}
	return false, "news"
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
	kind := taskEvent
	if authoritative {
		kind = taskResult
	}
	return l.reconcile(dst, t, kind)
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
	return l.reconcile(dst, t, taskSnapshot)
}

// taskFacts gathers the facts of t, a whole task that reached the ledger as
// kind says, in one pass.
func (l *Ledger) taskFacts(t *a2a.Task, kind taskKind) taskFacts {
	st := &t.Status
	f := taskFacts{kind: kind, lags: l.lags(st), open: l.win.open}
	switch {
	case kind == taskSnapshot:
		f.task = l.task != nil
		f.current = f.task && st.State == l.task.Status.State && sameMessage(st.Message, l.task.Status.Message)
		f.older = l.statuses.older(st)
		if !f.older && f.task && !f.current {
			f.replayed = l.statusReplayed(st, false)
		}
		if !f.older && !f.replayed {
			f.lacks = l.lacksArtifact(t)
		}
	case kind == taskResult && !f.lags:
	case f.open:
		f.covers = l.Covers(t)
	}
	return f
}

// reconcile folds t, a whole task that reached the ledger as kind says. It
// is the only code of the task's own stage that changes the ledger; its
// artifacts, messages and status are folded by their own tables.
func (l *Ledger) reconcile(dst []a2a.Event, t *a2a.Task, kind taskKind) []a2a.Event {
	if l.task != nil {
		l.arts.buildAll(l.task)
	}
	v := decideTask(l.taskFacts(t, kind))
	if v.replayed {
		// What follows on this connection may be old too, even after a
		// part that looks new (a version since replaced may extend the
		// current one).
		l.win.replayed()
	}
	lt := l.ensureTask(t.ID, t.ContextID)
	if v.authoritative {
		// The server's task is the truth: the window and the versions it
		// held pending are moot.
		l.win.close()
	}
	foldMetadata(lt, t.Metadata, v.metadataWins)
	start := len(dst)
	for i := range t.Artifacts {
		dst = l.reconcileArtifact(dst, lt, i, &t.Artifacts[i], v.authoritative, v.present)
	}
	arts := len(dst) - start
	// A new part may have closed the window.
	inWindow := l.win.open && !v.present
	dst, statusHeld := l.reconcileHistory(dst, lt, t, inWindow)
	msgs := len(dst) - start - arts
	check, _ := checksStatus(taskStatusFacts{lags: l.lags(&t.Status), open: l.win.open, authoritative: v.authoritative,
		listsSentAfter: l.win.open && !v.authoritative && l.listsSentAfter(t)})
	dst = l.applyStatus(dst, lt, t.Status, false, nil, statusOf{checkReplay: check, inWindow: inWindow, heldCopy: statusHeld})
	inStreamOrder(dst[start:], arts, msgs, t.Status.State)
	if ts := t.Status.Timestamp; !ts.IsZero() && ts.Equal(l.statuses.latest) {
		// A whole task shows one status of its instant: others the agent
		// set at that instant may never have been seen.
		l.statuses.partial = true
	}
	return dst
}

// lags reports whether a task with status st comes from a store or a
// replica behind what was delivered: its state was seen before, and its
// timestamp is older than the newest seen. A state never seen is news,
// however old its timestamp (a server clock that went back).
func (l *Ledger) lags(st *a2a.TaskStatus) bool {
	return l.statuses.older(st) && l.statuses.sawState(st.State)
}

// lacksArtifact reports whether t lacks an artifact the ledger holds.
func (l *Ledger) lacksArtifact(t *a2a.Task) bool {
	if l.task == nil {
		return false
	}
	l.arts.buildAll(l.task) // every artifact in Artifacts (nothing to do after reconcile's)
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
	l.arts.buildAll(l.task)
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
