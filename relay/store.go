package relay

import (
	"context"
	"errors"
	"time"
)

// Entry is one event of a relayed stream as a log holds it: one SSE event
// for the browser.
type Entry struct {
	// Seq is the entry's place in its log: 1 for the first, then each
	// entry one more than the one before. The SSE event ID is built from
	// it and the log's epoch (see ID).
	Seq uint64
	// Name is the SSE event's name.
	Name string
	// Data is the SSE event's data: one JSON value, without a newline.
	Data []byte
}

// Fence proves that its holder drives a stream upstream: it was handed out
// by Log.Acquire, and every later Acquire by another owner hands out a
// higher Term. A write made with a fence that is no longer the newest
// fails with ErrStale, whatever the clock of the writer says.
type Fence struct {
	Owner string // who acquired it, as given to Acquire
	Term  uint64 // 1 for the first acquisition of a log, then one more each time
}

// Snapshot is what a browser shows after the entries up to Seq, as one
// JSON value: where a reader starts again when the events it missed were
// trimmed or come from another epoch.
type Snapshot struct {
	Seq  uint64
	Data []byte
}

// Answer is a person's reply to a prompt, as posted by a browser.
type Answer struct {
	Prompt uint64 // the Seq of the entry that asked
	Key    string // the idempotency key the browser sent with it
	Text   string
}

// Store holds the logs of relayed streams. A Store is safe for concurrent
// use, by many replicas when it is shared (the Redis store is).
type Store interface {
	// Open returns the log of the stream with this key, creating an
	// empty one, with a new epoch, when the store holds none.
	Open(ctx context.Context, key string) (Log, error)
}

// Log is the append-only log of one relayed stream, with what the replicas
// that serve it share: the lease that says which one drives the stream
// upstream, its checkpoint, the answers to prompts and the request to
// cancel. It is its five concerns together; a Log is safe for concurrent
// use. A store's Log is checked whole by package relay/storetest.
type Log interface {
	Entries
	Snapshots
	Lease
	Checkpoints
	Mailbox
}

// Entries is a Log's entries: the events of its stream, in order. (A Log's
// blocking calls are named Await and what they wait for: AwaitEntry,
// AwaitAnswer, AwaitCancel.)
type Entries interface {
	// Epoch names this log. A log made afresh (its data was lost, or it
	// was deleted) has another epoch, so an event ID of the old one is
	// recognised as foreign rather than misread.
	Epoch() string
	// Commit appends entries at the tail and stores cp as the
	// checkpoint (an opaque value), in one atomic step: both or neither.
	// The entries' Seq must continue the log: the tail's plus one, then
	// one more each. An entry at or before the tail fails with
	// ErrDuplicate, and one past tail+1 with ErrGap; a fence that is not
	// the newest fails with ErrStale; a failed Commit changes neither the
	// log nor the checkpoint. A nil cp appends the entries only, and no
	// entries store the checkpoint only. A driver commits each delta's
	// entries with the checkpoint taken after it, so that the log and the
	// checkpoint never disagree; it is the Log's one write of entries and
	// checkpoints.
	Commit(ctx context.Context, fence Fence, cp []byte, entries ...Entry) error
	// Read returns, in order, up to max entries whose Seq is after after.
	// It fails with ErrGone when entries after after were trimmed.
	Read(ctx context.Context, after uint64, max int) ([]Entry, error)
	// AwaitEntry returns when the log holds an entry after after, or fails
	// with ctx's error.
	AwaitEntry(ctx context.Context, after uint64) error
	// Tail returns the Seq of the last entry appended, 0 for none.
	Tail(ctx context.Context) (uint64, error)
	// Trim drops the entries up to and including through. Later Reads
	// after an earlier Seq fail with ErrGone. It drops only entries the
	// log holds: those appended after it are kept, even when through was
	// past the tail. A log never trims past its
	// snapshot's Seq: a reader sent away with ErrGone must be able to start
	// again from the snapshot and the entries after it.
	Trim(ctx context.Context, through uint64) error
}

// Snapshots is a Log's snapshots: what a browser shows after an entry,
// where readers start again whose events were trimmed.
type Snapshots interface {
	// SaveSnapshot stores what a browser shows after the entries up to
	// s.Seq, for readers whose Last-Event-ID is gone; ErrStale when fence
	// is not the newest.
	SaveSnapshot(ctx context.Context, fence Fence, s Snapshot) error
	// LoadSnapshot returns the snapshot stored last; Seq 0 and nil Data
	// for none.
	LoadSnapshot(ctx context.Context) (Snapshot, error)
	// Attach returns the snapshot stored last (as LoadSnapshot) and, in
	// order, up to max entries after its Seq (as Read), both read in one
	// atomic step: the entries start at the snapshot's Seq plus one, however
	// the log is trimmed and the snapshot replaced meanwhile. It is where a
	// reader starts that has no usable cursor, or whose cursor is gone. A
	// log never trims past its snapshot, so Attach does not fail with
	// ErrGone.
	Attach(ctx context.Context, max int) (Snapshot, []Entry, error)
}

// Lease is a Log's lease: which owner drives the stream upstream, with the
// Fence every write of the driver carries.
type Lease interface {
	// Acquire makes owner the driver of the stream for ttl, when no other
	// owner holds an unexpired lease (ErrHeld otherwise). The lease's
	// clock is the store's, not the caller's.
	Acquire(ctx context.Context, owner string, ttl time.Duration) (Fence, error)
	// Renew extends the lease of fence by ttl; ErrStale when it expired
	// and another owner acquired it.
	Renew(ctx context.Context, fence Fence, ttl time.Duration) error
	// Release gives the lease up, when fence still holds it.
	Release(ctx context.Context, fence Fence) error
}

// Checkpoints is a Log's checkpoint: the stream's, from which a replica
// that takes the stream over resumes it. Entries.Commit stores it with the
// entries it follows.
type Checkpoints interface {
	// LoadCheckpoint returns the checkpoint stored last, nil for none.
	LoadCheckpoint(ctx context.Context) ([]byte, error)
}

// Mailbox is what browsers tell a Log's driver: the answers to the agent's
// questions and the request to cancel.
type Mailbox interface {
	// PostAnswer stores a, unless an answer to a.Prompt is stored: the
	// first answer to a prompt wins. It returns the answer stored, which
	// has a's Key when a won or was posted before with the same key.
	PostAnswer(ctx context.Context, a Answer) (Answer, error)
	// AwaitAnswer returns the answer to the prompt at Seq prompt once one
	// is stored, or fails with ctx's error.
	AwaitAnswer(ctx context.Context, prompt uint64) (Answer, error)
	// LoadAnswer returns the answer stored to the prompt at Seq prompt,
	// the first one posted, with its Key, and true; false when none is
	// stored. It does not wait. Answers are kept after their prompt's entry
	// is trimmed, so a browser that posts again is told what was stored.
	LoadAnswer(ctx context.Context, prompt uint64) (Answer, bool, error)
	// RequestCancel records that the stream's task is to be canceled.
	RequestCancel(ctx context.Context) error
	// AwaitCancel returns once a cancel was requested, or fails with ctx's
	// error.
	AwaitCancel(ctx context.Context) error
}

// The errors of a Log. Match them with errors.Is.
var (
	// ErrDuplicate: an entry's Seq is at or before the log's tail.
	ErrDuplicate = errors.New("relay: entry already in the log")
	// ErrGap: an entry's Seq is past the tail plus one.
	ErrGap = errors.New("relay: entry would leave a gap in the log")
	// ErrGone: the entries asked for were trimmed.
	ErrGone = errors.New("relay: entries past retention")
	// ErrStale: the fence is no longer the newest; another owner drives
	// the stream.
	ErrStale = errors.New("relay: stale fence")
	// ErrHeld: another owner holds the stream's lease.
	ErrHeld = errors.New("relay: lease held by another owner")
)
