package proxy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// events are the SSE events the test server streams, one flush each.
var events = []string{
	"data: {\"n\":1}\n\n",
	"id: 2\ndata: {\"n\":2,\"pad\":\"xxxxxxxxxxxxxxxxxxxx\"}\n\n",
	"data: {\"n\":3}\n\n",
	"data: {\"n\":4}\n\n",
}

// server streams events on /sse (one chunk per event, or split in two odd
// pieces with ?split=1) and answers JSON on /json.
func server(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
	})
	mux.HandleFunc("/sse", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		f := w.(http.Flusher)
		f.Flush()
		for _, e := range events {
			if r.URL.Query().Get("split") != "" {
				// Split inside the blank line, so that "\n\n" straddles two chunks.
				io.WriteString(w, e[:len(e)-1])
				f.Flush()
				io.WriteString(w, e[len(e)-1:])
			} else {
				io.WriteString(w, e)
			}
			f.Flush()
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func startProxy(t *testing.T, target string) *Proxy {
	t.Helper()
	p, err := New(strings.TrimPrefix(target, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func client() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
}

// get returns the body bytes read before the body ended, and the error that
// ended it (nil for a clean end).
func get(ctx context.Context, t *testing.T, url string) ([]byte, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := client()
	defer c.CloseIdleConnections()
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, err = io.Copy(&buf, resp.Body)
	return buf.Bytes(), err
}

func all() string { return strings.Join(events, "") }

func TestCuts(t *testing.T) {
	full := all()
	prefix := func(n int) string { return strings.Join(events[:n], "") }
	tests := []struct {
		fault Fault
		want  string
	}{
		{Fault{Action: Cut}, ""},
		{Fault{Action: Cut, AfterEvents: 1}, prefix(1)},
		{Fault{Action: Cut, AfterEvents: 2}, prefix(2)},
		{Fault{Action: Cut, AfterEvents: 1, PlusBytes: 9}, prefix(1) + events[1][:9]},
		{Fault{Action: Cut, PlusBytes: 20}, full[:20]},
		{Fault{Action: Cut, AfterEvents: 3, PlusBytes: 1}, prefix(3) + "d"},
	}
	srv := server(t)
	for _, split := range []bool{false, true} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%v/split=%v", tt.fault, split), func(t *testing.T) {
				p := startProxy(t, srv.URL)
				p.Plan(tt.fault)
				url := "http://" + p.Addr() + "/sse"
				if split {
					url += "?split=1"
				}
				got, err := get(context.Background(), t, url)
				if err == nil {
					t.Fatalf("body ended cleanly after %q; want an error", got)
				}
				if string(got) != tt.want {
					t.Fatalf("got %q, want %q", got, tt.want)
				}
				recs := p.Records()
				if len(recs) != 1 || !recs[0].Fired {
					t.Fatalf("records = %+v, want one fired", recs)
				}
				if recs[0].Bytes != int64(len(tt.want)) {
					t.Fatalf("recorded %d bytes, want %d", recs[0].Bytes, len(tt.want))
				}
			})
		}
	}
}

func TestPlanOrderAndPassThrough(t *testing.T) {
	srv := server(t)
	p := startProxy(t, srv.URL)
	p.Plan(Fault{}, Fault{Action: Cut, AfterEvents: 1})
	base := "http://" + p.Addr()

	// Not a stream: forwarded, and it uses no fault.
	body, err := get(context.Background(), t, base+"/json")
	if err != nil || string(body) != `{"ok":true}` {
		t.Fatalf("json: %q, %v", body, err)
	}
	if p.Pending() != 2 {
		t.Fatalf("pending = %d after a JSON response, want 2", p.Pending())
	}
	// First stream: Pass.
	body, err = get(context.Background(), t, base+"/sse")
	if err != nil || string(body) != all() {
		t.Fatalf("first stream: %q, %v", body, err)
	}
	// Second: cut after one event.
	body, err = get(context.Background(), t, base+"/sse")
	if err == nil || string(body) != events[0] {
		t.Fatalf("second stream: %q, %v", body, err)
	}
	// Third: the plan is spent, everything passes.
	body, err = get(context.Background(), t, base+"/sse")
	if err != nil || string(body) != all() {
		t.Fatalf("third stream: %q, %v", body, err)
	}
	recs := p.Records()
	if len(recs) != 3 || recs[0].Fired || !recs[1].Fired || recs[2].Fired {
		t.Fatalf("records = %+v", recs)
	}
	if recs[0].Events != len(events) || recs[1].Events != 1 {
		t.Fatalf("event counts = %d, %d", recs[0].Events, recs[1].Events)
	}
}

func TestUnreachedFaultDoesNotFire(t *testing.T) {
	srv := server(t)
	p := startProxy(t, srv.URL)
	p.Plan(Fault{Action: Cut, AfterEvents: 10})
	body, err := get(context.Background(), t, "http://"+p.Addr()+"/sse")
	if err != nil || string(body) != all() {
		t.Fatalf("got %q, %v", body, err)
	}
	if p.Fired() != 0 {
		t.Fatal("a fault beyond the end of the stream fired")
	}
}

func TestStallKeepsTheConnectionOpen(t *testing.T) {
	srv := server(t)
	p := startProxy(t, srv.URL)
	p.Plan(Fault{Action: Stall, AfterEvents: 2})

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+p.Addr()+"/sse", nil)
	c := client()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	want := events[0] + events[1]
	got := make([]byte, len(want))
	if _, err := io.ReadFull(resp.Body, got); err != nil || string(got) != want {
		t.Fatalf("read %q, %v; want %q", got, err, want)
	}
	// Nothing more arrives, and the connection is not closed: the read
	// blocks until the client's own deadline ends it.
	start := time.Now()
	n, err := resp.Body.Read(make([]byte, 1))
	if n != 0 || err == nil || ctx.Err() == nil {
		t.Fatalf("read after the stall: n=%d err=%v ctx=%v", n, err, ctx.Err())
	}
	if time.Since(start) < 100*time.Millisecond {
		t.Fatalf("read returned after %v: the stall did not hold the connection", time.Since(start))
	}
	if !p.Records()[0].Fired {
		t.Fatal("stall did not fire")
	}
}

func TestCloseEndsAStall(t *testing.T) {
	srv := server(t)
	p, err := New(strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	p.Plan(Fault{Action: Stall})
	errc := make(chan error, 1)
	go func() {
		_, err := get(context.Background(), t, "http://"+p.Addr()+"/sse")
		errc <- err
	}()
	// Wait (bounded) until the stall holds the stream, then close the proxy.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for p.Fired() == 0 {
		select {
		case <-ctx.Done():
			t.Fatal("the stall never fired")
		case <-time.After(5 * time.Millisecond):
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("the stalled body ended cleanly after Close")
		}
	case <-ctx.Done():
		t.Fatal("Close did not end the stalled connection")
	}
}

// scan feeds raw through a scanner in pieces of size step and returns the
// forwarded prefix.
func scan(f Fault, chunked bool, raw string, step int) (string, *bodyScanner) {
	s := newBodyScanner(f, chunked)
	for i := 0; i < len(raw); i += step {
		end := min(i+step, len(raw))
		k, hit := s.feed([]byte(raw[i:end]))
		if hit {
			return raw[:i+k], s
		}
	}
	return raw, s
}

func chunk(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		fmt.Fprintf(&b, "%x\r\n%s\r\n", len(p), p)
	}
	b.WriteString("0\r\n\r\n")
	return b.String()
}

func TestScannerCounting(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		chunked bool
		fault   Fault
		want    string // forwarded prefix
		events  int    // counted over the whole input with no fault
	}{
		{"lf", "data: a\n\ndata: b\n\n", false, Fault{Action: Cut, AfterEvents: 1}, "data: a\n\n", 2},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", false, Fault{Action: Cut, AfterEvents: 1}, "data: a\r\n\r\n", 2},
		{"cr", "data: a\r\rdata: b\r\r", false, Fault{Action: Cut, AfterEvents: 1}, "data: a\r\r", 2},
		{"multiline", "event: x\ndata: 1\ndata: 2\n\n: c\n\n", false, Fault{Action: Cut, AfterEvents: 1, PlusBytes: 2}, "event: x\ndata: 1\ndata: 2\n\n: ", 2},
		{"leading blank lines", "\n\n\ndata: a\n\n", false, Fault{Action: Cut, AfterEvents: 1}, "\n\n\ndata: a\n\n", 1},
		{"bytes only", "data: abc\n\n", false, Fault{Action: Cut, PlusBytes: 4}, "data", 1},
		{
			"chunked, blank line split across chunks", chunk("data: a\n", "\ndata: b\n\n"), true,
			Fault{Action: Cut, AfterEvents: 1},
			"8\r\ndata: a\n\r\na\r\n\n", 2,
		},
		{
			"chunked, bytes skip framing", chunk("da", "ta: a\n\n"), true,
			Fault{Action: Cut, PlusBytes: 3},
			"2\r\nda\r\n7\r\nt", 1,
		},
		{
			"chunked with extension", "5;x=y\r\ndata:\r\n3\r\n a\n\r\n1\r\n\n\r\n0\r\n\r\n", true,
			Fault{Action: Cut, AfterEvents: 1},
			"5;x=y\r\ndata:\r\n3\r\n a\n\r\n1\r\n\n", 1,
		},
	}
	for _, tt := range tests {
		for _, step := range []int{1, 3, 1 << 20} {
			t.Run(fmt.Sprintf("%s/step=%d", tt.name, step), func(t *testing.T) {
				got, _ := scan(tt.fault, tt.chunked, tt.raw, step)
				if got != tt.want {
					t.Fatalf("forwarded %q, want %q", got, tt.want)
				}
				_, s := scan(Fault{}, tt.chunked, tt.raw, step)
				if s.pendingCR { // the input ended right after a lone '\r' blank line
					s.endEvent()
				}
				if s.events != tt.events {
					t.Fatalf("counted %d events, want %d", s.events, tt.events)
				}
			})
		}
	}
}

func TestFaultString(t *testing.T) {
	for f, want := range map[Fault]string{
		{}:                            "pass",
		{Action: Cut, AfterEvents: 3}: "cut@3",
		{Action: Cut, AfterEvents: 2, PlusBytes: 40}: "cut@2+40",
		{Action: Stall, AfterEvents: 1}:              "stall@1",
	} {
		if got := f.String(); got != want {
			t.Errorf("%#v.String() = %q, want %q", f, got, want)
		}
	}
}

// TestStopListeningRefusesDialsUntilListen: between StopListening and
// Listen nothing listens on the proxy's port, so a dial is refused (the
// client's request provably never left); afterwards the same address
// serves again, and a connection accepted before goes on.
func TestStopListeningRefusesDialsUntilListen(t *testing.T) {
	srv := server(t)
	p := startProxy(t, srv.URL)
	ctx := context.Background()
	got, err := get(ctx, t, "http://"+p.Addr()+"/json")
	require.NoError(t, err)
	require.JSONEq(t, `{"ok":true}`, string(got))

	// A connection accepted before the listener closes keeps working.
	held, err := net.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer held.Close()

	require.NoError(t, p.StopListening())
	require.NoError(t, p.StopListening(), "stopping twice is harmless")
	_, err = net.Dial("tcp", p.Addr())
	require.ErrorIs(t, err, syscall.ECONNREFUSED)
	_, err = get(ctx, t, "http://"+p.Addr()+"/json")
	require.ErrorIs(t, err, syscall.ECONNREFUSED)

	_, err = io.WriteString(held, "GET /json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	require.NoError(t, err)
	reply, err := io.ReadAll(held)
	require.NoError(t, err)
	require.Contains(t, string(reply), `{"ok":true}`)

	require.NoError(t, p.Listen())
	require.NoError(t, p.Listen(), "listening twice is harmless")
	got, err = get(ctx, t, "http://"+p.Addr()+"/json")
	require.NoError(t, err)
	require.JSONEq(t, `{"ok":true}`, string(got))
	require.Len(t, p.Requests(), 3, "the refused dials never reached the proxy")

	require.NoError(t, p.Close())
	require.Error(t, p.Listen(), "a closed proxy does not listen again")
}
