package stream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

var versions = []a2a.Version{a2a.V03, a2a.V10}

const endpoint = "http://agent.test/"

// newClient returns a JSON-RPC client of h (an a2atest agent or any
// handler) fixed to version v.
func newClient(t *testing.T, h http.Handler, v a2a.Version, opts ...stream.Option) *stream.Client {
	t.Helper()
	all := append([]stream.Option{stream.WithHTTPClient(a2atest.NewClient(h)), stream.WithVersion(v)}, opts...)
	c, err := stream.NewClient(endpoint, all...)
	require.NoError(t, err)
	return c
}

// collected is what a test application saw.
type collected struct {
	events []a2a.Event
	// task is the events folded by a2a.Task.Apply, as an application folds
	// them; its artifacts must equal the stream's Task().Artifacts.
	task      a2a.Task
	artifacts []a2a.Artifact // task.Artifacts
	messages  []string
	states    []a2a.TaskState
	shown     map[string]string // each message's text as the application shows it
}

// drain runs the stream to its end, applying every event the way an
// application would, and checks the stream's invariant on the way.
func drain(t *testing.T, s *stream.Stream) (*collected, error) {
	t.Helper()
	c := &collected{shown: map[string]string{}}
	defer s.Close()
	for s.Next() {
		ev := s.Event()
		c.events = append(c.events, ev)
		if u, ok := ev.(*a2a.ArtifactUpdate); ok {
			require.False(t, u.Append && c.task.Artifact(u.Artifact.ID) == nil, "append to unknown artifact %s", u.Artifact.ID)
		}
		c.task.Apply(ev)
		c.artifacts = c.task.Artifacts
		switch e := ev.(type) {
		case *a2a.ArtifactUpdate:
		case *a2a.StatusUpdate:
			c.states = append(c.states, e.Status.State)
			if m := e.Status.Message; m != nil {
				c.messages = append(c.messages, m.ID)
				c.shown[m.ID] = m.Text()
			}
		case *a2a.Message:
			c.messages = append(c.messages, e.ID)
			c.shown[e.ID] = e.Text()
		case *a2a.MessageRevision:
			old, ok := c.shown[e.Message.ID]
			require.True(t, ok, "a revision of message %s, never delivered", e.Message.ID)
			require.NotEqual(t, old, e.Message.Text(), "a revision of %s that shows the same text again", e.Message.ID)
			if e.Extends {
				require.Equal(t, e.Message.Text(), old+(&a2a.Message{Parts: e.Added}).Text(), "Added continues the text shown")
			}
			c.shown[e.Message.ID] = e.Message.Text()
		default:
			t.Fatalf("stream yielded %T; it must yield deltas only", ev)
		}
		if task := s.Task(); task != nil {
			// The deltas rebuild Task().Artifacts exactly, order included.
			require.Equal(t, len(task.Artifacts), len(c.artifacts), "after each event: artifact count")
			for i := range task.Artifacts {
				require.Equal(t, task.Artifacts[i], c.artifacts[i], "after each event: artifact %d", i)
			}
		}
	}
	seen := map[string]bool{}
	for _, id := range c.messages {
		require.False(t, seen[id], "message %s delivered twice", id)
		seen[id] = true
	}
	return c, s.Err()
}

func (c *collected) find(id string) int {
	for i := range c.artifacts {
		if c.artifacts[i].ID == id {
			return i
		}
	}
	return -1
}

func (c *collected) text(id string) string {
	if i := c.find(id); i >= 0 {
		return c.artifacts[i].Text()
	}
	return ""
}

// requireArtifacts asserts that the application's artifacts equal want,
// each with the same parts, name, description and metadata. The order may
// differ: after a gap the application learns of artifacts in the order the
// stream reveals them.
func (c *collected) requireArtifacts(t *testing.T, want []a2a.Artifact, msg string) {
	t.Helper()
	require.Equal(t, len(want), len(c.artifacts), "%s: artifact count", msg)
	for i := range want {
		j := c.find(want[i].ID)
		require.GreaterOrEqual(t, j, 0, "%s: artifact %s missing", msg, want[i].ID)
		require.Equal(t, want[i], c.artifacts[j], "%s: artifact %s", msg, want[i].ID)
	}
}

func hello() *a2a.Message { return a2a.NewTextMessage(a2a.RoleUser, "hello") }

func background() context.Context { return context.Background() }

// deliveredParts returns, per artifact, the texts of the parts the stream
// delivered, in order.
func deliveredParts(c *collected) map[string][]string {
	out := map[string][]string{}
	for _, ev := range c.events {
		if u, ok := ev.(*a2a.ArtifactUpdate); ok {
			for _, p := range u.Artifact.Parts {
				out[u.Artifact.ID] = append(out[u.Artifact.ID], p.Text)
			}
		}
	}
	return out
}

func textParts(texts ...string) []a2a.Part {
	ps := make([]a2a.Part, len(texts))
	for i, s := range texts {
		ps[i] = a2a.Part{Text: s}
	}
	return ps
}

func artEvent(id string, appendChunk bool, texts ...string) *a2a.ArtifactUpdate {
	return &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Append: appendChunk,
		Artifact: a2a.Artifact{ID: id, Parts: textParts(texts...)}}
}

// resolveAgent resolves the client of an a2atest agent from its card.
func resolveAgent(t *testing.T, agent *a2atest.Agent, opts ...stream.Option) *stream.Client {
	t.Helper()
	all := append([]stream.Option{stream.WithHTTPClient(agent.Client())}, opts...)
	c, err := stream.Resolve(background(), "http://agent.test", all...)
	require.NoError(t, err)
	return c
}

// r3notices records notices.
type r3notices struct{ ns []stream.Notice }

func (n *r3notices) option() stream.Option {
	return stream.WithNotify(func(x stream.Notice) { n.ns = append(n.ns, x) })
}

func (n *r3notices) kinds() []stream.NoticeKind {
	var ks []stream.NoticeKind
	for _, x := range n.ns {
		ks = append(ks, x.Kind)
	}
	return ks
}

func (n *r3notices) count(k stream.NoticeKind) int {
	c := 0
	for _, x := range n.ns {
		if x.Kind == k {
			c++
		}
	}
	return c
}

// restServer is a hand-written HTTP+JSON agent of version v. Each route is
// answered by its function with the number of the call to that route (from
// 0); a nil function answers express's 404 page.
type restServer struct {
	v      a2a.Version
	stream func(w http.ResponseWriter, r *http.Request, body []byte, n int)
	send   func(w http.ResponseWriter, r *http.Request, body []byte, n int)
	get    func(w http.ResponseWriter, r *http.Request, n int)
	sub    func(w http.ResponseWriter, r *http.Request, n int)

	mu     sync.Mutex
	calls  []string
	counts map[string]int
	sends  [][]byte // bodies of unary sends
	header []http.Header
}

func (s *restServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p := r.URL.Path
	route := ""
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/message:stream"):
		route = "stream"
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/message:send"):
		route = "send"
	case strings.HasSuffix(p, ":subscribe"):
		route = "sub"
	case r.Method == http.MethodGet && strings.Contains(p, "/tasks/"):
		route = "get"
	}
	s.mu.Lock()
	if s.counts == nil {
		s.counts = map[string]int{}
	}
	n := s.counts[route]
	s.counts[route]++
	s.calls = append(s.calls, r.Method+" "+r.URL.RequestURI())
	s.header = append(s.header, r.Header.Clone())
	if route == "send" {
		s.sends = append(s.sends, body)
	}
	s.mu.Unlock()
	switch {
	case route == "stream" && s.stream != nil:
		s.stream(w, r, body, n)
	case route == "send" && s.send != nil:
		s.send(w, r, body, n)
	case route == "get" && s.get != nil:
		s.get(w, r, n)
	case route == "sub" && s.sub != nil:
		s.sub(w, r, n)
	default:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, "<!DOCTYPE html><html><body><pre>Cannot %s %s</pre></body></html>", r.Method, p)
	}
}

func (s *restServer) count(route string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[route]
}

// restError answers with the binding's error body of code.
func (s *restServer) restError(w http.ResponseWriter, code int, msg string) {
	status, ct, body := a2a.MarshalHTTPError(s.v, &a2a.RPCError{Code: code, Message: msg})
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(status)
	w.Write(body)
}

// task answers with a bare Task (get-task).
func (s *restServer) task(w http.ResponseWriter, t *a2a.Task) {
	raw, err := a2a.Codec{Version: s.v, Binding: a2a.BindingHTTPJSON}.EncodeTask(t)
	if err != nil {
		panic(err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(raw)
}

// result answers a unary send with a stream result (the task wrapper).
func (s *restServer) result(w http.ResponseWriter, ev a2a.Event) {
	raw, err := a2a.Codec{Version: s.v, Binding: a2a.BindingHTTPJSON}.EncodeEvent(ev)
	if err != nil {
		panic(err)
	}
	w.Header().Set("Content-Type", "application/json")
	if s.v == a2a.V03 {
		w.WriteHeader(http.StatusCreated)
	}
	w.Write(raw)
}

// event writes one bare StreamResponse as an SSE event.
func (s *restServer) event(w http.ResponseWriter, ev a2a.Event) {
	raw, err := a2a.Codec{Version: s.v, Binding: a2a.BindingHTTPJSON}.EncodeEvent(ev)
	if err != nil {
		panic(err)
	}
	fmt.Fprintf(w, "data: %s\n\n", raw)
	w.(http.Flusher).Flush()
}

// refuseStreaming answers a streaming call as @a2a-js/sdk does for an agent
// whose card says streaming false: 400 with -32004.
func (s *restServer) refuseStreaming(w http.ResponseWriter, _ *http.Request, _ []byte, _ int) {
	s.restError(w, a2a.CodeUnsupportedOperation, "Streaming is not supported.")
}

// restClient is a client of version v for h, over HTTP+JSON.
func restClient(t *testing.T, h http.Handler, v a2a.Version, opts ...stream.Option) *stream.Client {
	t.Helper()
	all := append([]stream.Option{stream.WithHTTPClient(a2atest.NewClient(h)), stream.WithVersion(v)}, opts...)
	c, err := stream.NewRESTClient("http://agent.test", all...)
	require.NoError(t, err)
	return c
}

// snap builds a task t-1 / c-1 in state st with artifact a1 holding parts.
func snap(st a2a.TaskState, parts ...string) *a2a.Task {
	t := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: st}}
	if len(parts) > 0 {
		t.Artifacts = []a2a.Artifact{{ID: "a1", Parts: textParts(parts...)}}
	}
	return t
}

// pollSeq is a restServer for an agent that cannot stream: the unary send
// answers first, each get-task answers polls[n] (the last from then on).
func pollSeq(v a2a.Version, first *a2a.Task, polls ...func(w http.ResponseWriter, s *restServer)) *restServer {
	s := &restServer{v: v}
	s.stream = s.refuseStreaming
	s.send = func(w http.ResponseWriter, _ *http.Request, _ []byte, _ int) { s.result(w, first) }
	s.get = func(w http.ResponseWriter, _ *http.Request, n int) { polls[min(n, len(polls)-1)](w, s) }
	return s
}

func answer(t *a2a.Task) func(w http.ResponseWriter, s *restServer) {
	return func(w http.ResponseWriter, s *restServer) { s.task(w, t) }
}

// agentMsg is an agent message of t-1 / c-1.
func agentMsg(id, text string) *a2a.Message {
	return &a2a.Message{ID: id, Role: a2a.RoleAgent, TaskID: "t-1", ContextID: "c-1", Parts: textParts(text)}
}

var bothBindings = []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON}

// clientOn returns a client of agent in binding b, fixed to version v.
func clientOn(t *testing.T, agent *a2atest.Agent, v a2a.Version, b a2a.Binding, opts ...stream.Option) *stream.Client {
	t.Helper()
	return bindingClient(t, b, "http://agent.test", append([]stream.Option{stream.WithHTTPClient(agent.Client()), stream.WithVersion(v)}, opts...)...)
}

// pollAnswer is a hook that answers every prompt with text and counts.
type pollAnswer struct {
	text  string
	asked int
}

func (a *pollAnswer) Ask(context.Context, *hitl.Request) ([]a2a.Part, error) {
	a.asked++
	return hitl.Text(a.text), nil
}

// requireMessagesAsServer checks that the application shows, for every
// agent message of the server's task, the server's last version, and that
// the stream's Task holds each message once, in its last version.
func requireMessagesAsServer(t *testing.T, server *a2a.Task, s *stream.Stream, got *collected) {
	t.Helper()
	n := 0
	for _, m := range server.History {
		if m.Role != a2a.RoleAgent {
			continue
		}
		n++
		shown, ok := got.shown[m.ID]
		require.True(t, ok, "agent message %s (%q) never shown", m.ID, m.Text())
		require.Equal(t, m.Text(), shown, "the application shows the server's last version of %s", m.ID)
	}
	require.NotZero(t, n, "the server's task has agent messages")
	if sm := server.Status.Message; sm != nil {
		require.Equal(t, sm.Text(), got.shown[sm.ID], "status message as the server's")
		require.NotNil(t, s.Task().Status.Message)
		require.Equal(t, sm.Text(), s.Task().Status.Message.Text(), "Task().Status.Message is the last version")
	}
	ids := map[string]int{}
	for _, m := range s.Task().History {
		ids[m.ID]++
		require.Equal(t, 1, ids[m.ID], "message %s held twice in Task().History", m.ID)
		if m.Role == a2a.RoleAgent {
			require.Equal(t, m.Text(), got.shown[m.ID], "Task().History holds the version shown")
		}
	}
}

// firstSends counts the sends of a new message (not follow-ups).
func firstSends(agent *a2atest.Agent) int {
	n := 0
	for _, r := range agent.Requests() {
		if r.Message != nil && r.Message.TaskID == "" {
			n++
		}
	}
	return n
}

func taskWith(state a2a.TaskState, history []*a2a.Message, arts ...a2a.Artifact) *a2a.Task {
	var h []a2a.Message
	for _, m := range history {
		h = append(h, *m)
	}
	return &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: state}, History: h, Artifacts: arts}
}

func agentMsgParts(id string, parts ...a2a.Part) *a2a.Message {
	return &a2a.Message{ID: id, TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: parts}
}

// scriptedReq is one JSON-RPC request a hand-written server received.
type scriptedReq struct {
	ctx    context.Context // the request's
	n      int             // 1 for the first request
	id     json.RawMessage
	method string
	taskID string       // params.id
	msg    *a2a.Message // params.message of a send
}

func (r scriptedReq) isSend() bool {
	return r.method == "message/stream" || r.method == "SendStreamingMessage"
}

func (r scriptedReq) isSubscribe() bool {
	return r.method == "tasks/resubscribe" || r.method == "SubscribeToTask"
}

func (r scriptedReq) isGet() bool { return r.method == "tasks/get" || r.method == "GetTask" }

// scriptedServer is a hand-written server that sees each request's method and
// message, and records every request.
type scriptedServer struct {
	mu     sync.Mutex
	reqs   []scriptedReq
	answer func(w http.ResponseWriter, r scriptedReq)
}

func newScriptedServer(answer func(w http.ResponseWriter, r scriptedReq)) *scriptedServer {
	return &scriptedServer{answer: answer}
}

func (s *scriptedServer) ServeHTTP(w http.ResponseWriter, hr *http.Request) {
	body, _ := io.ReadAll(hr.Body)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ID      string          `json:"id"`
			Message json.RawMessage `json:"message"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &req)
	r := scriptedReq{ctx: hr.Context(), id: req.ID, method: req.Method, taskID: req.Params.ID}
	if len(req.Params.Message) > 0 {
		if m, err := (a2a.Codec{}).DecodeMessage(req.Params.Message); err == nil {
			r.msg = m
		}
	}
	s.mu.Lock()
	r.n = len(s.reqs) + 1
	s.reqs = append(s.reqs, r)
	s.mu.Unlock()
	s.answer(w, r)
}

func (s *scriptedServer) requests() []scriptedReq {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]scriptedReq(nil), s.reqs...)
}

func (s *scriptedServer) count(pred func(scriptedReq) bool) int {
	n := 0
	for _, r := range s.requests() {
		if pred(r) {
			n++
		}
	}
	return n
}

// statusEvent is a status update of task t-1, final on the 0.3 wire when the
// state settles the task.
func statusEvent(v a2a.Version, state a2a.TaskState, msg *a2a.Message) *a2a.StatusUpdate {
	return &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: state, Message: msg},
		Final: v == a2a.V03 && (state.Terminal() || state == a2a.StateInputRequired)}
}

// bounded returns a context that ends after an hour of (fake) time, so that a
// stream that would wait forever ends with an error instead of deadlocking
// the bubble.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(background(), time.Hour)
	t.Cleanup(cancel)
	return ctx
}

func agentMessage(id, text string) *a2a.Message {
	return &a2a.Message{ID: id, TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: text}}}
}

func indexOfState(states []a2a.TaskState, st a2a.TaskState) int {
	for i := range states {
		if states[i] == st {
			return i
		}
	}
	return -1
}

// repeatByte is an endless reader of one byte value.
type repeatByte byte

func (r repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// pour copies src into w until src ends or the client goes away, and adds
// the bytes w accepted to n.
func pour(w io.Writer, src io.Reader, n *atomic.Int64) {
	buf := make([]byte, 32<<10)
	for {
		k, rerr := src.Read(buf)
		if k > 0 {
			m, werr := w.Write(buf[:k])
			n.Add(int64(m))
			if werr != nil {
				return
			}
		}
		if rerr != nil {
			return
		}
	}
}

// cutHere aborts the response: the client sees a dropped connection.
func cutHere() { panic(http.ErrAbortHandler) }

// firstLegThenCut is the first leg of most hand-written scenarios: the task
// and one chunk ("kept"), then a dropped connection.
func firstLegThenCut(w http.ResponseWriter, id json.RawMessage, v a2a.Version) {
	sseHeaders(w)
	sseEvent(w, id, v, firstTask)
	sseEvent(w, id, v, firstChunk)
	cutHere()
}

// jsonRPCError answers with a plain JSON-RPC error, HTTP 200.
func jsonRPCError(w http.ResponseWriter, id json.RawMessage, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, id, code, msg)
}

// unaryTask answers a get-task with t.
func unaryTask(w http.ResponseWriter, id json.RawMessage, v a2a.Version, t *a2a.Task) {
	raw, err := a2a.Codec{Version: v}.EncodeTask(t)
	if err != nil {
		panic(err)
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, raw)
}

// reconnects records the Reconnecting and Resumed notices, with the fake
// time each came at.
type reconnects struct {
	causes  []error
	waits   []time.Duration
	at      []time.Time
	resumed []time.Time
}

func (r *reconnects) option() stream.Option {
	return stream.WithNotify(func(n stream.Notice) {
		switch n.Kind {
		case stream.Reconnecting:
			r.causes = append(r.causes, n.Cause)
			r.waits = append(r.waits, n.Wait)
			r.at = append(r.at, time.Now())
		case stream.Resumed:
			r.resumed = append(r.resumed, time.Now())
		}
	})
}

func requireProtocolError(t *testing.T, err error, reason string) *stream.ProtocolError {
	t.Helper()
	var pe *stream.ProtocolError
	require.ErrorAs(t, err, &pe, "got %T: %v", err, err)
	require.Contains(t, pe.Reason, reason)
	var re *reconnect.Error
	require.False(t, errors.As(err, &re), "a protocol error is never retried")
	return pe
}

// requireKept checks that a protocol error carries the task as last known.
func requireKept(t *testing.T, pe *stream.ProtocolError) {
	t.Helper()
	require.NotNil(t, pe.Task, "the last task is carried")
	require.Equal(t, "t-1", pe.Task.ID)
	require.Equal(t, "kept", pe.Task.Artifact("a1").Text())
}

func rawEvent(w http.ResponseWriter, id json.RawMessage, raw []byte) {
	fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", id, raw)
}

// rawPolls serves precomputed get-task bodies: raws[n] for poll n (the last
// from then on), after a unary send answering first. The bodies are made
// before the measurement so that only the client's work is counted.
func rawPolls(v a2a.Version, first []byte, raws [][]byte) *restServer {
	s := &restServer{v: v}
	s.stream = s.refuseStreaming
	s.send = func(w http.ResponseWriter, _ *http.Request, _ []byte, _ int) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(first)
	}
	s.get = func(w http.ResponseWriter, _ *http.Request, n int) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(raws[min(n, len(raws)-1)])
	}
	return s
}

func mustTask(v a2a.Version, t *a2a.Task) []byte {
	raw, err := a2a.Codec{Version: v, Binding: a2a.BindingHTTPJSON}.EncodeTask(t)
	if err != nil {
		panic(err)
	}
	return raw
}

func mustEvent(v a2a.Version, t *a2a.Task) []byte {
	raw, err := a2a.Codec{Version: v, Binding: a2a.BindingHTTPJSON}.EncodeEvent(t)
	if err != nil {
		panic(err)
	}
	return raw
}

// busyTask is a working task with some weight: an artifact of 20 parts and
// 20 agent messages.
func busyTask(st a2a.TaskState) *a2a.Task {
	t := snap(st)
	var parts []string
	for i := range 20 {
		parts = append(parts, fmt.Sprintf("part %d ", i))
		t.History = append(t.History, *agentMsg(fmt.Sprintf("m%d", i), fmt.Sprintf("message %d", i)))
	}
	t.Artifacts = []a2a.Artifact{{ID: "a1", Parts: textParts(parts...)}}
	return t
}

// longScript is a task that works for an hour.
func longScript() []a2atest.Step {
	return []a2atest.Step{a2atest.Working("thinking"), a2atest.Chunk("a1", "draft ", false, false),
		a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")}
}

// nextUntilWorking advances s to its first working status update.
func nextUntilWorking(t *testing.T, s *stream.Stream) {
	t.Helper()
	for s.Next() {
		if u, ok := s.Event().(*a2a.StatusUpdate); ok && u.Status.State == a2a.StateWorking {
			return
		}
	}
	t.Fatalf("the stream ended before working: %v", s.Err())
}

// terminalState and terminalFailure read a terminal error through any
// wrapping, as a caller does with errors.As and the terminal.Error
// interface: the state, and the structured failure, of a failed,
// rejected, canceled or auth-required task; false for any other error.
func terminalState(err error) (a2a.TaskState, bool) {
	var te terminal.Error
	if !errors.As(err, &te) {
		return "", false
	}
	return te.State(), true
}

func terminalFailure(err error) (terminal.Failure, bool) {
	var te terminal.Error
	if !errors.As(err, &te) {
		return terminal.Failure{}, false
	}
	return te.Failure()
}
