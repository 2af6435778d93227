package checkpoint

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/clip"
)

// Parse reads a checkpoint's binary form, of format 1, 2, 3 or 4. It returns an
// *Error for bytes that are not a whole checkpoint of a format it reads,
// or whose fields contradict each other: never a checkpoint made of part
// of them. The checkpoint shares no memory with data.
func Parse(data []byte) (Checkpoint, error) {
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		return Checkpoint{}, &Error{Err: ErrForeign, Reason: "it does not start as a checkpoint does"}
	}
	r := reader{b: data[len(magic):]}
	// The format comes before the checksum: a newer format may place its
	// checksum otherwise.
	f := r.uvarint()
	switch {
	case r.err != nil:
		return Checkpoint{}, corrupt("cut short")
	case f > written:
		return Checkpoint{}, &Error{Err: ErrNewer, Reason: fmt.Sprintf("format %d; this version reads formats 1 to %d", f, written)}
	case f == 0:
		return Checkpoint{}, corrupt("unknown format 0")
	case len(r.b) < 4:
		return Checkpoint{}, corrupt("cut short")
	}
	body, sum := data[:len(data)-4], binary.BigEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return Checkpoint{}, corrupt("checksum mismatch")
	}
	r.b = r.b[:len(r.b)-4]
	var c Checkpoint
	marks := r.b
	for r.err == nil {
		kind := r.byte()
		if kind == 0 {
			break
		}
		if kind == markUUID && f < 3 {
			r.fail("a message mark")
		}
		r.markID(kind)
		r.u64()
	}
	if r.err == nil {
		// The marks end where the byte 0 after them is.
		// A copy: the caller may reuse data, and a checkpoint is immutable.
		c.Messages.b = slices.Clone(marks[: len(marks)-len(r.b)-1 : len(marks)-len(r.b)-1])
		if len(c.Messages.b) > 0 {
			// The checksum of the bytes a checkpoint written from this one
			// starts with: in the format written, which may not be the
			// format read.
			c.Messages.sum = crc32.Update(headSum(), castagnoli, c.Messages.b)
		}
	}
	c.TaskID = r.string()
	c.ContextID = r.string()
	c.Version = a2a.Version(r.string())
	c.Binding = a2a.Binding(r.string())
	c.Polling = r.flag()
	c.Events = r.uvarint()
	c.Status = r.status()
	c.Latest = r.time()
	if n := r.count(1 + 1 + 8 + 1); n > MaxShown {
		r.fail("the statuses shown")
	} else if n > 0 {
		c.Shown = make([]Status, n)
		for i := range c.Shown {
			c.Shown[i] = r.status()
		}
	}
	least := 1 + 1 + 24 // an artifact's record, at its shortest
	if f > 1 {
		least++ // its metadata
	}
	if n := r.count(least); n > 0 {
		c.Artifacts = make([]Artifact, n)
		for i := range c.Artifacts {
			m := &c.Artifacts[i]
			*m = Artifact{ID: r.string(), Parts: r.int(), Digest: r.u64(), Name: r.u64(), Description: r.u64()}
			switch {
			case f == 1:
				m.MetaUnknown = true
			case !r.flag():
				m.MetaUnknown = true
			default:
				if k := r.count(16); k > 0 {
					m.Meta = make([]Meta, k)
					for j := range m.Meta {
						m.Meta[j] = Meta{Key: r.u64(), Value: r.u64()}
					}
				}
			}
		}
	}
	if r.flag() {
		c.Prompt.Key = r.string()
		if reply := r.string(); reply != "" && r.err == nil {
			m, err := (a2a.Codec{Version: a2a.V10}).DecodeMessage([]byte(reply))
			if err != nil {
				return Checkpoint{}, corrupt("the reply does not decode: " + err.Error())
			}
			c.Prompt.Reply = m
		}
		if c.Prompt.Sent = Sent(r.byte()); c.Prompt.Sent > SentInFlight {
			r.fail("the reply's state")
		}
	}
	if f > 3 {
		c.Push = r.string()
	}
	switch {
	case r.err != nil:
		return Checkpoint{}, corrupt(r.err.Error())
	case len(r.b) != 0:
		return Checkpoint{}, corrupt(fmt.Sprintf("%d bytes after its last field", len(r.b)))
	}
	if err := c.check(); err != nil {
		return Checkpoint{}, err
	}
	return c, nil
}

func corrupt(reason string) *Error { return &Error{Err: ErrCorrupt, Reason: reason} }

// quote cuts text read from a checkpoint for an error's reason.
func quote(s string) string { return clip.Text(s, clip.Field) }

// check refuses a checkpoint whose fields contradict each other: a
// checksum does not catch a writer's bug, nor bytes made to pass it.
func (c *Checkpoint) check() error {
	// Any binding is one a stream's Client may speak; stream compares it
	// with the Client's on resume.
	if c.Version != "" && c.Version != a2a.V03 && c.Version != a2a.V10 {
		return corrupt(fmt.Sprintf("unknown protocol version %q", quote(string(c.Version))))
	}
	if c.Prompt.Sent != SentHeard && c.Prompt.Reply == nil {
		return corrupt("a reply marked as possibly sent, and no reply")
	}
	if r := c.Prompt.Reply; r != nil && (r.TaskID == "" || c.TaskID != "" && r.TaskID != c.TaskID) {
		// A resumed stream may send the reply again: never to another
		// task, nor as a message that starts one.
		return corrupt(fmt.Sprintf("the reply is on task %q, not on the checkpoint's task %q", quote(r.TaskID), quote(c.TaskID)))
	}
	if _, ok := canonicalUUID(c.Push); c.Push != "" && !ok {
		// A stream hands it to push.Receiver.Adopt, which asks the share
		// only of an ID push.Receiver.Register could have made: a UUID as
		// uuid.UUID.String writes it.
		return corrupt(fmt.Sprintf("the push registration %q is not a registration's ID", quote(c.Push)))
	}
	ids := make(map[string]struct{}, len(c.Artifacts))
	for _, a := range c.Artifacts {
		if a.Parts < 0 {
			return corrupt("an artifact with a negative number of parts")
		}
		if _, dup := ids[a.ID]; dup {
			return corrupt(fmt.Sprintf("artifact %q listed twice", quote(a.ID)))
		}
		for j := 1; j < len(a.Meta); j++ {
			if a.Meta[j].Key <= a.Meta[j-1].Key {
				// One form only: a checkpoint read writes the bytes it
				// was read from.
				return corrupt(fmt.Sprintf("the metadata of artifact %q lists a key twice, or out of order", quote(a.ID)))
			}
		}
		ids[a.ID] = struct{}{}
	}
	return nil
}

// reader reads the fields of a checkpoint, keeping the first error: every
// read after it returns zero values.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%s cut short or malformed", what)
	}
	r.b = nil
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("a number")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail("a number")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// int reads a uvarint that must fit an int.
func (r *reader) int() int {
	v := r.uvarint()
	if v > 1<<31 {
		r.fail("a count")
		return 0
	}
	return int(v)
}

// count reads the number of records that follow, each at least min bytes:
// a count the bytes left cannot hold is refused before anything is made
// for it.
func (r *reader) count(min int) int {
	n := r.uvarint()
	if n > uint64(len(r.b)/min) {
		r.fail("a list")
		return 0
	}
	return int(n)
}

func (r *reader) string() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail("a text")
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *reader) u64() uint64 {
	if len(r.b) < 8 {
		r.fail("a digest")
		return 0
	}
	v := binary.BigEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *reader) byte() byte {
	if len(r.b) < 1 {
		r.fail("a flag")
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

// flag reads a byte that must be 0 or 1.
func (r *reader) flag() bool {
	switch r.byte() {
	case 0:
		return false
	case 1:
		return true
	}
	r.fail("a flag")
	return false
}

// markID reads the ID of a message mark of this kind.
func (r *reader) markID(kind byte) string {
	switch kind {
	case markText:
		return r.string()
	case markUUID:
		if len(r.b) < 16 {
			break
		}
		id := uuid.UUID(r.b[:16]).String()
		r.b = r.b[16:]
		return id
	}
	r.fail("a message mark")
	return ""
}

// status reads a status: its fields in the order written.
func (r *reader) status() Status {
	return Status{State: a2a.TaskState(r.string()), MessageID: r.string(), Message: r.u64(), At: r.time()}
}

func (r *reader) time() time.Time {
	switch r.byte() {
	case 0:
		return time.Time{}
	case 1:
		sec := r.varint()
		nsec := r.uvarint()
		if nsec >= 1e9 {
			r.fail("a time")
			return time.Time{}
		}
		return time.Unix(sec, int64(nsec)).UTC()
	}
	r.fail("a time")
	return time.Time{}
}
