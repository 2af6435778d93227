package stream_test

// Stranger round 28b: helpers (a hand-written server on each of the four
// wires), written from the public API.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// s28bWire is one of the four wires the client speaks.
type s28bWire struct {
	v a2a.Version
	b a2a.Binding
}

func (w s28bWire) String() string { return string(w.v) + "/" + string(w.b) }

func s28bWires() []s28bWire {
	return []s28bWire{
		{a2a.V03, a2a.BindingJSONRPC}, {a2a.V10, a2a.BindingJSONRPC},
		{a2a.V03, a2a.BindingHTTPJSON}, {a2a.V10, a2a.BindingHTTPJSON},
	}
}

func (w s28bWire) codec() a2a.Codec { return a2a.Codec{Version: w.v, Binding: w.b} }

// agent returns an a2atest agent that speaks only this wire.
func (w s28bWire) agent(opts ...a2atest.Option) *a2atest.Agent {
	return a2atest.NewAgent(append([]a2atest.Option{a2atest.WithVersions(w.v), a2atest.WithBindings(w.b)}, opts...)...)
}

// client returns a client of this wire on hc at base.
func (w s28bWire) clientAt(t *testing.T, base string, hc *http.Client, opts ...stream.Option) *stream.Client {
	t.Helper()
	all := append([]stream.Option{stream.WithHTTPClient(hc), stream.WithVersion(w.v)}, opts...)
	var c *stream.Client
	var err error
	if w.b == a2a.BindingHTTPJSON {
		c, err = stream.NewRESTClient(base, all...)
	} else {
		c, err = stream.NewClient(base, all...)
	}
	require.NoError(t, err)
	return c
}

func (w s28bWire) client(t *testing.T, h http.Handler, opts ...stream.Option) *stream.Client {
	t.Helper()
	return w.clientAt(t, "http://agent.test/", a2atest.NewClient(h), opts...)
}

// s28bCall is what a hand-written server reads of a request.
type s28bCall struct {
	kind string          // "stream", "subscribe", "get", "send", "cancel"
	id   json.RawMessage // the JSON-RPC id
	w    s28bWire
}

func s28bRead(w s28bWire, r *http.Request) s28bCall {
	body, _ := io.ReadAll(r.Body)
	c := s28bCall{w: w, id: json.RawMessage(`1`)}
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

// frame is one SSE event carrying ev, as the wire writes it.
func (c s28bCall) frame(ev a2a.Event) string {
	b, err := c.w.codec().EncodeEvent(ev)
	if err != nil {
		panic(err)
	}
	if c.w.b == a2a.BindingJSONRPC {
		b = []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, c.id, b))
	}
	return "data: " + string(b) + "\n\n"
}

func s28bSSE(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

func s28bWrite(w http.ResponseWriter, s string) {
	_, _ = io.WriteString(w, s)
	w.(http.Flusher).Flush()
}

func s28bTask(state a2a.TaskState) *a2a.Task {
	return &a2a.Task{ID: "t-28b", ContextID: "c-28b", Status: a2a.TaskStatus{State: state}}
}

// s28bDrain runs s to its end and returns its ending.
func s28bDrain(s *stream.Stream) stream.Ending {
	defer s.Close()
	for s.Next() {
	}
	return s.Ending()
}

func s28bMsg() *a2a.Message { return a2a.NewTextMessage(a2a.RoleUser, "hi") }
