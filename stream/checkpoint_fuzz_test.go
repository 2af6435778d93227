package stream_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"os"
	"testing"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// FuzzParseCheckpoint feeds ParseCheckpoint any bytes, as they are and
// with a valid checksum appended (so that the fields behind the checksum
// are explored): it never panics, refuses with a *CheckpointError, and a
// checkpoint it accepts writes bytes that read back to a checkpoint that
// writes the same bytes again. A reply's JSON may be written otherwise
// than it was read (white space, say), the rest byte for byte. The seeds
// are of format 2 (artifacts with metadata among them) and of format 1.
func FuzzParseCheckpoint(f *testing.F) {
	keyed := a2a.Artifact{ID: "a2", Parts: []a2a.Part{{Text: "x"}}, Metadata: map[string]any{"k": "v", "n": 1.0}}
	grown := a2a.Artifact{ID: "a2", Parts: []a2a.Part{{Text: "y"}}, Metadata: map[string]any{"j": true}}
	agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Working("thinking"), a2atest.Chunk("a1", "one ", false, false),
		a2atest.Say("a note"), a2atest.ArtifactChunk(keyed, false, false), a2atest.ArtifactChunk(grown, true, true),
		a2atest.Chunk("a1", "two", true, true), a2atest.Finish(a2a.StateCompleted, "done")))
	c, err := stream.NewClient(endpoint, stream.WithHTTPClient(agent.Client()))
	if err != nil {
		f.Fatal(err)
	}
	s := c.Send(context.Background(), hello())
	for s.Next() {
		b, err := s.Checkpoint().MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	if s.Err() != nil {
		f.Fatal(s.Err())
	}
	format1, err := os.ReadFile("testdata/checkpoint-format1.bin")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(format1)
	f.Add([]byte("a2acp"))
	f.Add([]byte("a2acp\x02"))
	f.Add([]byte("a2acp\x03"))
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	f.Fuzz(func(t *testing.T, data []byte) {
		summed := binary.BigEndian.AppendUint32(bytes.Clone(data), crc32.Checksum(data, castagnoli))
		for _, in := range [][]byte{data, summed} {
			cp, err := stream.ParseCheckpoint(in)
			if err != nil {
				if _, ok := err.(*stream.CheckpointError); !ok {
					t.Fatalf("refused with %T, not a *CheckpointError: %v", err, err)
				}
				continue
			}
			once, err := cp.MarshalBinary()
			if err != nil {
				t.Fatalf("an accepted checkpoint does not write: %v", err)
			}
			back, err := stream.ParseCheckpoint(once)
			if err != nil {
				t.Fatalf("a checkpoint written from an accepted one is refused: %v\n in %q\nout %q", err, in, once)
			}
			twice, err := back.MarshalBinary()
			if err != nil || !bytes.Equal(once, twice) {
				t.Fatalf("a checkpoint does not write the same bytes twice (%v):\n%q\n%q", err, once, twice)
			}
		}
	})
}
