package checkpoint

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/a2astream/a2astream/a2a"
)

const (
	magic   = "a2acp"
	written = 4 // the format written; formats 1 to 3 are read too
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Append appends c's binary form, in format 4, to b. It allocates nothing
// when b has room: the message marks are copied as they are kept, and only
// the fields after them are checksummed. It fails only when the reply does
// not encode; b is then returned as it was.
func Append(b []byte, c *Checkpoint) ([]byte, error) {
	var reply []byte
	if r := c.Prompt.Reply; r != nil {
		var err error
		if reply, err = (a2a.Codec{Version: a2a.V10}).EncodeMessage(r); err != nil {
			return b, fmt.Errorf("the reply does not encode: %w", err)
		}
	}
	b = append(b, magic...)
	b = binary.AppendUvarint(b, written)
	b = append(b, c.Messages.b...)
	rest := len(b)
	b = append(b, 0)
	b = appendString(b, c.TaskID)
	b = appendString(b, c.ContextID)
	b = appendString(b, string(c.Version))
	b = appendString(b, string(c.Binding))
	b = appendBool(b, c.Polling)
	b = binary.AppendUvarint(b, c.Events)
	b = appendStatus(b, &c.Status)
	b = appendTime(b, c.Latest)
	b = binary.AppendUvarint(b, uint64(len(c.Shown)))
	for i := range c.Shown {
		b = appendStatus(b, &c.Shown[i])
	}
	b = binary.AppendUvarint(b, uint64(len(c.Artifacts)))
	for i := range c.Artifacts {
		a := &c.Artifacts[i]
		b = appendString(b, a.ID)
		b = binary.AppendUvarint(b, uint64(a.Parts))
		b = binary.BigEndian.AppendUint64(b, a.Digest)
		b = binary.BigEndian.AppendUint64(b, a.Name)
		b = binary.BigEndian.AppendUint64(b, a.Description)
		if a.MetaUnknown {
			b = append(b, 0)
			continue
		}
		b = binary.AppendUvarint(append(b, 1), uint64(len(a.Meta)))
		for _, e := range a.Meta {
			b = binary.BigEndian.AppendUint64(b, e.Key)
			b = binary.BigEndian.AppendUint64(b, e.Value)
		}
	}
	if p := &c.Prompt; p.Key == "" && p.Reply == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = appendString(b, p.Key)
		b = binary.AppendUvarint(b, uint64(len(reply)))
		b = append(b, reply...)
		b = append(b, byte(p.Sent))
	}
	b = appendString(b, c.Push)
	// The checksum of the bytes up to the end of the marks is kept with
	// them: only the rest is checksummed here.
	return binary.BigEndian.AppendUint32(b, crc32.Update(c.Messages.checksum(), castagnoli, b[rest:])), nil
}

// headSum is the checksum of a checkpoint's first bytes: the magic and the
// format written.
func headSum() uint32 {
	var head [len(magic) + 1]byte
	copy(head[:], magic)
	head[len(magic)] = written
	return crc32.Checksum(head[:], castagnoli)
}

func appendStatus(b []byte, s *Status) []byte {
	b = appendString(b, string(s.State))
	b = appendString(b, s.MessageID)
	b = binary.BigEndian.AppendUint64(b, s.Message)
	return appendTime(b, s.At)
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
