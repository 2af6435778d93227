// Package dedupe holds the exactly-once ledger of a stream.
//
// A2A has no sequence numbers: after a reconnect a server may send nothing
// it sent before (a2a-go), a snapshot of the whole task first (a2a-js and the
// 1.0 rule), or every event again from the start. The [Ledger] turns
// whatever arrives into deltas, so that the application sees each message
// and each artifact part once and in order.
//
// The ledger is the assembled task itself: its artifacts are exactly those
// an application has built by folding the deltas yielded so far with
// [a2a.Task.Apply], the fold the ledger uses too.
// Around it the ledger keeps:
//
//   - the ID of every message delivered or recorded, covering Message
//     events, status messages and history in snapshots. It is not capped:
//     every such message is in the assembled history anyway, and a capped
//     set turns an overflow into a redelivery of the whole history;
//   - for messages without an ID, how many of each content (role and
//     parts) the assembled history holds: a task's history that lists them
//     again is matched by place, so that a poll delivers none of them twice
//     while the same text said twice stays two messages;
//   - a status cursor: the newest status timestamp seen, and the statuses
//     without a message ID, used to recognise replayed status updates. A
//     whole task shows only the last status of its instant, so once the
//     newest instant was learnt from one, a status at that instant the
//     ledger never saw is judged by its message, as a status without a
//     timestamp is;
//   - per artifact, an index entry, one replay cursor, and the part hashes
//     of the versions an append:false replaced (at most 65,536 an artifact),
//     so that a replay of a replaced version is recognised.
//
// Memory is therefore the size of the assembled task plus a map entry per
// message (per distinct content for messages without an ID) and artifact,
// and 8 bytes per replaced part.
//
// The replay window opens when the stream resubscribes and closes at the
// first new part. Inside it an append:false whose parts are a prefix of the
// parts held is a replay: it sets the artifact's cursor and yields nothing,
// and append:true parts are skipped while each equals the held part at the
// cursor. An append:false that matches a replaced version is a replay
// too, and sets the cursor in that version. Outside the window
// append:false replaces the artifact.
//
// A Task (a first event, a snapshot or a get-task result) is reconciled
// against the ledger: unknown artifacts are delivered whole, an unseen tail
// is delivered as an append, and parts that disagree with what is held are
// healed with a single append:false replacement carrying the server's whole
// artifact. That replacement is the only case in which parts are delivered
// twice, and it happens only when a server that resends nothing (live-only)
// left a gap, or when the agent truncated an artifact or restored an
// earlier version of it while the client was away: a task that holds fewer
// parts than were delivered, or a version since replaced, is taken for one
// that lags unless it is authoritative (a store may lag its event bus), so
// only the get-task that closes the gap delivers such a change.
//
// A whole task does not say in which order its changes happened; its
// deltas come in the order a stream most likely showed them: the history's
// new messages first, then a status that still works (submitted, working)
// before the artifacts' deltas, and a prompt (input-required,
// auth-required) or an ending (a terminal state) after them.
//
// The task's metadata is folded from the metadata of every status update
// and every Task, key by key: a later value wins, and no key is taken away
// (the status message keeps its own metadata). A status update recognised
// as a replay folds nothing. A Task that may be the past (one inside the
// replay window that is not the server's current task, or a get-task
// result that lags) only adds the keys the ledger lacks. Folding an event
// twice changes nothing, so a redelivery cannot break exactly-once. A
// status update that changes only metadata is not delivered again: Task
// holds its metadata.
//
// # A ledger in your own client
//
// Package stream drives a ledger for each stream; a client of another
// transport can drive one the same way. Record what the client sends
// ([Ledger.RecordSent]) and fold every event of every connection with
// [Ledger.Apply]. When a resubscribe succeeds, open the replay window
// ([Ledger.OpenReplayWindow]) and fold the subscription's first Task with
// [Ledger.ReconcileSnapshot]; when a connection that replays nothing starts
// (the stream of a reply), close it ([Ledger.CloseReplayWindow]). A get-task
// result closes a gap: fold it with [Ledger.Reconcile] as authoritative.
//
// A stream resumed from a checkpoint starts from [Resume]: a ledger seeded
// with the task as the application holds it, which it never delivers.
package dedupe
