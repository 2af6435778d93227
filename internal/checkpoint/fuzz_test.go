package checkpoint_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"testing"

	"github.com/a2astream/a2astream/internal/checkpoint"
)

// FuzzParseCheckpoint feeds Parse any bytes, as they are and with a valid
// checksum appended (so that the fields behind the checksum are explored):
// it never panics, refuses with an *Error, and a checkpoint it accepts
// writes bytes that read back to a checkpoint that writes the same bytes
// again. A reply's JSON may be written otherwise than it was read (white
// space, say), the rest byte for byte, the push registration included. The
// seeds are of format 4 (those of sample: one with a push registration),
// of format 3 (testdata/checkpoint-format3.bin), of format 2 (testdata/checkpoint-format2.bin and, in
// testdata/fuzz/FuzzParseCheckpoint, the checkpoints a stream wrote after
// each event of a script with artifacts with metadata and after a prompt
// replied to) and of format 1.
func FuzzParseCheckpoint(f *testing.F) {
	for _, c := range sample() {
		b, err := checkpoint.Append(nil, &c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, name := range []string{"testdata/checkpoint-format1.bin", "testdata/checkpoint-format2.bin", "testdata/checkpoint-format3.bin"} {
		old, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(old)
	}
	f.Add([]byte("a2acp"))
	f.Add([]byte("a2acp\x02"))
	f.Add([]byte("a2acp\x03"))
	f.Add([]byte("a2acp\x04"))
	f.Add([]byte("a2acp\x05"))
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	f.Fuzz(func(t *testing.T, data []byte) {
		summed := binary.BigEndian.AppendUint32(bytes.Clone(data), crc32.Checksum(data, castagnoli))
		for _, in := range [][]byte{data, summed} {
			c, err := checkpoint.Parse(in)
			if err != nil {
				if _, ok := err.(*checkpoint.Error); !ok {
					t.Fatalf("refused with %T, not a *checkpoint.Error: %v", err, err)
				}
				continue
			}
			once, err := checkpoint.Append(nil, &c)
			if err != nil {
				t.Fatalf("an accepted checkpoint does not write: %v", err)
			}
			back, err := checkpoint.Parse(once)
			if err != nil {
				t.Fatalf("a checkpoint written from an accepted one is refused: %v\n in %q\nout %q", err, in, once)
			}
			twice, err := checkpoint.Append(nil, &back)
			if err != nil || !bytes.Equal(once, twice) {
				t.Fatalf("a checkpoint does not write the same bytes twice (%v):\n%q\n%q", err, once, twice)
			}
		}
	})
}
