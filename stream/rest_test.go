package stream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
	"github.com/a2astream/a2astream/transport"
)

// firstEvents keeps the first n SSE events of a capture: the server's
// stream, cut after them.
func firstEvents(body []byte, n int) []byte {
	evs := bytes.SplitAfter(body, []byte("\n\n"))
	return bytes.Join(evs[:min(n, len(evs))], nil)
}

func TestRESTBindingAgainstCaptures(t *testing.T) {
	cases := []struct {
		v      a2a.Version
		prefix string
		js     string
		taskID string
	}{
		{a2a.V10, "", "js-1.3.0", "ec65de73-2354-49b1-bb53-4a8bb7cdfc53"},
		{a2a.V03, "/v1", "js-0.3.14", "d3129619-12f1-4813-b8db-b884a03f3ea0"},
	}
	for _, c := range cases {
		t.Run(string(c.v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sse := "text/event-stream"
				hello := restCapture(t, c.js+"-rest-stream-hello.txt")
				followup := restCapture(t, c.js+"-rest-followup.txt")
				sendN := 0
				r := &restReplay{t: t, routes: map[string]func(http.ResponseWriter, []byte){
					"POST " + c.prefix + "/message:stream": func(w http.ResponseWriter, body []byte) {
						sendN++
						if sendN == 1 {
							// The send is cut after the task and the working status.
							serve(sse, 200, firstEvents(hello, 2))(w, body)
							return
						}
						serve(sse, 200, followup)(w, body)
					},
					"POST " + c.prefix + "/tasks/" + c.taskID + ":subscribe": serve(sse, 200,
						restCapture(t, c.js+"-rest-subscribe-input-required.txt")),
				}}
				var notices []stream.NoticeKind
				asks := 0
				client, err := stream.NewRESTClient("http://agent.test/", stream.WithVersion(c.v),
					stream.WithHTTPClient(a2atest.NewClient(r)),
					stream.WithHumanInput(hitl.Func(func(_ context.Context, req *hitl.Request) ([]a2a.Part, error) {
						asks++
						require.Equal(t, "need more input", req.Text())
						return hitl.Text("more please"), nil
					})),
					stream.WithNotify(func(n stream.Notice) { notices = append(notices, n.Kind) }))
				require.NoError(t, err)
				require.Equal(t, a2a.BindingHTTPJSON, client.Binding())
				got, err := drain(t, client.Send(background(), a2a.NewTextMessage(a2a.RoleUser, "hello")))
				require.NoError(t, err)
				require.Equal(t, "chunk-1 chunk-2", got.text(artifactNamed(t, got, "stream")))
				require.Equal(t, "result for follow-up: more please", got.text(artifactNamed(t, got, "result")))
				require.Equal(t, []string{
					"POST " + c.prefix + "/message:stream",
					"POST " + c.prefix + "/tasks/" + c.taskID + ":subscribe",
					"POST " + c.prefix + "/message:stream",
				}, r.calls)
				require.Equal(t, []stream.NoticeKind{stream.Reconnecting, stream.Resumed}, notices)
				require.Equal(t, 1, asks, "the human is asked once")
				// The wire shapes of the send: 1.0 JSON, or the 0.3 proto-JSON.
				var send struct {
					Message map[string]json.RawMessage `json:"message"`
				}
				require.NoError(t, json.Unmarshal(r.sends[0], &send))
				if c.v == a2a.V03 {
					require.Contains(t, send.Message, "content", "0.3 REST carries parts under content")
				} else {
					require.Contains(t, send.Message, "parts")
				}
				require.JSONEq(t, `"ROLE_USER"`, string(send.Message["role"]))
			})
		})
	}
}

// artifactNamed finds the ID of the artifact the captures name.
func artifactNamed(t *testing.T, got *collected, name string) string {
	t.Helper()
	for _, ev := range got.events {
		if u, ok := ev.(*a2a.ArtifactUpdate); ok && u.Artifact.Name == name {
			return u.Artifact.ID
		}
	}
	t.Fatalf("no artifact named %q", name)
	return ""
}

func TestRESTErrorsMapOntoRPCErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &restReplay{t: t, routes: map[string]func(http.ResponseWriter, []byte){
			"GET /tasks/nope":    serve("application/a2a+json", 404, restCapture(t, "js-1.3.0-rest-get-unknown.json")),
			"GET /v1/tasks/nope": serve("application/json", 404, restCapture(t, "js-0.3.14-rest-get-unknown.json")),
		}}
		for _, v := range versions {
			client, err := stream.NewRESTClient("http://agent.test", stream.WithVersion(v), stream.WithHTTPClient(a2atest.NewClient(r)))
			require.NoError(t, err)
			_, err = client.GetTask(background(), "nope")
			var httpErr *transport.HTTPError
			require.ErrorAs(t, err, &httpErr)
			require.Equal(t, 404, httpErr.StatusCode)
			var rpcErr *a2a.RPCError
			require.ErrorAs(t, err, &rpcErr, "%s: the A2A error in the body", v)
			require.Equal(t, a2a.CodeTaskNotFound, rpcErr.Code)
		}
	})
}

func TestRESTSubscribeToAnEndedTaskIsARefusal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const id = "ec65de73-2354-49b1-bb53-4a8bb7cdfc53"
		r := &restReplay{t: t, routes: map[string]func(http.ResponseWriter, []byte){
			// 400 FAILED_PRECONDITION, reason UNSUPPORTED_OPERATION.
			"POST /tasks/" + id + ":subscribe": serve("application/a2a+json", 400, restCapture(t, "js-1.3.0-rest-subscribe-completed.txt")),
			"GET /tasks/" + id:                 serve("application/a2a+json", 200, restCapture(t, "js-1.3.0-rest-get.json")),
		}}
		client, err := stream.NewRESTClient("http://agent.test", stream.WithVersion(a2a.V10), stream.WithHTTPClient(a2atest.NewClient(r)))
		require.NoError(t, err)
		_, err = drain(t, client.Subscribe(background(), id))
		var hitlErr *hitl.Error
		require.ErrorAs(t, err, &hitlErr, "refused, fetched: the task waits on a prompt and there is no hook")
		require.Equal(t, "chunk-1 chunk-2", hitlErr.Task.Artifacts[0].Text())
		require.Equal(t, []string{"POST /tasks/" + id + ":subscribe", "GET /tasks/" + id}, r.calls)
	})
}

// TestEndpointQueryKeptOnEveryCall: a key in the query string of a JSON-RPC
// endpoint or of an HTTP+JSON base URL (Azure Functions' ?code=, an API
// gateway's key) goes with every call, and the REST paths are joined under
// the base's path, whatever its trailing slash or escapes, with a task ID
// kept as one path segment. Each wire streams (cut, then resubscribed, over
// HTTP+JSON on GET after a 405), polls (an agent that cannot stream), gets
// and cancels; the server must see exactly these targets.
func TestEndpointQueryKeptOnEveryCall(t *testing.T) {
	t.Parallel()
	wires := []struct {
		name    string
		binding a2a.Binding
		v       a2a.Version
		tenant  string // set: the client is resolved from a card naming it
		prefix  string // the REST path under the base
	}{
		{"JSON-RPC 0.3", a2a.BindingJSONRPC, a2a.V03, "", ""},
		{"JSON-RPC 1.0", a2a.BindingJSONRPC, a2a.V10, "", ""},
		{"HTTP+JSON 0.3", a2a.BindingHTTPJSON, a2a.V03, "", "/v1"},
		{"HTTP+JSON 1.0", a2a.BindingHTTPJSON, a2a.V10, "", ""},
		{"HTTP+JSON 1.0 with a tenant", a2a.BindingHTTPJSON, a2a.V10, "acme", "/acme"},
	}
	bases := []struct {
		url string
		// Of the REST calls: the base's path (escaped, without its trailing
		// slash), and the query of every call but get-task, then of get-task.
		path, query, getQuery string
		rpc                   string // the target of every JSON-RPC call
	}{
		{"http://agent.test/api/agent?code=K", "/api/agent", "?code=K", "?code=K&historyLength=1048576", "/api/agent?code=K"},
		{"http://agent.test/api/agent/?code=K&v=2", "/api/agent", "?code=K&v=2", "?code=K&v=2&historyLength=1048576", "/api/agent/?code=K&v=2"},
		{"http://agent.test/api/a%2Fb?code=K%2B1%3D%3D", "/api/a%2Fb", "?code=K%2B1%3D%3D", "?code=K%2B1%3D%3D&historyLength=1048576", "/api/a%2Fb?code=K%2B1%3D%3D"},
		{"http://agent.test?code=K", "", "?code=K", "?code=K&historyLength=1048576", "/?code=K"},
		{"http://agent.test/api/agent", "/api/agent", "", "?historyLength=1048576", "/api/agent"},
		// A historyLength of the caller's gives way to the one get-task needs.
		{"http://agent.test/api/agent?historyLength=5&code=K", "/api/agent", "?historyLength=5&code=K", "?code=K&historyLength=1048576", "/api/agent?historyLength=5&code=K"},
	}
	const oddID = "a/b c?d#e" // escaped: a%2Fb%20c%3Fd%23e
	for _, w := range wires {
		for _, b := range bases {
			for _, streaming := range []bool{true, false} {
				name := w.name + "/" + b.url + "/streaming"
				if !streaming {
					name = w.name + "/" + b.url + "/polling"
				}
				t.Run(name, func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						opts := []a2atest.Option{
							a2atest.WithVersions(w.v), a2atest.WithBindings(w.binding),
							a2atest.WithScript(a2atest.Working("on it"), a2atest.Pause(time.Second),
								a2atest.Chunk("a1", "done", false, true), a2atest.Finish(a2a.StateCompleted, "")),
						}
						if streaming {
							opts = append(opts, a2atest.WithFaults(a2atest.CutAfterEvents(2)))
						} else {
							opts = append(opts, a2atest.WithoutStreaming())
						}
						if w.binding == a2a.BindingHTTPJSON {
							opts = append(opts, a2atest.WithRESTBase(b.path), a2atest.WithTenant(w.tenant))
						}
						if w.tenant != "" {
							opts = append(opts, a2atest.WithCardJSON(fmt.Appendf(nil,
								`{"name":"keyed","capabilities":{"streaming":%t},"supportedInterfaces":[{"url":%q,"protocolBinding":"HTTP+JSON","protocolVersion":"1.0","tenant":%q}]}`,
								streaming, b.url, w.tenant)))
						}
						agent := a2atest.NewAgent(opts...)
						rec := &targetRecorder{h: agent, getSubscribeOnly: w.binding == a2a.BindingHTTPJSON}
						hc := stream.WithHTTPClient(a2atest.NewClient(rec))
						var (
							client *stream.Client
							err    error
						)
						switch {
						case w.tenant != "":
							client, err = stream.Resolve(background(), "http://agent.test", hc)
						case w.binding == a2a.BindingHTTPJSON:
							client, err = stream.NewRESTClient(b.url, hc, stream.WithVersion(w.v))
						default:
							client, err = stream.NewClient(b.url, hc, stream.WithVersion(w.v))
						}
						require.NoError(t, err)
						require.Equal(t, b.url, client.Endpoint())
						start := len(rec.since(0))

						got, err := drain(t, client.Send(background(), hello()))
						require.NoError(t, err)
						require.Equal(t, "done", got.text("a1"))
						ids := agent.TaskIDs()
						require.Len(t, ids, 1)
						id := ids[0]
						_, err = client.GetTask(background(), id)
						require.NoError(t, err)
						_, err = client.Cancel(background(), id)
						var rpcErr *a2a.RPCError
						require.ErrorAs(t, err, &rpcErr, "the agent's own answer: a completed task cannot be canceled")
						require.Equal(t, a2a.CodeTaskNotCancelable, rpcErr.Code)
						for _, call := range []func() error{
							func() error { _, err := client.GetTask(background(), oddID); return err },
							func() error { _, err := client.Cancel(background(), oddID); return err },
						} {
							require.ErrorAs(t, call(), &rpcErr, "the agent read the task ID")
							require.Equal(t, a2a.CodeTaskNotFound, rpcErr.Code)
						}

						if w.binding == a2a.BindingJSONRPC {
							seen := rec.since(start)
							require.GreaterOrEqual(t, len(seen), 5, "send, resubscribe or poll, get, cancel, get, cancel")
							for _, got := range seen {
								require.Equal(t, "POST "+b.rpc, got)
							}
							return
						}
						q, getQ, p := b.query, b.getQuery, b.path+w.prefix
						var want []string
						if streaming {
							want = []string{
								"POST " + p + "/message:stream" + q,
								"POST " + p + "/tasks/" + id + ":subscribe" + q,
								"GET " + p + "/tasks/" + id + ":subscribe" + q,
							}
						} else {
							if w.tenant == "" {
								want = append(want, "POST "+p+"/message:stream"+q) // refused: the agent cannot stream
							}
							want = append(want,
								"POST "+p+"/message:send"+q,
								"GET "+p+"/tasks/"+id+getQ)
						}
						want = append(want,
							"GET "+p+"/tasks/"+id+getQ,
							"POST "+p+"/tasks/"+id+":cancel"+q,
							"GET "+p+"/tasks/a%2Fb%20c%3Fd%23e"+getQ,
							"POST "+p+"/tasks/a%2Fb%20c%3Fd%23e:cancel"+q)
						require.Equal(t, want, rec.since(start))
						for _, r := range agent.Requests()[len(agent.Requests())-2:] {
							require.Equal(t, oddID, r.TaskID, "one path segment")
						}
					})
				})
			}
		}
	}
}

// A REST unary send answered 200 with an error body (no task, no message):
// the stream must end in an error, and the message must not go out again.
func TestRESTUnarySendAnswered200WithAnErrorBodyEndsInAnError(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := &restServer{v: v}
				srv.stream = srv.refuseStreaming
				srv.send = func(w http.ResponseWriter, _ *http.Request, _ []byte, _ int) {
					_, ct, body := a2a.MarshalHTTPError(v, &a2a.RPCError{Code: a2a.CodeInternalError, Message: "oops"})
					w.Header().Set("Content-Type", ct)
					w.Write(body)
				}
				_, err := drain(t, restClient(t, srv, v).Send(background(), hello()))
				require.Error(t, err)
				require.Equal(t, 1, srv.count("send"), "the message is sent once")
			})
		})
	}
}

// README: "A JSON-RPC error in the middle of a stream, once the task is
// known, makes the stream fetch the task: if it ended ..., the stream ends
// as the task did; otherwise the RPC error is the ending and Task() holds
// the task as fetched." Over REST, the error is an "event: error".
func TestRESTErrorEventMidStreamFetchesTheTask(t *testing.T) {
	for _, v := range versions {
		for _, final := range []a2a.TaskState{a2a.StateCompleted, a2a.StateFailed, a2a.StateWorking} {
			t.Run(string(v)+"/"+string(final), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					srv := &restServer{v: v}
					srv.stream = func(w http.ResponseWriter, _ *http.Request, _ []byte, _ int) {
						sseHeaders(w)
						srv.event(w, snap(a2a.StateWorking))
						srv.event(w, &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Artifact: a2a.Artifact{ID: "a1", Parts: textParts("kept")}})
						_, _, body := a2a.MarshalHTTPError(v, &a2a.RPCError{Code: a2a.CodeInternalError, Message: "boom"})
						fmt.Fprintf(w, "event: error\ndata: %s\n\n", body)
					}
					srv.get = func(w http.ResponseWriter, _ *http.Request, _ int) { srv.task(w, snap(final, "kept", " and more")) }
					s := restClient(t, srv, v).Send(background(), hello())
					got, err := drain(t, s)
					require.Equal(t, "kept and more", got.text("a1"), "the fetched task's parts")
					require.Equal(t, final, s.Task().Status.State)
					switch final {
					case a2a.StateCompleted:
						require.NoError(t, err)
					case a2a.StateFailed:
						var fe *terminal.FailedError
						require.ErrorAs(t, err, &fe)
					default:
						var rpcErr *a2a.RPCError
						require.ErrorAs(t, err, &rpcErr)
						require.Equal(t, a2a.CodeInternalError, rpcErr.Code)
					}
					require.Equal(t, 1, srv.count("stream"))
					require.Equal(t, 1, srv.count("get"))
				})
			})
		}
	}
}

// README: "POST {base}/tasks/{id}:cancel and :subscribe (GET when POST gets
// 405)". A server that only takes GET for subscribe: after a cut, the
// stream subscribes by GET, and does not take the 405 for "cannot
// subscribe".
func TestRESTSubscribeByGETAfter405(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := &restServer{v: v}
				srv.stream = func(w http.ResponseWriter, _ *http.Request, _ []byte, _ int) {
					sseHeaders(w)
					srv.event(w, snap(a2a.StateWorking))
					srv.event(w, &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Artifact: a2a.Artifact{ID: "a1", Parts: textParts("one ")}})
					cutHere()
				}
				srv.sub = func(w http.ResponseWriter, r *http.Request, _ int) {
					if r.Method != http.MethodGet {
						http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
						return
					}
					sseHeaders(w)
					srv.event(w, snap(a2a.StateWorking, "one "))
					srv.event(w, &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Append: true, Artifact: a2a.Artifact{ID: "a1", Parts: textParts("two")}})
					srv.event(w, &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Final: true, Status: a2a.TaskStatus{State: a2a.StateCompleted}})
				}
				var ns noticeLog
				got, err := drain(t, restClient(t, srv, v, ns.option()).Send(background(), hello()))
				require.NoError(t, err)
				require.Equal(t, "one two", got.text("a1"))
				require.Equal(t, 0, ns.count(stream.Polling), "a 405 on POST is not a missing subscribe: GET works")
				require.Equal(t, 2, srv.count("sub"))
				require.Equal(t, 0, srv.count("get"))
			})
		})
	}
}

// restRecorder answers every REST call of version v under any base with a
// canned success, and records each request's method, escaped path and query.
type restRecorder struct {
	v a2a.Version
	// getSubscribe makes a POST to a subscribe route get 405, as servers
	// that route subscribe as GET only (a2a-python 0.3) answer.
	getSubscribe bool
	mu           sync.Mutex
	seen         []string // "METHOD escaped-path?raw-query"
}

func (h *restRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.seen = append(h.seen, r.Method+" "+r.URL.EscapedPath()+"?"+r.URL.RawQuery)
	h.mu.Unlock()
	ww := &wireWriter{w: w, a: &wireAgent{wire: wire{h.v, a2a.BindingHTTPJSON}}}
	task := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateCompleted}}
	switch {
	case h.getSubscribe && r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, ":subscribe"):
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	case strings.HasSuffix(r.URL.Path, "message:stream"), strings.HasSuffix(r.URL.Path, ":subscribe"):
		ww.sse()
		ww.event(task)
	case strings.HasSuffix(r.URL.Path, "message:send"):
		ww.result(task)
	case strings.HasSuffix(r.URL.Path, ":cancel"):
		task.Status.State = a2a.StateCanceled
		ww.task(task)
	default:
		ww.task(task)
	}
}

func (h *restRecorder) requests() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.seen...)
}

// TestRESTBaseURLOnEveryCall: the path and the query of a REST base
// URL go with every call, exactly: no doubled or lost slash, the query
// kept whole (repeated keys, escaped values), historyLength added to it.
func TestRESTBaseURLOnEveryCall(t *testing.T) {
	for _, v := range versions {
		prefix := ""
		if v == a2a.V03 {
			prefix = "v1/"
		}
		for _, tc := range []struct{ base, path, query string }{
			{"http://agent.test", "/", ""},
			{"http://agent.test/", "/", ""},
			{"http://agent.test?code=K1", "/", "code=K1"},
			{"http://agent.test/?code=K1", "/", "code=K1"},
			{"http://agent.test/api?code=K1", "/api/", "code=K1"},
			{"http://agent.test/api/?code=K1", "/api/", "code=K1"},
			{"http://agent.test/api/a2a?code=a%2Bb%3D%3D&x=1&x=2", "/api/a2a/", "code=a%2Bb%3D%3D&x=1&x=2"},
			{"http://agent.test/a%2Fb/?k=v", "/a%2Fb/", "k=v"},
			{"http://agent.test/api?code=K1#frag", "/api/", "code=K1"},
		} {
			t.Run(string(v)+"/"+tc.base, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					rec := &restRecorder{v: v}
					c, err := stream.NewRESTClient(tc.base, stream.WithHTTPClient(newOriginRouter().serve("http://agent.test", rec).client()), stream.WithVersion(v))
					require.NoError(t, err)
					ctx := context.Background()
					_, err = c.Send(ctx, hello()).Wait()
					require.NoError(t, err)
					_, err = c.GetTask(ctx, "t-1")
					require.NoError(t, err)
					_, err = c.Cancel(ctx, "t-1")
					require.NoError(t, err)
					_, err = c.Subscribe(ctx, "t-1").Wait()
					require.NoError(t, err)
					want := map[string]string{
						"stream":    "POST " + tc.path + prefix + "message:stream",
						"get":       "GET " + tc.path + prefix + "tasks/t-1",
						"cancel":    "POST " + tc.path + prefix + "tasks/t-1:cancel",
						"subscribe": tc.path + prefix + "tasks/t-1:subscribe",
					}
					got := rec.requests()
					require.Len(t, got, 4, "%v", got)
					for i, k := range []string{"stream", "get", "cancel", "subscribe"} {
						p, q, _ := strings.Cut(got[i], "?")
						require.True(t, strings.HasSuffix(p, want[k]), "%s went to %q, want %q", k, p, want[k])
						vals, err := url.ParseQuery(q)
						require.NoError(t, err)
						wantVals, _ := url.ParseQuery(tc.query)
						for key, vs := range wantVals {
							require.Equal(t, vs, vals[key], "%s: the base URL's query %q is kept in %q", k, tc.query, q)
						}
						if k != "get" {
							require.Equal(t, len(wantVals), len(vals), "%s: nothing but the base query in %q", k, q)
						}
					}
				})
			})
		}
	}
}

// TestTaskIDIsEscapedInRESTPaths: a task ID holding '/', '?', '#',
// '%' or a space is one escaped path segment on every REST call: it cannot
// change the route nor add to the query.
func TestTaskIDIsEscapedInRESTPaths(t *testing.T) {
	for _, v := range versions {
		for _, id := range []string{"a/b", "x?code=evil", "x#frag", "50%done", "a b", "../../admin"} {
			t.Run(fmt.Sprintf("%s/%q", v, id), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					rec := &restRecorder{v: v}
					c, err := stream.NewRESTClient("http://agent.test/api?code=K1", stream.WithHTTPClient(newOriginRouter().serve("http://agent.test", rec).client()), stream.WithVersion(v))
					require.NoError(t, err)
					ctx := context.Background()
					_, _ = c.GetTask(ctx, id)
					_, _ = c.Cancel(ctx, id)
					_, _ = c.Subscribe(ctx, id).Wait()
					got := rec.requests()
					require.NotEmpty(t, got)
					seg := url.PathEscape(id)
					for _, g := range got {
						p, q, _ := strings.Cut(g, "?")
						vals, err := url.ParseQuery(q)
						require.NoError(t, err)
						require.Equal(t, []string{"K1"}, vals["code"], "%s: the query is the base's", g)
						require.NotContains(t, p, "/admin", "%s: the ID climbed the path", g)
						// The ID is one segment: unescaping the segment after tasks/ gives it back.
						_, after, ok := strings.Cut(p, "/tasks/")
						require.True(t, ok, g)
						after = strings.TrimSuffix(strings.TrimSuffix(after, ":cancel"), ":subscribe")
						un, err := url.PathUnescape(after)
						require.NoError(t, err)
						require.Equal(t, id, un, "%s: the task ID, escaped as %q", g, seg)
					}
				})
			})
		}
	}
}

// TestRESTSubscribeGetFallbackKeepsBase: the GET that follows a
// subscribe POST refused with 405 goes to the same path under the base,
// with the base URL's query.
func TestRESTSubscribeGetFallbackKeepsBase(t *testing.T) {
	for _, v := range versions {
		prefix := ""
		if v == a2a.V03 {
			prefix = "v1/"
		}
		for _, base := range []string{"http://agent.test/api?code=K1", "http://agent.test/api/?code=K1&x=1&x=2"} {
			t.Run(string(v)+"/"+base, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					rec := &restRecorder{v: v, getSubscribe: true}
					c, err := stream.NewRESTClient(base, stream.WithHTTPClient(newOriginRouter().serve("http://agent.test", rec).client()), stream.WithVersion(v))
					require.NoError(t, err)
					_, err = c.Subscribe(context.Background(), "t-1").Wait()
					require.NoError(t, err)
					got := rec.requests()
					require.GreaterOrEqual(t, len(got), 2, "%v", got)
					bu, _ := url.Parse(base)
					for _, g := range got[:2] {
						p, q, _ := strings.Cut(g, "?")
						require.True(t, strings.HasSuffix(p, "/api/"+prefix+"tasks/t-1:subscribe"), g)
						vals, _ := url.ParseQuery(q)
						require.Equal(t, bu.Query(), vals, g)
					}
					require.True(t, strings.HasPrefix(got[0], "POST "), got[0])
					require.True(t, strings.HasPrefix(got[1], "GET "), got[1])
				})
			})
		}
	}
}

// A 1.0 tenant from the card goes with every request: the send, the polls,
// the reply.
func TestRESTTenantOnEveryRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithBindings(a2a.BindingHTTPJSON), a2atest.WithTenant("acme"),
			a2atest.WithoutStreaming(), a2atest.WithScript(wirematrix.Asking()...))
		rec := &wirematrix.Recorder{Answers: []string{"yes"}}
		c := resolveAgent(t, agent, stream.WithHumanInput(rec), stream.WithPollInterval(wirematrix.Tick))
		got, err := drain(t, c.Send(background(), hello()))
		require.NoError(t, err)
		require.Equal(t, "draft final", got.text("a1"))
		reqs := agent.Requests()
		require.NotEmpty(t, reqs)
		for _, r := range reqs {
			require.Equal(t, "acme", r.Tenant, "%s %s", r.HTTPMethod, r.Path)
		}
	})
}
