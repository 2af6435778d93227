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
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/sse"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

// rig is one relayed stream: an a2atest agent upstream, a MemoryStore, a
// Drive in a goroutine, and a Handler reached through an in-process
// *http.Client at http://relay.test/s/k/{events,answer,cancel}.
type rig struct {
	t      *testing.T
	agent  *a2atest.Agent
	store  *relay.MemoryStore
	log    relay.Log
	fence  relay.Fence // Drive's
	client *http.Client
	done   chan struct{} // closed when Drive returned
	err    error         // what Drive returned, once done is closed
}

// rigConfig holds what a rig is built from.
type rigConfig struct {
	agent   []a2atest.Option
	stream  []stream.Option
	store   []relay.StoreOption
	drive   []relay.DriveOption
	handler []relay.HandlerOption
	// wrap, when set, wraps the log Drive writes to.
	wrap func(relay.Log) relay.Log
	// rest makes the stream's client speak HTTP+JSON (the agent must serve
	// it); JSON-RPC otherwise.
	rest bool
}

// newMemoryStore is relay.NewMemoryStore, failing t when it fails.
func newMemoryStore(t testing.TB, opts ...relay.StoreOption) *relay.MemoryStore {
	t.Helper()
	st, err := relay.NewMemoryStore(opts...)
	require.NoError(t, err)
	return st
}

// newHandler is relay.NewHandler, failing t when it fails.
func newHandler(t testing.TB, store relay.Store, key relay.KeyFunc, opts ...relay.HandlerOption) *relay.Handler {
	t.Helper()
	h, err := relay.NewHandler(store, key, opts...)
	require.NoError(t, err)
	return h
}

// newRig starts Drive on a fresh log of key "k", relaying the agent's
// answer to "hello". Drive is joined in t.Cleanup, after the test's
// context ends.
func newRig(t *testing.T, c rigConfig) *rig {
	t.Helper()
	r := &rig{t: t, agent: a2atest.NewAgent(c.agent...), store: newMemoryStore(t, c.store...), done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	var err error
	r.log, err = r.store.Open(ctx, "k")
	require.NoError(t, err)
	fence, err := r.log.Acquire(ctx, "driver", time.Hour)
	require.NoError(t, err)
	r.fence = fence
	streamOpts := append([]stream.Option{stream.WithHTTPClient(r.agent.Client())}, c.stream...)
	newClient := stream.NewClient
	if c.rest {
		newClient = stream.NewRESTClient
	}
	client, err := newClient("http://agent.test/", streamOpts...)
	require.NoError(t, err)
	start := relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hello"))
	driven := r.log
	if c.wrap != nil {
		driven = c.wrap(r.log)
	}
	go func() {
		defer close(r.done)
		r.err = relay.Drive(ctx, driven, fence, start, c.drive...)
	}()
	t.Cleanup(func() {
		cancel()
		<-r.done
	})
	mux := http.NewServeMux()
	mux.Handle("/s/{key}/", newHandler(t, r.store, func(req *http.Request) (string, bool) {
		k := req.PathValue("key")
		return k, k == "k"
	}, c.handler...))
	r.client = a2atest.NewClient(mux)
	return r
}

// wait returns what Drive returned, once it did.
func (r *rig) wait() error {
	<-r.done
	return r.err
}

// event is one SSE event as a test reader received it.
type event struct {
	ID   string
	Name string
	Data []byte
}

func (e event) seq(t *testing.T) uint64 {
	t.Helper()
	id, err := relay.ParseID(e.ID)
	require.NoError(t, err)
	return id.Seq
}

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

// connect GETs the events with lastID as Last-Event-ID ("" for none).
func (r *rig) connect(lastID string) *reader {
	r.t.Helper()
	return connect(r.t, r.client, lastID)
}

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

// post POSTs body as JSON to http://relay.test/s/k/<action> and returns the
// status and the decoded JSON answer.
func (r *rig) post(action, idemKey string, body any) (int, map[string]any) {
	r.t.Helper()
	b, err := json.Marshal(body)
	require.NoError(r.t, err)
	return r.postRaw(action, idemKey, "application/json", string(b))
}

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

// logEntries reads every entry the log still holds after after.
func (r *rig) logEntries(after uint64) []relay.Entry {
	r.t.Helper()
	var out []relay.Entry
	for {
		page, err := r.log.Read(context.Background(), after, 100)
		require.NoError(r.t, err)
		if len(page) == 0 {
			return out
		}
		out = append(out, page...)
		after = page[len(page)-1].Seq
	}
}

// fold folds events into a screen, starting from the gone event's screen
// when the first event is one.
func fold(t *testing.T, evs []event) *relay.View {
	t.Helper()
	sc := &relay.View{}
	for _, ev := range evs {
		if ev.Name == relay.EventGone {
			var g relay.GoneData
			require.NoError(t, json.Unmarshal(ev.Data, &g))
			var err error
			sc, err = relay.ParseView(g.View)
			require.NoError(t, err)
			continue
		}
		require.NoError(t, sc.Apply(ev.entry(t)))
	}
	return sc
}

// requestsOf counts the agent's requests of these methods.
func requestsOf(agent *a2atest.Agent, methods ...string) int {
	n := 0
	for _, req := range agent.Requests() {
		for _, m := range methods {
			if req.Method == m {
				n++
			}
		}
	}
	return n
}

// longAnswer is a script of n artifact chunks of artifact "a1", paused
// between each, then completed; and the text it builds.
func longAnswer(n int, pause func(i int) a2atest.Step) ([]a2atest.Step, string) {
	steps := []a2atest.Step{a2atest.Working("")}
	var text strings.Builder
	for i := range n {
		part := strings.Repeat(string(rune('a'+i%26)), 1+i%7) + " "
		text.WriteString(part)
		steps = append(steps, pause(i), a2atest.Chunk("a1", part, i > 0, i == n-1))
	}
	return append(steps, a2atest.Finish(a2a.StateCompleted, "done")), text.String()
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// wire returns the agent options that serve version v over JSON-RPC, or
// over HTTP+JSON when rest is set, with opts.
func wire(v a2a.Version, rest bool, opts ...a2atest.Option) []a2atest.Option {
	b := a2a.BindingJSONRPC
	if rest {
		b = a2a.BindingHTTPJSON
	}
	return append([]a2atest.Option{a2atest.WithVersions(v), a2atest.WithBindings(b)}, opts...)
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

// sendsOf counts the messages agent was sent (a stream's start), in
// either version and binding.
func sendsOf(agent *a2atest.Agent) int {
	return requestsOf(agent, "message/stream", "message/send", "SendStreamingMessage", "SendMessage")
}

// unreachedClient is a stream.Client whose every request fails t with
// what: the client of a Source that Run or Drive must not call.
func unreachedClient(t *testing.T, what string) *stream.Client {
	t.Helper()
	client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(&http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		t.Errorf("%s: %s %s", what, r.Method, r.URL)
		return nil, errors.New("unreached")
	})}))
	require.NoError(t, err)
	return client
}

// completingAgent is an agent whose tasks complete at once, and a client
// of it.
func completingAgent(t testing.TB) (*a2atest.Agent, *stream.Client) {
	t.Helper()
	agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Finish(a2a.StateCompleted, "")))
	client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
	require.NoError(t, err)
	return agent, client
}

// secretAgentURL is the agent's address: no browser may ever see any part of it.
const secretAgentURL = "http://planner.internal:58213/a2a/secret-path"

// secretAgentParts are the parts of the agent's address a browser must not see.
var secretAgentParts = []string{"planner.internal", "58213", "secret-path"}

// handlerAB serves store at http://relay.test/s/{a,b}/..., failing t when
// the Handler cannot be made.
func handlerAB(t testing.TB, store relay.Store, opts ...relay.HandlerOption) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/s/{id}/", newHandler(t, store, func(r *http.Request) (string, bool) {
		id := r.PathValue("id")
		return id, id == "a" || id == "b"
	}, opts...))
	return mux
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

type rawEvent struct {
	ID, Name, Data, Retry string
}

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

func newRawReader(t *testing.T, body io.ReadCloser) *rawReader {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
	return &rawReader{t: t, body: body, sc: sc}
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

// manualLog opens key in store, takes its lease and appends entries
// named and shaped as a driver would.
func manualLog(t *testing.T, store relay.Store, key string, entries ...relay.Entry) (relay.Log, relay.Fence) {
	t.Helper()
	log, err := store.Open(t.Context(), key)
	require.NoError(t, err)
	fence, err := log.Acquire(t.Context(), "manual", time.Hour)
	require.NoError(t, err)
	if len(entries) > 0 {
		require.NoError(t, log.Commit(t.Context(), fence, nil, entries...))
	}
	return log, fence
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// questionLog is a log with an open question at Seq 2.
func questionLog(t *testing.T, store relay.Store, key string) relay.Log {
	log, _ := manualLog(t, store, key,
		relay.Entry{Seq: 1, Name: relay.EventStatus, Data: mustJSON(t, relay.StatusData{State: a2a.StateWorking, TaskID: "t1"})},
		relay.Entry{Seq: 2, Name: relay.EventInput, Data: mustJSON(t, relay.InputData{Prompt: 2, Text: "Your name?", Question: "text:q1"})},
	)
	return log
}

// cancelRequested says whether a cancel was requested on log, looking for a
// second (fake time in a bubble).
func cancelRequested(t *testing.T, log relay.Log) bool {
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	err := log.AwaitCancel(ctx)
	if err == nil {
		return true
	}
	require.ErrorIs(t, err, context.DeadlineExceeded)
	return false
}

func loadAnswer(t *testing.T, log relay.Log, prompt uint64) (relay.Answer, bool) {
	a, ok, err := log.LoadAnswer(t.Context(), prompt)
	require.NoError(t, err)
	return a, ok
}

// driveAgent drives key of store against agent, sending "hello"; the returned
// channel gets Drive's result. The Drive is stopped, and waited for, at
// cleanup.
func driveAgent(t *testing.T, store relay.Store, key string, agent *a2atest.Agent, streamOpts []stream.Option, opts ...relay.DriveOption) (relay.Log, <-chan error) {
	t.Helper()
	client, err := stream.NewClient(secretAgentURL, append([]stream.Option{stream.WithHTTPClient(agent.Client())}, streamOpts...)...)
	require.NoError(t, err)
	return driveClient(t, store, key, client, opts...)
}

func driveClient(t *testing.T, store relay.Store, key string, client *stream.Client, opts ...relay.DriveOption) (relay.Log, <-chan error) {
	t.Helper()
	log, err := store.Open(t.Context(), key)
	require.NoError(t, err)
	fence, err := log.Acquire(t.Context(), "driver", time.Hour)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		done <- relay.Drive(ctx, log, fence, relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hello")), opts...)
	}()
	t.Cleanup(func() { cancel(); <-finished })
	return log, done
}

// allEntries reads every entry of log.
func allEntries(t *testing.T, log relay.Log) []relay.Entry {
	var all []relay.Entry
	var after uint64
	for {
		es, err := log.Read(t.Context(), after, 1000)
		require.NoError(t, err)
		if len(es) == 0 {
			return all
		}
		all = append(all, es...)
		after = es[len(es)-1].Seq
	}
}

// awaitInput waits until log holds an open question and returns it.
func awaitInput(t *testing.T, log relay.Log) relay.InputData {
	t.Helper()
	var after uint64
	for {
		es, err := log.Read(t.Context(), after, 100)
		require.NoError(t, err)
		for _, e := range es {
			after = e.Seq
			if e.Name == relay.EventInput {
				var in relay.InputData
				require.NoError(t, json.Unmarshal(e.Data, &in))
				return in
			}
			require.NotContains(t, []string{relay.EventEnd, relay.EventFailure}, e.Name, "the stream ended before it asked: %s", e.Data)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		err = log.AwaitEntry(ctx, after)
		cancel()
		require.NoError(t, err, "no question within a minute")
	}
}

// flakyStore is a Store whose logs all fail while down is set.
type flakyStore struct {
	relay.Store
	down atomic.Bool
}

var errFlakyStore = errors.New("flaky store: outage")

func (s *flakyStore) Open(ctx context.Context, key string) (relay.Log, error) {
	if s.down.Load() {
		return nil, errFlakyStore
	}
	l, err := s.Store.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	return &flakyLog{Log: l, s: s}, nil
}

type flakyLog struct {
	relay.Log
	s *flakyStore
}

func (l *flakyLog) err() error {
	if l.s.down.Load() {
		return errFlakyStore
	}
	return nil
}

func (l *flakyLog) Commit(ctx context.Context, f relay.Fence, cp []byte, es ...relay.Entry) error {
	if err := l.err(); err != nil {
		return err
	}
	return l.Log.Commit(ctx, f, cp, es...)
}

func (l *flakyLog) Read(ctx context.Context, after uint64, max int) ([]relay.Entry, error) {
	if err := l.err(); err != nil {
		return nil, err
	}
	return l.Log.Read(ctx, after, max)
}

// AwaitEntry fails when the store goes down while it waits: it looks every 10 ms.
func (l *flakyLog) AwaitEntry(ctx context.Context, after uint64) error {
	for {
		if err := l.err(); err != nil {
			return err
		}
		wctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
		err := l.Log.AwaitEntry(wctx, after)
		cancel()
		if err == nil || ctx.Err() != nil {
			return err
		}
	}
}

func (l *flakyLog) Tail(ctx context.Context) (uint64, error) {
	if err := l.err(); err != nil {
		return 0, err
	}
	return l.Log.Tail(ctx)
}

func (l *flakyLog) LoadSnapshot(ctx context.Context) (relay.Snapshot, error) {
	if err := l.err(); err != nil {
		return relay.Snapshot{}, err
	}
	return l.Log.LoadSnapshot(ctx)
}

func (l *flakyLog) Attach(ctx context.Context, max int) (relay.Snapshot, []relay.Entry, error) {
	if err := l.err(); err != nil {
		return relay.Snapshot{}, nil, err
	}
	return l.Log.Attach(ctx, max)
}

func (l *flakyLog) LoadCheckpoint(ctx context.Context) ([]byte, error) {
	if err := l.err(); err != nil {
		return nil, err
	}
	return l.Log.LoadCheckpoint(ctx)
}

func (l *flakyLog) PostAnswer(ctx context.Context, a relay.Answer) (relay.Answer, error) {
	if err := l.err(); err != nil {
		return relay.Answer{}, err
	}
	return l.Log.PostAnswer(ctx, a)
}

func (l *flakyLog) LoadAnswer(ctx context.Context, prompt uint64) (relay.Answer, bool, error) {
	if err := l.err(); err != nil {
		return relay.Answer{}, false, err
	}
	return l.Log.LoadAnswer(ctx, prompt)
}

func (l *flakyLog) RequestCancel(ctx context.Context) error {
	if err := l.err(); err != nil {
		return err
	}
	return l.Log.RequestCancel(ctx)
}
