package relay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

// The upstream side of relay's tests: stores, handlers and rigs; fake
// agents and their scripts; drives; logs written and read by hand; stores
// that fail; recorders. Helpers for what a browser does are in
// browsers_test.go, checkers in invariants_test.go.

// newMemoryStore is relay.NewMemoryStore, failing t when it fails.
func newMemoryStore(t testing.TB, opts ...relay.StoreOption) *relay.MemoryStore {
	t.Helper()
	st, err := relay.NewMemoryStore(opts...)
	require.NoError(t, err)
	return st
}

// drivenLog returns the log "k" of st, and the fence of a driver that
// holds its lease for an hour.
func drivenLog(ctx context.Context, t *testing.T, st relay.Store) (relay.Log, relay.Fence) {
	t.Helper()
	l, err := st.Open(ctx, "k")
	require.NoError(t, err)
	f, err := l.Acquire(ctx, "driver", time.Hour)
	require.NoError(t, err)
	return l, f
}

// newHandler is relay.NewHandler, failing t when it fails.
func newHandler(t testing.TB, store relay.Store, key relay.KeyFunc, opts ...relay.HandlerOption) *relay.Handler {
	t.Helper()
	h, err := relay.NewHandler(store, key, opts...)
	require.NoError(t, err)
	return h
}

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

// pathKey is a KeyFunc that serves every stream: the key is the path's
// second part, /s/<key>/events.
func pathKey(r *http.Request) (string, bool) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if len(parts) < 3 || parts[0] != "s" || parts[1] == "" {
		return "", false
	}
	return parts[1], true
}

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

// wait returns what Drive returned, once it did.
func (r *rig) wait() error {
	<-r.done
	return r.err
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

// runRig is a store, an agent and a client, for tests of Run.
type runRig struct {
	agent  *a2atest.Agent
	client *stream.Client
	store  *relay.MemoryStore
	log    relay.Log
	http   *http.Client
}

// start is the Source of a replica that starts the stream.
func (r *runRig) start() relay.Source {
	return relay.Send(r.client, a2a.NewTextMessage(a2a.RoleUser, "hello"))
}

// ending returns the kind of the log's last entry's FailureData, or its name.
func (r *runRig) ending(t *testing.T) (string, string) {
	t.Helper()
	evs := connect(t, r.http, "").rest()
	require.NotEmpty(t, evs)
	last := evs[len(evs)-1]
	if last.Name != relay.EventFailure {
		return last.Name, ""
	}
	var e relay.FailureData
	require.NoError(t, json.Unmarshal(last.Data, &e))
	return last.Name, e.Kind
}

// cancel POSTs a cancel to the stream, as a browser would, and requires 202.
func (r *runRig) cancel(t *testing.T) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://relay.test/s/k/cancel", bytesReader([]byte(`{}`)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := r.http.Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
}

// upstreams are the four wires the relay's stream may speak to its agent.
var upstreams = []struct {
	name string
	v    a2a.Version
	rest bool
}{
	{"JSON-RPC 0.3", a2a.V03, false},
	{"JSON-RPC 1.0", a2a.V10, false},
	{"HTTP+JSON 0.3", a2a.V03, true},
	{"HTTP+JSON 1.0", a2a.V10, true},
}

// newRunRig makes a runRig whose agent and client speak version v over
// JSON-RPC, or over HTTP+JSON when rest is set.
func newRunRig(t *testing.T, v a2a.Version, rest bool, opts ...a2atest.Option) *runRig {
	t.Helper()
	r := &runRig{agent: a2atest.NewAgent(wire(v, rest, opts...)...), store: newMemoryStore(t)}
	newClient := stream.NewClient
	if rest {
		newClient = stream.NewRESTClient
	}
	var err error
	r.client, err = newClient("http://agent.test/", stream.WithHTTPClient(r.agent.Client()), stream.WithVersion(v))
	require.NoError(t, err)
	r.log, err = r.store.Open(t.Context(), "k")
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/s/{key}/", newHandler(t, r.store, func(req *http.Request) (string, bool) {
		k := req.PathValue("key")
		return k, k == "k"
	}))
	r.http = a2atest.NewClient(mux)
	return r
}

// wire returns the agent options that serve version v over JSON-RPC, or
// over HTTP+JSON when rest is set, with opts.
func wire(v a2a.Version, rest bool, opts ...a2atest.Option) []a2atest.Option {
	b := a2a.BindingJSONRPC
	if rest {
		b = a2a.BindingHTTPJSON
	}
	return append([]a2atest.Option{a2atest.WithVersions(v), a2atest.WithBindings(b)}, opts...)
}

// askScript asks a question, then writes what it was told and completes.
func askScript() []a2atest.Step {
	return []a2atest.Step{
		a2atest.Working("thinking"),
		a2atest.AskInput("Which city?"),
		a2atest.Pause(time.Second),
		a2atest.Chunk("a1", "booked", false, true),
		a2atest.Finish(a2a.StateCompleted, "done"),
	}
}

// slowScript works for an hour before it answers.
func slowScript() []a2atest.Step {
	return []a2atest.Step{
		a2atest.Working("on it"),
		a2atest.Chunk("a1", "first part", false, false),
		a2atest.Pause(time.Hour),
		a2atest.Chunk("a1", " and the rest", true, true),
		a2atest.Finish(a2a.StateCompleted, "done"),
	}
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

// paused pauses d before every step.
func paused(d time.Duration) func(int) a2atest.Step {
	return func(int) a2atest.Step { return a2atest.Pause(d) }
}

// followUps counts the messages sent to the agent's task after the first.
func followUps(agent *a2atest.Agent) []string {
	var texts []string
	for _, req := range agent.Requests() {
		if req.Message != nil && req.Message.TaskID != "" {
			texts = append(texts, req.Message.Text())
		}
	}
	return texts
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

// sendsOf counts the messages agent was sent (a stream's start), in
// either version and binding.
func sendsOf(agent *a2atest.Agent) int {
	return requestsOf(agent, "message/stream", "message/send", "SendStreamingMessage", "SendMessage")
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

// roundTripFunc is an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// secretAgentURL is the agent's address: no browser may ever see any part of it.
const secretAgentURL = "http://planner.internal:58213/a2a/secret-path"

// secretAgentParts are the parts of the agent's address a browser must not see.
var secretAgentParts = []string{"planner.internal", "58213", "secret-path"}

// driveAgent drives key of store against agent, sending "hello"; the returned
// channel gets Drive's result. The Drive is stopped, and waited for, at
// cleanup.
func driveAgent(t *testing.T, store relay.Store, key string, agent *a2atest.Agent, streamOpts []stream.Option, opts ...relay.DriveOption) (relay.Log, <-chan error) {
	t.Helper()
	client, err := stream.NewClient(secretAgentURL, append([]stream.Option{stream.WithHTTPClient(agent.Client())}, streamOpts...)...)
	require.NoError(t, err)
	return driveClient(t, store, key, client, opts...)
}

// driveClient is driveAgent with a client of the caller's.
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

// textEntry is a message entry at Seq seq whose text is text.
func textEntry(seq uint64, text string) relay.Entry {
	data, _ := json.Marshal(relay.MessageData{Pane: "message:m", ID: "m", Kind: "message", Role: "agent", Text: text, Append: true}) // cannot fail
	return relay.Entry{Seq: seq, Name: relay.EventMessage, Data: data}
}

// endEntry is a stream's ending, completed, at Seq seq.
func endEntry(seq uint64) relay.Entry {
	data, _ := json.Marshal(relay.EndData{State: "completed", Text: "completed"}) // cannot fail
	return relay.Entry{Seq: seq, Name: relay.EventEnd, Data: data}
}

// writer appends text entries to a manualLog, as its driver.
type writer struct {
	t     *testing.T
	log   relay.Log
	fence relay.Fence
	tail  uint64
}

// newWriter opens key in store as a manualLog to write to.
func newWriter(t *testing.T, store relay.Store, key string) *writer {
	t.Helper()
	log, fence := manualLog(t, store, key)
	tail, err := log.Tail(t.Context())
	require.NoError(t, err)
	return &writer{t: t, log: log, fence: fence, tail: tail}
}

// texts commits a text entry for each text, in one commit.
func (w *writer) texts(texts ...string) {
	w.t.Helper()
	es := make([]relay.Entry, len(texts))
	for i, text := range texts {
		w.tail++
		es[i] = textEntry(w.tail, text)
	}
	require.NoError(w.t, w.log.Commit(w.t.Context(), w.fence, nil, es...))
}

// many commits n short numbered texts, 50 to a commit.
func (w *writer) many(n int) {
	w.t.Helper()
	for n > 0 {
		texts := make([]string, min(n, 50))
		for i := range texts {
			texts[i] = fmt.Sprintf("word %d ", w.tail+uint64(i)+1)
		}
		w.texts(texts...)
		n -= len(texts)
	}
}

// repeat commits n copies of text, in one commit.
func (w *writer) repeat(n int, text string) {
	w.t.Helper()
	texts := make([]string, n)
	for i := range texts {
		texts[i] = text
	}
	w.texts(texts...)
}

// end commits the stream's ending.
func (w *writer) end() {
	w.t.Helper()
	w.tail++
	require.NoError(w.t, w.log.Commit(w.t.Context(), w.fence, nil, endEntry(w.tail)))
}

// id is the event ID of seq in the log.
func (w *writer) id(seq uint64) string { return relay.ID{Epoch: w.log.Epoch(), Seq: seq}.String() }

// questionLog is a log with an open question at Seq 2.
func questionLog(t *testing.T, store relay.Store, key string) relay.Log {
	log, _ := manualLog(t, store, key,
		relay.Entry{Seq: 1, Name: relay.EventStatus, Data: mustJSON(t, relay.StatusData{State: a2a.StateWorking, TaskID: "t1"})},
		relay.Entry{Seq: 2, Name: relay.EventInput, Data: mustJSON(t, relay.InputData{Prompt: 2, Text: "Your name?", Question: "text:q1"})},
	)
	return log
}

// entriesOf makes entries from..to whose Name and Data hold size bytes.
func entriesOf(from, to uint64, size int) []relay.Entry {
	var es []relay.Entry
	for s := from; s <= to; s++ {
		es = append(es, relay.Entry{Seq: s, Name: "x", Data: []byte(`"` + strings.Repeat("a", size-3) + `"`)})
	}
	return es
}

// seqsOf returns the Seqs of es.
func seqsOf(es []relay.Entry) []uint64 {
	var out []uint64
	for _, e := range es {
		out = append(out, e.Seq)
	}
	return out
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

// lastEntry returns the log's last entry.
func lastEntry(t *testing.T, log relay.Log) relay.Entry {
	t.Helper()
	tail, err := log.Tail(t.Context())
	require.NoError(t, err)
	require.Positive(t, tail)
	es, err := log.Read(t.Context(), tail-1, 1)
	require.NoError(t, err)
	require.Len(t, es, 1)
	return es[0]
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

// loadAnswer is log.LoadAnswer, failing t when it fails.
func loadAnswer(t *testing.T, log relay.Log, prompt uint64) (relay.Answer, bool) {
	a, ok, err := log.LoadAnswer(t.Context(), prompt)
	require.NoError(t, err)
	return a, ok
}

// errOutage is what the stores that are down (downStore and outage_test.go's)
// return.
var errOutage = errors.New("the store is down")

// downStore is a store that cannot be reached.
type downStore struct{}

func (downStore) Open(context.Context, string) (relay.Log, error) { return nil, errOutage }

// flakyStore is a Store whose logs all fail while down is set.
type flakyStore struct {
	relay.Store
	down atomic.Bool
}

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

// errFlakyStore is what a flakyStore and its logs return while down.
var errFlakyStore = errors.New("flaky store: outage")

// flakyLog is a flakyStore's Log: each call fails while the store is down.
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

// syncBuffer is a bytes.Buffer for a logger written from several
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// mustJSON is json.Marshal, failing t when it fails.
func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// itoa formats n in decimal.
func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// bytesReader is bytes.NewReader.
func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
