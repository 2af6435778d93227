package sse

import (
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

// An event bigger than a chunk is held in chunks while it is read, comes out
// in them, and leaves the decoder holding one chunk.
func TestBigEventDataInChunks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		chunk int
		lines []string
	}{
		{"one line over many chunks", 16, []string{strings.Repeat("abcdefghij", 20)}},
		{"lines ending on chunk edges", 8, []string{"1234567", "1234567", "", "12345678"}},
		{"many short lines", 5, []string{"a", "bc", "def", "ghij", "klmno", "pqrstu"}},
		{"default chunk size", 0, []string{strings.Repeat("x", 3*dataChunkSize+17), "y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body strings.Builder
			for _, l := range tt.lines {
				body.WriteString("data: " + l + "\n")
			}
			body.WriteString("\ndata: next\n\n")
			d := NewDecoder(iotest.HalfReader(strings.NewReader(body.String())), 0)
			chunk := dataChunkSize
			if tt.chunk > 0 {
				d.chunk, chunk = tt.chunk, tt.chunk
			}
			ev, err := d.Next()
			require.NoError(t, err)
			want := strings.Join(tt.lines, "\n")
			if got := dataOf(ev); got != want {
				t.Fatalf("data: got %q; want %q", got, want)
			}
			checkChunks(t, tt.name, 0, ev, chunk)
			last := ev.Chunks[len(ev.Chunks)-1]
			if cap(last) != len(last) {
				t.Fatalf("cap(last chunk): got %v; want %v", cap(last), len(last))
			}
			if d.chunks != nil || d.chunked != 0 || cap(d.data) > chunk {
				t.Fatalf("after the event: %d chunks of %d bytes, cap(data) %d; want none, at most %d",
					len(d.chunks), d.chunked, cap(d.data), chunk)
			}
			ev, err = d.Next()
			require.NoError(t, err)
			if got := dataOf(ev); got != "next" || ev.Chunks != nil {
				t.Fatalf("second event: got %q; want %q", got, "next")
			}
		})
	}
}

// The size limit counts the chunks: an event held in chunks fails at the
// same byte as one that is not.
func TestTooLargeCountsChunks(t *testing.T) {
	t.Parallel()
	for _, chunk := range []int{0, 4, 7} {
		for _, in := range []string{
			"data: " + strings.Repeat("x", 40) + "\n\n",
			"data: " + strings.Repeat("x", 20) + "\ndata: " + strings.Repeat("y", 20) + "\n\n",
		} {
			d := NewDecoder(iotest.OneByteReader(strings.NewReader(in)), 39)
			if chunk > 0 {
				d.chunk = chunk
			}
			_, err := d.Next()
			require.ErrorIs(t, err, ErrTooLarge, "chunk %d, input %q", chunk, in)
		}
	}
}

// A data line longer than the read buffer arrives in pieces; its value goes
// to the data alone, so once the event is out the decoder's line buffer
// holds none of it (it kept the first piece, up to 64 KiB a stream, idle).
// A field other than data is still read whole, across its pieces.
func TestALongDataLineLeavesNoLineBuffer(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 200<<10)
	d := NewDecoder(strings.NewReader("data: "+long+"\n\nevent: "+long[:100<<10]+"\ndata: b\n\n"), 1<<20)
	ev, err := d.Next()
	require.NoError(t, err)
	require.Equal(t, long, dataOf(ev))
	require.Less(t, cap(d.line), 64, "the line buffer after a long data line")
	ev, err = d.Next()
	require.NoError(t, err)
	require.Equal(t, long[:100<<10], string(ev.Type))
	require.Equal(t, "b", dataOf(ev))
}
