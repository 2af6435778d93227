package stream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/fanout"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

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

// keyedWireClient returns a Client of the agent under a keyed URL (a URL
// password, ?code=) with a secret Authorization header: credentials that
// must not reach the agent's callers.
func keyedWireClient(t *testing.T, a *wireAgent) *stream.Client {
	t.Helper()
	opts := []stream.Option{stream.WithHTTPClient(a2atest.NewClient(a)), stream.WithVersion(a.v),
		stream.WithHeader("Authorization", "Bearer service-secret")}
	var (
		c   *stream.Client
		err error
	)
	if a.b == a2a.BindingHTTPJSON {
		c, err = stream.NewRESTClient("https://bot:pw-secret@downstream.test?code=code-secret", opts...)
	} else {
		c, err = stream.NewClient("https://bot:pw-secret@downstream.test/?code=code-secret", opts...)
	}
	require.NoError(t, err)
	return c
}

// overloaded is the retryable error the last agent of a chain answers, in
// its version's shape, with secrets in its data that no caller may see.
func overloaded(v a2a.Version) *a2a.RPCError {
	if v == a2a.V03 {
		return &a2a.RPCError{Code: a2a.CodeInternalError, Message: "model overloaded",
			Data: json.RawMessage(`{"retryable":true,"retryAfter":5,"request":{"authorization":"Bearer data-secret"}}`)}
	}
	return &a2a.RPCError{Code: a2a.CodeInternalError, Message: "model overloaded", Data: json.RawMessage(
		`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INTERNAL_ERROR","domain":"a2a-protocol.org","metadata":{"apiKey":"data-secret"}},` +
			`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"5s"},` +
			`{"@type":"type.googleapis.com/google.rpc.DebugInfo","detail":"data-secret"}]`)}
}

// chainAgent is an agent named self on wire w that, for every streaming
// send, calls the agent down (which it names downName) with a keyed
// Client, and answers with stream.ChainError of how that call ended. What
// it answered goes to sent.
func chainAgent(t *testing.T, w wire, self, downName string, down *wireAgent, sent chan<- []byte) *wireAgent {
	return newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
		kindStream: func(ww *wireWriter, c wireCall) {
			_, err := keyedWireClient(t, down).Send(c.ctx, hello()).Wait()
			ww.w.Header().Set("X-Debug", "header-secret")
			sent <- ww.errorObject(stream.ChainError(err, w.v, self, downName))
		},
	})
}

// TestChainErrorThreeAgentsDeep: A calls B calls C, through real Clients
// and servers, on every pair of wires. C answers a retryable error; B's
// stream ends in it and B answers with ChainError; A reads both links back
// with a2a.ChainOf, and nothing B sent holds a credential of B's, a header
// or C's error data.
func TestChainErrorThreeAgentsDeep(t *testing.T) {
	for _, wb := range wires() {
		for _, wc := range wires() {
			t.Run(wb.String()+"→"+wc.String(), func(t *testing.T) {
				c := newWireAgent(wc, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						ww.w.Header().Set("Retry-After", "5")
						ww.w.Header().Set("Set-Cookie", "session=cookie-secret")
						ww.errorObject(overloaded(wc.v))
					},
				})
				sent := make(chan []byte, 1)
				b := chainAgent(t, wb, "planner", "flights", c, sent)

				_, err := b.client(t).Send(context.Background(), hello()).Wait()
				require.Error(t, err)
				body := <-sent
				require.NotContains(t, string(body), "secret")
				require.NotContains(t, string(body), "downstream.test", "no URL of C")

				fromC := a2a.ChainLink{Agent: "flights", Code: a2a.CodeInternalError, Message: "model overloaded",
					Retryable: true, RetryAfter: 5 * time.Second}
				if wc.v == a2a.V10 {
					fromC.Reason = "INTERNAL_ERROR"
				}
				if wc.b == a2a.BindingHTTPJSON {
					fromC.HTTPStatus = http.StatusInternalServerError
				}
				require.Equal(t, []a2a.ChainLink{
					{Agent: "planner", Code: a2a.CodeInternalError, Message: "downstream agent flights failed: model overloaded",
						Retryable: true, RetryAfter: 5 * time.Second},
					fromC,
				}, a2a.ChainOf(err), "%s", body)
				var rpcErr *a2a.RPCError
				require.ErrorAs(t, err, &rpcErr)
				require.True(t, rpcErr.Retryable(), "a client that knows no chain sees the retry hint")
				require.Equal(t, 5*time.Second, rpcErr.RetryAfter())
				require.Equal(t, 1, c.count(kindStream), "C was called once")
			})
		}
	}
}

// TestChainErrorFourAgentsDeep: A calls B calls C calls D; D's task fails.
// Each agent puts its link in front of its downstream's chain.
func TestChainErrorFourAgentsDeep(t *testing.T) {
	for i, w := range wires() {
		next := wires()[(i+1)%4]
		t.Run(w.String()+"→"+next.String(), func(t *testing.T) {
			d := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
				kindStream: func(ww *wireWriter, _ wireCall) {
					ww.sse()
					ww.event(&a2a.Task{ID: "t-d", ContextID: "c-d", Status: a2a.TaskStatus{State: a2a.StateFailed,
						Message: a2a.NewTextMessage(a2a.RoleAgent, "no seats left")}})
				},
			})
			c := chainAgent(t, next, "flights", "seats", d, make(chan []byte, 1))
			sent := make(chan []byte, 1)
			b := chainAgent(t, w, "planner", "flights", c, sent)

			_, err := b.client(t).Send(context.Background(), hello()).Wait()
			require.Error(t, err)
			require.NotContains(t, string(<-sent), "secret")
			fromC := a2a.ChainLink{Agent: "flights", Code: a2a.CodeInternalError,
				Message: "downstream agent seats failed: task t-d ended in state failed: no seats left"}
			if next.b == a2a.BindingHTTPJSON {
				fromC.HTTPStatus = http.StatusInternalServerError
			}
			require.Equal(t, []a2a.ChainLink{
				{Agent: "planner", Code: a2a.CodeInternalError, Message: "downstream agent flights failed: " + fromC.Message},
				fromC,
				{Agent: "seats", Message: "task t-d ended in state failed: no seats left", TaskID: "t-d", State: a2a.StateFailed},
			}, a2a.ChainOf(err))
		})
	}
}

// TestChainErrorDescribesEachError: the downstream link of each error this
// package returns, and this agent's link, in both versions; no secret
// planted in an error (headers, bodies, URLs, error data, prompts, error
// text) reaches the error object.
func TestChainErrorDescribesEachError(t *testing.T) {
	t.Parallel()
	task := func(state a2a.TaskState, text string) *a2a.Task {
		t := &a2a.Task{ID: "t-9", ContextID: "c-9", Status: a2a.TaskStatus{State: state}}
		if text != "" {
			t.Status.Message = a2a.NewTextMessage(a2a.RoleAgent, text)
		}
		return t
	}
	secretHeader := http.Header{"Www-Authenticate": {`Bearer realm="header-secret"`}, "Set-Cookie": {"s=cookie-secret"}}
	busy := &stream.HTTPError{StatusCode: 503, Status: "503 header-secret", Body: []byte(strings.Repeat("body-secret ", 1000)),
		Header: http.Header{"Retry-After": {"7"}, "Set-Cookie": {"s=cookie-secret"}}}
	dialErr := &url.Error{Op: "Post", URL: "https://bot:pw-secret@flights.test/a2a?code=code-secret",
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect 10.0.0.7: refused, token tcp-secret")}}
	chain := a2a.ChainError(a2a.V10, []a2a.ChainLink{
		{Agent: "flights-eu", Code: a2a.CodeInternalError, Message: "downstream agent seats failed"},
		{Agent: "seats", Code: a2a.CodeTaskNotFound, Message: "task not found", Reason: "TASK_NOT_FOUND"},
	})
	for _, tc := range []struct {
		name string
		err  error
		want []a2a.ChainLink // the downstream links, Agent left out
	}{
		{"failed", &terminal.FailedError{Task: task(a2a.StateFailed, "no seats")},
			[]a2a.ChainLink{{Message: "task t-9 ended in state failed: no seats", TaskID: "t-9", State: a2a.StateFailed}}},
		{"rejected", fmt.Errorf("booking: %w", &terminal.RejectedError{Task: task(a2a.StateRejected, "")}),
			[]a2a.ChainLink{{Message: "task t-9 ended in state rejected", TaskID: "t-9", State: a2a.StateRejected}}},
		{"canceled", &terminal.CanceledError{Task: task(a2a.StateCanceled, "")},
			[]a2a.ChainLink{{Message: "task t-9 ended in state canceled", TaskID: "t-9", State: a2a.StateCanceled}}},
		{"auth required", &terminal.AuthRequiredError{Task: task(a2a.StateAuthRequired, "sign in")},
			[]a2a.ChainLink{{Message: "task t-9 ended in state auth-required: sign in", TaskID: "t-9", State: a2a.StateAuthRequired}}},
		{"terminal without a task", &terminal.FailedError{},
			[]a2a.ChainLink{{Message: "task ended in state failed", State: a2a.StateFailed}}},
		{"input required", &hitl.Error{Task: task(a2a.StateInputRequired, "your password-secret?"),
			Prompt: a2a.NewTextMessage(a2a.RoleAgent, "your password-secret?"), Err: hitl.ErrNoHook},
			[]a2a.ChainLink{{Message: "task t-9 needs input", TaskID: "t-9", State: a2a.StateInputRequired}}},
		{"reconnects exhausted on a 503", &reconnect.Error{Attempts: 3, TaskID: "t-9", Task: task(a2a.StateWorking, ""), Err: busy},
			[]a2a.ChainLink{{Message: "connection lost; gave up after 3 attempts", TaskID: "t-9", State: a2a.StateWorking,
				HTTPStatus: 503, Retryable: true, RetryAfter: 7 * time.Second}}},
		{"connection lost before any task", &reconnect.Error{Err: fmt.Errorf("%w: %w", reconnect.ErrNoTask, dialErr)},
			[]a2a.ChainLink{{Message: "connection lost", Retryable: true}}},
		{"could not connect", &reconnect.Error{Attempts: 3, Err: dialErr, Unreachable: "https://flights.test/?code=xxxxx"},
			[]a2a.ChainLink{{Message: "could not connect; gave up after 3 attempts", Retryable: true}}},
		{"circuit open", &url.Error{Op: "Post", URL: "https://flights.test/?code=code-secret",
			Err: fmt.Errorf("%w: %w", stream.ErrCircuitOpen, errors.New("circuit breaker is open"))},
			[]a2a.ChainLink{{Message: "circuit open: nothing sent", Retryable: true}}},
		{"connect timeout", &url.Error{Op: "Post", URL: "https://flights.test/", Err: fmt.Errorf("%w (10s): %w", stream.ErrConnectTimeout, dialErr)},
			[]a2a.ChainLink{{Message: "no connection within the connect timeout", Retryable: true}}},
		{"quorum out of reach", &fanout.QuorumError{Need: 2, Succeeded: 1, Errs: []error{busy, &terminal.FailedError{Task: task(a2a.StateFailed, "")}}},
			[]a2a.ChainLink{{Message: "quorum not reached: 1 of 2 answers", Retryable: true}}},
		{"quorum out of reach, nothing to retry", &fanout.QuorumError{Need: 2, Succeeded: 0, Errs: []error{&terminal.FailedError{Task: task(a2a.StateFailed, "")}, fanout.ErrNotNeeded}},
			[]a2a.ChainLink{{Message: "quorum not reached: 0 of 2 answers"}}},
		{"HTTP 429", &stream.HTTPError{StatusCode: 429, Header: http.Header{"Retry-After": {"30"}}, Body: []byte("body-secret")},
			[]a2a.ChainLink{{Message: "HTTP 429 Too Many Requests", HTTPStatus: 429, Retryable: true, RetryAfter: 30 * time.Second}}},
		{"HTTP 503", busy,
			[]a2a.ChainLink{{Message: "HTTP 503 Service Unavailable", HTTPStatus: 503, Retryable: true, RetryAfter: 7 * time.Second}}},
		{"HTTP 401", &stream.HTTPError{StatusCode: 401, Header: secretHeader, Body: []byte(`{"error":"bad token tok-secret"}`)},
			[]a2a.ChainLink{{Message: "HTTP 401 Unauthorized", HTTPStatus: 401}}},
		{"HTTP 500 whose google.rpc.Status asks for a retry", &stream.HTTPError{StatusCode: 500, Header: secretHeader,
			Body: []byte(`{"error":{"code":500,"status":"INTERNAL","message":"body-secret","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"3s"}]}}`)},
			[]a2a.ChainLink{{Message: "HTTP 500 Internal Server Error", HTTPStatus: 500, Retryable: true, RetryAfter: 3 * time.Second}}},
		{"HTTP 400 whose body asks for a retry", &stream.HTTPError{StatusCode: 400, Body: []byte(`{"code":400,"data":{"retryable":true,"retryAfter":"6"}}`)},
			[]a2a.ChainLink{{Message: "HTTP 400 Bad Request", HTTPStatus: 400, Retryable: true, RetryAfter: 6 * time.Second}}},
		{"HTTP status without a text", &stream.HTTPError{StatusCode: 599},
			[]a2a.ChainLink{{Message: "HTTP 599", HTTPStatus: 599, Retryable: true}}},
		{"A2A error in a 500", &stream.HTTPError{StatusCode: 500, Header: secretHeader,
			Err: &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "task not found", Data: json.RawMessage(`{"debug":"data-secret"}`)}},
			[]a2a.ChainLink{{Code: a2a.CodeTaskNotFound, Message: "task not found", HTTPStatus: 500}}},
		{"A2A error in a 503 with Retry-After", &stream.HTTPError{StatusCode: 503, Header: http.Header{"Retry-After": {"9"}},
			Err: &a2a.RPCError{Code: a2a.CodeInternalError, Message: "busy"}},
			[]a2a.ChainLink{{Code: a2a.CodeInternalError, Message: "busy", HTTPStatus: 503, Retryable: true, RetryAfter: 9 * time.Second}}},
		{"A2A error that is retryable, delay from the header", &stream.HTTPError{StatusCode: 500, Header: http.Header{"Retry-After": {"4"}},
			Err: &a2a.RPCError{Code: a2a.CodeInternalError, Message: "busy", Data: json.RawMessage(`{"retryable":true}`)}},
			[]a2a.ChainLink{{Code: a2a.CodeInternalError, Message: "busy", HTTPStatus: 500, Retryable: true, RetryAfter: 4 * time.Second}}},
		{"JSON-RPC error", &a2a.RPCError{Code: a2a.CodeInternalError, Message: strings.Repeat("x", 300),
			Data: json.RawMessage(`{"retryable":true,"retryAfter":2,"trace":"data-secret"}`)},
			[]a2a.ChainLink{{Code: a2a.CodeInternalError, Message: strings.Repeat("x", 256) + "…", Retryable: true, RetryAfter: 2 * time.Second}}},
		{"JSON-RPC error of 1.0", &a2a.RPCError{Code: a2a.CodeUnsupportedOperation, Message: "task ended",
			Data: json.RawMessage(`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"UNSUPPORTED_OPERATION","domain":"a2a-protocol.org","metadata":{"k":"data-secret"}}]`)},
			[]a2a.ChainLink{{Code: a2a.CodeUnsupportedOperation, Message: "task ended", Reason: "UNSUPPORTED_OPERATION"}}},
		{"a chain", fmt.Errorf("send: %w", chain),
			[]a2a.ChainLink{{Code: a2a.CodeInternalError, Message: "downstream agent seats failed"},
				{Agent: "seats", Code: a2a.CodeTaskNotFound, Message: "task not found", Reason: "TASK_NOT_FOUND"}}},
		{"protocol error", &stream.ProtocolError{Reason: "malformed JSON", Err: errors.New("near body-secret")},
			[]a2a.ChainLink{{Message: "protocol error: malformed JSON"}}},
		{"stalled", &stream.StalledError{Task: task(a2a.StateWorking, "thinking"), After: 5 * time.Minute},
			[]a2a.ChainLink{{Message: "task t-9 made no progress for 5m0s", TaskID: "t-9", State: a2a.StateWorking}}},
		{"invalid message", fmt.Errorf("%w: data part", stream.ErrInvalidMessage), []a2a.ChainLink{{Message: "invalid message"}}},
		{"invalid option", fmt.Errorf("%w: header value-secret", stream.ErrInvalidOption), []a2a.ChainLink{{Message: "invalid option"}}},
		{"invalid card", &stream.InvalidCardError{URL: "https://agent.test/?sig=sig-secret", Reason: "no interface", Err: io.ErrUnexpectedEOF},
			[]a2a.ChainLink{{Message: "invalid agent card", Retryable: true}}},
		{"deadline", fmt.Errorf("calling: %w", context.DeadlineExceeded), []a2a.ChainLink{{Message: "deadline exceeded", Retryable: true}}},
		{"canceled", context.Canceled, []a2a.ChainLink{{Message: "canceled"}}},
		{"idle", fmt.Errorf("drop: %w", stream.ErrIdleTimeout), []a2a.ChainLink{{Message: "no data within the idle timeout", Retryable: true}}},
		{"transport", dialErr, []a2a.ChainLink{{Message: "connection failed", Retryable: true}}},
		{"cut", io.ErrUnexpectedEOF, []a2a.ChainLink{{Message: "connection failed", Retryable: true}}},
		{"ended early", stream.ErrEndedEarly, []a2a.ChainLink{{Message: "connection failed", Retryable: true}}},
		{"anything else", errors.New("db password is pw-secret"), []a2a.ChainLink{{Message: "call failed"}}},
	} {
		for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
			t.Run(tc.name+"/"+string(v), func(t *testing.T) {
				t.Parallel()
				e := stream.ChainError(tc.err, v, "planner", "flights")
				require.NotNil(t, e)
				raw, err := json.Marshal(e)
				require.NoError(t, err)
				require.NotContains(t, string(raw), "secret")
				require.NotContains(t, string(raw), "10.0.0.7")

				want := append([]a2a.ChainLink(nil), tc.want...)
				want[0].Agent = "flights"
				own := a2a.ChainLink{Agent: "planner", Code: a2a.CodeInternalError,
					Message:   "downstream agent flights failed: " + want[0].Message,
					Retryable: want[0].Retryable, RetryAfter: want[0].RetryAfter}
				own.Message = own.Message[:min(len(own.Message), 256)]
				if len(own.Message) == 256 {
					own.Message += "…"
				}
				require.Equal(t, append([]a2a.ChainLink{own}, want...), a2a.ChainOf(e))
				require.Equal(t, a2a.CodeInternalError, e.Code)
				require.Equal(t, own.Retryable, e.Retryable())
				require.Equal(t, own.RetryAfter, e.RetryAfter())
			})
		}
	}
	require.Nil(t, stream.ChainError(nil, a2a.V10, "planner", "flights"))
}

// TestChainErrorOfFailedCallsHoldsNoSecret: whatever a real call to a
// downstream agent ends in (a page that echoes the request, a 503 with
// Retry-After, an error whose data echoes the request, a cut, a redirect
// loop, no such host), on every wire, the error object built from it holds
// no header value, URL password or query value of the call.
func TestChainErrorOfFailedCallsHoldsNoSecret(t *testing.T) {
	echo := func(r *http.Request) string {
		return r.URL.String() + " " + r.Header.Get("Authorization") + " " + r.Header.Get("X-Api-Key")
	}
	failures := map[string]http.HandlerFunc{
		"echoing-500": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(500)
			fmt.Fprintf(w, "<html>%s</html>", echo(r))
		},
		"echoing-503": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "2")
			w.Header().Set("X-Request", echo(r))
			w.WriteHeader(503)
			fmt.Fprint(w, echo(r))
		},
		"echoing-error-data": func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				ID json.RawMessage `json:"id"`
			}
			body, _ := io.ReadAll(r.Body)
			if json.Unmarshal(body, &req) != nil || len(req.ID) == 0 {
				req.ID = json.RawMessage("null")
			}
			data, _ := json.Marshal(map[string]string{"request": echo(r)})
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(500)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"failed","data":%s}}`, req.ID, data)
		},
		"cut": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			w.Write([]byte("data: {\"jso"))
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		},
		"redirect-loop": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.RequestURI(), http.StatusTemporaryRedirect)
		},
		"no-such-host": nil,
	}
	for _, w := range wires() {
		for name, h := range failures {
			t.Run(w.String()+"/"+name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					mo := newSGOrigins()
					if h != nil {
						mo.serve("https://agent.test", h)
					}
					c := sgKeyedClient(t, w, mo.client(), &logCapture{})
					_, err := c.Send(context.Background(), hello(), stream.WithHeader("X-Call-Token", "call-secret")).Wait()
					require.Error(t, err)
					for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
						e := stream.ChainError(err, v, "planner", "flights")
						raw, merr := json.Marshal(e)
						require.NoError(t, merr)
						require.NotContains(t, string(raw), "secret", "%v", err)
						require.NotContains(t, string(raw), "agent.test", "%v", err)
						links := a2a.ChainOf(e)
						require.Len(t, links, 2)
						require.NotEmpty(t, links[1].Message)
					}
					require.NotEmpty(t, mo.recorded())
				})
			})
		}
	}
}

// TestChainErrorNamesAnAgentGivenAsAURLByItsOrigin: agents should be named
// by names, but an agent named by its URL is named by its origin, in the
// links and in the message, without the URL's password, path or query.
func TestChainErrorNamesAnAgentGivenAsAURLByItsOrigin(t *testing.T) {
	t.Parallel()
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		e := stream.ChainError(stream.ErrIdleTimeout, v, "https://planner.test/a2a?key=self-secret",
			"https://bot:pw-secret@flights.test:8443/a2a/v1?code=code-secret#frag-secret")
		raw, err := json.Marshal(e)
		require.NoError(t, err)
		require.NotContains(t, string(raw), "secret", "%s", v)
		require.Equal(t, []a2a.ChainLink{
			{Agent: "https://planner.test", Code: a2a.CodeInternalError, Message: "downstream agent https://flights.test:8443 failed: no data within the idle timeout", Retryable: true},
			{Agent: "https://flights.test:8443", Message: "no data within the idle timeout", Retryable: true},
		}, a2a.ChainOf(e), "%s", v)
	}
}
