package stream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// pushExchange is one exchange of a capture of testdata/push-*.json (see
// testdata/push-captures.md): a call with its body whole, or a stream.
type pushExchange struct {
	Kind    string `json:"kind"`
	Label   string `json:"label"`
	Request struct {
		Method  string            `json:"method"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
		Body    json.RawMessage   `json:"body"`
	} `json:"request"`
	Response struct {
		Status  int               `json:"status"`
		Headers map[string]string `json:"headers"`
		Body    json.RawMessage   `json:"body"`
	} `json:"response"`
}

// loadPushCapture reads the exchanges of testdata/push-name, with the
// receiver's 127.0.0.1:PORT written 127.0.0.1:8080 (a URL Check accepts).
func loadPushCapture(t *testing.T, name string) []pushExchange {
	t.Helper()
	b, err := os.ReadFile("testdata/push-" + name)
	require.NoError(t, err)
	b = bytes.ReplaceAll(b, []byte("127.0.0.1:PORT"), []byte("127.0.0.1:8080"))
	var f struct {
		Exchanges []pushExchange `json:"exchanges"`
	}
	require.NoError(t, json.Unmarshal(b, &f))
	return f.Exchanges
}

// rpcBody is a JSON-RPC request's or response's envelope.
type rpcBody struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *a2a.RPCError   `json:"error,omitempty"`
}

// pushReq is a request a pushAgent got.
type pushReq struct {
	method, path string
	header       http.Header
	body         []byte
}

// rpc returns the request's JSON-RPC envelope.
func (r pushReq) rpc(t *testing.T) rpcBody {
	t.Helper()
	var b rpcBody
	require.NoError(t, json.Unmarshal(r.body, &b))
	return b
}

// pushAnswer is what a pushAgent answers: a status, a content type and a
// body, in which a JSON-RPC response's id is set to the request's.
type pushAnswer struct {
	status int
	ctype  string
	body   []byte
}

// pushAgent answers every request with answer and records it.
type pushAgent struct {
	answer func(n int, r pushReq) pushAnswer // n counts the requests from 0

	mu   sync.Mutex
	reqs []pushReq
}

func (a *pushAgent) requests() []pushReq {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]pushReq(nil), a.reqs...)
}

func (a *pushAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := pushReq{method: r.Method, path: r.URL.Path, header: r.Header.Clone(), body: body}
	a.mu.Lock()
	n := len(a.reqs)
	a.reqs = append(a.reqs, req)
	a.mu.Unlock()
	ans := a.answer(n, req)
	out := ans.body
	var env map[string]json.RawMessage
	if r.Method == http.MethodPost && r.URL.Path == "/" && json.Unmarshal(body, &env) == nil && json.Valid(out) && len(out) > 0 && out[0] == '{' {
		var resp map[string]json.RawMessage
		if json.Unmarshal(out, &resp) == nil && resp["jsonrpc"] != nil {
			resp["id"] = env["id"]
			out, _ = json.Marshal(resp)
		}
	}
	if ans.ctype != "" {
		w.Header().Set("Content-Type", ans.ctype)
	}
	w.WriteHeader(ans.status)
	w.Write(out)
}

// captured answers as the capture's response: its status, content type
// and body (a 204's "" is no body).
func captured(e pushExchange) pushAnswer {
	body := []byte(e.Response.Body)
	if string(body) == `""` || string(body) == "null" {
		body = nil
	}
	return pushAnswer{status: e.Response.Status, ctype: e.Response.Headers["content-type"], body: body}
}

// pushClient is a Client of binding b for h, fixed to v ("" negotiates).
func pushClient(t *testing.T, b a2a.Binding, h http.Handler, v a2a.Version, opts ...stream.Option) *stream.Client {
	t.Helper()
	all := []stream.Option{stream.WithHTTPClient(a2atest.NewClient(h))}
	if v != "" {
		all = append(all, stream.WithVersion(v))
	}
	base := "http://agent.test"
	if b == a2a.BindingHTTPJSON {
		base += "/rest"
	}
	return bindingClient(t, b, base, append(all, opts...)...)
}

// pushCall is a push-config call of a capture: which, on what, with what.
type pushCall struct {
	op               string // set, get, list, delete
	taskID, configID string
	cfg              a2a.PushConfig
	b                a2a.Binding
	v                a2a.Version
}

// pushCallOf reads the call a captured request makes; ok is false for a
// request the Client does not make (a 0.3 get without a config ID, which
// the Client refuses: see
// TestPushConfigCallsRefuseBadArgumentsBeforeSending).
func pushCallOf(t *testing.T, e pushExchange) (c pushCall, ok bool) {
	t.Helper()
	c.v = a2a.V03
	if e.Request.Headers["A2A-Version"] == "1.0" {
		c.v = a2a.V10
	}
	if rest, isREST := strings.CutPrefix(e.Request.URL, "/rest/tasks/"); isREST {
		c.b = a2a.BindingHTTPJSON
		segs := strings.Split(rest, "/")
		c.taskID = segs[0]
		if len(segs) == 3 {
			c.configID = segs[2]
		}
		switch {
		case e.Request.Method == http.MethodPost:
			c.op = "set"
			cfg, err := a2a.DecodePushConfig(e.Request.Body)
			require.NoError(t, err)
			c.cfg = cfg
		case e.Request.Method == http.MethodDelete:
			c.op = "delete"
		case c.configID != "":
			c.op = "get"
		default:
			c.op = "list"
		}
		return c, true
	}
	c.b = a2a.BindingJSONRPC
	var body rpcBody
	require.NoError(t, json.Unmarshal(e.Request.Body, &body))
	var p struct {
		TaskID   string `json:"taskId"`
		ID       string `json:"id"`
		ConfigID string `json:"pushNotificationConfigId"`
	}
	require.NoError(t, json.Unmarshal(body.Params, &p))
	if c.v == a2a.V10 {
		c.taskID, c.configID = p.TaskID, p.ID
	} else {
		c.taskID, c.configID = p.ID, p.ConfigID
	}
	switch body.Method {
	case "CreateTaskPushNotificationConfig", "tasks/pushNotificationConfig/set":
		c.op, c.taskID, c.configID = "set", p.TaskID, ""
		cfg, err := a2a.DecodePushConfig(body.Params)
		require.NoError(t, err)
		c.cfg = cfg
	case "GetTaskPushNotificationConfig", "tasks/pushNotificationConfig/get":
		c.op = "get"
	case "ListTaskPushNotificationConfigs", "tasks/pushNotificationConfig/list":
		c.op = "list"
	case "DeleteTaskPushNotificationConfig", "tasks/pushNotificationConfig/delete":
		c.op = "delete"
	default:
		t.Fatalf("not a push-config call: %s", body.Method)
	}
	return c, c.op != "get" || c.configID != ""
}

// do makes the call with client and returns what it gave: a config, the
// configs, or nothing, and its error.
func (c pushCall) do(client *stream.Client) (any, error) {
	switch c.op {
	case "set":
		return client.SetPushConfig(background(), c.taskID, c.cfg)
	case "get":
		return client.GetPushConfig(background(), c.taskID, c.configID)
	case "list":
		return client.ListPushConfigs(background(), c.taskID)
	}
	return nil, client.DeletePushConfig(background(), c.taskID, c.configID)
}

// wantOf reads the captured response: the agent's error, or its result
// (the JSON-RPC result, the HTTP+JSON body).
func wantOf(t *testing.T, e pushExchange) (json.RawMessage, *a2a.RPCError) {
	t.Helper()
	if e.Request.URL == "/" {
		var env rpcBody
		require.NoError(t, json.Unmarshal(e.Response.Body, &env))
		return env.Result, env.Error
	}
	if e.Response.Status/100 == 2 {
		return e.Response.Body, nil
	}
	rpcErr, ok := a2a.ParseHTTPError(e.Response.Status, e.Response.Body)
	require.True(t, ok, "%s", e.Response.Body)
	return nil, rpcErr
}

// Every push-config call of the captures, on both versions and bindings, is
// made by the Client as the SDK's driver made it (method, path, version
// header and body), and the SDK's answer reads as the capture says: the
// configs as the agent holds them, or its error, typed; -32003 (and its
// REST 400) and -32601 match errors.ErrUnsupported, unknown tasks and
// configs do not (0.3.14's -32603 for an unknown config comes as it is).
func TestPushConfigCallsReplayTheCaptures(t *testing.T) {
	for _, file := range []string{"1.0-jsonrpc-config-calls.json", "1.0-rest-config.json", "0.3-js0.3.14-config-calls.json",
		"0.3-js1.3.0-legacy-config-calls.json", "1.0-no-push-server.json", "0.3-js0.3.14-no-push-server.json"} {
		for i, e := range loadPushCapture(t, file) {
			if e.Kind != "call" || strings.HasPrefix(e.Request.URL, "/.well-known/") {
				continue
			}
			call, ok := pushCallOf(t, e)
			if !ok {
				continue
			}
			t.Run(fmt.Sprintf("%s/%d %s %s", file, i, call.op, e.Label+e.Request.URL), func(t *testing.T) {
				agent := &pushAgent{answer: func(int, pushReq) pushAnswer { return captured(e) }}
				got, err := call.do(pushClient(t, call.b, agent, call.v))

				reqs := agent.requests()
				require.Len(t, reqs, 1)
				r := reqs[0]
				require.Equal(t, e.Request.Method, r.method)
				require.Equal(t, strings.Split(e.Request.URL, "?")[0], r.path)
				require.Equal(t, e.Request.Headers["A2A-Version"], r.header.Get("A2A-Version"))
				if call.b == a2a.BindingJSONRPC {
					var want rpcBody
					require.NoError(t, json.Unmarshal(e.Request.Body, &want))
					gotBody := r.rpc(t)
					require.Equal(t, want.Method, gotBody.Method)
					require.JSONEq(t, string(want.Params), string(gotBody.Params))
				} else if len(e.Request.Body) > 0 && string(e.Request.Body) != "null" {
					require.JSONEq(t, string(e.Request.Body), string(r.body))
				} else {
					require.Empty(t, r.body)
				}

				result, rpcErr := wantOf(t, e)
				if rpcErr != nil {
					var gotErr *a2a.RPCError
					require.ErrorAs(t, err, &gotErr)
					require.Equal(t, rpcErr.Code, gotErr.Code)
					switch rpcErr.Code {
					case a2a.CodePushNotificationNotSupported, a2a.CodeMethodNotFound:
						require.ErrorIs(t, err, errors.ErrUnsupported)
					default:
						require.NotErrorIs(t, err, errors.ErrUnsupported)
					}
					return
				}
				require.NoError(t, err)
				switch call.op {
				case "set", "get":
					want, err := a2a.DecodePushConfig(result)
					require.NoError(t, err)
					require.True(t, samePushConfigs([]a2a.PushConfig{want}, []a2a.PushConfig{got.(a2a.PushConfig)}))
					require.Equal(t, call.taskID, got.(a2a.PushConfig).TaskID)
				case "list":
					want, err := a2a.DecodePushConfigs(result)
					require.NoError(t, err)
					require.NotEmpty(t, want)
					require.True(t, samePushConfigs(want, got.([]a2a.PushConfig)))
				}
			})
		}
	}
}

// samePushConfigs compares configs field by field, secrets included
// (their String hides them from require's messages).
func samePushConfigs(a, b []a2a.PushConfig) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.ID != y.ID || x.TaskID != y.TaskID || x.URL != y.URL || x.Token != y.Token || (x.Auth == nil) != (y.Auth == nil) ||
			(x.Auth != nil && *x.Auth != *y.Auth) {
			return false
		}
	}
	return true
}

// rpcAnswer is a JSON-RPC response with result or rpcErr.
func rpcAnswer(result string, rpcErr *a2a.RPCError) pushAnswer {
	env := map[string]any{"jsonrpc": "2.0", "id": 1}
	if rpcErr != nil {
		env["error"] = rpcErr
	} else {
		env["result"] = json.RawMessage(result)
	}
	b, _ := json.Marshal(env)
	return pushAnswer{status: http.StatusOK, ctype: "application/json", body: b}
}

// A Client that has not negotiated its version calls in 1.0 first; a 0.3
// server answers the 1.0 name -32601 (0.3-js0.3.14-no-push-server), and
// the call is made again in 0.3, as the capture's SDK made it, and the
// Client speaks 0.3 from then on. A 0.3 server without push then answers
// -32003: unsupported, typed.
func TestPushConfigCallsNegotiateAsGetTaskDoes(t *testing.T) {
	var set03, noPush03 pushExchange
	for _, e := range loadPushCapture(t, "0.3-js0.3.14-config-calls.json") {
		if e.Label == "tasks/pushNotificationConfig/set" && set03.Label == "" {
			set03 = e
		}
	}
	var notFound *a2a.RPCError
	for _, e := range loadPushCapture(t, "0.3-js0.3.14-no-push-server.json") {
		switch e.Label {
		case "tasks/pushNotificationConfig/set":
			noPush03 = e
		case "CreateTaskPushNotificationConfig":
			_, notFound = wantOf(t, e)
		}
	}
	require.NotNil(t, notFound)
	require.Equal(t, a2a.CodeMethodNotFound, notFound.Code)

	for _, tc := range []struct {
		name string
		want pushExchange
		ok   bool
	}{{"push", set03, true}, {"no push", noPush03, false}} {
		t.Run(tc.name, func(t *testing.T) {
			agent := &pushAgent{answer: func(n int, r pushReq) pushAnswer {
				if r.rpc(t).Method == "CreateTaskPushNotificationConfig" {
					return rpcAnswer("", notFound)
				}
				return captured(tc.want)
			}}
			c := pushClient(t, a2a.BindingJSONRPC, agent, "")
			call, _ := pushCallOf(t, tc.want)
			got, err := c.SetPushConfig(background(), call.taskID, call.cfg)

			reqs := agent.requests()
			require.Len(t, reqs, 2)
			require.Equal(t, "CreateTaskPushNotificationConfig", reqs[0].rpc(t).Method)
			require.Equal(t, "1.0", reqs[0].header.Get("A2A-Version"))
			var want rpcBody
			require.NoError(t, json.Unmarshal(tc.want.Request.Body, &want))
			require.Equal(t, want.Method, reqs[1].rpc(t).Method)
			require.JSONEq(t, string(want.Params), string(reqs[1].rpc(t).Params))
			require.Empty(t, reqs[1].header.Get("A2A-Version"))
			if !tc.ok {
				require.ErrorIs(t, err, errors.ErrUnsupported)
				var rpcErr *a2a.RPCError
				require.ErrorAs(t, err, &rpcErr)
				require.Equal(t, a2a.CodePushNotificationNotSupported, rpcErr.Code)
				require.Equal(t, a2a.PushConfig{}, got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, a2a.V03, c.Version())
			require.Equal(t, call.taskID, got.TaskID)
			require.Equal(t, call.taskID, got.ID) // 0.3.14 names a config given no ID after its task
		})
	}
}

// Unsupported, typed, without the agent: a 0.3 call over HTTP+JSON (whose
// binding names no push-config route) sends nothing, and so does a Client
// of NewClientFor whose Transport is no transport.PushConfigurer. Over
// HTTP+JSON, 405, 501 and a 404 without an A2A error say the route is not
// there; a 404 with one is the agent's task-not-found.
func TestPushConfigCallsUnsupportedWithoutTheAgentsWord(t *testing.T) {
	calls := func(c *stream.Client) []error {
		_, e1 := c.SetPushConfig(background(), "t", a2a.PushConfig{URL: "https://app.example/hook", Token: "tok"})
		_, e2 := c.GetPushConfig(background(), "t", "c")
		_, e3 := c.ListPushConfigs(background(), "t")
		e4 := c.DeletePushConfig(background(), "t", "c")
		return []error{e1, e2, e3, e4}
	}
	t.Run("0.3 over HTTP+JSON", func(t *testing.T) {
		agent := &pushAgent{answer: func(int, pushReq) pushAnswer { return pushAnswer{status: http.StatusTeapot} }}
		for _, err := range calls(pushClient(t, a2a.BindingHTTPJSON, agent, a2a.V03)) {
			require.ErrorIs(t, err, errors.ErrUnsupported)
		}
		require.Empty(t, agent.requests())
	})
	t.Run("a Transport that is no PushConfigurer", func(t *testing.T) {
		c, err := stream.NewClientFor(plainTransport{})
		require.NoError(t, err)
		for _, err := range calls(c) {
			require.ErrorIs(t, err, errors.ErrUnsupported)
		}
	})
	for _, tc := range []struct {
		status      int
		body        string
		unsupported bool
	}{
		{http.StatusMethodNotAllowed, "", true},
		{http.StatusNotImplemented, "", true},
		{http.StatusNotFound, "<html>Cannot GET</html>", true},
		{http.StatusNotFound, `{"error":{"code":404,"status":"NOT_FOUND","message":"Task not found: t","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}`, false},
		{http.StatusBadRequest, `{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"Push Notification is not supported","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"PUSH_NOTIFICATION_NOT_SUPPORTED","domain":"a2a-protocol.org"}]}}`, true},
		{http.StatusInternalServerError, `{"error":{"code":500,"status":"INTERNAL","message":"boom"}}`, false},
	} {
		t.Run(fmt.Sprintf("1.0 HTTP+JSON %d %.20s", tc.status, tc.body), func(t *testing.T) {
			agent := &pushAgent{answer: func(int, pushReq) pushAnswer {
				return pushAnswer{status: tc.status, ctype: "application/a2a+json", body: []byte(tc.body)}
			}}
			for _, err := range calls(pushClient(t, a2a.BindingHTTPJSON, agent, a2a.V10)) {
				var httpErr *transport.HTTPError
				require.ErrorAs(t, err, &httpErr)
				require.Equal(t, tc.status, httpErr.StatusCode)
				require.Equal(t, tc.unsupported, errors.Is(err, errors.ErrUnsupported), "%v", err)
			}
			require.Len(t, agent.requests(), 4)
		})
	}
}

// pushTransport is a transport.PushConfigurer that answers with its
// fields, and records the calls.
type pushTransport struct {
	plainTransport
	cfg  a2a.PushConfig
	cfgs []a2a.PushConfig
	err  error

	mu    sync.Mutex
	calls []string
}

func (p *pushTransport) record(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, fmt.Sprintf(format, args...))
}

func (p *pushTransport) SetPushConfig(_ context.Context, call transport.Call, taskID string, cfg a2a.PushConfig) (a2a.PushConfig, error) {
	p.record("set %s %s %s %s", call.Version, taskID, cfg.URL, call.Header.Get("X-Key"))
	return p.cfg, p.err
}

func (p *pushTransport) GetPushConfig(_ context.Context, call transport.Call, taskID, configID string) (a2a.PushConfig, error) {
	p.record("get %s %s %s", call.Version, taskID, configID)
	return p.cfg, p.err
}

func (p *pushTransport) ListPushConfigs(_ context.Context, call transport.Call, taskID string) ([]a2a.PushConfig, error) {
	p.record("list %s %s", call.Version, taskID)
	return p.cfgs, p.err
}

func (p *pushTransport) DeletePushConfig(_ context.Context, call transport.Call, taskID, configID string) error {
	p.record("delete %s %s %s", call.Version, taskID, configID)
	return p.err
}

// A Transport of another module that is a PushConfigurer gets the calls,
// with the version and the headers; its answers are checked as the
// bindings' are, and its errors sorted the same way.
func TestPushConfigCallsThroughAPushConfigurer(t *testing.T) {
	mine := a2a.PushConfig{ID: "c", TaskID: "t", URL: "https://app.example/hook", Token: "tok"}
	p := &pushTransport{cfg: mine, cfgs: []a2a.PushConfig{mine}}
	c, err := stream.NewClientFor(p, stream.WithVersion(a2a.V10))
	require.NoError(t, err)
	got, err := c.SetPushConfig(background(), "t", a2a.PushConfig{URL: "https://app.example/hook", Token: "tok"}, stream.WithHeader("X-Key", "k"))
	require.NoError(t, err)
	require.True(t, samePushConfigs([]a2a.PushConfig{mine}, []a2a.PushConfig{got}))
	_, err = c.GetPushConfig(background(), "t", "c")
	require.NoError(t, err)
	list, err := c.ListPushConfigs(background(), "t")
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.NoError(t, c.DeletePushConfig(background(), "t", "c"))
	require.Equal(t, []string{"set 1.0 t https://app.example/hook k", "get 1.0 t c", "list 1.0 t", "delete 1.0 t c"}, p.calls)

	other := &pushTransport{cfg: a2a.PushConfig{ID: "c", TaskID: "another", URL: "https://x/"}, cfgs: []a2a.PushConfig{{TaskID: "another", URL: "https://x/"}}}
	c, err = stream.NewClientFor(other)
	require.NoError(t, err)
	_, err = c.GetPushConfig(background(), "t", "c")
	var pe *transport.ProtocolError
	require.ErrorAs(t, err, &pe)
	_, err = c.ListPushConfigs(background(), "t")
	require.ErrorAs(t, err, &pe)

	refusing := &pushTransport{err: &a2a.RPCError{Code: a2a.CodePushNotificationNotSupported, Message: "no push"}}
	c, err = stream.NewClientFor(refusing)
	require.NoError(t, err)
	err = c.DeletePushConfig(background(), "t", "c")
	require.ErrorIs(t, err, errors.ErrUnsupported)
	var rpcErr *a2a.RPCError
	require.ErrorAs(t, err, &rpcErr)
	require.Equal(t, a2a.CodePushNotificationNotSupported, rpcErr.Code)
}

// The Client refuses, sending nothing, a call without a task ID or a
// config ID, a config Check refuses, and an option that does not apply.
func TestPushConfigCallsRefuseBadArgumentsBeforeSending(t *testing.T) {
	for _, b := range []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		agent := &pushAgent{answer: func(int, pushReq) pushAnswer { return pushAnswer{status: http.StatusTeapot} }}
		c := pushClient(t, b, agent, a2a.V10)
		ok := a2a.PushConfig{URL: "https://app.example/hook"}
		_, e1 := c.SetPushConfig(background(), "", ok)
		_, e2 := c.SetPushConfig(background(), "t", a2a.PushConfig{URL: "hook"})
		_, e3 := c.GetPushConfig(background(), "t", "")
		_, e4 := c.GetPushConfig(background(), "", "c")
		_, e5 := c.ListPushConfigs(background(), "")
		e6 := c.DeletePushConfig(background(), "t", "")
		e7 := c.DeletePushConfig(background(), "t", "c", stream.WithReconnect(reconnect.Policy{}))
		for _, err := range []error{e1, e2, e3, e4, e5, e6, e7} {
			require.ErrorIs(t, err, stream.ErrInvalidOption)
		}
		require.Empty(t, agent.requests())
	}
}

// An agent's answer is checked as a get-task's is: what is not a config, a
// config of another task, or another config than the one asked for, is a
// *transport.ProtocolError. A config that echoes another URL or token is
// returned as the agent said it.
func TestPushConfigAnswersAreChecked(t *testing.T) {
	for _, tc := range []struct {
		name, result string
		proto        bool
	}{
		{"a task", `{"id":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}`, true},
		{"no URL", `{"id":"c","taskId":"t"}`, true},
		{"another task", `{"id":"c","taskId":"other","url":"https://app.example/hook"}`, true},
		{"another config", `{"id":"other","taskId":"t","url":"https://app.example/hook"}`, true},
		{"another URL and token", `{"id":"c","taskId":"t","url":"https://evil.example/","token":"theirs"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			agent := &pushAgent{answer: func(int, pushReq) pushAnswer { return rpcAnswer(tc.result, nil) }}
			got, err := pushClient(t, a2a.BindingJSONRPC, agent, a2a.V10).GetPushConfig(background(), "t", "c")
			if tc.proto {
				var pe *transport.ProtocolError
				require.ErrorAs(t, err, &pe)
				return
			}
			require.NoError(t, err)
			require.Equal(t, "https://evil.example/", got.URL)
			require.Equal(t, "theirs", got.Token)
		})
	}
	agent := &pushAgent{answer: func(int, pushReq) pushAnswer {
		return rpcAnswer(`{"configs":[{"id":"c","taskId":"other","url":"https://x/"}]}`, nil)
	}}
	_, err := pushClient(t, a2a.BindingJSONRPC, agent, a2a.V10).ListPushConfigs(background(), "t")
	var pe *transport.ProtocolError
	require.ErrorAs(t, err, &pe)

	// A delete's result is null; an answer with neither result nor error
	// is no answer.
	agent = &pushAgent{answer: func(int, pushReq) pushAnswer {
		return pushAnswer{status: http.StatusOK, ctype: "application/json", body: []byte(`{"jsonrpc":"2.0","id":1}`)}
	}}
	err = pushClient(t, a2a.BindingJSONRPC, agent, a2a.V10).DeletePushConfig(background(), "t", "c")
	require.ErrorAs(t, err, &pe)
	agent = &pushAgent{answer: func(int, pushReq) pushAnswer { return rpcAnswer(`{}`, nil) }}
	require.NoError(t, pushClient(t, a2a.BindingJSONRPC, agent, a2a.V10).DeletePushConfig(background(), "t", "c"))

	agent = &pushAgent{answer: func(int, pushReq) pushAnswer { return rpcAnswer(`{"configs":[]}`, nil) }}
	list, err := pushClient(t, a2a.BindingJSONRPC, agent, a2a.V10).ListPushConfigs(background(), "t")
	require.NoError(t, err)
	require.NotNil(t, list)
	require.Empty(t, list)
}

// The token and the credentials never show: not in the text of an error
// whose agent quotes them (JSON-RPC, and an HTTP+JSON body), not in the
// request log, not in the refusal of a config. (A get, list or delete sends
// no secret: an agent that quotes one in their errors quotes what the
// Client cannot know.)
func TestPushConfigSecretsStayOutOfErrorsAndLogs(t *testing.T) {
	const token, cred = "tok-SECRET-1", "cred-SECRET-2"
	cfg := a2a.PushConfig{URL: "https://app.example/hook", Token: token, Auth: &a2a.PushAuth{Scheme: "Bearer", Credentials: cred}}
	quoted := "bad config: token " + token + ", credentials " + cred
	for _, b := range []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		t.Run(string(b), func(t *testing.T) {
			agent := &pushAgent{answer: func(int, pushReq) pushAnswer {
				if b == a2a.BindingJSONRPC {
					return rpcAnswer("", &a2a.RPCError{Code: a2a.CodeInvalidParams, Message: quoted, Data: json.RawMessage(`{"echo":"` + token + `"}`)})
				}
				return pushAnswer{status: http.StatusBadRequest, ctype: "application/a2a+json",
					body: []byte(`{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"` + quoted + `","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"BAD_CONFIG","domain":"a2a-protocol.org","metadata":{"token":"` + token + `"}}]}}`)}
			}}
			var logs bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			c := pushClient(t, b, agent, a2a.V10, stream.WithLogger(logger))
			_, err := c.SetPushConfig(background(), "t", cfg)
			require.Error(t, err)
			var rpcErr *a2a.RPCError
			require.ErrorAs(t, err, &rpcErr)
			require.Equal(t, a2a.CodeInvalidParams, rpcErr.Code)
			require.NotErrorIs(t, err, errors.ErrUnsupported)
			texts := []string{err.Error(), rpcErr.Message, string(rpcErr.Data), fmt.Sprintf("%+v", err)}
			var httpErr *transport.HTTPError
			if errors.As(err, &httpErr) {
				texts = append(texts, string(httpErr.Body))
			}
			_, err = c.SetPushConfig(background(), "t", a2a.PushConfig{URL: "ftp://x/", Token: token})
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			texts = append(texts, err.Error())
			require.NotEmpty(t, logs.String())
			texts = append(texts, logs.String())
			require.Contains(t, texts[0], "bad config")
			for _, s := range texts {
				require.NotContains(t, s, "SECRET")
			}
			require.Contains(t, string(agent.requests()[0].body), token) // it is sent, to the agent only
		})
	}
}

// sendAgent answers a streaming send with one agent message, which ends the
// stream, and a unary send (after the streaming one was refused with
// -32004 when unary is set) with one too; it records every request.
func sendAgent(b a2a.Binding, v a2a.Version, unary bool) *pushAgent {
	msg := `{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"done"}]}}`
	if v == a2a.V03 {
		msg = `{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"done"}]}`
	}
	return &pushAgent{answer: func(n int, r pushReq) pushAnswer {
		if n == 0 && unary {
			if b == a2a.BindingHTTPJSON {
				return pushAnswer{status: http.StatusBadRequest, ctype: "application/a2a+json",
					body: []byte(`{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"no streaming","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"UNSUPPORTED_OPERATION","domain":"a2a-protocol.org"}]}}`)}
			}
			return rpcAnswer("", &a2a.RPCError{Code: a2a.CodeUnsupportedOperation, Message: "no streaming"})
		}
		if unary {
			if b == a2a.BindingHTTPJSON {
				return pushAnswer{status: http.StatusOK, ctype: "application/a2a+json", body: []byte(msg)}
			}
			return rpcAnswer(msg, nil)
		}
		data := msg
		if b == a2a.BindingJSONRPC {
			data = `{"jsonrpc":"2.0","id":` + string(r.rpc0()) + `,"result":` + msg + `}`
		}
		return pushAnswer{status: http.StatusOK, ctype: "text/event-stream", body: []byte("data: " + data + "\n\n")}
	}}
}

// rpc0 returns the JSON-RPC id of the request, "null" when it has none.
func (r pushReq) rpc0() json.RawMessage {
	var b rpcBody
	if json.Unmarshal(r.body, &b) != nil || b.ID == nil {
		return json.RawMessage("null")
	}
	return b.ID
}

// configurationOf returns the configuration of a send request: the
// JSON-RPC params', or the HTTP+JSON body's.
func configurationOf(t *testing.T, b a2a.Binding, body []byte) map[string]json.RawMessage {
	t.Helper()
	var p struct {
		Configuration map[string]json.RawMessage `json:"configuration"`
	}
	raw := body
	if b == a2a.BindingJSONRPC {
		var env rpcBody
		require.NoError(t, json.Unmarshal(body, &env))
		raw = env.Params
	}
	require.NoError(t, json.Unmarshal(raw, &p))
	return p.Configuration
}

// A stream's send carries the push config in its configuration, as the
// SDKs' own clients sent it in the captures: streaming and unary, on both
// versions and bindings (1.0 taskPushNotificationConfig, 0.3
// pushNotificationConfig), beside what a unary send says
// (returnImmediately, blocking:false).
func TestSendCarriesThePushConfigAsTheCapturesShow(t *testing.T) {
	// sendOf returns the configuration of the label'th (or first) send of a capture.
	sendOf := func(file, method string, skip int) map[string]json.RawMessage {
		for _, e := range loadPushCapture(t, file) {
			if e.Request.Method != http.MethodPost {
				continue
			}
			isRPC := e.Request.URL == "/"
			if isRPC {
				var env rpcBody
				require.NoError(t, json.Unmarshal(e.Request.Body, &env))
				if env.Method != method {
					continue
				}
			} else if !strings.HasSuffix(e.Request.URL, method) {
				continue
			}
			if skip > 0 {
				skip--
				continue
			}
			b := a2a.BindingHTTPJSON
			if isRPC {
				b = a2a.BindingJSONRPC
			}
			return configurationOf(t, b, e.Request.Body)
		}
		t.Fatalf("no %s in %s", method, file)
		return nil
	}
	for _, tc := range []struct {
		name   string
		b      a2a.Binding
		v      a2a.Version
		unary  bool
		want   map[string]json.RawMessage // the configuration as the capture's send carried it
		member string
	}{
		{"1.0 JSON-RPC stream", a2a.BindingJSONRPC, a2a.V10, false, sendOf("1.0-jsonrpc-config-in-send.json", "SendStreamingMessage", 0), "taskPushNotificationConfig"},
		{"1.0 HTTP+JSON stream", a2a.BindingHTTPJSON, a2a.V10, false, sendOf("1.0-rest-config.json", "message:stream", 0), "taskPushNotificationConfig"},
		{"0.3 JSON-RPC stream", a2a.BindingJSONRPC, a2a.V03, false, sendOf("0.3-js0.3.14-config-in-send.json", "message/stream", 0), "pushNotificationConfig"},
		{"1.0 JSON-RPC unary", a2a.BindingJSONRPC, a2a.V10, true, sendOf("1.0-blocking-send.json", "SendMessage", 1), "taskPushNotificationConfig"},
		{"0.3 JSON-RPC unary", a2a.BindingJSONRPC, a2a.V03, true, sendOf("0.3-js0.3.14-blocking-send.json", "message/send", 0), "pushNotificationConfig"},
		// No capture has a unary HTTP+JSON send with a config: its
		// configuration is the 1.0 JSON-RPC one's (the same proto JSON).
		{"1.0 HTTP+JSON unary", a2a.BindingHTTPJSON, a2a.V10, true, sendOf("1.0-blocking-send.json", "SendMessage", 1), "taskPushNotificationConfig"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := a2a.DecodePushConfig(tc.want[tc.member])
			require.NoError(t, err)
			agent := sendAgent(tc.b, tc.v, tc.unary)
			c := pushClient(t, tc.b, agent, tc.v)
			s := c.Send(bounded(t), &a2a.Message{Parts: []a2a.Part{{Text: "hello"}}}, stream.WithPushConfig(cfg))
			for s.Next() {
			}
			require.NoError(t, s.Err())
			require.NoError(t, s.Close())

			reqs := agent.requests()
			send := reqs[len(reqs)-1]
			got := configurationOf(t, tc.b, send.body)
			if !tc.unary {
				require.Len(t, reqs, 1)
				require.Len(t, got, 1)
				require.JSONEq(t, string(tc.want[tc.member]), string(got[tc.member]))
				return
			}
			require.Len(t, reqs, 2)
			require.JSONEq(t, string(tc.want[tc.member]), string(got[tc.member]))
			if tc.v == a2a.V10 {
				require.JSONEq(t, `true`, string(got["returnImmediately"]))
				require.JSONEq(t, string(tc.want["returnImmediately"]), string(got["returnImmediately"]))
			} else {
				require.JSONEq(t, `false`, string(got["blocking"]))
			}
			require.Len(t, got, 2)
			// The refused streaming send carried it too.
			require.JSONEq(t, string(tc.want[tc.member]), string(configurationOf(t, tc.b, reqs[0].body)[tc.member]))
		})
	}
}

// The push config of a send is refused, with nothing sent, when Check
// refuses it, and for a Client of NewClientFor, whose Transport could not
// carry it; GetTask and the other calls that are not streams refuse it too.
func TestSendPushConfigRefusals(t *testing.T) {
	agent := sendAgent(a2a.BindingJSONRPC, a2a.V10, false)
	c := pushClient(t, a2a.BindingJSONRPC, agent, a2a.V10)
	s := c.Send(bounded(t), &a2a.Message{Parts: []a2a.Part{{Text: "hello"}}}, stream.WithPushConfig(a2a.PushConfig{URL: "hook", Token: "tok-SECRET"}))
	require.False(t, s.Next())
	require.ErrorIs(t, s.Err(), stream.ErrInvalidOption)
	require.NotContains(t, s.Err().Error(), "SECRET")
	require.NoError(t, s.Close())
	_, err := c.GetTask(background(), "t", stream.WithPushConfig(a2a.PushConfig{URL: "https://app.example/hook"}))
	require.ErrorIs(t, err, stream.ErrInvalidOption)
	require.Empty(t, agent.requests())

	_, err = stream.NewClient("http://agent.test/", stream.WithPushConfig(a2a.PushConfig{URL: "https://app.example/hook"}))
	require.ErrorIs(t, err, stream.ErrInvalidOption)

	foreign, err := stream.NewClientFor(plainTransport{})
	require.NoError(t, err)
	s = foreign.Send(bounded(t), &a2a.Message{Parts: []a2a.Part{{Text: "hello"}}}, stream.WithPushConfig(a2a.PushConfig{URL: "https://app.example/hook"}))
	require.False(t, s.Next())
	require.ErrorIs(t, s.Err(), stream.ErrInvalidOption)
	require.NoError(t, s.Close())
}
