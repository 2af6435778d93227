package relay_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/sse"
	"github.com/a2astream/a2astream/relay"
)

// What a browser does in relay's tests: read the event stream (decoded by
// internal/sse, or parsed line by line to see retry:, comments and the raw
// text), at its own pace or live in a goroutine, over an in-process client
// or a pipe (slowreader_test.go's pipeListener, HTTP/1.1 or h2c), POST
// answers and cancels, and send single requests to a Handler.

// event is one SSE event as a test reader received it.
type event struct {
	ID   string
	Name string
	Data []byte
}

// seq is the Seq of the event's ID.
func (e event) seq(t *testing.T) uint64 {
	t.Helper()
	id, err := relay.ParseID(e.ID)
	require.NoError(t, err)
	return id.Seq
}

// entry is the log entry the event was written from.
func (e event) entry(t *testing.T) relay.Entry {
	return relay.Entry{Seq: e.seq(t), Name: e.Name, Data: e.Data}
}

// reader is one GET of the event stream.
type reader struct {
	t      *testing.T
	status int
	resp   *http.Response
	dec    *sse.Decoder
	cancel context.CancelFunc
}

// next returns the next event, or false at the end of the response.
func (rd *reader) next() (event, bool) {
	rd.t.Helper()
	ev, err := rd.dec.Next()
	if errors.Is(err, io.EOF) {
		return event{}, false
	}
	require.NoError(rd.t, err)
	return event{ID: string(ev.ID), Name: ev.Type, Data: bytes.Clone(ev.Data)}, true
}

// take reads n events.
func (rd *reader) take(n int) []event {
	rd.t.Helper()
	var out []event
	for range n {
		ev, ok := rd.next()
		require.True(rd.t, ok, "the response ended after %d events; want %d", len(out), n)
		out = append(out, ev)
	}
	return out
}

// rest reads events to the end of the response.
func (rd *reader) rest() []event {
	rd.t.Helper()
	var out []event
	for {
		ev, ok := rd.next()
		if !ok {
			return out
		}
		out = append(out, ev)
	}
}

// close disconnects, as a browser that goes away.
func (rd *reader) close() {
	rd.cancel()
	_ = rd.resp.Body.Close()
}

// events yields the events to the end of the response.
func (rd *reader) events() iter.Seq[event] {
	return func(yield func(event) bool) {
		for {
			ev, ok := rd.next()
			if !ok || !yield(ev) {
				return
			}
		}
	}
}

// connect GETs the events of http://relay.test/s/k/events through client
// with lastID as Last-Event-ID ("" for none); the reader is closed at
// cleanup.
func connect(t *testing.T, client *http.Client, lastID string) *reader {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://relay.test/s/k/events", nil)
	require.NoError(t, err)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := client.Do(req)
	if err != nil {
		cancel()
		require.NoError(t, err)
	}
	rd := &reader{t: t, status: resp.StatusCode, resp: resp, dec: sse.NewDecoder(resp.Body, 1<<20), cancel: cancel}
	t.Cleanup(rd.close)
	return rd
}

// connect GETs the events with lastID as Last-Event-ID ("" for none).
func (r *rig) connect(lastID string) *reader {
	r.t.Helper()
	return connect(r.t, r.client, lastID)
}

// post POSTs body as JSON to http://relay.test/s/k/<action> and returns the
// status and the decoded JSON answer.
func (r *rig) post(action, idemKey string, body any) (int, map[string]any) {
	r.t.Helper()
	b, err := json.Marshal(body)
	require.NoError(r.t, err)
	return r.postRaw(action, idemKey, "application/json", string(b))
}

// postRaw POSTs body with contentType to http://relay.test/s/k/<action>
// and returns the status and the decoded JSON answer.
func (r *rig) postRaw(action, idemKey, contentType, body string) (int, map[string]any) {
	r.t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://relay.test/s/k/"+action, strings.NewReader(body))
	require.NoError(r.t, err)
	req.Header.Set("Content-Type", contentType)
	if idemKey != "" {
		req.Header.Set("Idempotency-Key", idemKey)
	}
	resp, err := r.client.Do(req)
	require.NoError(r.t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(r.t, json.NewDecoder(resp.Body).Decode(&out), "every answer is JSON")
	return resp.StatusCode, out
}

// untilInput reads events up to the question and returns its data, as a
// page does: from the question's event, or from the screen of a gone
// event.
func untilInput(t *testing.T, rd *reader) (relay.InputData, []event) {
	t.Helper()
	var seen []event
	for {
		ev, ok := rd.next()
		require.True(t, ok, "the response ended before the question")
		seen = append(seen, ev)
		if ev.Name == relay.EventGone {
			// The reader fell behind a trim: the question, if asked, is
			// on the screen the gone event carries.
			if q := fold(t, []event{ev}).Question; q != nil {
				return *q, seen
			}
		}
		if ev.Name == relay.EventInput {
			var in relay.InputData
			require.NoError(t, json.Unmarshal(ev.Data, &in))
			require.Equal(t, ev.seq(t), in.Prompt, "a question's prompt is its Seq")
			return in, seen
		}
	}
}

// doJSON sends a request without a body and decodes the JSON answer.
func doJSON(t *testing.T, client *http.Client, method, url string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out), "every answer is JSON")
	return resp.StatusCode, out
}

// get GETs the events of stream "k" with the Accept header accept ("" for
// none), and returns the response with its body read.
func get(t *testing.T, h http.Handler, accept string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://relay.test/s/k/events", nil)
	require.NoError(t, err)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := a2atest.NewClient(h).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

// goodAnswer is a well-formed answer to the question at Seq 2.
const goodAnswer = `{"prompt":2,"text":"Ada"}`

// rawEvent is one SSE block as rawReader parsed it: an event, or a block
// holding only retry:.
type rawEvent struct {
	ID, Name, Data, Retry string
}

// entry is the log entry the event was written from.
func (e rawEvent) entry(t *testing.T) relay.Entry {
	t.Helper()
	id, err := relay.ParseID(e.ID)
	require.NoError(t, err, "event %+v", e)
	return relay.Entry{Seq: id.Seq, Name: e.Name, Data: []byte(e.Data)}
}

// rawReader parses an SSE body event by event, strictly: besides the
// events, it counts the comment lines, and those that come inside an event
// (after a field of it, before its blank line), which a keep-alive must
// never be; err says how the body ended when it did not end cleanly
// between events.
type rawReader struct {
	t              *testing.T
	sc             *bufio.Scanner
	raw            strings.Builder
	cut            bool // the body's last line had no line feed
	comments       int
	commentsInside int
	err            error
}

// next returns the next event (or a block holding only retry:), false at
// the end of the body.
func (r *rawReader) next() (rawEvent, bool) {
	var e rawEvent
	var data []string
	any := false
	for r.sc.Scan() {
		line := r.sc.Text()
		r.raw.WriteString(line + "\n")
		if line == "" {
			if any {
				e.Data = strings.Join(data, "\n")
				return e, true
			}
			continue
		}
		if strings.HasPrefix(line, ":") {
			r.comments++
			if any {
				r.commentsInside++
			}
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		any = true
		switch field {
		case "id":
			e.ID = value
		case "event":
			e.Name = value
		case "data":
			data = append(data, value)
		case "retry":
			e.Retry = value
		default:
			r.fail(fmt.Errorf("unknown field %.40q", line))
		}
	}
	switch {
	case r.sc.Err() != nil:
		r.fail(r.sc.Err())
	case r.cut:
		r.fail(errors.New("the body ends inside a line"))
	case any:
		r.fail(errors.New("the body ends inside an event"))
	}
	return e, false
}

// fail notes the first way the body went wrong.
func (r *rawReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// rest reads events to the end of the body.
func (r *rawReader) rest() []rawEvent {
	var out []rawEvent
	for {
		e, ok := r.next()
		if !ok {
			return out
		}
		out = append(out, e)
	}
}

// whole reads events to the end of the body, which must end cleanly.
func (r *rawReader) whole() []rawEvent {
	r.t.Helper()
	evs := r.rest()
	require.NoError(r.t, r.err, "after %d events", len(evs))
	return evs
}

// newRawReader reads body; lines up to 8 MiB.
func newRawReader(t *testing.T, body io.Reader) *rawReader {
	r := &rawReader{t: t, sc: bufio.NewScanner(body)}
	r.sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
	r.sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		n, line, err := bufio.ScanLines(data, atEOF)
		if atEOF && n > 0 && data[n-1] != '\n' {
			r.cut = true
		}
		return n, line, err
	})
	return r
}

// h2c is the protocols of HTTP/2 without TLS alone.
func h2c() *http.Protocols {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	return &p
}

// pipeClient is a client whose connections are l's pipes, speaking protos;
// its idle connections are closed at cleanup.
func pipeClient(t testing.TB, l *pipeListener, protos *http.Protocols) *http.Client {
	tr := &http.Transport{Protocols: protos, DialContext: func(context.Context, string, string) (net.Conn, error) {
		return l.dial(), nil
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// pipeRelay serves a Handler of store, made with opts, on a pipeListener
// until cleanup: every stream, its key in the path (pathKey), over HTTP/1.1
// when protos is nil.
func pipeRelay(t *testing.T, store relay.Store, protos *http.Protocols, opts ...relay.HandlerOption) *pipeListener {
	l, stop := servePipes(newHandler(t, store, pathKey, opts...), protos)
	t.Cleanup(stop)
	return l
}

// sseConn is one GET of an event stream over a connection of a
// pipeListener: the browser reads the body at the pace the test chooses.
type sseConn struct {
	conn net.Conn
	resp *http.Response
}

// sendGet sends a GET of target, with lastID as Last-Event-ID ("" for
// none), on a new connection to l, and returns the connection unread.
func sendGet(t testing.TB, l *pipeListener, target, lastID string) net.Conn {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://relay.test"+target, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	conn := l.dial()
	require.NoError(t, req.Write(conn))
	return conn
}

// getSSE is sendGet that also reads the response's head; the body is read
// from the connection no further than the test reads it.
func getSSE(t testing.TB, l *pipeListener, target, lastID string) *sseConn {
	t.Helper()
	conn := sendGet(t, l, target, lastID)
	resp, err := http.ReadResponse(bufio.NewReaderSize(conn, 64), nil)
	require.NoError(t, err)
	return &sseConn{conn: conn, resp: resp}
}

// pacedReader reads r as a browser on a slow link does, steadily: chunk
// bytes at once, then chunk more at each tick.
type pacedReader struct {
	r     io.Reader
	chunk int
	left  int // what it may read before the next tick
	tick  <-chan time.Time
}

func (p *pacedReader) Read(b []byte) (int, error) {
	if p.left == 0 {
		<-p.tick
		p.left = p.chunk
	}
	n, err := p.r.Read(b[:min(len(b), p.left)])
	p.left -= n
	return n, err
}

// readPaced reads r to its end, chunk bytes every period.
func readPaced(r io.Reader, chunk int, every time.Duration) ([]byte, error) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	return io.ReadAll(&pacedReader{r: r, chunk: chunk, left: chunk, tick: tick.C})
}

// liveReader is one browser's events as they come, read in a goroutine.
type liveReader struct {
	mu     sync.Mutex
	events []rawEvent
	left   bool          // it went away on its own
	err    error         // how the body ended, when not cleanly
	done   chan struct{} // closed once it stopped reading
}

// readLive reads, in a goroutine, the response to the GET sent on conn
// (by sendGet) and its events, chunk bytes a second when chunk is above 0,
// and closes the connection at the body's end, or once it has leaveAfter
// events when leaveAfter is above 0.
func readLive(t *testing.T, conn net.Conn, chunk, leaveAfter int) *liveReader {
	r := &liveReader{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		defer func() { _ = conn.Close() }()
		resp, err := http.ReadResponse(bufio.NewReaderSize(conn, 64), nil)
		if err != nil {
			r.err = err
			return
		}
		var body io.Reader = resp.Body
		if chunk > 0 {
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			body = &pacedReader{r: body, chunk: chunk, left: chunk, tick: tick.C}
		}
		rd := newRawReader(t, body)
		for e, ok := rd.next(); ok; e, ok = rd.next() {
			r.mu.Lock()
			r.events = append(r.events, e)
			r.left = len(r.events) == leaveAfter
			r.mu.Unlock()
			if r.left {
				return
			}
		}
		r.mu.Lock()
		r.err = rd.err
		r.mu.Unlock()
	}()
	return r
}

// seen returns the events so far, and whether it went away on its own.
func (r *liveReader) seen() ([]rawEvent, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events), r.left
}

// getEvents opens the events of stream key with lastID ("" for none) through
// client; the request ends with ctx.
func getEvents(t *testing.T, ctx context.Context, client *http.Client, target, lastID string, hdr map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// readAllEvents reads the whole event stream at target, bounded by a minute
// (of fake time inside a bubble); ended says the response ended by itself.
func readAllEvents(t *testing.T, client *http.Client, target, lastID string) (status int, evs []rawEvent, raw string, ended bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	resp := getEvents(t, ctx, client, target, lastID, nil)
	rd := newRawReader(t, resp.Body)
	evs = rd.rest()
	return resp.StatusCode, evs, rd.raw.String(), ctx.Err() == nil
}

// serve sends one request straight to h (Host relay.test) and returns the
// status, header and body.
func serve(t *testing.T, h http.Handler, method, target, contentType, body string, hdr map[string]string) (int, http.Header, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Header(), rec.Body.String()
}
