// Package relay turns one A2A task's stream into a Server-Sent Events
// endpoint for browsers that resume exactly once, from any replica, with
// Last-Event-ID.
//
// Events go to an append-only [Log] kept by a [Store]; the store also holds
// what replicas share about a stream: the lease that says which replica
// drives it upstream, its checkpoint, a snapshot for readers that come back
// too late, the answers to prompts and the request to cancel.
//
// # The parts
//
//   - [Drive] runs one stream (a [stream.Stream] it starts) and appends an
//     entry to the log for each delta, numbered from the log's tail plus
//     one; it answers the agent's questions with the answers browsers post,
//     cancels the task when asked, and appends one last entry when the
//     stream ends. Only the holder of the stream's lease ([Log.Acquire])
//     drives it; its writes carry the lease's [Fence].
//   - [Handler] serves the log to browsers: GET for the events, POST for
//     answers and cancel. Any replica's Handler serves any stream whose log
//     its Store reaches.
//   - [MemoryStore] is the Store of one process, which needs nothing
//     installed. A Store shared by replicas (Redis, in the nested module
//     relay/redisrelay) lets them serve each other's streams.
//   - [Screen] is what a browser shows: the fold of the events. A snapshot
//     is a Screen as JSON.
//
// # The events
//
// Each entry is one SSE event: its name is the entry's Name and its data
// one line of JSON, the payload named at the Event constants. [EventStatus]
// sets the task's state; [EventArtifact] and [EventMessage] write text to a
// pane (an artifact, a message, a status message), adding to it when
// "append" is true and replacing it otherwise; [EventInput] asks a question,
// which [EventAnswered] closes with the answer applied, shown in a pane
// "answer:<prompt>"; [EventNotice] tells of a reconnect upstream and is not
// part of the screen. The stream ends with exactly one [EventEnd] (the task
// completed, or the agent answered with a message) or [EventError] (with a
// kind: failed, rejected, canceled, auth-required, no-answer,
// connection-lost, agent-error, http-error, protocol-error, stopped or
// error). The Handler ends the response after it.
//
// Long text is cut into entries of at most 16 KiB of text
// ([WithChunkSize]) that append to the same pane, so no entry, and no
// reader's page of entries, grows with the answer.
//
// # Event IDs and resuming
//
// An event's ID is "<epoch>-<seq>" ([ID]): the log's epoch and the entry's
// Seq, 1 for the first entry and one more for each. A browser that
// reconnects with Last-Event-ID (EventSource does so on its own; on a
// first connection a page may pass the lastEventId query parameter) gets
// exactly the events after it, read from the log in pages, then the live
// ones. One whose ID is the stream's last event gets 204 No Content, which
// tells EventSource to stop.
//
// When the events after the ID cannot be replayed, the reader is never
// moved silently to the live events, nor given a part of them: it gets
// [EventGone] first, whose data ([GoneData]) carries the log's snapshot and
// a reason, then every entry after the snapshot. This happens when the ID
// does not parse ("unparsable"), names another epoch ("epoch": the log was
// lost and made afresh, or the ID is of another stream), is past the log's
// tail ("ahead"), or when the entries after it were trimmed ("trimmed"). A
// page shows the snapshot's screen in place of what it showed, then applies
// the events that follow: the screen is then exactly the screen of a page
// that saw every event. The gone event's ID is the snapshot's, so a
// reconnect after it resumes after the snapshot.
//
// # What is kept, and what is trimmed
//
// Drive saves a snapshot of the screen after every 1024 entries, or when
// the entries since the last one hold 1 MiB or as much as that snapshot
// ([WithSnapshotEvery]), as long as the screen is at most 1 MiB
// ([WithMaxSnapshot]). After saving one it trims the log through the
// snapshot before ([WithoutTrim]): the log keeps at least the entries of
// the last interval between snapshots, and a browser that fell further
// behind gets EventGone. A MemoryStore may trim sooner, to a byte bound
// ([WithRetention]), but never past the snapshot: a log always holds the
// snapshot and every entry after it, so gone is always followed by a
// complete replay. For a screen past WithMaxSnapshot, no snapshot is saved,
// and the log keeps every entry after the last one: the store, not the
// relay, holds the answer.
//
// A MemoryStore keeps its logs until [MemoryStore.Delete]; they are lost
// with the process, and a log opened again then has a new epoch, so the
// browsers' IDs are caught as foreign.
//
// # Answers and cancel
//
// A question's prompt is the Seq of its EventInput. A browser answers with
// a POST of {"prompt", "text"} and an Idempotency-Key header; the store
// keeps the first answer to each prompt ([Log.PostAnswer]), so the agent
// gets one answer whichever replica's Handler received it, and whatever the
// retries: the same key gets 200 again, another key 409 with the answer
// held. A POST to cancel records the request ([Log.RequestCancel]); the
// driver, wherever it runs, cancels the task, and the stream ends as the
// task does. A browser that disconnects cancels nothing.
//
// # Limits
//
// Drive does not renew its lease: the caller does, and stops Drive (its
// context) when the lease is lost; a write after another replica took the
// lease fails with [ErrStale] and Drive returns it, having appended no
// ending. When Drive's context ends before the stream does, it appends no
// ending either: the stream is left for another driver to take over. A
// driver that takes a stream over starts its stream anew (a StartFunc that
// subscribes to the task, say) and numbers its entries after the log's
// tail; the first event of each pane in its stream replaces what that pane
// showed, so text the browsers saw is replaced rather than repeated, but
// nothing is deduplicated against what the old driver appended: resuming
// from the stream's checkpoint is the next step.
package relay
