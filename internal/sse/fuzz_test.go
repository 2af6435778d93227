package sse

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/require"
)

// fuzzLimit is small so that the fuzzer reaches the size checks often.
const fuzzLimit = 4096

func FuzzDecode(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	require.NoError(f, err, "listing testdata")
	require.NotEmpty(f, files, "no captures in testdata")
	for _, name := range files {
		b, err := os.ReadFile(name)
		require.NoError(f, err, "reading %s", name)
		f.Add(b)
	}
	for _, tt := range matrixCases() {
		if len(tt.in) <= 2*fuzzLimit {
			f.Add([]byte(tt.in))
		}
	}
	f.Add([]byte("data: " + strings.Repeat("x", fuzzLimit) + "\n\n"))
	f.Add([]byte("data: a\r"))
	f.Add([]byte("\xEF\xBB\xBF\r\n"))

	f.Fuzz(func(t *testing.T, in []byte) {
		want, wantErr := referenceDecode(in, fuzzLimit)
		ways := []struct {
			name  string
			r     io.Reader
			chunk int // the data chunk size; 0 for the default
		}{
			{"whole", bufio.NewReaderSize(bytes.NewReader(in), len(in)+16), 0},
			{"one-byte", iotest.OneByteReader(bytes.NewReader(in)), 0},
			{"half", iotest.HalfReader(bytes.NewReader(in)), 0},
			{"bufio-16", bufio.NewReaderSize(bytes.NewReader(in), 16), 0},
			{"split", splitAt(in, len(in)/3, nil), 0},
			// Small data chunks, so that events bigger than one are common.
			{"whole-chunks-7", bufio.NewReaderSize(bytes.NewReader(in), len(in)+16), 7},
			{"one-byte-chunks-16", iotest.OneByteReader(bytes.NewReader(in)), 16},
			{"half-chunks-512", iotest.HalfReader(bytes.NewReader(in)), 512},
		}
		for _, way := range ways {
			got, err, again := decodeAllBounded(t, way.name, way.r, fuzzLimit, way.chunk)
			for i, ev := range got {
				if len(ev.Data) > fuzzLimit {
					t.Fatalf("%s: event %d: len(data): got %v; want at most %v", way.name, i, len(ev.Data), fuzzLimit)
				}
			}
			if !sameRecs(got, want) {
				t.Fatalf("%s: events: got %v; want %v", way.name, got, want)
			}
			if errorClass(err) != wantErr {
				t.Fatalf("%s: error: got %v; want %v", way.name, errorClass(err), wantErr)
			}
			if again != err {
				t.Fatalf("%s: second Next: got %v; want %v", way.name, again, err)
			}
		}
	})
}

// decodeAllBounded is decodeAll that also checks, after every call of Next,
// that the decoder's own buffers stay bounded by the event size limit:
// however the input is shaped, the memory one stream holds is the read
// buffer plus at most twice the limit for each of data (its chunks
// included), line, type and ID (append may round a capacity up to twice
// what is needed). A chunk size above zero replaces the decoder's.
func decodeAllBounded(t *testing.T, way string, r io.Reader, limit, chunk int) (evs []rec, err, again error) {
	d := NewDecoder(r, limit)
	if chunk > 0 {
		d.chunk = chunk
	}
	// The default chunk size is over fuzzLimit: only the ways with small
	// chunks see events come in chunks.
	check := func() {
		for _, b := range []struct {
			name string
			c    int
		}{{"data", d.chunked + cap(d.data)}, {"line", cap(d.line)}, {"type", cap(d.typ)}, {"id", cap(d.id)}} {
			if b.c > 2*limit {
				t.Fatalf("%s: after event %d: cap(%s) = %d; want at most %d", way, len(evs), b.name, b.c, 2*limit)
			}
		}
	}
	for {
		ev, err := d.Next()
		check()
		if err != nil {
			_, again := d.Next()
			return evs, err, again
		}
		checkChunks(t, way, len(evs), ev, d.chunk)
		evs = append(evs, rec{Type: ev.Type, Data: dataOf(ev), ID: string(ev.ID), Retry: ev.Retry})
	}
}

// checkChunks checks the shape of an event's data: Data alone for an event
// of up to chunk bytes of data, Chunks alone past it, each chunk but the
// last full.
func checkChunks(t *testing.T, way string, i int, ev Event, chunk int) {
	t.Helper()
	if ev.Chunks == nil {
		if len(ev.Data) > chunk {
			t.Fatalf("%s: event %d: %d bytes of Data and no chunks; want at most %d", way, i, len(ev.Data), chunk)
		}
		return
	}
	if ev.Data != nil || len(ev.Chunks) < 2 {
		t.Fatalf("%s: event %d: Data %q beside %d chunks; want nil, and two chunks or more", way, i, ev.Data, len(ev.Chunks))
	}
	for k, c := range ev.Chunks[:len(ev.Chunks)-1] {
		if len(c) != chunk {
			t.Fatalf("%s: event %d: chunk %d of %d: %d bytes; want %d", way, i, k, len(ev.Chunks), len(c), chunk)
		}
	}
	if last := ev.Chunks[len(ev.Chunks)-1]; len(last) == 0 || len(last) > chunk {
		t.Fatalf("%s: event %d: last chunk: %d bytes; want 1 to %d", way, i, len(last), chunk)
	}
}

// referenceDecode is a deliberately plain reading of the WHATWG rules,
// working on the whole body at once, for the fuzzer to compare the decoder
// with. The size rule is the decoder's: the data collected so far plus the
// current line (without its end) must not exceed limit.
func referenceDecode(in []byte, limit int) ([]rec, string) {
	in = bytes.TrimPrefix(in, []byte(utf8BOM))
	var (
		out     []rec
		data    []byte
		hasData bool
		open    bool
		typ     string
		id      string
		retry   time.Duration
	)
	for {
		end := bytes.IndexAny(in, "\r\n")
		if end < 0 {
			switch {
			case len(data)+len(in) > limit:
				return out, errorClass(&TooLargeError{Limit: limit})
			case len(in) > 0 || open:
				return out, "ErrUnexpectedEOF"
			default:
				return out, "EOF"
			}
		}
		line := in[:end]
		if len(data)+len(line) > limit {
			return out, errorClass(&TooLargeError{Limit: limit})
		}
		next := end + 1
		if in[end] == '\r' && next < len(in) && in[next] == '\n' {
			next++
		}
		in = in[next:]

		if len(line) == 0 {
			if hasData {
				out = append(out, rec{Type: typ, Data: string(data), ID: id, Retry: retry})
			}
			data, hasData, open, typ, retry = nil, false, false, "", 0
			continue
		}
		if line[0] == ':' {
			continue
		}
		open = true
		name, value, found := strings.Cut(string(line), ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch name {
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
		case "event":
			typ = value
		case "id":
			if !strings.Contains(value, "\x00") {
				id = value
			}
		case "retry":
			if value != "" && strings.Trim(value, "0123456789") == "" {
				retry, _ = parseRetry([]byte(value))
			}
		}
	}
}
