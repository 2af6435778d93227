package stream

import (
	"errors"
	"fmt"
	"slices"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/checkpoint"
)

// Checkpoint is what a stream's application has been handed, in a small
// serialisable value: the task it follows (ID, protocol version, binding,
// and whether it is followed by polling), how many parts of each artifact
// it was handed and their digest, with a digest of the artifact's name, of
// its description and of each of its metadata keys and values, the ID and
// digest of each version of each message, the status shown, and the
// prompt replied to with its reply. A Client resumes from it
// ([Client.Resume]), in this process or another, and hands the
// application only what the checkpoint does not hold.
//
// A Checkpoint holds no content but one message: the reply to the prompt
// replied to (the human's answer, or the message of a Send that continues
// a task), whole, since Resume may have to send it again; store it as you
// would that message. Otherwise its size grows with the number of
// messages and artifacts (tens of bytes each), not with their text, and
// taking one after every event is cheap (see BENCHMARKS.md). Its binary
// form ([Checkpoint.MarshalBinary]) is versioned and checksummed; parse it
// with [ParseCheckpoint], which reads the form this version writes
// (format 4) and those before it (format 3, which names no push
// registration, format 2, which also keeps every message ID as text, and
// format 1, which also holds no digest of an artifact's metadata).
//
// A checkpoint of a stream that follows its task by push notifications
// (WithPush, once its push config is registered) also names its push
// registration: the ID only, never the token. A stream resumed from it
// with WithPush adopts that registration (push.Receiver.Adopt) rather than
// registering a new push config with the agent.
//
// A Checkpoint is immutable: later events of its stream do not change it,
// and it may be used from any goroutine.
type Checkpoint struct {
	taskID    string
	contextID string
	version   a2a.Version
	binding   a2a.Binding
	polling   bool         // the stream followed its task by polling: the agent cannot stream it
	marks     marks        // what the events yielded hold (see seen)
	prompt    *promptState // the prompt replied to; nil for none
	push      string       // the ID of the stream's live push registration; "" for none
}

// promptState is the prompt a checkpoint knows as replied to, with the
// reply and what is known of its last send.
type promptState struct {
	key   string
	reply *a2a.Message
	sent  replySent
}

// replied returns the prompt cp knows as replied to: the zero promptState
// for none.
func (cp *Checkpoint) replied() promptState {
	if cp.prompt == nil {
		return promptState{}
	}
	return *cp.prompt
}

// replySent is what a checkpoint knows of the reply's last send: the
// format's byte. Its zero value (checkpoint.SentHeard): the send got a
// response (the agent may have taken the reply), or the reply is
// confirmed: it is never sent again.
type replySent = checkpoint.Sent

const (
	// replyUnheard: the send got no response: the agent may have taken
	// the reply, or not. With WithIdempotentSends, while the task shows
	// the prompt and does not list the reply, the same reply is sent
	// again, as the stream would have; otherwise never.
	replyUnheard = checkpoint.SentUnheard
	// replyInFlight: saved just before a send (WithCheckpointBeforeReply),
	// so the reply may have reached the agent. A resumed stream sends it
	// again only with WithIdempotentSends, and only when the task fetched
	// proves it did not: the agent keeps the user's messages in the
	// history, and the reply is not there.
	replyInFlight = checkpoint.SentInFlight
)

// Checkpoint returns the stream's checkpoint: what the events yielded so
// far hold, and nothing of what waits to be yielded. Take it after Next
// returned, once the application has done what it does with the event
// (saved or shown it); resuming from it then hands over every later event
// exactly once. A stream that knows no task yet returns a checkpoint whose
// TaskID is "", from which Resume refuses to resume.
//
// Its cost does not grow with the text delivered: it copies one small
// record per artifact and shares the records of messages and statuses
// with the stream.
func (s *Stream) Checkpoint() *Checkpoint {
	cp := s.checkpoint()
	if s.tr != nil {
		s.traceCheckpoint(false, nil)
	}
	return cp
}

// checkpoint returns the stream's checkpoint (see Checkpoint).
func (s *Stream) checkpoint() *Checkpoint {
	if s.resuming != nil {
		// A resumed stream that has not fetched its task yet has handed
		// nothing over: it is where its checkpoint is (the stream does not
		// know the context yet, nor, before its first step, that it polls).
		return s.resuming
	}
	cp := &Checkpoint{taskID: s.taskID, version: s.v, binding: s.c.binding, polling: s.route == pollingRoute(), marks: s.seen.marks,
		push: s.push.named()}
	cp.contextID = s.ledger.ContextID()
	cp.marks.arts = slices.Clone(s.seen.arts)
	cp.marks.msgs = s.seen.msgs.Shared()
	if s.prompt.replied != "" || s.prompt.unconfirmed {
		// Once the task moved on from the prompt, the reply is neither
		// asked about nor sent again: the checkpoint drops it.
		cp.prompt = &promptState{key: s.prompt.replied, reply: s.prompt.reply}
		if s.prompt.unconfirmed {
			cp.prompt.sent = replyUnheard
		}
	}
	return cp
}

// TaskID returns the ID of the task the checkpoint follows, "" when its
// stream knew none or cp is nil.
func (cp *Checkpoint) TaskID() string {
	if cp == nil {
		return ""
	}
	return cp.taskID
}

// Delivered returns how many events the stream had yielded when the
// checkpoint was taken, those of the streams it resumed included; 0 for a
// nil cp.
func (cp *Checkpoint) Delivered() uint64 {
	if cp == nil {
		return 0
	}
	return cp.marks.events
}

// The reasons a checkpoint is refused, which a *CheckpointError wraps.
var (
	// ErrCheckpointCorrupt: the bytes are not a whole checkpoint (cut
	// short, changed, or their checksum fails), or its fields contradict
	// each other or hold a value no stream writes (a push registration's
	// ID that is not a lower-case UUID).
	ErrCheckpointCorrupt = errors.New("stream: corrupt checkpoint")
	// ErrCheckpointForeign: the bytes are not a checkpoint of this
	// library, or the checkpoint is of another binding than the Client's,
	// or names no task.
	ErrCheckpointForeign = errors.New("stream: foreign checkpoint")
	// ErrCheckpointNewer: the checkpoint was written in a newer format
	// than this version of the library reads.
	ErrCheckpointNewer = errors.New("stream: checkpoint in a newer format")
)

// CheckpointError refuses a checkpoint: Err is ErrCheckpointCorrupt,
// ErrCheckpointForeign or ErrCheckpointNewer, and Reason says what is
// wrong. Nothing was resumed.
type CheckpointError struct {
	Err    error
	Reason string
}

// Error reads like "stream: corrupt checkpoint: checksum mismatch".
func (e *CheckpointError) Error() string { return e.Err.Error() + ": " + e.Reason }

// Unwrap returns Err.
func (e *CheckpointError) Unwrap() error { return e.Err }

// errNilCheckpoint is the error of a method that needs a checkpoint, called
// on a nil one.
func errNilCheckpoint() error {
	return &CheckpointError{Err: ErrCheckpointForeign, Reason: "nil checkpoint"}
}

// MarshalBinary returns the checkpoint's binary form.
func (cp *Checkpoint) MarshalBinary() ([]byte, error) { return cp.AppendBinary(nil) }

// AppendBinary appends the checkpoint's binary form to b: with a buffer kept
// across calls, writing a checkpoint after every event allocates nothing.
// A nil cp has no form: a *CheckpointError with ErrCheckpointForeign.
func (cp *Checkpoint) AppendBinary(b []byte) ([]byte, error) {
	if cp == nil {
		return b, errNilCheckpoint()
	}
	d := cp.data()
	b, err := checkpoint.Append(b, &d)
	if err != nil {
		return b, fmt.Errorf("stream: checkpoint: %w", err)
	}
	return b, nil
}

// ParseCheckpoint reads a checkpoint's binary form. It returns a
// *CheckpointError for bytes that are not a whole checkpoint of a format it
// reads: never a checkpoint made of part of them.
func ParseCheckpoint(data []byte) (*Checkpoint, error) {
	cp := new(Checkpoint)
	if err := cp.UnmarshalBinary(data); err != nil {
		return nil, err
	}
	return cp, nil
}

// UnmarshalBinary sets cp from its binary form, as ParseCheckpoint reads
// it; on error cp is left as it was. A nil cp cannot be set: a
// *CheckpointError with ErrCheckpointForeign.
func (cp *Checkpoint) UnmarshalBinary(data []byte) error {
	if cp == nil {
		return errNilCheckpoint()
	}
	d, err := checkpoint.Parse(data)
	if err != nil {
		return checkpointError(err)
	}
	*cp = checkpointOf(&d)
	return nil
}

// data returns what cp holds as the format's data, sharing cp's marks: the
// one way from a Checkpoint to the format (checkpointOf is the way back).
func (cp *Checkpoint) data() checkpoint.Checkpoint {
	w := &cp.marks
	d := checkpoint.Checkpoint{
		TaskID: cp.taskID, ContextID: cp.contextID, Version: cp.version, Binding: cp.binding, Polling: cp.polling,
		Events: w.events, Status: w.status, Latest: w.latest, Shown: w.shown, Artifacts: w.arts, Messages: w.msgs,
		Push: cp.push,
	}
	if p := cp.prompt; p != nil {
		d.Prompt = checkpoint.Prompt{Key: p.key, Reply: p.reply, Sent: p.sent}
	}
	return d
}

// checkpointOf returns the Checkpoint that holds d, sharing d's marks.
func checkpointOf(d *checkpoint.Checkpoint) Checkpoint {
	cp := Checkpoint{
		taskID: d.TaskID, contextID: d.ContextID, version: d.Version, binding: d.Binding, polling: d.Polling, push: d.Push,
		marks: marks{events: d.Events, status: d.Status, latest: d.Latest, shown: d.Shown, arts: d.Artifacts, msgs: d.Messages},
	}
	if p := d.Prompt; p != (checkpoint.Prompt{}) {
		cp.prompt = &promptState{key: p.Key, reply: p.Reply, sent: p.Sent}
	}
	return cp
}

// checkpointError returns the *CheckpointError by which the user is told
// of a refusal of the format's: the same reason, under this package's
// sentinel.
func checkpointError(err error) error {
	var fe *checkpoint.Error
	if !errors.As(err, &fe) {
		return &CheckpointError{Err: ErrCheckpointCorrupt, Reason: err.Error()}
	}
	kind := ErrCheckpointCorrupt
	switch fe.Err {
	case checkpoint.ErrForeign:
		kind = ErrCheckpointForeign
	case checkpoint.ErrNewer:
		kind = ErrCheckpointNewer
	}
	return &CheckpointError{Err: kind, Reason: fe.Reason}
}
