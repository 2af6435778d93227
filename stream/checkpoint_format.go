package stream

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"
	"time"

	"github.com/a2astream/a2astream/a2a"
)

// The binary form of a Checkpoint, format 2:
//
//	magic       "a2acp" (5 bytes)
//	format      uvarint, 2
//	messages    n × (byte 1, string ID, u64 digest), oldest first, then
//	            byte 0
//	task        string ID, string context ID, string version, string
//	            binding, byte polling (0 or 1)
//	events      uvarint
//	status      string state, string message ID, u64 message digest, time
//	latest      time: the newest status timestamp yielded
//	shown       uvarint n (at most 16), then n × (string state, string
//	            message ID, u64 message digest, time): the statuses yielded
//	            at the newest timestamp, and those without one
//	artifacts   uvarint n, then n × (string ID, uvarint parts, u64 parts
//	            digest, u64 name digest, u64 description digest,
//	            metadata)
//	metadata    byte 0 when it is unknown (read from format 1, and not
//	            handed over whole since), or byte 1, then uvarint n and
//	            n × (u64 key digest, u64 value digest), ascending by key
//	            digest, no key twice
//	prompt      byte 0 for none, or 1 then string key, string reply (its
//	            A2A 1.0 JSON, "" for none), byte sent: 0 a response was
//	            heard, 1 none was, 2 saved before the send (see replySent)
//	checksum    CRC-32C of everything before it, 4 bytes big-endian
//
// A string is a uvarint length then its bytes; a u64 is 8 bytes
// big-endian; a time is a byte 0 for the zero time, or 1 then varint Unix
// seconds and uvarint nanoseconds. Digests are 64-bit FNV-1a (see digest);
// a metadata value's is that of its JSON (see valueDigest).
//
// Format 1 is format 2 without the metadata of each artifact: a reader
// reads it as metadata unknown, for which a resumed stream takes the
// metadata of the task it fetches as the application's (as format 1 did).
// A writer writes format 2 only. A reader refuses a format above its own
// (ErrCheckpointNewer), and anything else that does not parse to the end
// (ErrCheckpointCorrupt).
//
// The message marks come first because they only grow: a stream keeps
// them in this form with the checksum of the bytes up to their end, so
// that writing a checkpoint copies them and checksums only the few fields
// after them.
const (
	checkpointMagic  = "a2acp"
	checkpointFormat = 2 // the format written; format 1 is read too
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// MarshalBinary returns the checkpoint's binary form.
func (cp *Checkpoint) MarshalBinary() ([]byte, error) { return cp.AppendBinary(nil) }

// AppendBinary appends the checkpoint's binary form to b: with a buffer kept
// across calls, writing a checkpoint after every event allocates nothing.
func (cp *Checkpoint) AppendBinary(b []byte) ([]byte, error) {
	var reply []byte
	if r := cp.prompt.reply; r != nil {
		var err error
		if reply, err = (a2a.Codec{Version: a2a.V10}).EncodeMessage(r); err != nil {
			return b, fmt.Errorf("stream: checkpoint: the reply does not encode: %w", err)
		}
	}
	b = append(b, checkpointMagic...)
	b = binary.AppendUvarint(b, checkpointFormat)
	w := &cp.seen
	b = append(b, w.msgs...)
	rest := len(b)
	b = append(b, 0)
	b = appendString(b, cp.taskID)
	b = appendString(b, cp.contextID)
	b = appendString(b, string(cp.version))
	b = appendString(b, string(cp.binding))
	b = appendBool(b, cp.polling)
	b = binary.AppendUvarint(b, w.events)
	b = appendString(b, string(w.status.state))
	b = appendString(b, w.status.messageID)
	b = binary.BigEndian.AppendUint64(b, uint64(w.status.message))
	b = appendTime(b, w.status.at)
	b = appendTime(b, w.latest)
	b = binary.AppendUvarint(b, uint64(len(w.shown)))
	for _, m := range w.shown {
		b = appendString(b, string(m.state))
		b = appendString(b, m.messageID)
		b = binary.BigEndian.AppendUint64(b, uint64(m.message))
		b = appendTime(b, m.at)
	}
	b = binary.AppendUvarint(b, uint64(len(w.arts)))
	for i := range w.arts {
		a := &w.arts[i]
		b = appendString(b, a.id)
		b = binary.AppendUvarint(b, uint64(a.parts))
		b = binary.BigEndian.AppendUint64(b, uint64(a.digest))
		b = binary.BigEndian.AppendUint64(b, uint64(a.name))
		b = binary.BigEndian.AppendUint64(b, uint64(a.description))
		if a.metaUnknown {
			b = append(b, 0)
			continue
		}
		b = binary.AppendUvarint(append(b, 1), uint64(len(a.meta)))
		for _, e := range a.meta {
			b = binary.BigEndian.AppendUint64(b, uint64(e.key))
			b = binary.BigEndian.AppendUint64(b, uint64(e.value))
		}
	}
	if p := &cp.prompt; p.key == "" && p.reply == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = appendString(b, p.key)
		b = binary.AppendUvarint(b, uint64(len(reply)))
		b = append(b, reply...)
		b = append(b, byte(p.sent))
	}
	// The checksum of the bytes up to the end of the marks is kept with
	// them: only the rest is checksummed here.
	return binary.BigEndian.AppendUint32(b, crc32.Update(w.sum(), castagnoli, b[rest:])), nil
}

// headSum is the checksum of a checkpoint's first bytes: the magic and the
// format.
func headSum() uint32 {
	var head [len(checkpointMagic) + 1]byte
	copy(head[:], checkpointMagic)
	head[len(checkpointMagic)] = checkpointFormat
	return crc32.Checksum(head[:], castagnoli)
}

// messageMarks is a list of message marks in the binary form of a
// checkpoint: for each, a byte 1, the ID as a string and the digest as a
// u64.
type messageMarks []byte

// add appends a mark.
func (ms messageMarks) add(id string, d digest) messageMarks {
	b := appendString(append(ms, 1), id)
	return binary.BigEndian.AppendUint64(b, uint64(d))
}

// all returns the marks, oldest first. The list was written by add, or
// checked by the reader: it parses.
func (ms messageMarks) all() []messageMark {
	var out []messageMark
	r := checkpointReader{b: ms}
	for len(r.b) > 0 && r.err == nil {
		r.byte()
		out = append(out, messageMark{id: r.string(), digest: digest(r.u64())})
	}
	return out
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, 0)
	}
	b = binary.AppendVarint(append(b, 1), t.Unix())
	return binary.AppendUvarint(b, uint64(t.Nanosecond()))
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
// it; on error cp is left as it was.
func (cp *Checkpoint) UnmarshalBinary(data []byte) error {
	if len(data) < len(checkpointMagic) || string(data[:len(checkpointMagic)]) != checkpointMagic {
		return &CheckpointError{Err: ErrCheckpointForeign, Reason: "it does not start as a checkpoint does"}
	}
	r := checkpointReader{b: data[len(checkpointMagic):]}
	// The format comes before the checksum: a newer format may place its
	// checksum otherwise.
	f := r.uvarint()
	switch {
	case r.err != nil:
		return &CheckpointError{Err: ErrCheckpointCorrupt, Reason: "cut short"}
	case f > checkpointFormat:
		return &CheckpointError{Err: ErrCheckpointNewer, Reason: fmt.Sprintf("format %d; this version reads formats 1 to %d", f, checkpointFormat)}
	case f == 0:
		return &CheckpointError{Err: ErrCheckpointCorrupt, Reason: "unknown format 0"}
	case len(r.b) < 4:
		return &CheckpointError{Err: ErrCheckpointCorrupt, Reason: "cut short"}
	}
	body, sum := data[:len(data)-4], binary.BigEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return &CheckpointError{Err: ErrCheckpointCorrupt, Reason: "checksum mismatch"}
	}
	r.b = r.b[:len(r.b)-4]
	var c Checkpoint
	w := &c.seen
	marks := r.b
	for r.err == nil && r.flag() {
		r.string()
		r.u64()
	}
	if r.err == nil {
		// The marks end where the byte 0 after them is.
		// A copy: the caller may reuse data, and a Checkpoint is immutable.
		w.msgs = messageMarks(slices.Clone(marks[: len(marks)-len(r.b)-1 : len(marks)-len(r.b)-1]))
		if len(w.msgs) > 0 {
			// The checksum of the bytes a checkpoint written from this one
			// starts with: in the format written, which may not be the
			// format read.
			w.msgsSum = crc32.Update(headSum(), castagnoli, w.msgs)
		}
	}
	c.taskID = r.string()
	c.contextID = r.string()
	c.version = a2a.Version(r.string())
	c.binding = a2a.Binding(r.string())
	c.polling = r.flag()
	w.events = r.uvarint()
	w.status.state = a2a.TaskState(r.string())
	w.status.messageID = r.string()
	w.status.message = digest(r.u64())
	w.status.at = r.time()
	w.latest = r.time()
	if n := r.count(1 + 1 + 8 + 1); n > maxShown {
		r.fail("the statuses shown")
	} else if n > 0 {
		w.shown = make([]statusMark, n)
		for i := range w.shown {
			w.shown[i] = statusMark{state: a2a.TaskState(r.string()), messageID: r.string(), message: digest(r.u64()), at: r.time()}
		}
	}
	least := 1 + 1 + 24 // an artifact's record, at its shortest
	if f > 1 {
		least++ // its metadata
	}
	if n := r.count(least); n > 0 {
		w.arts = make([]artifactMark, n)
		for i := range w.arts {
			m := &w.arts[i]
			*m = artifactMark{id: r.string(), parts: r.int(), digest: digest(r.u64()), name: digest(r.u64()), description: digest(r.u64())}
			switch {
			case f == 1:
				m.metaUnknown = true
			case !r.flag():
				m.metaUnknown = true
			default:
				if k := r.count(16); k > 0 {
					m.meta = make([]metaEntry, k)
					for j := range m.meta {
						m.meta[j] = metaEntry{key: digest(r.u64()), value: digest(r.u64())}
					}
				}
			}
		}
	}
	if r.flag() {
		c.prompt.key = r.string()
		if reply := r.string(); reply != "" && r.err == nil {
			m, err := (a2a.Codec{Version: a2a.V10}).DecodeMessage([]byte(reply))
			if err != nil {
				return &CheckpointError{Err: ErrCheckpointCorrupt, Reason: "the reply does not decode: " + err.Error()}
			}
			c.prompt.reply = m
		}
		if c.prompt.sent = replySent(r.byte()); c.prompt.sent > replyInFlight {
			r.fail("the reply's state")
		}
	}
	switch {
	case r.err != nil:
		return &CheckpointError{Err: ErrCheckpointCorrupt, Reason: r.err.Error()}
	case len(r.b) != 0:
		return &CheckpointError{Err: ErrCheckpointCorrupt, Reason: fmt.Sprintf("%d bytes after its last field", len(r.b))}
	}
	if err := c.check(); err != nil {
		return err
	}
	*cp = c
	return nil
}

// check refuses a checkpoint whose fields contradict each other: a
// checksum does not catch a writer's bug, nor bytes made to pass it.
func (cp *Checkpoint) check() error {
	bad := func(reason string) error { return &CheckpointError{Err: ErrCheckpointCorrupt, Reason: reason} }
	// Any binding is one a Client may speak (NewClientFor takes any);
	// Resume compares it with the Client's.
	if cp.version != "" && cp.version != a2a.V03 && cp.version != a2a.V10 {
		return bad(fmt.Sprintf("unknown protocol version %q", quote([]byte(cp.version))))
	}
	if cp.prompt.sent != replyHeard && cp.prompt.reply == nil {
		return bad("a reply marked as possibly sent, and no reply")
	}
	if r := cp.prompt.reply; r != nil && (r.TaskID == "" || cp.taskID != "" && r.TaskID != cp.taskID) {
		// Resume may send the reply again: never to another task, nor as
		// a message that starts one.
		return bad(fmt.Sprintf("the reply is on task %q, not on the checkpoint's task %q", quote([]byte(r.TaskID)), quote([]byte(cp.taskID))))
	}
	ids := make(map[string]struct{}, len(cp.seen.arts))
	for _, a := range cp.seen.arts {
		if a.parts < 0 {
			return bad("an artifact with a negative number of parts")
		}
		if _, dup := ids[a.id]; dup {
			return bad(fmt.Sprintf("artifact %q listed twice", quote([]byte(a.id))))
		}
		for j := 1; j < len(a.meta); j++ {
			if a.meta[j].key <= a.meta[j-1].key {
				// One form only: a checkpoint read writes the bytes it
				// was read from.
				return bad(fmt.Sprintf("the metadata of artifact %q lists a key twice, or out of order", quote([]byte(a.id))))
			}
		}
		ids[a.id] = struct{}{}
	}
	return nil
}

// checkpointReader reads the fields of a checkpoint, keeping the first
// error: every read after it returns zero values.
type checkpointReader struct {
	b   []byte
	err error
}

func (r *checkpointReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%s cut short or malformed", what)
	}
	r.b = nil
}

func (r *checkpointReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("a number")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *checkpointReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail("a number")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// int reads a uvarint that must fit an int.
func (r *checkpointReader) int() int {
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
func (r *checkpointReader) count(min int) int {
	n := r.uvarint()
	if n > uint64(len(r.b)/min) {
		r.fail("a list")
		return 0
	}
	return int(n)
}

func (r *checkpointReader) string() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail("a text")
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *checkpointReader) u64() uint64 {
	if len(r.b) < 8 {
		r.fail("a digest")
		return 0
	}
	v := binary.BigEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *checkpointReader) byte() byte {
	if len(r.b) < 1 {
		r.fail("a flag")
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

// flag reads a byte that must be 0 or 1.
func (r *checkpointReader) flag() bool {
	switch r.byte() {
	case 0:
		return false
	case 1:
		return true
	}
	r.fail("a flag")
	return false
}

func (r *checkpointReader) time() time.Time {
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
