package stream_test

// Helpers that play the other side: fake agents and servers (wireAgent, a
// hand-written agent on any of the four wires; restServer; scriptedServer;
// rpcServer), the origin harness (originRouter: several origins served in
// process, every hop recorded, so that a test can see where a credential
// went), scripts, the tasks and events they send, and recorders of what the
// client did (notices, reconnects, logs).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/chain"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/stream"
)

// wire is one binding in one version.
type wire struct {
	v a2a.Version
	b a2a.Binding
}

func (w wire) String() string { return string(w.v) + "/" + string(w.b) }

// wires lists the four wires.
func wires() []wire {
	var all []wire
	for _, v := range versions {
		for _, b := range []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
			all = append(all, wire{v, b})
		}
	}
	return all
}

func (w wire) codec() a2a.Codec { return a2a.Codec{Version: w.v, Binding: w.b} }

// agent returns an a2atest agent that speaks only this wire.
func (w wire) agent(opts ...a2atest.Option) *a2atest.Agent {
	return a2atest.NewAgent(append([]a2atest.Option{a2atest.WithVersions(w.v), a2atest.WithBindings(w.b)}, opts...)...)
}

// callKind is a kind of call an agent answers.
type callKind string

const (
	kindStream    callKind = "stream"    // a streaming send
	kindSend      callKind = "send"      // a unary send
	kindSubscribe callKind = "subscribe" // a resubscribe
	kindGet       callKind = "get"       // a get-task
	kindCancel    callKind = "cancel"    // a cancel
)

// wireCall is one call the agent received.
type wireCall struct {
	ctx    context.Context
	kind   callKind
	n      int          // the number of the call of its kind, from 0
	msg    *a2a.Message // the message of a send
	taskID string       // the task of a subscribe, get or cancel
	method string       // the JSON-RPC method, or the HTTP method and path
	rpcID  string       // the JSON-RPC request's ID, as a string
	header http.Header
}

// sentIDs returns the message IDs of the sends the agent received.
func (a *wireAgent) sentIDs() []string {
	var ids []string
	for _, c := range a.received() {
		if c.msg != nil {
			ids = append(ids, c.msg.ID)
		}
	}
	return ids
}

// wireAgent answers each kind of call with its function; a kind without one
// gets the answer of a server that has no such call: -32601 over JSON-RPC,
// express's 404 page over HTTP+JSON.
type wireAgent struct {
	wire
	on map[callKind]func(w *wireWriter, c wireCall)

	mu     sync.Mutex
	calls  []wireCall
	counts map[callKind]int
}

// count returns how many calls of kind k the agent received.
func (a *wireAgent) count(k callKind) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.counts[k]
}

// received returns the calls received, in order.
func (a *wireAgent) received() []wireCall {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]wireCall(nil), a.calls...)
}

func (a *wireAgent) ServeHTTP(hw http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c := wireCall{ctx: r.Context(), header: r.Header.Clone()}
	w := &wireWriter{w: hw, a: a}
	if a.b == a2a.BindingHTTPJSON {
		a.parseREST(r, body, &c)
	} else {
		a.parseRPC(body, &c, w)
	}
	a.mu.Lock()
	if c.kind != "" {
		c.n = a.counts[c.kind]
		a.counts[c.kind]++
	}
	a.calls = append(a.calls, c)
	f := a.on[c.kind]
	a.mu.Unlock()
	if f == nil {
		w.noRoute(r)
		return
	}
	f(w, c)
}

// rpcRequest is what the hand-written servers read of a JSON-RPC request.
type rpcRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ID      string          `json:"id"`
		Message json.RawMessage `json:"message"`
	} `json:"params"`
}

func (a *wireAgent) parseRPC(body []byte, c *wireCall, w *wireWriter) {
	var req rpcRequest
	_ = json.Unmarshal(body, &req)
	w.id, c.method, c.taskID = req.ID, req.Method, req.Params.ID
	_ = json.Unmarshal(req.ID, &c.rpcID)
	kinds := map[string]callKind{
		"message/stream": kindStream, "SendStreamingMessage": kindStream,
		"message/send": kindSend, "SendMessage": kindSend,
		"tasks/resubscribe": kindSubscribe, "SubscribeToTask": kindSubscribe,
		"tasks/get": kindGet, "GetTask": kindGet,
		"tasks/cancel": kindCancel, "CancelTask": kindCancel,
	}
	c.kind = kinds[req.Method]
	if a.v == a2a.V03 && strings.Contains(req.Method, "/") || a.v == a2a.V10 && !strings.Contains(req.Method, "/") {
		if len(req.Params.Message) > 0 {
			c.msg, _ = a2a.Codec{}.DecodeMessage(req.Params.Message)
		}
		return
	}
	c.kind = "" // a method of the other version: unknown here
}

func (a *wireAgent) parseREST(r *http.Request, body []byte, c *wireCall) {
	c.method = r.Method + " " + r.URL.Path
	p := r.URL.Path
	if a.v == a2a.V03 {
		var ok bool
		if p, ok = strings.CutPrefix(p, "/v1/"); !ok {
			return
		}
	} else {
		if strings.HasPrefix(p, "/v1/") {
			return
		}
		p = strings.TrimPrefix(p, "/")
	}
	switch {
	case r.Method == http.MethodPost && p == "message:stream":
		c.kind = kindStream
	case r.Method == http.MethodPost && p == "message:send":
		c.kind = kindSend
	case strings.HasPrefix(p, "tasks/") && strings.HasSuffix(p, ":subscribe"):
		c.kind, c.taskID = kindSubscribe, strings.TrimSuffix(strings.TrimPrefix(p, "tasks/"), ":subscribe")
	case r.Method == http.MethodPost && strings.HasPrefix(p, "tasks/") && strings.HasSuffix(p, ":cancel"):
		c.kind, c.taskID = kindCancel, strings.TrimSuffix(strings.TrimPrefix(p, "tasks/"), ":cancel")
	case r.Method == http.MethodGet && strings.HasPrefix(p, "tasks/"):
		c.kind, c.taskID = kindGet, strings.TrimPrefix(p, "tasks/")
	}
	if c.kind == kindStream || c.kind == kindSend {
		var req struct {
			Message json.RawMessage `json:"message"`
		}
		if json.Unmarshal(body, &req) == nil && len(req.Message) > 0 {
			c.msg, _ = a2a.Codec{Version: a.v, Binding: a2a.BindingHTTPJSON}.DecodeMessage(req.Message)
		}
	}
}

func newWireAgent(w wire, on map[callKind]func(w *wireWriter, c wireCall)) *wireAgent {
	return &wireAgent{wire: w, on: on, counts: map[callKind]int{}}
}

// errorObject answers the call with e, as an agent of the wire answers its
// caller with an error object it built: a JSON-RPC error response, or the
// HTTP+JSON error body of the wire's version with its status. It returns
// the body written.
func (w *wireWriter) errorObject(e *a2a.RPCError) []byte {
	if w.a.b == a2a.BindingJSONRPC {
		raw, err := json.Marshal(e)
		if err != nil {
			panic(err)
		}
		body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":%s}`, w.idOrNull(), raw)
		w.w.Header().Set("Content-Type", "application/json")
		w.w.Write(body)
		return body
	}
	status, ct, body := a2a.MarshalHTTPError(w.a.v, e)
	w.w.Header().Set("Content-Type", ct)
	w.w.WriteHeader(status)
	w.w.Write(body)
	return body
}

// rawEvent writes one stream result given as its JSON.
func (w *wireWriter) rawEvent(raw string) {
	b := []byte(raw)
	if w.a.b == a2a.BindingJSONRPC {
		b = w.envelope(b)
	}
	fmt.Fprintf(w.w, "data: %s\n\n", b)
	w.w.(http.Flusher).Flush()
}

// wireWriter writes the agent's answer to one call in its wire's terms.
type wireWriter struct {
	w  http.ResponseWriter
	a  *wireAgent
	id json.RawMessage // the JSON-RPC request's
}

// sse starts an event stream.
func (w *wireWriter) sse() {
	w.w.Header().Set("Content-Type", "text/event-stream")
	w.w.WriteHeader(http.StatusOK)
	w.w.(http.Flusher).Flush()
}

// event writes one stream result.
func (w *wireWriter) event(ev a2a.Event) {
	raw, err := a2a.Codec{Version: w.a.v, Binding: w.a.b}.EncodeEvent(ev)
	if err != nil {
		panic(err)
	}
	if w.a.b == a2a.BindingJSONRPC {
		raw = w.envelope(raw)
	}
	fmt.Fprintf(w.w, "data: %s\n\n", raw)
	w.w.(http.Flusher).Flush()
}

// result answers a unary send with ev.
func (w *wireWriter) result(ev a2a.Event) {
	raw, err := a2a.Codec{Version: w.a.v, Binding: w.a.b}.EncodeEvent(ev)
	if err != nil {
		panic(err)
	}
	w.json(http.StatusOK, raw)
}

// task answers a get-task or a cancel with t.
func (w *wireWriter) task(t *a2a.Task) {
	raw, err := a2a.Codec{Version: w.a.v, Binding: w.a.b}.EncodeTask(t)
	if err != nil {
		panic(err)
	}
	w.json(http.StatusOK, raw)
}

// json writes a unary JSON answer: raw as the result over JSON-RPC.
func (w *wireWriter) json(status int, raw []byte) {
	if w.a.b == a2a.BindingJSONRPC {
		raw = w.envelope(raw)
	}
	w.w.Header().Set("Content-Type", "application/json")
	w.w.WriteHeader(status)
	w.w.Write(raw)
}

// cutAfter writes the first n bytes of what json would write, then breaks
// the connection: the answer's status line arrived, its body did not.
func (w *wireWriter) cutAfter(n int, raw []byte) {
	if w.a.b == a2a.BindingJSONRPC {
		raw = w.envelope(raw)
	}
	w.w.Header().Set("Content-Type", "application/json")
	w.w.WriteHeader(http.StatusOK)
	w.w.Write(raw[:min(n, len(raw))])
	w.w.(http.Flusher).Flush()
	panic(http.ErrAbortHandler)
}

// rpcError answers with the wire's error for code: a JSON-RPC error, or the
// HTTP+JSON error body with its status.
func (w *wireWriter) rpcError(code int, msg string) {
	if w.a.b == a2a.BindingJSONRPC {
		w.w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w.w, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, w.idOrNull(), code, msg)
		return
	}
	status, ct, body := a2a.MarshalHTTPError(w.a.v, &a2a.RPCError{Code: code, Message: msg})
	w.w.Header().Set("Content-Type", ct)
	w.w.WriteHeader(status)
	w.w.Write(body)
}

// noRoute answers a call the server does not have.
func (w *wireWriter) noRoute(r *http.Request) {
	if w.a.b == a2a.BindingJSONRPC {
		w.rpcError(a2a.CodeMethodNotFound, "Method not found")
		return
	}
	w.w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.w.WriteHeader(http.StatusNotFound)
	fmt.Fprintf(w.w, "<!DOCTYPE html><html><body><pre>Cannot %s %s</pre></body></html>", r.Method, r.URL.Path)
}

func (w *wireWriter) envelope(result []byte) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, w.idOrNull(), result)
}

func (w *wireWriter) idOrNull() json.RawMessage {
	if len(w.id) == 0 {
		return json.RawMessage("null")
	}
	return w.id
}

// rpcErrorData answers with the wire's error for code, carrying data: the
// JSON-RPC error's data, or, over HTTP+JSON, the 0.3 error object's data or
// the 1.0 google.rpc.Status's details (data must then be an array).
func (w *wireWriter) rpcErrorData(code int, msg string, data json.RawMessage) {
	if w.a.b == a2a.BindingJSONRPC {
		w.w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w.w, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q,"data":%s}}`, w.idOrNull(), code, msg, data)
		return
	}
	status, ct, body := a2a.MarshalHTTPError(w.a.v, &a2a.RPCError{Code: code, Message: msg, Data: data})
	w.w.Header().Set("Content-Type", ct)
	w.w.WriteHeader(status)
	w.w.Write(body)
}

// streamError writes an error inside an open event stream: a JSON-RPC error
// response as an event's data, or, over HTTP+JSON, the wire's error body as
// an "event: error".
func (w *wireWriter) streamError(code int, msg string, data json.RawMessage) {
	if w.a.b == a2a.BindingJSONRPC {
		fmt.Fprintf(w.w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":%d,\"message\":%q,\"data\":%s}}\n\n", w.idOrNull(), code, msg, data)
	} else {
		_, _, body := a2a.MarshalHTTPError(w.a.v, &a2a.RPCError{Code: code, Message: msg, Data: data})
		fmt.Fprintf(w.w, "event: error\ndata: %s\n\n", body)
	}
	w.w.(http.Flusher).Flush()
}

// retryData is the data with which the wire's server says an internal error
// may be retried after secs seconds: A2A 0.3's {"retryable","retryAfter"}
// object, or 1.0's details, an ErrorInfo and a google.rpc.RetryInfo.
func retryData(v a2a.Version, secs int) json.RawMessage {
	return retryDataFor(v, a2a.CodeInternalError, secs)
}

// retryDataFor is retryData for an error of the given code, whose 1.0
// ErrorInfo names it (over HTTP+JSON the reason, not the status, says
// which error it is).
func retryDataFor(v a2a.Version, code, secs int) json.RawMessage {
	if v == a2a.V03 {
		return json.RawMessage(fmt.Sprintf(`{"retryable":true,"retryAfter":%d}`, secs))
	}
	reasons := map[int]string{
		a2a.CodeParseError: "PARSE_ERROR", a2a.CodeInvalidRequest: "INVALID_REQUEST",
		a2a.CodeInvalidParams: "INVALID_PARAMS", a2a.CodeInternalError: "INTERNAL_ERROR",
		a2a.CodeTaskNotFound: "TASK_NOT_FOUND", a2a.CodeUnsupportedOperation: "UNSUPPORTED_OPERATION",
	}
	return json.RawMessage(fmt.Sprintf(`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":%q,"domain":"a2a-protocol.org"},`+
		`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"%ds"}]`, reasons[code], secs))
}

// hop is one request the client sent, as it left the client.
type hop struct {
	method string
	url    *url.URL
	header http.Header
	body   []byte
}

// origin returns the hop's scheme://host:port, the port made explicit.
func (h hop) origin() string { return originOf(h.url) }

func originOf(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// originRouter is an http.RoundTripper that serves each origin with its own
// handler, in process, and records every hop. A hop to an origin without a
// handler fails as an unreachable host does.
type originRouter struct {
	mu     sync.Mutex
	hops   []hop
	routes map[string]http.RoundTripper
}

// serve makes the origin of rawURL reach h.
func (m *originRouter) serve(rawURL string, h http.Handler) *originRouter {
	u, err := url.Parse(rawURL)
	if err != nil {
		panic(err)
	}
	m.routes[originOf(u)] = a2atest.NewTransport(h)
	return m
}

func (m *originRouter) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	u := *r.URL
	m.mu.Lock()
	m.hops = append(m.hops, hop{method: r.Method, url: &u, header: r.Header.Clone(), body: body})
	rt := m.routes[originOf(r.URL)]
	m.mu.Unlock()
	if rt == nil {
		return nil, fmt.Errorf("dial tcp: lookup %s: no such host", r.URL.Hostname())
	}
	return rt.RoundTrip(r)
}

func (m *originRouter) client() *http.Client { return &http.Client{Transport: m} }

func (m *originRouter) recorded() []hop {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]hop(nil), m.hops...)
}

func newOriginRouter() *originRouter { return &originRouter{routes: map[string]http.RoundTripper{}} }

// cardJSON returns an agent card naming endpoint as its only interface, in
// binding b and version v, with the given streaming capability.
func cardJSON(v a2a.Version, b a2a.Binding, endpoint string, streaming bool) []byte {
	var card map[string]any
	if v == a2a.V10 {
		card = map[string]any{
			"name": "stranger", "description": "d", "version": "1",
			"supportedInterfaces": []any{map[string]any{"url": endpoint, "protocolBinding": string(b), "protocolVersion": "1.0"}},
			"capabilities":        map[string]any{"streaming": streaming},
			"defaultInputModes":   []string{"text/plain"}, "defaultOutputModes": []string{"text/plain"},
			"skills": []any{},
		}
	} else {
		card = map[string]any{
			"name": "stranger", "description": "d", "version": "1", "protocolVersion": "0.3.0",
			"url": endpoint, "preferredTransport": string(b),
			"capabilities":      map[string]any{"streaming": streaming},
			"defaultInputModes": []string{"text/plain"}, "defaultOutputModes": []string{"text/plain"},
			"skills": []any{},
		}
	}
	raw, err := json.Marshal(card)
	if err != nil {
		panic(err)
	}
	return raw
}

// withCard serves card at the well-known path (and at any path ending in
// .json), 404 elsewhere, and passes every other request to next.
func withCard(card []byte, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && (r.URL.Path == "/.well-known/agent-card.json" || strings.HasSuffix(r.URL.Path, ".json")) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(card)
			return
		}
		if next == nil {
			http.NotFound(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// kindOf tells which kind of call r is, on wire (v, b): stream, send,
// subscribe, get, cancel, card, or "" for anything else. It leaves r's body
// readable.
func kindOf(v a2a.Version, b a2a.Binding, r *http.Request) callKind {
	if strings.HasPrefix(r.URL.Path, "/.well-known/") || strings.HasSuffix(r.URL.Path, ".json") {
		return "card"
	}
	if b == a2a.BindingJSONRPC {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &req)
		return map[string]callKind{
			"message/stream": kindStream, "SendStreamingMessage": kindStream,
			"message/send": kindSend, "SendMessage": kindSend,
			"tasks/resubscribe": kindSubscribe, "SubscribeToTask": kindSubscribe,
			"tasks/get": kindGet, "GetTask": kindGet,
			"tasks/cancel": kindCancel, "CancelTask": kindCancel,
		}[req.Method]
	}
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/message:stream"):
		return kindStream
	case strings.HasSuffix(p, "/message:send"):
		return kindSend
	case strings.HasSuffix(p, ":subscribe"):
		return kindSubscribe
	case strings.HasSuffix(p, ":cancel"):
		return kindCancel
	case r.Method == http.MethodGet && strings.Contains(p, "/tasks/"):
		return kindGet
	}
	return ""
}

// redirectKind answers calls of kind k with a redirect (status code) to the
// same path and query on target, and passes everything else to next.
func redirectKind(v a2a.Version, b a2a.Binding, k callKind, code int, target string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if kindOf(v, b, r) == k {
			loc := strings.TrimSuffix(target, "/") + r.URL.RequestURI()
			http.Redirect(w, r, loc, code)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func scriptedAgent(w wire, more ...a2atest.Option) *a2atest.Agent {
	opts := append([]a2atest.Option{a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithScriptFunc(scriptByText)}, more...)
	return a2atest.NewAgent(opts...)
}

// scriptByText picks a task's script by the first message's text: "ask"
// asks a question, "slow" works for an hour, anything else finishes.
func scriptByText(msg *a2a.Message) []a2atest.Step {
	switch {
	case strings.Contains(msg.Text(), "ask"):
		return []a2atest.Step{a2atest.Working("thinking"), a2atest.AskInput("Which city?"),
			a2atest.Chunk("a1", "done", false, true), a2atest.Finish(a2a.StateCompleted, "ok")}
	case strings.Contains(msg.Text(), "slow"):
		return []a2atest.Step{a2atest.Working("thinking"), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "ok")}
	}
	return []a2atest.Step{a2atest.Working(""), a2atest.Chunk("a1", "done", false, true), a2atest.Finish(a2a.StateCompleted, "ok")}
}

var answerLisbon = hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) { return hitl.Text("Lisbon"), nil })

func hello() *a2a.Message { return a2a.NewTextMessage(a2a.RoleUser, "hello") }

func hiMessage() *a2a.Message { return a2a.NewTextMessage(a2a.RoleUser, "hi") }

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

// snap builds a task t-1 / c-1 in state st with artifact a1 holding parts.
func snap(st a2a.TaskState, parts ...string) *a2a.Task {
	t := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: st}}
	if len(parts) > 0 {
		t.Artifacts = []a2a.Artifact{{ID: "a1", Parts: textParts(parts...)}}
	}
	return t
}

func taskWith(state a2a.TaskState, history []*a2a.Message, arts ...a2a.Artifact) *a2a.Task {
	var h []a2a.Message
	for _, m := range history {
		h = append(h, *m)
	}
	return &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: state}, History: h, Artifacts: arts}
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

// agentMsg is an agent message of t-1 / c-1.
func agentMsg(id, text string) *a2a.Message {
	return &a2a.Message{ID: id, Role: a2a.RoleAgent, TaskID: "t-1", ContextID: "c-1", Parts: textParts(text)}
}

func agentMsgParts(id string, parts ...a2a.Part) *a2a.Message {
	return &a2a.Message{ID: id, TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: parts}
}

func agentMessage(id, text string) *a2a.Message {
	return &a2a.Message{ID: id, TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: text}}}
}

// statusEvent is a status update of task t-1, final on the 0.3 wire when the
// state settles the task.
func statusEvent(v a2a.Version, state a2a.TaskState, msg *a2a.Message) *a2a.StatusUpdate {
	return &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: state, Message: msg},
		Final: v == a2a.V03 && (state.Terminal() || state == a2a.StateInputRequired)}
}

var firstTask = &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking}}

var firstChunk = &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{{Text: "kept"}}}}

// longScript is a task that works for an hour.
func longScript() []a2atest.Step {
	return []a2atest.Step{a2atest.Working("thinking"), a2atest.Chunk("a1", "draft ", false, false),
		a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")}
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

// pollAnswer is a hook that answers every prompt with text and counts.
type pollAnswer struct {
	text  string
	asked int
}

func (a *pollAnswer) Ask(context.Context, *hitl.Request) ([]a2a.Part, error) {
	a.asked++
	return hitl.Text(a.text), nil
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

func (s *scriptedServer) ServeHTTP(w http.ResponseWriter, hr *http.Request) {
	body, _ := io.ReadAll(hr.Body)
	var req rpcRequest
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

func newScriptedServer(answer func(w http.ResponseWriter, r scriptedReq)) *scriptedServer {
	return &scriptedServer{answer: answer}
}

// rpcServer is a hand-written hostile server: it answers each streaming
// request with what script writes.
func rpcServer(script func(w http.ResponseWriter, id json.RawMessage, n int)) http.Handler {
	n := 0
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		n++
		script(w, req.ID, n)
	})
}

func sseEvent(w http.ResponseWriter, id json.RawMessage, v a2a.Version, ev a2a.Event) {
	raw, err := a2a.Codec{Version: v}.EncodeEvent(ev)
	if err != nil {
		panic(err)
	}
	fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", id, raw)
	w.(http.Flusher).Flush()
}

func sseHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
}

func startSSE(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

func writeFlush(w http.ResponseWriter, s string) {
	_, _ = io.WriteString(w, s)
	w.(http.Flusher).Flush()
}

// parsedCall is what a hand-written server reads of a request.
type parsedCall struct {
	kind string          // "stream", "subscribe", "get", "send", "cancel"
	id   json.RawMessage // the JSON-RPC id
	w    wire
}

// frame is one SSE event carrying ev, as the wire writes it.
func (c parsedCall) frame(ev a2a.Event) string {
	b, err := c.w.codec().EncodeEvent(ev)
	if err != nil {
		panic(err)
	}
	if c.w.b == a2a.BindingJSONRPC {
		b = []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, c.id, b))
	}
	return "data: " + string(b) + "\n\n"
}

// task writes a unary task answer (get-task).
func (c parsedCall) task(w http.ResponseWriter, t *a2a.Task) {
	b, err := c.w.codec().EncodeTask(t)
	if err != nil {
		panic(err)
	}
	if c.w.b == a2a.BindingJSONRPC {
		b = []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, c.id, b))
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

func parseCall(w wire, r *http.Request) parsedCall {
	body, _ := io.ReadAll(r.Body)
	c := parsedCall{w: w, id: json.RawMessage(`1`)}
	if w.b == a2a.BindingHTTPJSON {
		p := r.URL.Path
		switch {
		case strings.HasSuffix(p, "message:stream"):
			c.kind = "stream"
		case strings.HasSuffix(p, ":subscribe"):
			c.kind = "subscribe"
		case strings.HasSuffix(p, "message:send"):
			c.kind = "send"
		case strings.HasSuffix(p, ":cancel"):
			c.kind = "cancel"
		case r.Method == http.MethodGet && strings.Contains(p, "/tasks/"):
			c.kind = "get"
		}
		return c
	}
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(body, &env)
	if len(env.ID) > 0 {
		c.id = env.ID
	}
	switch env.Method {
	case "message/stream", "SendStreamingMessage":
		c.kind = "stream"
	case "tasks/resubscribe", "SubscribeToTask":
		c.kind = "subscribe"
	case "tasks/get", "GetTask":
		c.kind = "get"
	case "message/send", "SendMessage":
		c.kind = "send"
	case "tasks/cancel", "CancelTask":
		c.kind = "cancel"
	}
	return c
}

func taskInState(state a2a.TaskState) *a2a.Task {
	return &a2a.Task{ID: "t-28", ContextID: "c-28", Status: a2a.TaskStatus{State: state}}
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

func rawEvent(w http.ResponseWriter, id json.RawMessage, raw []byte) {
	fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", id, raw)
}

// noticeLog records notices.
type noticeLog struct{ ns []stream.Notice }

func (n *noticeLog) option() stream.Option {
	return stream.WithNotify(func(x stream.Notice) { n.ns = append(n.ns, x) })
}

func (n *noticeLog) kinds() []stream.NoticeKind {
	var ks []stream.NoticeKind
	for _, x := range n.ns {
		ks = append(ks, x.Kind)
	}
	return ks
}

func (n *noticeLog) count(k stream.NoticeKind) int {
	c := 0
	for _, x := range n.ns {
		if x.Kind == k {
			c++
		}
	}
	return c
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

// logCapture is a Debug-level logger that writes every record both as text
// and as JSON.
type logCapture struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *logCapture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Write(p)
}

func (c *logCapture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

func (c *logCapture) logger() *slog.Logger {
	opts := &slog.HandlerOptions{Level: slog.LevelDebug}
	return slog.New(teeHandler{slog.NewTextHandler(c, opts), slog.NewJSONHandler(c, opts)})
}

// pipeServer serves h over in-memory connections, one http.Server per
// connection its dial makes; close stops them all.
type pipeServer struct {
	h       http.Handler
	mu      sync.Mutex
	servers []*http.Server
}

func (p *pipeServer) dial(context.Context, string, string) (net.Conn, error) {
	client, server := net.Pipe()
	srv := &http.Server{Handler: p.h}
	p.mu.Lock()
	p.servers = append(p.servers, srv)
	p.mu.Unlock()
	go srv.Serve(&oneConnListener{conn: server, done: make(chan struct{})})
	return client, nil
}

func (p *pipeServer) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, srv := range p.servers {
		srv.Close()
	}
}

// refuseOnce is a RoundTripper that fails the requests its refuse function
// picks as a transport does whose dial was refused, and passes the others
// to next.
type refuseOnce struct {
	next   http.RoundTripper
	refuse func(r *http.Request) bool
}

func (r refuseOnce) RoundTrip(req *http.Request) (*http.Response, error) {
	if r.refuse(req) {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}
	return r.next.RoundTrip(req)
}

type teeHandler []slog.Handler

func (h teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	for _, x := range h {
		if x.Enabled(ctx, l) {
			return true
		}
	}
	return false
}

func (h teeHandler) Handle(ctx context.Context, r slog.Record) error {
	for _, x := range h {
		if err := x.Handle(ctx, r.Clone()); err != nil {
			return err
		}
	}
	return nil
}

func (h teeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	c := make(teeHandler, len(h))
	for i, x := range h {
		c[i] = x.WithAttrs(as)
	}
	return c
}

func (h teeHandler) WithGroup(name string) slog.Handler {
	c := make(teeHandler, len(h))
	for i, x := range h {
		c[i] = x.WithGroup(name)
	}
	return c
}

// oneConnListener hands out one connection, then blocks until closed.
type oneConnListener struct {
	once sync.Once
	conn net.Conn
	done chan struct{}
}

func (l *oneConnListener) Accept() (net.Conn, error) {
	var c net.Conn
	l.once.Do(func() { c = l.conn })
	if c != nil {
		return c, nil
	}
	<-l.done
	return nil, net.ErrClosed
}

func (l *oneConnListener) Close() error {
	select {
	case <-l.done:
	default:
		close(l.done)
	}
	return nil
}

func (l *oneConnListener) Addr() net.Addr { return pipeAddr{} }

// a2a0 leaves one streaming request without a fault.
func a2a0() a2atest.Fault { return a2atest.Fault{} }

// waits records the waits of the Reconnecting notices.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) option() stream.Option {
	return stream.WithNotify(func(n stream.Notice) {
		if n.Kind == stream.Reconnecting {
			w.mu.Lock()
			w.d = append(w.d, n.Wait)
			w.mu.Unlock()
		}
	})
}

func (w *waits) all() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]time.Duration(nil), w.d...)
}

// tripBreaker is a small Breaker for tests: it opens after threshold
// failures in a row and stays open for cooldown; then it lets one probe
// through (half-open), whose success closes it and whose failure opens it
// again. Context errors are left out of its counts, as the doc of Breaker
// advises. It records what it is asked and told.
type tripBreaker struct {
	threshold int
	cooldown  time.Duration

	mu        sync.Mutex
	failures  int
	openUntil time.Time
	probing   bool
	asked     int
	results   []error
}

func (b *tripBreaker) Allow() (func(error), error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.asked++
	if b.failures >= b.threshold {
		if b.probing || time.Now().Before(b.openUntil) {
			return nil, errTripOpen
		}
		b.probing = true
	}
	return b.done, nil
}

func (b *tripBreaker) done(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.results = append(b.results, err)
	b.probing = false
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
	case err == nil:
		b.failures = 0
	default:
		b.failures++
		if b.failures >= b.threshold {
			b.openUntil = time.Now().Add(b.cooldown)
		}
	}
}

// told returns the results the breaker was told, in order.
func (b *tripBreaker) told() []error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]error(nil), b.results...)
}

// askedCount returns how many times the breaker was asked.
func (b *tripBreaker) askedCount() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.asked
}

// chainAgent is an agent named self on wire w that, for every streaming
// send, calls the agent down (which it names downName) with a keyed
// Client, and answers with chain.Error of how that call ended. What
// it answered goes to sent.
func chainAgent(t *testing.T, w wire, self, downName string, down *wireAgent, sent chan<- []byte) *wireAgent {
	return newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
		kindStream: func(ww *wireWriter, c wireCall) {
			_, err := keyedAgentClient(t, down).Send(c.ctx, hello()).Wait()
			ww.w.Header().Set("X-Debug", "header-secret")
			sent <- ww.errorObject(chain.Error(err, w.v, self, downName))
		},
	})
}

// completes is an agent that answers every streaming send with a completed
// task.
func completes(w wire) *wireAgent {
	return newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
		kindStream: func(ww *wireWriter, _ wireCall) {
			ww.sse()
			ww.event(snap(a2a.StateCompleted, "done"))
		},
	})
}

// failingAgents returns, for wire w, agents that end the task with the
// structured failure: streaming, as a status update after the first Task;
// answering the send with the failed Task at once; and polled, the get-task
// answering the failed Task. The first Task of the streaming and the polled
// one carries metadata of its own: a session key that stays, and an
// llm_response_id that the failure's replaces.
func failingAgents(w wire) map[string]*wireAgent {
	submitted := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateSubmitted},
		Metadata: map[string]any{"session": "s-1", "llm_response_id": "resp-0"}}
	refuse := func(w *wireWriter, _ wireCall) {
		w.rpcError(a2a.CodeUnsupportedOperation, "Streaming is not supported.")
	}
	return map[string]*wireAgent{
		"streaming": newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
			kindStream: func(ww *wireWriter, _ wireCall) {
				ww.sse()
				ww.event(submitted)
				ww.rawEvent(failureUpdate(w))
			},
		}),
		"send": newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
			kindStream: refuse,
			kindSend: func(ww *wireWriter, _ wireCall) {
				ww.json(http.StatusOK, []byte(sendResult(w, failedTask(w))))
			},
		}),
		"polled": newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
			kindStream: refuse,
			kindSend:   func(ww *wireWriter, _ wireCall) { ww.result(submitted) },
			kindGet: func(ww *wireWriter, _ wireCall) {
				ww.json(http.StatusOK, []byte(failedTask(w)))
			},
		}),
	}
}

// unavailable answers 503.
func unavailable(w *wireWriter, _ wireCall) { w.w.WriteHeader(http.StatusServiceUnavailable) }

// sendsWorking answers a streaming send with a working task, and ends.
func sendsWorking(ww *wireWriter, _ wireCall) {
	ww.sse()
	ww.event(snap(a2a.StateWorking))
}

// workingThenCompleted answers the first get-task with a working task, the
// next with the completed one.
func workingThenCompleted(ww *wireWriter, c wireCall) {
	if c.n == 0 {
		ww.task(snap(a2a.StateWorking))
		return
	}
	ww.task(snap(a2a.StateCompleted, "done"))
}

// runningThenDone answers get-task with the same working task four times,
// then with the task completed.
func runningThenDone(w *wireWriter, c wireCall) {
	if c.n < 4 {
		w.task(snap(a2a.StateWorking, "one "))
		return
	}
	w.task(snap(a2a.StateCompleted, "one ", "two"))
}

// silentAgent streams a working task and then stays silent, as does every
// subscription (a live-only server whose agent writes nothing), until done
// says the task is finished; get-task shows the task working until then.
func silentAgent(w wire, done func() bool) *wireAgent {
	silent := func(ww *wireWriter, c wireCall) {
		<-c.ctx.Done()
	}
	return newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
		kindStream: func(ww *wireWriter, c wireCall) {
			ww.sse()
			ww.event(snap(a2a.StateWorking, "one"))
			silent(ww, c)
		},
		kindSubscribe: func(ww *wireWriter, c wireCall) {
			if done() {
				ww.sse()
				ww.event(snap(a2a.StateCompleted, "one", " two"))
				return
			}
			silent(ww, c)
		},
		kindGet: func(ww *wireWriter, _ wireCall) {
			if done() {
				ww.task(snap(a2a.StateCompleted, "one", " two"))
				return
			}
			ww.task(snap(a2a.StateWorking, "one"))
		},
	})
}

// pollServer is a hand-written agent that cannot stream: streaming calls get
// refuse, a unary send returns the task at once (snaps[0] for the first
// one), and get-task number i (from 0) returns snaps[i+1] (the last one
// from then on), unless getFault has a status for it.
type pollServer struct {
	v        a2a.Version
	refuse   func(w http.ResponseWriter, id json.RawMessage)
	snaps    []*a2a.Task
	getFault map[int]int // get number (from 0) → HTTP status

	mu      sync.Mutex
	methods []string
	sends   []json.RawMessage // params of unary sends
	gets    int
}

func (p *pollServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &req)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.methods = append(p.methods, req.Method)
	result := func(v any) {
		raw, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, raw)
	}
	task := func(t *a2a.Task) json.RawMessage {
		raw, err := a2a.Codec{Version: p.v}.EncodeTask(t)
		if err != nil {
			panic(err)
		}
		return raw
	}
	switch req.Method {
	case "message/stream", "SendStreamingMessage", "tasks/resubscribe", "SubscribeToTask":
		p.refuse(w, req.ID)
	case "message/send", "SendMessage":
		p.sends = append(p.sends, req.Params)
		// The result of a send is a stream result (a 0.3 Task with its kind,
		// or the 1.0 wrapper): the task as the last get showed it.
		raw, err := a2a.Codec{Version: p.v}.EncodeEvent(p.snaps[min(p.gets, len(p.snaps)-1)])
		if err != nil {
			panic(err)
		}
		result(json.RawMessage(raw))
	case "tasks/get", "GetTask":
		n := p.gets
		p.gets++
		if code, ok := p.getFault[n]; ok {
			w.Header().Set("Retry-After", "3")
			http.Error(w, "busy", code)
			return
		}
		result(task(p.snaps[min(n+1, len(p.snaps)-1)]))
	default:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`, req.ID)
	}
}

func (p *pollServer) count(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, m := range p.methods {
		if m == method {
			n++
		}
	}
	return n
}

// progression returns snapshots of task t-1: submitted, working, one more
// chunk per snapshot, then the final state.
func progression(final a2a.TaskState, chunks ...string) []*a2a.Task {
	base := func(st a2a.TaskState) *a2a.Task {
		return &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: st}}
	}
	snaps := []*a2a.Task{base(a2a.StateSubmitted), base(a2a.StateWorking)}
	for i := range chunks {
		t := base(a2a.StateWorking)
		art := a2a.Artifact{ID: "a1"}
		for _, c := range chunks[:i+1] {
			art.Parts = append(art.Parts, a2a.Part{Text: c})
		}
		t.Artifacts = []a2a.Artifact{art}
		snaps = append(snaps, t)
	}
	last := *snaps[len(snaps)-1]
	last.Status = a2a.TaskStatus{State: final}
	return append(snaps, &last)
}

func rpcErrorJSON(code int) func(w http.ResponseWriter, id json.RawMessage) {
	return func(w http.ResponseWriter, id json.RawMessage) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":"no streaming"}}`, id, code)
	}
}

// frameworkNotFound are 404 answers of web frameworks for a route the
// server does not have: express's HTML page, and JSON bodies that name no
// A2A error.
var frameworkNotFound = []struct {
	name, contentType, body string
}{
	{"express HTML", "text/html; charset=utf-8", "<!DOCTYPE html><html><body><pre>Cannot POST %s</pre></body></html>"},
	{"error string", "application/json", `{"error":"Not Found"}`},
	{"Spring Boot", "application/json", `{"timestamp":"2026-11-23T00:19:41.295+00:00","status":404,"error":"Not Found","path":"%s"}`},
	{"FastAPI", "application/json", `{"detail":"Not Found"}`},
	{"message", "application/json; charset=utf-8", `{"message":"Not Found"}`},
}

// notFound answers r as a framework does for a route it lacks: 404 with
// body, which may quote the path (%s).
func notFound(w http.ResponseWriter, r *http.Request, contentType, body string) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusNotFound)
	if strings.Contains(body, "%s") {
		body = fmt.Sprintf(body, r.URL.Path)
	}
	io.WriteString(w, body)
}

func serve(ct string, status int, body []byte) func(w http.ResponseWriter, _ []byte) {
	return func(w http.ResponseWriter, _ []byte) {
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(status)
		w.Write(body)
	}
}

// restCapture reads a byte-exact capture of an @a2a-js/sdk restHandler
// (a2a/testdata/rest, copied from shared/captures/rest).
func restCapture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../a2a/testdata/rest/" + name)
	require.NoError(t, err)
	return b
}

// restReplay serves the captures of one version by method and path.
type restReplay struct {
	t      *testing.T
	routes map[string]func(w http.ResponseWriter, body []byte)

	mu    sync.Mutex
	calls []string
	sends [][]byte
}

func (r *restReplay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	key := req.Method + " " + req.URL.Path
	r.mu.Lock()
	r.calls = append(r.calls, key)
	if strings.HasSuffix(req.URL.Path, "message:stream") {
		r.sends = append(r.sends, body)
	}
	r.mu.Unlock()
	h, ok := r.routes[key]
	if !ok {
		http.Error(w, "Cannot "+key, http.StatusNotFound)
		return
	}
	h(w, body)
}

// targetRecorder serves h and records the method and request target (the
// path and query exactly as sent) of every request. With getSubscribeOnly
// it answers 405 to a POST to a subscribe route, as a server that routes
// subscribe on GET only (the proto's mapping) does.
type targetRecorder struct {
	h                http.Handler
	getSubscribeOnly bool

	mu   sync.Mutex
	seen []string
}

func (s *targetRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.seen = append(s.seen, r.Method+" "+r.RequestURI)
	s.mu.Unlock()
	if s.getSubscribeOnly && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, ":subscribe") {
		w.Header().Set("Allow", "GET")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	s.h.ServeHTTP(w, r)
}

// since returns the targets recorded from the n-th on.
func (s *targetRecorder) since(n int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen[n:]...)
}

func serveCard(card string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, card)
	})
}

// cardFor returns a card of version v whose JSON-RPC interface is endpoint.
func cardFor(v a2a.Version, endpoint string) string {
	if v == a2a.V03 {
		return fmt.Sprintf(`{"name":"x","url":%q,"preferredTransport":"JSONRPC","protocolVersion":"0.3.0"}`, endpoint)
	}
	return fmt.Sprintf(`{"name":"x","supportedInterfaces":[{"url":%q,"protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`, endpoint)
}

// redirectTargets are origins a redirect from https://agent.test may
// point at; none is the origin the caller named.
var redirectTargets = []string{
	"https://evil.test",
	"http://agent.test",       // https down to http
	"https://agent.test:8443", // another port
	"https://sub.agent.test",  // net/http's own rule forwards Authorization to a subdomain
}

func artifactOf(id string, texts ...string) a2a.Artifact {
	return a2a.Artifact{ID: id, Parts: textParts(texts...)}
}

func artifactEvent(a a2a.Artifact, appended bool) *a2a.ArtifactUpdate {
	return &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Append: appended, Artifact: a}
}

// promptScript asks a question, then works on after the reply.
func promptScript() []a2atest.Step {
	return []a2atest.Step{
		a2atest.Working("thinking"), a2atest.Chunk("a1", "draft ", false, false),
		a2atest.AskInput("Which city?"),
		a2atest.Chunk("a1", "for the city", true, true), a2atest.Pause(time.Second),
		a2atest.Finish(a2a.StateCompleted, "done"),
	}
}

func textArtifact(id, text string) a2a.Artifact {
	return a2a.Artifact{ID: id, Parts: []a2a.Part{a2a.TextPart(text)}}
}

// manyArtifactsTask is a task of n artifacts of three text parts each.
func manyArtifactsTask(st a2a.TaskState, n int) *a2a.Task {
	t := snap(st)
	t.Artifacts = make([]a2a.Artifact, n)
	for i := range t.Artifacts {
		t.Artifacts[i] = a2a.Artifact{ID: fmt.Sprintf("artifact-%05d", i),
			Parts: textParts(fmt.Sprintf("section %d, ", i), "some words of the answer, ", "and its end.")}
	}
	return t
}

// benchBody builds an SSE body of n artifact-update events of about 200
// bytes each, in the wire shape of the captures, then the final status:
// JSON-RPC responses, or bare StreamResponse objects for HTTP+JSON.
func benchBody(v a2a.Version, n int, binding ...a2a.Binding) []byte {
	var b bytes.Buffer
	rest := len(binding) > 0 && binding[0] == a2a.BindingHTTPJSON
	write := func(ev a2a.Event) {
		if rest {
			raw, err := a2a.Codec{Version: v, Binding: a2a.BindingHTTPJSON}.EncodeEvent(ev)
			if err != nil {
				panic(err)
			}
			fmt.Fprintf(&b, "data: %s\n\n", raw)
			return
		}
		raw, err := a2a.Codec{Version: v}.EncodeEvent(ev)
		if err != nil {
			panic(err)
		}
		fmt.Fprintf(&b, "data: {\"jsonrpc\":\"2.0\",\"id\":null,\"result\":%s}\n\n", raw)
	}
	const task, ctx = "01a2012b-974f-761f-b805-9c1314c44506", "01a2012b-974f-76f9-9aea-fd8810f6e4b8"
	write(&a2a.Task{ID: task, ContextID: ctx, Status: a2a.TaskStatus{State: a2a.StateWorking}})
	for i := range n {
		write(&a2a.ArtifactUpdate{TaskID: task, ContextID: ctx, Append: i > 0,
			Artifact: a2a.Artifact{ID: "01a2012b-9a71-7764-a7f7-28d5f2ef6cbb", Parts: []a2a.Part{{Text: fmt.Sprintf("chunk %06d of the answer ", i)}}}})
	}
	write(&a2a.StatusUpdate{TaskID: task, ContextID: ctx, Status: a2a.TaskStatus{State: a2a.StateCompleted}, Final: true})
	return b.Bytes()
}
