package relay_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/sse"
	"github.com/a2astream/a2astream/relay"
)

// What a browser does in relay's tests: read the event stream (decoded by
// internal/sse, or parsed line by line to see retry: and the raw text),
// POST answers and cancels, and send single requests to a Handler.

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

// rawReader parses an SSE body event by event.
type rawReader struct {
	t    *testing.T
	body io.ReadCloser
	sc   *bufio.Scanner
	raw  strings.Builder
}

// next returns the next event (or a block holding only retry:), false at
// the end of the body.
func (r *rawReader) next() (rawEvent, bool) {
	var e rawEvent
	any := false
	for r.sc.Scan() {
		line := r.sc.Text()
		r.raw.WriteString(line + "\n")
		if line == "" {
			if any {
				return e, true
			}
			continue
		}
		if strings.HasPrefix(line, ":") {
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
			e.Data = value
		case "retry":
			e.Retry = value
		}
	}
	return e, false
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

// newRawReader reads body; lines up to 8 MiB.
func newRawReader(t *testing.T, body io.ReadCloser) *rawReader {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
	return &rawReader{t: t, body: body, sc: sc}
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
