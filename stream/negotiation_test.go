package stream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// Negotiation: the protocol version (1.0 first, 0.3 on a refusal) and the
// response shapes and content types each version and binding may use.

func TestNegotiation(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v))
				c, err := stream.NewClient(endpoint, stream.WithHTTPClient(agent.Client()))
				require.NoError(t, err)
				require.Equal(t, a2a.Version(""), c.Version())
				_, err = drain(t, c.Send(background(), hello()))
				require.NoError(t, err)
				require.Equal(t, v, c.Version(), "the choice is remembered")
				_, err = drain(t, c.Send(background(), hello()))
				require.NoError(t, err)
				var methods []string
				for _, r := range agent.Requests() {
					methods = append(methods, r.Method)
				}
				if v == a2a.V03 {
					require.Equal(t, []string{"SendStreamingMessage", "message/stream", "message/stream"}, methods,
						"1.0 first, then 0.3 once, then 0.3 straight away")
					require.Equal(t, "1.0", agent.Requests()[0].Version)
				} else {
					require.Equal(t, []string{"SendStreamingMessage", "SendStreamingMessage"}, methods)
				}
			})
		})
	}
}

func TestRESTNegotiatesDownOnAVersionRefusal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// A 0.3 server asked in 1.0: 400 VERSION_NOT_SUPPORTED, as js 1.3.0
		// answers a request without the version it wants.
		noVersion := restCapture(t, "js-1.3.0-rest-no-version.txt")
		r := &restReplay{t: t, routes: map[string]func(http.ResponseWriter, []byte){
			"POST /message:stream":    serve("application/a2a+json", 400, noVersion),
			"POST /v1/message:stream": serve("text/event-stream", 200, restCapture(t, "js-0.3.14-rest-stream-hello.txt")),
		}}
		client, err := stream.NewRESTClient("http://agent.test", stream.WithHTTPClient(a2atest.NewClient(r)))
		require.NoError(t, err)
		_, err = drain(t, client.Send(background(), hello()))
		var hitlErr *hitl.Error
		require.ErrorAs(t, err, &hitlErr)
		require.Equal(t, a2a.V03, client.Version())
		require.Equal(t, []string{"POST /message:stream", "POST /v1/message:stream"}, r.calls)
		require.False(t, errors.Is(err, transport.ErrInvalidMessage))
	})
}

// TestRESTNegotiationReachesA03OnlyServer: a 0.3-only HTTP+JSON server
// serves only /v1/…, and answers the 1.0 paths with its framework's 404,
// whose body (HTML or JSON) is no A2A error. A negotiating REST client takes
// that for a version refusal: its first message goes to /v1/message:stream,
// once, and the stream completes.
func TestRESTNegotiationReachesA03OnlyServer(t *testing.T) {
	for _, nf := range frameworkNotFound {
		t.Run(nf.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03), a2atest.WithBindings(a2a.BindingHTTPJSON),
					a2atest.WithScript(wirematrix.Paced()...))
				var refused []string
				h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if !strings.HasPrefix(r.URL.Path, "/v1/") {
						refused = append(refused, r.Method+" "+r.URL.Path)
						notFound(w, r, nf.contentType, nf.body)
						return
					}
					agent.ServeHTTP(w, r)
				})
				c, err := stream.NewRESTClient("http://agent.test", stream.WithHTTPClient(a2atest.NewClient(h)))
				require.NoError(t, err)
				s := c.Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				wirematrix.RequireSameAsServer(t, agent, s, got.fold)
				require.Equal(t, a2a.V03, c.Version())
				require.Equal(t, []string{"POST /message:stream"}, refused, "one 1.0 try")
				require.Equal(t, 1, wirematrix.Sends(agent), "the message is sent once")
				require.Equal(t, "/v1/message:stream", agent.Requests()[0].Path)
				require.Len(t, agent.TaskIDs(), 1)
			})
		})
	}
}

func TestResponseShapes(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// Non-2xx: the status, at most 4 KiB of the body.
				var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/html")
					w.WriteHeader(http.StatusRequestEntityTooLarge)
					fmt.Fprint(w, "<html>"+strings.Repeat("x", 10000)+"</html>")
				})
				_, err := drain(t, newClient(t, h, v).Send(background(), hello()))
				var he *transport.HTTPError
				require.ErrorAs(t, err, &he)
				require.Equal(t, 413, he.StatusCode)
				require.Len(t, he.Body, 4096)
				method := map[a2a.Version]string{a2a.V03: "message/stream", a2a.V10: "SendStreamingMessage"}[v]
				require.Equal(t, "stream: HTTP 413 Request Entity Too Large from POST http://agent.test/ ("+method+")", he.Error())

				// Another content type.
				h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/html")
					fmt.Fprint(w, "<html>hello</html>")
				})
				_, err = drain(t, newClient(t, h, v).Send(background(), hello()))
				var pe *transport.ProtocolError
				require.ErrorAs(t, err, &pe)
				require.Contains(t, pe.Reason, "unexpected content type")

				// A single JSON result (not an error) stands for a one-event stream.
				h = rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
					raw, _ := a2a.Codec{Version: v}.EncodeEvent(&a2a.Message{ID: "m-1", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: "hi"}}})
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprintf(w, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}", id, raw)
				})
				got, err := drain(t, newClient(t, h, v).Send(background(), hello()))
				require.NoError(t, err)
				require.Len(t, got.events, 1)
			})
		})
	}
}

func TestTextPlainUnaryResponses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// a2a-go answers unary calls with text/plain.
		agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03), a2atest.WithUnaryContentType(""),
			a2atest.WithStyle(a2atest.LiveOnly), a2atest.WithScript(wirematrix.Paced()...),
			a2atest.WithFaults(a2atest.CutAfterEvents(wirematrix.PacedEvents-1)))
		c := newClient(t, agent, a2a.V03)
		s := c.Send(background(), hello())
		got, err := drain(t, s)
		require.NoError(t, err)
		wirematrix.RequireSameAsServer(t, agent, s, got.fold)
		require.Equal(t, 1, gets(agent))
		task, err := c.GetTask(background(), s.Task().ID)
		require.NoError(t, err)
		require.Equal(t, a2a.StateCompleted, task.Status.State)
	})
}

// A negotiating Client whose first call is Subscribe: a refusal of the 1.0
// subscribe (-32601, or a bare 404 over HTTP+JSON) does not tell a 0.3
// server from a 1.0 server that cannot subscribe. A 1.0 get-task tells
// them apart: the 1.0 server is polled in 1.0, and the 0.3 server is
// subscribed to in 0.3. On both bindings.
func TestNegotiatingSubscribeTellsAServerThatCannotSubscribeFromA03Server(t *testing.T) {
	streamTask := func(w *wireWriter, _ wireCall) {
		w.sse()
		w.event(snap(a2a.StateWorking, "one "))
		w.event(artEvent("a1", true, "two"))
		w.event(statusEvent(w.a.v, a2a.StateCompleted, nil))
	}
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				on := map[callKind]func(*wireWriter, wireCall){kindGet: runningThenDone}
				if w.v == a2a.V03 {
					on[kindSubscribe] = streamTask
				}
				agent := newWireAgent(w, on)
				var notes noticeLog
				c := agent.clientOf(t, stream.WithHTTPClient(a2atest.NewClient(agent)), notes.option())
				got, err := drain(t, c.Subscribe(bounded(t), "t-1"))
				require.NoError(t, err)
				require.Equal(t, "one two", got.task.Artifact("a1").Text())
				require.Equal(t, w.v, c.Version(), "the version is learnt")
				var methods []string
				for _, call := range agent.received() {
					methods = append(methods, call.method)
				}
				subscribe, get, subscribe03 := "SubscribeToTask", "GetTask", "tasks/resubscribe"
				if w.b == a2a.BindingHTTPJSON {
					subscribe, get, subscribe03 = "POST /tasks/t-1:subscribe", "GET /tasks/t-1", "POST /v1/tasks/t-1:subscribe"
				}
				if w.v == a2a.V10 {
					require.Equal(t, []string{subscribe, get, get, get, get, get}, methods, "polled in 1.0 until the task completed")
					require.Equal(t, 1, notes.count(stream.Polling))
					return
				}
				require.Equal(t, []string{subscribe, get, subscribe03}, methods, "the 1.0 get-task is refused too: 0.3")
				require.Zero(t, notes.count(stream.Polling))
			})
		})
	}
}

// DEFECT. NewRESTClient: "Without WithVersion it negotiates the protocol
// version on first use, as NewClient does"; WithVersion: "it tries 1.0
// first and falls back to 0.3 once, when the server answers
// method-not-found or version-not-supported". A 0.3-only HTTP+JSON agent
// (a2atest as @a2a-js/sdk 0.3.14's restHandler, whose routes all live
// under /v1) answers the 1.0 POST {base}/message:stream with express's 404
// page: the HTTP+JSON counterpart of method-not-found (a2atest's doc of
// WithoutResubscribe says so). NewClient reaches the same agent over
// JSON-RPC; NewRESTClient does not.
// Observed: the stream ends in "stream: HTTP 404 Not Found" after one
// request, Version() "". Expected: a fall back to POST /v1/message:stream,
// the task completed, Version() 0.3.
func TestRESTNegotiationFallsBackOn404ToA03OnlyAgent(t *testing.T) {
	for _, noStreaming := range []bool{false, true} {
		t.Run(fmt.Sprintf("without streaming %v", noStreaming), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				opts := []a2atest.Option{a2atest.WithVersions(a2a.V03), a2atest.WithBindings(a2a.BindingHTTPJSON)}
				if noStreaming {
					opts = append(opts, a2atest.WithoutStreaming())
				}
				agent := a2atest.NewAgent(opts...)
				c, err := stream.NewRESTClient("http://agent.test", stream.WithHTTPClient(agent.Client()))
				require.NoError(t, err)
				s := c.Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err, "requests: %v", agent.Requests())
				wirematrix.RequireSameAsServer(t, agent, s, got.fold)
				require.Equal(t, a2a.V03, c.Version())
				require.Len(t, agent.TaskIDs(), 1)
			})
		})
	}
}

// A Client that negotiates its version, used by many streams at once
// against a 0.3-only agent: every stream completes (run with -race).
func TestConcurrentStreamsNegotiateOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03), a2atest.WithScript(wirematrix.Paced()...))
		c, err := stream.NewClient(endpoint, stream.WithHTTPClient(agent.Client()))
		require.NoError(t, err)
		const n = 6
		errs := make([]error, n)
		texts := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				task, err := c.Send(background(), hello()).Wait()
				errs[i] = err
				if task != nil {
					texts[i] = task.Artifact("a1").Text()
				}
			}()
		}
		wg.Wait()
		for i := range n {
			require.NoError(t, errs[i])
			require.Equal(t, "one two three", texts[i])
		}
		require.Equal(t, a2a.V03, c.Version())
		require.Equal(t, n, wirematrix.CountMethod(agent, "message/stream"), "each message reached the agent once")
	})
}

// startTask starts a slow task on agent with a Client fixed to w's
// version and returns its ID.
func startTask(t *testing.T, w wire, agent *a2atest.Agent) string {
	t.Helper()
	c := reconnectingClient(t, w, agent)
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
						agent := scriptedAgent(w, opts...)
						id := startTask(t, w, agent)
						c := negotiatingClient(t, w.b, agent.Client())
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
							state, ok := wirematrix.TerminalState(s.Err())
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
						c := negotiatingClient(t, w.b, a2atest.NewClient(h), opts...)
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
// a get-task answered so is a plain *transport.HTTPError, not task-not-found;
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
					agent := scriptedAgent(w, a2atest.WithScript(wirematrix.ChunkyScript()...), a2atest.WithFaults(a2atest.CutAfterEvents(2)))
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
					c := negotiatingClient(t, w.b, agentCut, stream.WithNotify(func(n stream.Notice) { notices = append(notices, n) }))
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
					var he *transport.HTTPError
					require.ErrorAs(t, err, &he)
					require.Equal(t, 404, he.StatusCode)
					var rpc *a2a.RPCError
					require.False(t, errors.As(err, &rpc), "a framework's 404 is no A2A error: %v", err)
				})
			})
		}
	}
}
