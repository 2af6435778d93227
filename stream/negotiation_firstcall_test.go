package stream_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// sgNegotiating returns a Client of binding b for agent that negotiates
// the version (no WithVersion).
func sgNegotiating(t *testing.T, b a2a.Binding, hc *http.Client, opts ...stream.Option) *stream.Client {
	t.Helper()
	all := append([]stream.Option{stream.WithHTTPClient(hc), stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: time.Second}),
		stream.WithPollInterval(time.Second)}, opts...)
	var (
		c   *stream.Client
		err error
	)
	if b == a2a.BindingJSONRPC {
		c, err = stream.NewClient("http://agent.test/", all...)
	} else {
		c, err = stream.NewRESTClient("http://agent.test", all...)
	}
	require.NoError(t, err)
	return c
}

// sgStartTask starts a slow task on agent with a Client fixed to w's
// version and returns its ID.
func sgStartTask(t *testing.T, w wire, agent *a2atest.Agent) string {
	t.Helper()
	c := sgNewClient(t, w, agent)
	s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "slow"))
	defer s.Close()
	require.True(t, s.Next())
	require.NotNil(t, s.Task())
	return s.Task().ID
}

// TestNegotiationFirstCallIsNotSend: a negotiating Client whose
// first call is GetTask, Cancel or Subscribe finds the version of a
// 0.3-only or a 1.0-only server, over either binding, with or without a
// subscribe route.
func TestNegotiationFirstCallIsNotSend(t *testing.T) {
	for _, w := range wires() {
		for _, noSub := range []bool{false, true} {
			for _, first := range []string{"get", "cancel", "subscribe"} {
				t.Run(fmt.Sprintf("%s/noSubscribe=%v/%s", w, noSub, first), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						opts := []a2atest.Option{}
						if noSub {
							opts = append(opts, a2atest.WithoutResubscribe())
						}
						agent := sgAgent(w, opts...)
						id := sgStartTask(t, w, agent)
						c := sgNegotiating(t, w.b, agent.Client())
						ctx := context.Background()
						switch first {
						case "get":
							task, err := c.GetTask(ctx, id)
							require.NoError(t, err)
							require.Equal(t, id, task.ID)
						case "cancel":
							task, err := c.Cancel(ctx, id)
							require.NoError(t, err)
							require.Equal(t, a2a.StateCanceled, task.Status.State)
						case "subscribe":
							s := c.Subscribe(ctx, id)
							require.True(t, s.Next(), "the subscription yields the task (ended in %v)", s.Err())
							require.Equal(t, id, s.Task().ID)
							require.NoError(t, s.Cancel(ctx))
							for s.Next() {
							}
							state, ok := terminalState(s.Err())
							require.True(t, ok, "ended in %v", s.Err())
							require.Equal(t, a2a.StateCanceled, state)
						}
						require.Equal(t, w.v, c.Version(), "the version negotiated")
						// The next call uses the version found at once.
						_, err := c.GetTask(ctx, id)
						require.NoError(t, err)
					})
				})
			}
		}
	}
}

// TestSubscribeNeverConnectsNamesTask: a Subscribe whose every
// request fails on the network ends in a *reconnect.Error that names the
// task, not reconnect.ErrNoTask, fixed version or negotiating.
func TestSubscribeNeverConnectsNamesTask(t *testing.T) {
	for _, w := range wires() {
		for _, negotiate := range []bool{false, true} {
			for _, fault := range []string{"drop", "503", "cut-headers"} {
				t.Run(fmt.Sprintf("%s/negotiate=%v/%s", w, negotiate, fault), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						h := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
							switch fault {
							case "drop":
								panic(http.ErrAbortHandler)
							case "503":
								rw.WriteHeader(http.StatusServiceUnavailable)
							case "cut-headers":
								rw.Header().Set("Content-Type", "text/event-stream")
								rw.WriteHeader(http.StatusOK)
								rw.(http.Flusher).Flush()
								panic(http.ErrAbortHandler)
							}
						})
						var opts []stream.Option
						if !negotiate {
							opts = append(opts, stream.WithVersion(w.v))
						}
						c := sgNegotiating(t, w.b, a2atest.NewClient(h), opts...)
						_, err := c.Subscribe(context.Background(), "t-lost-42").Wait()
						var re *reconnect.Error
						require.ErrorAs(t, err, &re, "ended in %v", err)
						require.False(t, errors.Is(err, reconnect.ErrNoTask), "a Subscribe knows its task: %v", err)
						require.Equal(t, "t-lost-42", re.TaskID)
						require.Contains(t, err.Error(), "t-lost-42")
						require.Nil(t, re.Task)
					})
				})
			}
		}
	}
}

// TestFrameworkNotFoundOnRESTRoutes: a REST server without a
// subscribe route that answers with a web framework's JSON 404 is polled;
// a get-task answered so is a plain *stream.HTTPError, not task-not-found;
// a negotiating Client of a 0.3-only server behind such a framework finds
// 0.3 under /v1/.
func TestFrameworkNotFoundOnRESTRoutes(t *testing.T) {
	bodies := map[string]string{
		"error-not-found": `{"error":"Not Found"}`,
		"spring-boot":     `{"timestamp":"2024-01-01T00:00:00.000+00:00","status":404,"error":"Not Found","path":"%s"}`,
		"detail":          `{"detail":"Not Found"}`,
		"message":         `{"message":"Not Found"}`,
	}
	for _, v := range versions {
		for name, body := range bodies {
			t.Run(string(v)+"/"+name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					w := wire{v, a2a.BindingHTTPJSON}
					agent := sgAgent(w, a2atest.WithScript(sgChunkyScript()...), a2atest.WithFaults(a2atest.CutAfterEvents(2)))
					notFound := func(rw http.ResponseWriter, r *http.Request) {
						rw.Header().Set("Content-Type", "application/json")
						rw.WriteHeader(http.StatusNotFound)
						b := body
						if strings.Contains(b, "%s") {
							b = fmt.Sprintf(b, r.URL.Path)
						}
						rw.Write([]byte(b))
					}
					h := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
						p := r.URL.Path
						onV1 := strings.HasPrefix(p, "/v1/")
						if strings.HasSuffix(p, ":subscribe") || (v == a2a.V03) != onV1 || strings.HasSuffix(p, "/tasks/nope") {
							notFound(rw, r)
							return
						}
						agent.ServeHTTP(rw, r)
					})
					// Cut the first stream after two events: the stream must poll.
					agentCut := a2atest.NewClient(h)
					var notices []stream.Notice
					c := sgNegotiating(t, w.b, agentCut, stream.WithNotify(func(n stream.Notice) { notices = append(notices, n) }))
					col, err := drain(t, c.Send(context.Background(), hello()))
					require.NoError(t, err)
					require.Equal(t, "one two three", col.text("a1"))
					require.Equal(t, v, c.Version())
					polling := 0
					for _, n := range notices {
						if n.Kind == stream.Polling {
							polling++
						}
					}
					require.Equal(t, 1, polling, "one Polling notice: %v", notices)
					_, err = c.GetTask(context.Background(), "nope")
					var he *stream.HTTPError
					require.ErrorAs(t, err, &he)
					require.Equal(t, 404, he.StatusCode)
					var rpc *a2a.RPCError
					require.False(t, errors.As(err, &rpc), "a framework's 404 is no A2A error: %v", err)
				})
			})
		}
	}
}
