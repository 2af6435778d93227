package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"testing"
	"testing/iotest"
	"time"
)

// rec is a copy of an Event that outlives the decoder's buffers.
type rec struct {
	Type  string
	Data  string
	ID    string
	Retry time.Duration
}

func (r rec) String() string {
	s := "{"
	if r.Type != "" {
		s += "type=" + strconv.Quote(r.Type) + " "
	}
	d := r.Data
	if len(d) > 40 {
		d = d[:20] + "…(" + strconv.Itoa(len(r.Data)) + " bytes)"
	}
	s += "data=" + strconv.Quote(d)
	if r.ID != "" {
		s += " id=" + strconv.Quote(r.ID)
	}
	if r.Retry != 0 {
		s += " retry=" + r.Retry.String()
	}
	return s + "}"
}

// decodeAll reads every event of r with a decoder of the given limit. It
// returns the events, the error that ended them, and the error that a
// second call to Next returned afterwards.
func decodeAll(r io.Reader, limit int) (evs []rec, err, again error) {
	d := NewDecoder(r, limit)
	for {
		ev, err := d.Next()
		if err != nil {
			_, again := d.Next()
			return evs, err, again
		}
		evs = append(evs, rec{Type: ev.Type, Data: dataOf(ev), ID: string(ev.ID), Retry: ev.Retry})
	}
}

// chunkReader returns its chunks one Read at a time (a Read may take less
// than a chunk when p is short), then err, or io.EOF when err is nil.
type chunkReader struct {
	chunks [][]byte
	err    error
}

func (r *chunkReader) Read(p []byte) (int, error) {
	for len(r.chunks) > 0 && len(r.chunks[0]) == 0 {
		r.chunks = r.chunks[1:]
	}
	if len(r.chunks) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		return 0, io.EOF
	}
	n := copy(p, r.chunks[0])
	r.chunks[0] = r.chunks[0][n:]
	return n, nil
}

// splitAt returns a reader that delivers in[:k] and in[k:] in two reads,
// then err.
func splitAt(in []byte, k int, err error) io.Reader {
	return &chunkReader{chunks: [][]byte{in[:k:k], in[k:]}, err: err}
}

// source returns a fresh reader of in followed by err (io.EOF when nil).
func source(in []byte, err error) io.Reader {
	if err == nil {
		return bytes.NewReader(in)
	}
	return io.MultiReader(bytes.NewReader(in), iotest.ErrReader(err))
}

// readWay is one way of delivering a body to the decoder.
type readWay struct {
	name string
	wrap func(in []byte, err error) io.Reader
}

// readWays lists the ways every case is read besides the split at every
// offset.
func readWays() []readWay {
	return []readWay{
		{"whole", func(in []byte, err error) io.Reader {
			// One bufio.Reader big enough for the whole body: a single line
			// is never cut by a buffer refill.
			return bufio.NewReaderSize(source(in, err), len(in)+16)
		}},
		{"default-buffer", source},
		{"one-byte", func(in []byte, err error) io.Reader { return iotest.OneByteReader(source(in, err)) }},
		{"half", func(in []byte, err error) io.Reader { return iotest.HalfReader(source(in, err)) }},
		{"data-err", func(in []byte, err error) io.Reader { return iotest.DataErrReader(source(in, err)) }},
		{"bufio-16", func(in []byte, err error) io.Reader {
			// The smallest bufio.Reader: long lines take the partial path.
			return bufio.NewReaderSize(source(in, err), 16)
		}},
	}
}

// splitOffsets returns the offsets at which a body of n bytes is split in
// two: every offset for bodies up to 4 KiB; for bigger ones, a sample that
// covers both ends, the read buffer's size and points spread in between
// (splitting a multi-megabyte body at each of its offsets would take hours).
func splitOffsets(n int) []int {
	if n <= 4096 {
		offs := make([]int, 0, n+1)
		for k := 0; k <= n; k++ {
			offs = append(offs, k)
		}
		return offs
	}
	var offs []int
	for k := 0; k <= 8; k++ {
		offs = append(offs, k, n-k)
	}
	for k := readBufferSize - 2; k <= readBufferSize+2 && k < n; k++ {
		offs = append(offs, k)
	}
	for k := 1; k < 16; k++ {
		offs = append(offs, n*k/16)
	}
	return offs
}

// errorClass names the kind of an error the decoder returned, for
// comparisons that must not depend on a *TooLargeError's identity.
func errorClass(err error) string {
	switch {
	case err == nil:
		return "nil"
	case err == io.EOF:
		return "EOF"
	case err == io.ErrUnexpectedEOF:
		return "ErrUnexpectedEOF"
	case errors.Is(err, ErrTooLarge):
		var tl *TooLargeError
		if errors.As(err, &tl) {
			return fmt.Sprintf("TooLarge(%d)", tl.Limit)
		}
		return "TooLarge(?)"
	default:
		return "other: " + err.Error()
	}
}

// sameRecs reports whether two event lists are equal.
func sameRecs(a, b []rec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkDecode decodes r and compares the result with the wanted events and
// error class.
func checkDecode(t *testing.T, r io.Reader, limit int, want []rec, wantErr string) {
	t.Helper()
	got, err, again := decodeAll(r, limit)
	if !sameRecs(got, want) {
		t.Fatalf("events: got %v; want %v", got, want)
	}
	if errorClass(err) != wantErr {
		t.Fatalf("error: got %v; want %v", errorClass(err), wantErr)
	}
	if again != err {
		t.Fatalf("second Next after the error: got %v; want the same error %v", again, err)
	}
}

// dataOf returns an event's data: Data, or its Chunks joined.
func dataOf(ev Event) string {
	if ev.Chunks != nil {
		return string(bytes.Join(ev.Chunks, nil))
	}
	return string(ev.Data)
}

// dataLen returns the length of an event's data, without joining it.
func dataLen(ev Event) int {
	n := len(ev.Data)
	for _, c := range ev.Chunks {
		n += len(c)
	}
	return n
}
