package sse

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// errBoom stands for a transport failure in the middle of a body.
var errBoom = errors.New("boom: connection reset")

// decodeCase is one row of the compliance matrix.
type decodeCase struct {
	name    string
	in      string
	readErr error // returned by the body after in; nil means io.EOF
	limit   int   // passed to NewDecoder; 0 means the default
	want    []rec
	wantErr string // errorClass of the final error
}

const boomClass = "other: boom: connection reset"

// data returns an event with only data, for brevity in the table.
func data(s string) rec { return rec{Data: s} }

// bigLine is the size of the line TestDecodeMatrix reads under a raised
// limit, far past the 64 KiB read buffer; CI passes the full size (.ci/run).
var bigLine = flag.Int("sse.bigline", 1<<20, "bytes in TestDecodeMatrix's big line, read under a limit 8/5 of it (CI: 5 MiB, 5242880)")

// matrixCases is the compliance matrix of the SSE evaluation (section 6)
// plus the edge cases around it, each with the result the WHATWG parsing
// rules give.
func matrixCases() []decodeCase {
	big100K := strings.Repeat("x", 100<<10)
	bigN := strings.Repeat("y", *bigLine)
	line600 := "data: " + strings.Repeat("z", 600) + "\n"
	return []decodeCase{
		// Basics.
		{name: "LF basic", in: "data: hello\n\n", want: []rec{data("hello")}, wantErr: "EOF"},
		{name: "two events", in: "data: a\n\ndata: b\n\n", want: []rec{data("a"), data("b")}, wantErr: "EOF"},
		{name: "multi-line data", in: "data: a\ndata: b\ndata: c\n\n", want: []rec{data("a\nb\nc")}, wantErr: "EOF"},
		{name: "colon in value", in: "data: a:b: c\n\ndata::\n\n", want: []rec{data("a:b: c"), data(":")}, wantErr: "EOF"},
		{
			name:    "leading space: only one removed, tab kept",
			in:      "data:x\n\ndata: x\n\ndata:  x\n\ndata:\tx\n\n",
			want:    []rec{data("x"), data("x"), data(" x"), data("\tx")},
			wantErr: "EOF",
		},
		{name: "trailing spaces kept", in: "data: x  \n\n", want: []rec{data("x  ")}, wantErr: "EOF"},
		{
			name:    "comments ignored",
			in:      ": hello\n:\ndata: a\n: between\ndata: b\n\n",
			want:    []rec{data("a\nb")},
			wantErr: "EOF",
		},
		{
			name:    "unknown fields ignored",
			in:      "foo: bar\ndata: a\nDATA: no\n data: no\nbaz\n\n",
			want:    []rec{data("a")},
			wantErr: "EOF",
		},
		{
			name:    "unknown field only: not dispatched",
			in:      "foo: bar\n\ndata: a\n\n",
			want:    []rec{data("a")},
			wantErr: "EOF",
		},
		{name: "blank lines between events", in: "\n\n\ndata: a\n\n\n\n", want: []rec{data("a")}, wantErr: "EOF"},

		// event:
		{
			name:    "event type, reset after dispatch",
			in:      "event: update\ndata: a\n\ndata: b\n\n",
			want:    []rec{{Type: "update", Data: "a"}, data("b")},
			wantErr: "EOF",
		},
		{
			name:    "event type: last one wins, empty value is empty",
			in:      "event: a\nevent: error\ndata: x\n\nevent: message\ndata: y\n\nevent: b\nevent:\ndata: z\n\n",
			want:    []rec{{Type: "error", Data: "x"}, {Type: "message", Data: "y"}, data("z")},
			wantErr: "EOF",
		},
		{
			name:    "event-only block not dispatched",
			in:      "event: x\n\ndata: a\n\n",
			want:    []rec{data("a")},
			wantErr: "EOF",
		},

		// retry:
		{
			name:    "retry digits only",
			in:      "retry: 1500\ndata: a\n\nretry: 12a\ndata: b\n\nretry:\ndata: c\n\nretry: -5\ndata: d\n\nretry:  10\ndata: e\n\n",
			want:    []rec{{Data: "a", Retry: 1500 * time.Millisecond}, data("b"), data("c"), data("d"), data("e")},
			wantErr: "EOF",
		},
		{
			name:    "retry does not outlive its block",
			in:      "retry: 5\n\ndata: a\n\nretry: 7\ndata: b\n\ndata: c\n\n",
			want:    []rec{data("a"), {Data: "b", Retry: 7 * time.Millisecond}, data("c")},
			wantErr: "EOF",
		},
		{
			name:    "retry saturates",
			in:      "retry: 99999999999999999999999999\ndata: a\n\n",
			want:    []rec{{Data: "a", Retry: time.Duration(math.MaxInt64)}},
			wantErr: "EOF",
		},

		// Line endings.
		{
			name:    "CRLF",
			in:      "data: a\r\ndata: b\r\n\r\ndata: c\r\n\r\n",
			want:    []rec{data("a\nb"), data("c")},
			wantErr: "EOF",
		},
		{
			name:    "CR only",
			in:      "data: a\rdata: b\r\rdata: c\r\r",
			want:    []rec{data("a\nb"), data("c")},
			wantErr: "EOF",
		},
		{
			name:    "mixed CRLF+LF, LF+CRLF, CR+CRLF",
			in:      "data: a\r\n\ndata: b\n\r\ndata: c\r\r\n",
			want:    []rec{data("a"), data("b"), data("c")},
			wantErr: "EOF",
		},
		{
			name:    "LF CR is two line ends",
			in:      "data: a\n\rdata: b\n\n",
			want:    []rec{data("a"), data("b")},
			wantErr: "EOF",
		},
		{
			name:    "CR ending then comment",
			in:      "data: a\r\r: ping\r\rdata: b\r\r",
			want:    []rec{data("a"), data("b")},
			wantErr: "EOF",
		},

		// Keep-alives and ids.
		{
			name:    "keep-alive comment after an event with id",
			in:      "id: 1\ndata: a\n\n: keep-alive\n\n: keep-alive\n\n",
			want:    []rec{{Data: "a", ID: "1"}},
			wantErr: "EOF",
		},
		{
			name:    "CRLF ping comments between events (sse-starlette style)",
			in:      ": ping - 2025-01-01 00:00:00\r\n\r\ndata: a\r\n\r\n: ping\r\n\r\ndata: b\r\n\r\n",
			want:    []rec{data("a"), data("b")},
			wantErr: "EOF",
		},
		{
			name: "id persists, empty id resets, id-only block sets it",
			in: "id: 1\ndata: a\n\ndata: b\n\nid:\ndata: c\n\nid: 2\n\ndata: d\n\n" +
				"id\ndata: e\n\nid:  3\ndata: f\n\n",
			want: []rec{
				{Data: "a", ID: "1"}, {Data: "b", ID: "1"}, data("c"), {Data: "d", ID: "2"},
				data("e"), {Data: "f", ID: " 3"},
			},
			wantErr: "EOF",
		},
		{
			name:    "id containing NUL ignored",
			in:      "id: 1\ndata: a\n\nid: x\x00y\ndata: b\n\n",
			want:    []rec{{Data: "a", ID: "1"}, {Data: "b", ID: "1"}},
			wantErr: "EOF",
		},

		// data without colon, empty data.
		{
			name:    "data without colon",
			in:      "data\n\ndata\ndata\n\n",
			want:    []rec{data(""), data("\n")},
			wantErr: "EOF",
		},
		{
			name:    "empty data value",
			in:      "data:\n\ndata: \n\ndata: x\n\n",
			want:    []rec{data(""), data(""), data("x")},
			wantErr: "EOF",
		},
		{
			name:    "empty data line inside data",
			in:      "data: a\ndata:\ndata: b\n\n",
			want:    []rec{data("a\n\nb")},
			wantErr: "EOF",
		},

		// Byte order mark.
		{name: "BOM at start stripped", in: "\xEF\xBB\xBFdata: a\n\n", want: []rec{data("a")}, wantErr: "EOF"},
		{name: "BOM only", in: "\xEF\xBB\xBF", wantErr: "EOF"},
		{name: "BOM then CRLF event", in: "\xEF\xBB\xBFdata: a\r\n\r\n", want: []rec{data("a")}, wantErr: "EOF"},
		{
			name:    "second BOM not stripped",
			in:      "\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\ndata: b\n\n",
			want:    []rec{data("b")},
			wantErr: "EOF",
		},
		{
			name:    "BOM later in the stream not stripped",
			in:      "data: a\n\n\xEF\xBB\xBFdata: b\n\n",
			want:    []rec{data("a")},
			wantErr: "EOF",
		},
		{name: "partial BOM is part of a line", in: "\xEF\xBBdata: a\n\ndata: b\n\n", want: []rec{data("b")}, wantErr: "EOF"},
		{name: "partial BOM at EOF", in: "\xEF\xBB", wantErr: "ErrUnexpectedEOF"},

		// End of stream.
		{name: "empty body", in: "", wantErr: "EOF"},
		{name: "only comments and blank lines", in: ": a\n\n\n: b\r\n", wantErr: "EOF"},
		{
			name:    "unterminated last event discarded",
			in:      "data: a\n\ndata: b\n",
			want:    []rec{data("a")},
			wantErr: "ErrUnexpectedEOF",
		},
		{
			name:    "unterminated last line discarded",
			in:      "data: a\n\ndata: b",
			want:    []rec{data("a")},
			wantErr: "ErrUnexpectedEOF",
		},
		{name: "single unterminated line", in: "data: a", wantErr: "ErrUnexpectedEOF"},
		{
			name:    "open block without data at EOF",
			in:      "data: a\n\nid: 7\n",
			want:    []rec{{Data: "a"}},
			wantErr: "ErrUnexpectedEOF",
		},
		{
			name:    "unterminated comment line at EOF",
			in:      "data: a\n\n: tail",
			want:    []rec{data("a")},
			wantErr: "ErrUnexpectedEOF",
		},
		{
			name:    "terminated comment at EOF",
			in:      "data: a\n\n: tail\n",
			want:    []rec{data("a")},
			wantErr: "EOF",
		},
		{
			name:    "trailing CR is a blank line",
			in:      "data: a\n\r",
			want:    []rec{data("a")},
			wantErr: "EOF",
		},

		// Size limit.
		{
			name:    "100 KiB line with the default limit",
			in:      "data: " + big100K + "\n\n",
			want:    []rec{data(big100K)},
			wantErr: "EOF",
		},
		{
			name:    fmt.Sprintf("%d KiB line with a %d KiB limit", *bigLine>>10, *bigLine*8/5>>10),
			in:      "id: 9\ndata: " + bigN + "\r\n\r\ndata: after\r\n\r\n",
			limit:   *bigLine * 8 / 5,
			want:    []rec{{Data: bigN, ID: "9"}, {Data: "after", ID: "9"}},
			wantErr: "EOF",
		},
		{
			name:    "line exactly at the limit",
			in:      "data: " + strings.Repeat("q", 94) + "\n\n",
			limit:   100,
			want:    []rec{data(strings.Repeat("q", 94))},
			wantErr: "EOF",
		},
		{
			name:    "line one byte over the limit",
			in:      "data: a\n\ndata: " + strings.Repeat("q", 95) + "\n\n",
			limit:   100,
			want:    []rec{data("a")},
			wantErr: "TooLarge(100)",
		},
		{
			name:    "event over the limit across lines",
			in:      "data: a\n\n" + line600 + line600 + "\ndata: never\n\n",
			limit:   1024,
			want:    []rec{data("a")},
			wantErr: "TooLarge(1024)",
		},
		{
			name:    "comment line over the limit",
			in:      ": " + strings.Repeat("c", 100) + "\ndata: never\n\n",
			limit:   64,
			wantErr: "TooLarge(64)",
		},
		{
			name:    "over-limit line cut by EOF is too large, not unexpected EOF",
			in:      "data: " + strings.Repeat("q", 200),
			limit:   100,
			wantErr: "TooLarge(100)",
		},

		// Read errors.
		{
			name:    "read error mid-event",
			in:      `data: {"trunc`,
			readErr: errBoom,
			wantErr: boomClass,
		},
		{
			name:    "read error after a complete line of an event",
			in:      "data: a\n\ndata: b\n",
			readErr: errBoom,
			want:    []rec{data("a")},
			wantErr: boomClass,
		},
		{
			name:    "read error between events",
			in:      "data: a\n\n",
			readErr: errBoom,
			want:    []rec{data("a")},
			wantErr: boomClass,
		},
		{
			name:    "unexpected EOF from the body passes through",
			in:      "data: a\n\n",
			readErr: io.ErrUnexpectedEOF,
			want:    []rec{data("a")},
			wantErr: "ErrUnexpectedEOF",
		},
	}
}

func TestDecodeMatrix(t *testing.T) {
	t.Parallel()
	for _, tt := range matrixCases() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := []byte(tt.in)
			for _, way := range readWays() {
				t.Run(way.name, func(t *testing.T) {
					checkDecode(t, way.wrap(in, tt.readErr), tt.limit, tt.want, tt.wantErr)
				})
			}
			t.Run("split", func(t *testing.T) {
				for _, k := range splitOffsets(len(in)) {
					got, err, _ := decodeAll(splitAt(in, k, tt.readErr), tt.limit)
					if !sameRecs(got, tt.want) {
						t.Fatalf("split at %d: events: got %v; want %v", k, got, tt.want)
					}
					if errorClass(err) != tt.wantErr {
						t.Fatalf("split at %d: error: got %v; want %v", k, errorClass(err), tt.wantErr)
					}
				}
			})
		})
	}
}

func TestTooLargeError(t *testing.T) {
	t.Parallel()
	_, err, _ := decodeAll(strings.NewReader("data: "+strings.Repeat("x", 50)+"\n\n"), 32)
	var tl *TooLargeError
	require.ErrorAs(t, err, &tl)
	if tl.Limit != 32 {
		t.Fatalf("Limit: got %v; want %v", tl.Limit, 32)
	}
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("errors.Is(err, ErrTooLarge): got %v; want %v", false, true)
	}
	if got, want := err.Error(), "sse: event exceeds 32 bytes"; got != want {
		t.Fatalf("Error(): got %q; want %q", got, want)
	}
	if wrapped := fmt.Errorf("stream: %w", err); !errors.Is(wrapped, ErrTooLarge) {
		t.Fatalf("errors.Is(wrapped, ErrTooLarge): got %v; want %v", false, true)
	}
	if errors.Is(errBoom, ErrTooLarge) {
		t.Fatalf("errors.Is(errBoom, ErrTooLarge): got %v; want %v", true, false)
	}
}

// endless is a body that never ends: prefix, then fill bytes forever. It
// counts the bytes handed out.
type endless struct {
	prefix string
	fill   byte
	read   int
}

func (r *endless) Read(p []byte) (int, error) {
	n := copy(p, r.prefix)
	r.prefix = r.prefix[n:]
	for i := n; i < len(p); i++ {
		p[i] = r.fill
	}
	r.read += len(p)
	return len(p), nil
}

func TestEndlessLineStopsAtLimit(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	tests := []struct {
		name   string
		prefix string
		fill   byte
		limit  int
		bound  int // most bytes the decoder may read
	}{
		{name: "field name", fill: 'a', limit: limit, bound: limit + readBufferSize},
		{name: "data value", prefix: "data: ", fill: 'a', limit: limit, bound: limit + readBufferSize},
		{name: "id value", prefix: "id: ", fill: 'a', limit: limit, bound: limit + readBufferSize},
		{name: "comment", prefix: ":", fill: 'a', limit: limit, bound: limit + readBufferSize},
		{name: "after an event", prefix: "data: ok\n\ndata: ", fill: 'a', limit: limit, bound: limit + readBufferSize + 16},
		{name: "default limit", prefix: "data: ", fill: 'a', bound: DefaultMaxEventSize + readBufferSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := &endless{prefix: tt.prefix, fill: tt.fill}
			d := NewDecoder(body, tt.limit)
			var err error
			for range 2 {
				if _, err = d.Next(); err == nil {
					continue // the complete event of "after an event"
				}
				break
			}
			want := tt.limit
			if want <= 0 {
				want = DefaultMaxEventSize
			}
			if got := errorClass(err); got != fmt.Sprintf("TooLarge(%d)", want) {
				t.Fatalf("error: got %v; want TooLarge(%d)", got, want)
			}
			if body.read > tt.bound {
				t.Fatalf("bytes read: got %v; want at most %v", body.read, tt.bound)
			}
			read := body.read
			if _, again := d.Next(); again != err {
				t.Fatalf("second Next: got %v; want %v", again, err)
			}
			if body.read != read {
				t.Fatalf("bytes read after the error: got %v; want %v", body.read, read)
			}
		})
	}
}

func TestNewDecoderUsesGivenBufioReader(t *testing.T) {
	t.Parallel()
	// With a 16-byte bufio.Reader the decoder must work inside that buffer:
	// if it wrapped its own 64 KiB reader around it, the bytes it reads
	// ahead would be missing from br afterwards.
	br := bufio.NewReaderSize(strings.NewReader("data: a long line that does not fit\n\nrest"), 16)
	d := NewDecoder(br, 0)
	ev, err := d.Next()
	require.NoError(t, err)
	if got, want := string(ev.Data), "a long line that does not fit"; got != want {
		t.Fatalf("Data: got %q; want %q", got, want)
	}
	rest, err := io.ReadAll(br)
	require.NoError(t, err)
	if got, want := string(rest), "rest"; got != want {
		t.Fatalf("bytes left in the caller's reader: got %q; want %q", got, want)
	}
}

func TestNilReader(t *testing.T) {
	t.Parallel()
	d := NewDecoder(nil, 0)
	_, err := d.Next()
	if err == nil || err == io.EOF {
		t.Fatalf("Next on a nil reader: got %v; want a non-EOF error", err)
	}
	if _, again := d.Next(); again != err {
		t.Fatalf("second Next: got %v; want %v", again, err)
	}
}

func TestDataAliasesUntilNextCall(t *testing.T) {
	t.Parallel()
	d := NewDecoder(strings.NewReader("id: 1\ndata: first\n\nid: 2\ndata: other\n\n"), 0)
	ev1, err := d.Next()
	require.NoError(t, err)
	if got, want := string(ev1.Data), "first"; got != want {
		t.Fatalf("Data: got %q; want %q", got, want)
	}
	// Appending to the returned slices must not write into the decoder's
	// buffers, whose capacity is hidden.
	if cap(ev1.Data) != len(ev1.Data) || cap(ev1.ID) != len(ev1.ID) {
		t.Fatalf("cap(Data), cap(ID): got %v, %v; want %v, %v", cap(ev1.Data), cap(ev1.ID), len(ev1.Data), len(ev1.ID))
	}
	ev2, err := d.Next()
	require.NoError(t, err)
	if got, want := string(ev2.Data)+"/"+string(ev2.ID), "other/2"; got != want {
		t.Fatalf("second event: got %q; want %q", got, want)
	}
}

// cycle is a body that repeats one block forever.
type cycle struct {
	block []byte
	off   int
}

func (r *cycle) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.block[r.off:])
		n += c
		r.off = (r.off + c) % len(r.block)
	}
	return n, nil
}

func TestNextDoesNotAllocate(t *testing.T) {
	// Not parallel: testing.AllocsPerRun refuses to run in parallel tests.
	payload := `{"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"t1","contextId":"c1","status":{"state":"working"},"final":false}}`
	tests := []struct {
		name  string
		block string
		typ   string
	}{
		{name: "no type, id", block: "id: 17\ndata: " + payload + "\n\n"},
		{name: "error type", block: "event: error\ndata: " + payload + "\n\n", typ: "error"},
		{name: "message type, CRLF", block: "event: message\r\ndata: " + payload + "\r\n\r\n", typ: "message"},
		{name: "custom type repeated", block: "event: update\ndata: " + payload + "\n\n", typ: "update"},
		{name: "keep-alives and retry", block: ": ping\n\nretry: 1000\ndata: " + payload + "\n\n"},
		{name: "CR only, multi-line", block: "data: a\rdata: " + payload + "\r\r"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDecoder(&cycle{block: []byte(tt.block)}, 0)
			var ev Event
			var err error
			// Warm up: let the buffers grow and the custom type be kept.
			for range 100 {
				ev, err = d.Next()
				require.NoError(t, err)
			}
			if ev.Type != tt.typ {
				t.Fatalf("Type: got %q; want %q", ev.Type, tt.typ)
			}
			allocs := testing.AllocsPerRun(1000, func() {
				ev, err = d.Next()
			})
			require.NoError(t, err)
			if allocs != 0 {
				t.Fatalf("allocations per Next: got %v; want %v", allocs, 0)
			}
		})
	}
}

func TestParseRetry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"0", 0, true},
		{"1", time.Millisecond, true},
		{"3000", 3 * time.Second, true},
		{"0009", 9 * time.Millisecond, true},
		{"9223372036854", 9223372036854 * time.Millisecond, true},
		{"9223372036855", time.Duration(math.MaxInt64), true},
		{"", 0, false},
		{" 1", 0, false},
		{"1 ", 0, false},
		{"1.5", 0, false},
		{"+1", 0, false},
		{"１", 0, false}, // fullwidth digit, not ASCII
	}
	for _, tt := range tests {
		got, ok := parseRetry([]byte(tt.in))
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("parseRetry(%q): got %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.wantOK)
		}
	}
}
