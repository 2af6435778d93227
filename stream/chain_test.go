package stream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/chain"
	"github.com/a2astream/a2astream/stream"
)

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

// TestChainErrorThreeAgentsDeep: A calls B calls C, through real Clients
// and servers, on every pair of wires. C answers a retryable error; B's
// stream ends in it and B answers with chain.Error; A reads both links back
// with chain.Of, and nothing B sent holds a credential of B's, a header
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

				fromC := chain.Link{Agent: "flights", Code: a2a.CodeInternalError, Message: "model overloaded",
					Retryable: true, RetryAfter: 5 * time.Second}
				if wc.v == a2a.V10 {
					fromC.Reason = "INTERNAL_ERROR"
				}
				if wc.b == a2a.BindingHTTPJSON {
					fromC.HTTPStatus = http.StatusInternalServerError
				}
				require.Equal(t, []chain.Link{
					{Agent: "planner", Code: a2a.CodeInternalError, Message: "downstream agent flights failed: model overloaded",
						Retryable: true, RetryAfter: 5 * time.Second},
					fromC,
				}, chain.Of(err), "%s", body)
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
			fromC := chain.Link{Agent: "flights", Code: a2a.CodeInternalError,
				Message: "downstream agent seats failed: task t-d ended in state failed: no seats left"}
			if next.b == a2a.BindingHTTPJSON {
				fromC.HTTPStatus = http.StatusInternalServerError
			}
			require.Equal(t, []chain.Link{
				{Agent: "planner", Code: a2a.CodeInternalError, Message: "downstream agent flights failed: " + fromC.Message},
				fromC,
				{Agent: "seats", Message: "task t-d ended in state failed: no seats left", TaskID: "t-d", State: a2a.StateFailed},
			}, chain.Of(err))
		})
	}
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
					mo := newOriginRouter()
					if h != nil {
						mo.serve("https://agent.test", h)
					}
					c := keyedLoggedClient(t, w, mo.client(), &logCapture{})
					_, err := c.Send(context.Background(), hello(), stream.WithHeader("X-Call-Token", "call-secret")).Wait()
					require.Error(t, err)
					for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
						e := chain.Error(err, v, "planner", "flights")
						raw, merr := json.Marshal(e)
						require.NoError(t, merr)
						require.NotContains(t, string(raw), "secret", "%v", err)
						require.NotContains(t, string(raw), "agent.test", "%v", err)
						links := chain.Of(e)
						require.Len(t, links, 2)
						require.NotEmpty(t, links[1].Message)
					}
					require.NotEmpty(t, mo.recorded())
				})
			})
		}
	}
}
