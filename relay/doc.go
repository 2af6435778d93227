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
//   - [Run] is what each replica runs for a stream: the replica that holds
//     the stream's lease ([Lease.Acquire]) drives it, renewing the lease; the
//     others wait, and one of them takes the stream over, from the log's
//     checkpoint, when the driver dies.
//   - [Drive] runs one stream, which it opens from a [Source]: [Send]
//     starts it with a message, or it is resumed from the log's checkpoint
//     ([Resume] only resumes). Drive calls the client itself, so the relay's
//     own options (its human-input hook among them) cannot be lost. It
//     appends the entries of each delta to the log, with the stream's
//     checkpoint after it, numbered from the log's tail plus one; it
//     answers the agent's questions with the answers browsers post, cancels
//     the task when asked, and appends one last entry when the stream ends.
//     Its writes carry the lease's [Fence].
//   - [Handler] serves the log to browsers: GET for the events, POST for
//     answers and cancel. Any replica's Handler serves any stream whose log
//     its Store reaches.
//   - [MemoryStore] is the Store of one process, which needs nothing
//     installed. A Store shared by replicas (Redis, in the nested module
//     relay/redisrelay) lets them serve each other's streams.
//   - [View] is what a browser shows: the fold of the events. A snapshot
//     is a View as JSON.
//
// [NewHandler], [NewMemoryStore], [Drive] and [Run] check their options
// before they do anything: a bad value is refused with an error that wraps
// [ErrInvalidOption], never clamped or ignored.
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
// completed, or the agent answered with a message) or [EventFailure] (with a
// kind: failed, rejected, canceled, auth-required, no-answer,
// connection-lost, agent-error, http-error, protocol-error, stopped,
// unresumable or error), and a text for people that names no address of
// the agent; the driver logs the whole error ([WithLogger]). The Handler
// ends the response after it.
//
// Long text, a person's answer to a question included, is cut into
// entries of at most 16 KiB of text ([WithChunkSize]) that append to the
// same pane, so no entry, and no reader's page of entries, grows with the
// answer.
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
// tail ("ahead"), or when the entries after it were trimmed ("trimmed").
// The snapshot and the first page of entries after it are read in one
// atomic step ([Snapshots.Attach]): no trim, and no newer snapshot the driver
// saves meanwhile, comes between them, so the entries start right after
// the snapshot and the reader is sent away once. A page shows the snapshot's screen in place of what it showed, then applies
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
// browsers' IDs are caught as foreign. A store that lost a log lost its
// checkpoint with it, and no driver can resume the stream: a browser that
// comes back with an ID to a log with neither an entry nor a checkpoint
// gets EventGone of reason "lost", then an [EventFailure] of kind "lost",
// which ends its page (it is served by the Handler, not kept in the log).
//
// The readers of one stream that a Handler serves wait for its next
// entries, and read them, together: per stream and process, one wait on
// the store (Log.AwaitEntry) and one Read of each new page of entries,
// however many browsers follow the stream. The Handler keeps the newest
// entries of each stream in memory and hands every reader its page from
// there: four pages of [WithPageSize] entries (256 in all by default), at most
// 1 MiB of their names and data per stream, at most 64 MiB over all the
// streams of a Handler; the last reader of a stream to leave frees them.
// A reader's first page is read from the store by the reader itself, as
// are the pages of a reader behind what the Handler keeps (one that
// resumes from an old Last-Event-ID, or reads slower than the stream
// grows). No reader waits for another, but for the store: a Handler makes
// at most a few calls to its store at once (WithStoreCalls, 5 per CPU by
// default), and the reads beyond wait their turn in the process, so that
// a crowd reconnecting, or reading a long stream from far back, never
// takes the connections the drivers of the same process need for their
// commits and lease renewals. When a stream grows, its readers
// are woken a few at a time, as many as GOMAXPROCS, each passing its turn
// on once it took its page, before it writes: ten thousand readers woken at
// once would queue ahead of everything else the process runs, the driver's
// next Commit among them. A reader woken late takes everything new at
// once, a page at a time, so the readers of a busy stream write fewer,
// larger pages.
//
// A browser that stops reading holds at most one page of entries, with
// those entries as written for it (the page goes out in one write for each 32 KiB), and
// for no longer than the write timeout ([WithWriteTimeout], 30 s): the write
// that it stopped taking then fails, and the Handler ends the response
// and closes the connection. When it comes back it resumes with
// Last-Event-ID as any other.
//
// # Answers and cancel
//
// A question's prompt is the Seq of its EventInput. A browser answers with
// a POST of {"prompt", "text"} and an Idempotency-Key header, and may add
// "epoch", the epoch of the question's event ID: a log made afresh numbers
// its prompts from 1 again, and an answer naming another epoch gets 410
// with nothing stored. The store keeps the first answer to each prompt
// ([Mailbox.PostAnswer]), so the agent gets one answer whichever replica's
// Handler received it, and whatever the retries: the same key gets 200
// again, another key 409 with the answer held, also once the question's
// entry is trimmed ([Mailbox.LoadAnswer]). A POST to cancel records the
// request ([Mailbox.RequestCancel]); the driver, wherever it runs, cancels the
// task, and the stream ends as the task does. A browser that disconnects
// cancels nothing.
//
// Both posts are JSON (application/json, 415 otherwise) from the page's own
// origin: a post that a browser marks as coming from another origin
// (Sec-Fetch-Site, or Origin) gets 403, unless the application trusts that
// origin ([WithTrustedOrigins]). Neither records anything, so another site
// cannot answer or cancel for a user who visits it.
//
// # Taking a stream over
//
// Drive commits the entries of each delta and the stream's checkpoint
// after it in one [Entries.Commit]: the log and the checkpoint never disagree,
// whenever the driver dies. Before the stream sends the reply to a
// question, Drive commits the answered entry with the checkpoint that marks
// the reply as possibly sent ([stream.WithCheckpointBeforeReply]).
//
// [Run] takes the lease when it is free (it tries every ttl/10; the lease
// is 5 s by default, [WithLease]), and renews it every ttl/3; a driver that
// cannot renew stops driving at once, and one paused past its lease (a
// zombie) gets [ErrStale] at its next write, which writes nothing. The
// replica that takes a stream over resumes it from the log's checkpoint
// ([stream.Client.Resume], with the client and options of its [Source]) and numbers its
// entries after the log's tail: the resumed stream hands over exactly what
// the checkpoint does not hold, so every delta reaches the log once. The
// first entry of a pane adds to it or replaces it as the event says
// (Append of an artifact update, Extends of a message revision), so a pane
// the browsers show is extended, not wiped. A question the log shows open
// (its EventInput has no EventAnswered after it) that the resumed stream
// asks again keeps its prompt, matched by [InputData.Question]: no second
// EventInput, and an answer posted while no replica drove is applied at
// once. With a 5 s lease, the replica that takes over appends its first
// entry within 6 s of the driver's death at p99 (the figures are in
// RELIABILITY.md).
//
// # Tracing
//
// WithTrace gives Run, Drive or NewHandler a Trace, whose functions are
// told of the lease won, renewed, lost and released, of each commit to the
// log, and of each browser's reader attached, sent away and done: for a
// tool that traces or measures the relay (docs/trace.md lists each).
//
// # Push notifications across replicas
//
// A stream driven with [stream.WithPush] registers its push config with a
// [push.Receiver] of the replica that drives it, and the agent POSTs to
// whichever replica its request lands on. Give every replica's Receiver
// the same share, [push.WithShare]: a [MemoryStore] is one (for replicas
// in one process, and tests), and so is the store of relay/redisrelay. A
// notification that lands on another replica is checked there against
// the registration's shared record (the token's digest, the task) and
// rings the driving replica's registration, whose stream fetches the task
// at once instead of at its safety poll. The checkpoint Drive commits with
// each delta names the stream's registration once its push config is
// registered, so a takeover adopts it (push.Receiver.Adopt): the replica
// that resumes the stream holds the registration from then on, and
// registers no new push config with the agent. The old driver, if it still
// runs, deletes nothing when it closes its stream, and a notification that
// reaches it rings the new driver's stream. A takeover before the first
// delta after the registration (its checkpoint names none yet), or one
// whose replica cannot adopt it (its record expired: the old driver died
// longer than push.WithShareTTL ago), registers anew at its first poll
// wait, and the old record expires.
//
// # Limits
//
// A driver that dies before its stream knew the task (no checkpoint names
// one) cannot be resumed: its message may have reached the agent, and is
// never sent again. Before it starts a stream, Run stores the checkpoint of a
// stream that knows no task (the slot holds nothing but stream
// checkpoints), and the replica that takes such a log over appends an EventFailure
// of kind "unresumable" (as it does for a checkpoint that does not parse).
// A watcher (Run with a Source of [Resume]) cannot tell a starter that died before
// its first write from one that has not started yet: on a log with neither
// a checkpoint nor an entry it waits, leaving the lease free, for at most
// [WithStartWait] (30 s), then returns [ErrNotStarted] and appends nothing.
//
// [Drive] alone does not renew its lease: its caller does, and stops it
// when the lease is lost. Drive resumes a stream whose log's checkpoint
// names its task, as Run does; unlike Run, it does not mark a start, so a
// Drive that died before its stream knew its task leaves a log another
// Drive of a Source of [Send] sends the message to again.
//
// Each delta is one Commit, whatever its size: an artifact chunk of many
// megabytes is held by the driver whole (the stream holds it already) and
// written in one call.
package relay
