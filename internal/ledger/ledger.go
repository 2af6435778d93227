package ledger

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
// keeps ownership: callers must not modify it. Its artifacts hold every
// part folded so far; the parts folded after the call are in the task the
// next call returns (the same pointer, its artifacts' Parts built again).
// The cost of a call is that of the parts appended and the artifacts
// opened since the last: a caller that needs only the task's ID, context
// or status reads Known, ContextID or Status, which cost nothing.
func (l *Ledger) Task() *a2a.Task {
	if l.task != nil {
		l.arts.buildAll(l.task)
	}
	return l.task
}

// Known reports whether the ledger knows a task.
func (l *Ledger) Known() bool { return l.task != nil }

// ContextID returns the task's context ID, or "" while no task is known.
func (l *Ledger) ContextID() string {
	if l.task == nil {
		return ""
	}
	return l.task.ContextID
}

// Status returns the task's status, or nil while no task is known. The
// ledger keeps ownership: callers must not modify it.
func (l *Ledger) Status() *a2a.TaskStatus {
	if l.task == nil {
		return nil
	}
	return &l.task.Status
}

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
		l.noteStatus(&shown[i], false)
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
	if held, _ := l.arts.lookupUnbuilt(l.task, a.ID); held != nil {
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
		// The window's rules apply to its message too (an older version
		// of it is a replay), unless this connection brought the status
		// as news before: then its message is news again as well.
		inWindow := l.win.open
		if l.win.open {
			f := l.statusReplayFacts(&e.Status, true)
			if replayed, _ := decideStatusReplay(f); replayed {
				l.win.replayed()
				return l.missedInReplay(dst, t, e.Status.Message, f)
			}
			inWindow = !f.again
		}
		if len(l.win.pending) > 0 && (l.statuses.newer(&e.Status) || e.Status.State.Terminal()) {
			// The task has moved on: a status newer in time, or the
			// task's end, which a replay from the start reaches only
			// after every version the server still holds (a version
			// held pending that were old, the version the client holds
			// would have followed it and dropped it).
			dst = l.flushPending(dst, t)
		}
		// A status update that is not a replay is news: its metadata
		// folds into the task's, its values winning, even when the status
		// itself is the one held.
		foldMetadata(t, e.Metadata, true)
		return l.applyStatus(dst, t, e.Status, e.Final, e.Metadata, statusOf{update: true, inWindow: inWindow})
	case *a2a.ArtifactUpdate:
		return l.applyArtifact(dst, l.ensureTask(e.TaskID, e.ContextID), e)
	case *a2a.Message:
		return l.applyMessage(dst, e)
	}
	return dst
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

func messageID(m *a2a.Message) string {
	if m == nil {
		return ""
	}
	return m.ID
}
