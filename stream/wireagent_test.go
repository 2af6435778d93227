package stream_test

// wireAgent: a hand-written agent on any of the four wires (JSON-RPC and
// HTTP+JSON, A2A 0.3 and 1.0), for scenarios a2atest's agent does not play:
// each kind of call is answered by a function of the test.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
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

func newWireAgent(w wire, on map[callKind]func(w *wireWriter, c wireCall)) *wireAgent {
	return &wireAgent{wire: w, on: on, counts: map[callKind]int{}}
}

// client returns a Client of the agent fixed to its version.
func (a *wireAgent) client(t *testing.T, opts ...stream.Option) *stream.Client {
	t.Helper()
	all := append([]stream.Option{stream.WithHTTPClient(a2atest.NewClient(a)), stream.WithVersion(a.v)}, opts...)
	return a.clientOf(t, all...)
}

// clientOf returns a Client of the agent's binding with opts only (a
// negotiating one unless opts fix the version).
func (a *wireAgent) clientOf(t *testing.T, opts ...stream.Option) *stream.Client {
	t.Helper()
	return bindingClient(t, a.b, "http://agent.test", opts...)
}

// bindingClient returns a Client of binding b for the agent at base (a
// scheme and host): NewRESTClient under base, or NewClient for base+"/".
func bindingClient(t *testing.T, b a2a.Binding, base string, opts ...stream.Option) *stream.Client {
	t.Helper()
	var (
		c   *stream.Client
		err error
	)
	if b == a2a.BindingHTTPJSON {
		c, err = stream.NewRESTClient(base, opts...)
	} else {
		c, err = stream.NewClient(base+"/", opts...)
	}
	require.NoError(t, err)
	return c
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

func (a *wireAgent) parseRPC(body []byte, c *wireCall, w *wireWriter) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ID      string          `json:"id"`
			Message json.RawMessage `json:"message"`
		} `json:"params"`
	}
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
