package checkpoint

import (
	"encoding/binary"
	"hash/crc32"
	"time"

	"github.com/google/uuid"

	"github.com/a2astream/a2astream/a2a"
)

// Checkpoint is what a checkpoint holds: the task its stream follows, and
// marks (counts and digests, no content) of what the stream yielded. Its
// slices may be shared with the stream it was taken from: a reader must
// not change them in place.
type Checkpoint struct {
	TaskID    string
	ContextID string
	Version   a2a.Version
	Binding   a2a.Binding
	Polling   bool // the stream followed its task by polling
	Events    uint64
	Status    Status    // the status last yielded
	Latest    time.Time // the newest status timestamp yielded
	// Shown holds the statuses yielded at Latest and those without a
	// timestamp, each once, at most MaxShown.
	Shown     []Status
	Artifacts []Artifact
	Messages  Messages
	Prompt    Prompt // the prompt replied to; zero for none
	// Push is the ID of the push registration the stream's push
	// notifications came by when it was taken (package push): "" for
	// none. Never its token: a checkpoint is stored as it is.
	Push string
}

// MaxShown bounds Checkpoint.Shown: a reader refuses more.
const MaxShown = 16

// Status is a status yielded: its state, the ID and digest of its message
// (a digest 0 for none), and its timestamp.
type Status struct {
	State     a2a.TaskState
	MessageID string
	Message   uint64
	At        time.Time
}

// Artifact is how much of an artifact was yielded: its first Parts parts,
// with the digest of those parts (Digest) and of its labels.
type Artifact struct {
	ID          string
	Parts       int
	Digest      uint64 // of the parts, in order
	Name        uint64
	Description uint64
	// Meta holds a digest of each key of the metadata the application
	// holds and of its value, ascending by key digest, no key twice: an
	// append folds metadata key by key, so one digest of the whole map
	// could not follow it. Its array is never changed in place, so
	// checkpoints share it. MetaUnknown: the mark comes from a format 1
	// checkpoint, which holds no metadata, and the artifact was not handed
	// over whole since; Meta is then nil, and the metadata of the task
	// fetched on resume is taken as the application's.
	Meta        []Meta
	MetaUnknown bool
}

// Meta is one key of an artifact's metadata: the digest of the key and
// that of its value.
type Meta struct {
	Key, Value uint64
}

// Message is one version of a message yielded: its ID ("" for a message
// without one) and its digest.
type Message struct {
	ID     string
	Digest uint64
}

// Prompt is the prompt a checkpoint knows as replied to: its key, the
// reply (nil for none), and what is known of the reply's last send.
type Prompt struct {
	Key   string
	Reply *a2a.Message
	Sent  Sent
}

// Sent is what a checkpoint knows of the reply's last send.
type Sent byte

const (
	// SentHeard: the send got a response (the agent may have taken the
	// reply), or the reply is confirmed: it is never sent again.
	SentHeard Sent = iota
	// SentUnheard: the send got no response, so the agent cannot have
	// taken it.
	SentUnheard
	// SentInFlight: saved just before a send, so the reply may have
	// reached the agent.
	SentInFlight
)

// Messages is a list of message marks, oldest first, kept in the binary
// form a checkpoint writes, with the checksum of a checkpoint's bytes up to
// their end. It only grows (a later version of a message adds a mark that
// supersedes the earlier one), so copies share it: a copy that Add may
// grow while another is read is taken with Shared. The zero value is the
// empty list.
type Messages struct {
	b   []byte
	sum uint32 // valid when b is not empty; see sum
}

// The kinds of mark, each its first byte; 0 ends the list.
const (
	markText = 1 // the ID as a string
	markUUID = 2 // the ID, a UUID in its canonical form, as its 16 bytes (format 3)
)

// Add appends a mark, keeping the running checksum. An ID that is a UUID
// written as uuid.UUID.String writes it (lowercase, hyphenated) is kept in
// its 16 bytes, not its 36 characters: agents name their messages so, and
// a long stream keeps a mark per message.
func (ms *Messages) Add(id string, digest uint64) {
	if len(ms.b) == 0 {
		ms.sum = headSum()
	}
	n := len(ms.b)
	if u, ok := canonicalUUID(id); ok {
		ms.b = append(append(ms.b, markUUID), u[:]...)
	} else {
		ms.b = appendString(append(ms.b, markText), id)
	}
	ms.b = binary.BigEndian.AppendUint64(ms.b, digest)
	ms.sum = crc32.Update(ms.sum, castagnoli, ms.b[n:])
}

// canonicalUUID returns id's 16 bytes when id is a UUID in the form
// uuid.UUID.String writes, the only form a mark's 16 bytes read back to.
func canonicalUUID(id string) (uuid.UUID, bool) {
	if len(id) != 36 {
		return uuid.UUID{}, false
	}
	u, err := uuid.Parse(id)
	if err != nil || u.String() != id {
		return uuid.UUID{}, false
	}
	return u, true
}

// Shared returns ms with a capacity of its length: an Add to either makes
// a new array and leaves the other's as it is.
func (ms Messages) Shared() Messages {
	ms.b = ms.b[:len(ms.b):len(ms.b)]
	return ms
}

// All returns the marks, oldest first. The list was written by Add, or
// checked by Parse: it parses.
func (ms Messages) All() []Message {
	var out []Message
	r := reader{b: ms.b}
	for len(r.b) > 0 && r.err == nil {
		out = append(out, Message{ID: r.markID(r.byte()), Digest: r.u64()})
	}
	return out
}

// checksum returns the checksum of a checkpoint's bytes up to the end of
// the marks.
func (ms *Messages) checksum() uint32 {
	if len(ms.b) == 0 {
		return headSum()
	}
	return ms.sum
}
