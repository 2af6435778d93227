package dedupe

import (
	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/ledger"
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
	l *ledger.Ledger
}

// New returns an empty ledger.
func New() *Ledger { return &Ledger{l: ledger.New()} }

// Resume returns a ledger for a stream resumed from a checkpoint: it holds
// t, the task as the application holds it, folded without delivering
// anything. delivered lists the IDs of messages the application was handed
// that t does not hold (a server that keeps no status messages in its
// history): they are never delivered again, nor a later version of them.
// shown lists the statuses the application was shown at the newest time it
// was shown one, and those without a timestamp: a replay of one of them is
// recognised.
func Resume(t *a2a.Task, delivered []string, shown []a2a.TaskStatus) *Ledger {
	return &Ledger{l: ledger.Resume(t, delivered, shown)}
}

// Task returns the assembled task, or nil while no task is known. The ledger
// keeps ownership: callers must not modify it. Later events change it in
// place, but the parts they append and the artifacts they open reach it
// only when Task is called again: call Task again after them, and Clone it
// to keep it. Its cost is that of copying the parts appended and the
// artifacts opened since the last call.
func (l *Ledger) Task() *a2a.Task { return l.l.Task() }

// RecordSent records a message the client sent (the user's request or a
// reply to a prompt): it joins the history and its ID is marked as seen, so
// that a server echoing it back does not deliver it.
func (l *Ledger) RecordSent(m *a2a.Message) { l.l.RecordSent(m) }

// Apply folds one live event into the ledger and appends the deltas it
// yields to dst. A *a2a.Task is reconciled as a task that may be stale; a
// *a2a.Message outside any task is deduplicated by ID but creates no task.
//
// Apply takes ownership of ev: an *a2a.ArtifactUpdate may be changed (its
// parts cut to the unseen tail, its IDs set to the task's) and yielded as
// the delta itself, and the parts of an artifact it opens or replaces are
// held by the ledger as they are, not copied.
func (l *Ledger) Apply(dst []a2a.Event, ev a2a.Event) []a2a.Event { return l.l.Apply(dst, ev) }

// Reconcile folds a whole task into the ledger (the first event of a send,
// or a get-task result) and appends the deltas it yields to dst: the unseen
// agent messages of the history, then the artifacts' missing parts and the
// status if it is new, in the order a stream would have shown them.
//
// An authoritative task (a get-task result) wins every disagreement, unless
// it lags the statuses delivered (a store behind its event bus): it is then
// folded as a task that may be stale, and its status is not delivered. A
// task that may be stale leaves alone an artifact of which it holds only a
// prefix of the parts held, or an earlier version.
func (l *Ledger) Reconcile(dst []a2a.Event, t *a2a.Task, authoritative bool) []a2a.Event {
	return l.l.Reconcile(dst, t, authoritative)
}

// ReconcileSnapshot folds the first Task of a subscription (the server's
// task as its store has it, which A2A 1.0 requires and a2a-js sends) and
// appends the deltas it yields to dst. It trusts what was never delivered:
// an artifact version, a label value or a message version the client never
// held is delivered. What was delivered is not news: a task that holds less
// than was delivered lags, and the events that follow on the connection are
// taken as a replay. A task whose status is older than one delivered, or
// that lacks an artifact delivered, is the start of a replay: it is folded
// as Reconcile(dst, t, false) folds it.
func (l *Ledger) ReconcileSnapshot(dst []a2a.Event, t *a2a.Task) []a2a.Event {
	return l.l.ReconcileSnapshot(dst, t)
}

// OpenReplayWindow starts a replay window. Call it when a resubscribe
// succeeds: what the server sends again is recognised inside it.
func (l *Ledger) OpenReplayWindow() { l.l.OpenReplayWindow() }

// CloseReplayWindow ends the replay window. Call it when a connection that
// replays nothing starts, such as the stream of a reply.
func (l *Ledger) CloseReplayWindow() { l.l.CloseReplayWindow() }
