package relay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"net/http"
	"strconv"
	"strings"
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
