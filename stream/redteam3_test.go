package stream_test

// Third red-team round, against the newest features and from the public API
// only: the HTTP+JSON (REST) binding in both dialects, agents that cannot
// stream (a unary send, then polls) and servers that cannot resubscribe
// (polling after a refused subscribe). Each test asserts a promise of the
// README or of a doc comment. Three fail on purpose, each marked DEFECT:
// TestRedteam3_RESTNegotiationNeverReachesA03OnlyAgent,
// TestRedteam3_NoPollingNoticeWhenTheCardSaysNoStreaming and
// TestRedteam3_UnusableInterfaceURL.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

// ---------------------------------------------------------------------------
// Helpers.

// r3Resolve resolves the client of an a2atest agent from its card.
func r3Resolve(t *testing.T, agent *a2atest.Agent, opts ...stream.Option) *stream.Client {
	t.Helper()
	all := append([]stream.Option{stream.WithHTTPClient(agent.Client())}, opts...)
	c, err := stream.Resolve(background(), "http://agent.test", all...)
	require.NoError(t, err)
	return c
}

// unarySends counts the unary sends an a2atest agent received.
func unarySends(agent *a2atest.Agent) int { return countMethod(agent, "message/send", "SendMessage") }

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

// ---------------------------------------------------------------------------
// The HTTP+JSON binding with a2atest, both dialects.

// README: "A card whose capabilities.streaming is false ... makes the stream
// send with a unary call that returns at once ... and poll get-task every
// WithPollInterval". Over HTTP+JSON, resolved from the card, in both dialects.
func TestRedteam3_RESTCardWithoutStreamingPolls(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
					a2atest.WithRESTBase("/api/rest"), a2atest.WithoutStreaming(), a2atest.WithScript(paced()...))
				var ns r3notices
				c := r3Resolve(t, agent, stream.WithPollInterval(250*time.Millisecond), ns.option())
				require.Equal(t, a2a.BindingHTTPJSON, c.Binding())
				require.Equal(t, "http://agent.test/api/rest", strings.TrimSuffix(c.Endpoint(), "/"))
				start := time.Now()
				s := c.Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				requireSameAsServer(t, agent, s, got)
				require.Equal(t, 0, sends(agent), "no streaming call to an agent whose card says it cannot stream")
				require.Equal(t, 1, unarySends(agent))
				for _, r := range agent.Requests() {
					require.Equal(t, a2a.BindingHTTPJSON, r.Binding)
					require.True(t, strings.HasPrefix(r.Path, "/api/rest/"), r.Path)
					if r.Method == "message/send" || r.Method == "SendMessage" {
						require.True(t, r.NonBlocking, "the unary send returns at once")
					}
				}
				// The script ends at 600 ms: polls at 250, 500, 750 ms.
				require.Equal(t, 3, gets(agent))
				require.Equal(t, 750*time.Millisecond, time.Since(start))
				require.Zero(t, ns.count(stream.Reconnecting), "polling costs no attempt")
			})
		})
	}
}

// DEFECT. The doc of stream.Polling: "the server cannot stream this task
// (or cannot subscribe to it), so the stream follows it by polling get-task
// every Wait. Cause is the refusal that showed it, or nil when the agent
// card said so." A client resolved from a card whose capabilities say
// streaming false polls, but no Polling notice ever comes.
// Observed: no notice at all. Expected: one Polling notice, Cause nil,
// Wait the poll interval.
func TestRedteam3_NoPollingNoticeWhenTheCardSaysNoStreaming(t *testing.T) {
	for _, b := range []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		for _, v := range versions {
			t.Run(string(b)+"/"+string(v), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(b),
						a2atest.WithoutStreaming(), a2atest.WithScript(paced()...))
					var ns r3notices
					s := r3Resolve(t, agent, stream.WithPollInterval(250*time.Millisecond), ns.option()).Send(background(), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					requireSameAsServer(t, agent, s, got)
					require.Equal(t, 3, gets(agent), "it did poll")
					require.Equal(t, []stream.NoticeKind{stream.Polling}, ns.kinds())
					require.NoError(t, ns.ns[0].Cause, "the card said so: no cause")
					require.Equal(t, 250*time.Millisecond, ns.ns[0].Wait)
				})
			})
		}
	}
}

// A REST client that was not told (no card) is refused the streaming send
// with 400 -32004: it sends once, unary, and polls.
func TestRedteam3_RESTStreamingRefusedWithoutACard(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
					a2atest.WithoutStreaming(), a2atest.WithScript(paced()...))
				var ns r3notices
				c, err := stream.NewRESTClient("http://agent.test", stream.WithHTTPClient(agent.Client()), stream.WithVersion(v), ns.option())
				require.NoError(t, err)
				s := c.Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				requireSameAsServer(t, agent, s, got)
				require.Len(t, agent.TaskIDs(), 1, "one task: the message reached the agent once")
				require.Equal(t, 1, unarySends(agent))
				require.Equal(t, []stream.NoticeKind{stream.Polling}, ns.kinds())
				var rpcErr *a2a.RPCError
				require.ErrorAs(t, ns.ns[0].Cause, &rpcErr, "the refusal is the cause")
				require.Equal(t, a2a.CodeUnsupportedOperation, rpcErr.Code)
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
func TestRedteam3_RESTNegotiationNeverReachesA03OnlyAgent(t *testing.T) {
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
				requireSameAsServer(t, agent, s, got)
				require.Equal(t, a2a.V03, c.Version())
				require.Len(t, agent.TaskIDs(), 1)
			})
		})
	}
}

// Polls failing at random (dropped, 503, cut mid-body, 429 with
// Retry-After) over REST: the same result as the server, one task.
func TestRedteam3_RESTPollsFailingAtRandom(t *testing.T) {
	for _, v := range versions {
		for seed := range uint64(8) {
			t.Run(fmt.Sprintf("%s/seed%d", v, seed), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					faults := a2atest.RandomFaults(seed, 40, 0.4,
						a2atest.Drop(), a2atest.HTTPStatus(503, "<html>busy</html>"), a2atest.CutAfterBytes(20),
						a2atest.HTTPStatusWithHeader(429, "slow down", http.Header{"Retry-After": {"2"}}))
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
						a2atest.WithoutStreaming(), a2atest.WithScript(paced()...), a2atest.WithGetFaults(faults...))
					c := r3Resolve(t, agent, stream.WithPollInterval(50*time.Millisecond),
						stream.WithReconnect(reconnect.Policy{MaxAttempts: 10, Backoff: 100 * time.Millisecond}))
					s := c.Send(background(), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					requireSameAsServer(t, agent, s, got)
					require.Equal(t, 1, unarySends(agent))
					require.Len(t, agent.TaskIDs(), 1)
				})
			})
		}
	}
}

// README: "input-required — from a status update, a snapshot or a get-task
// result — ... calls your hook"; "The human is never asked twice for the
// same prompt". Discovered by polling over REST, answered, the task goes on.
func TestRedteam3_RESTHumanInputByPolling(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
					a2atest.WithoutStreaming(), a2atest.WithScript(asking()...),
					// a poll dropped after the prompt, one refused
					a2atest.WithGetFaults(a2atest.Fault{}, a2atest.Fault{}, a2atest.Drop(), a2atest.HTTPStatus(503, "x")))
				rec := &recorder{answers: []string{"Oct 10"}}
				c := r3Resolve(t, agent, stream.WithHumanInput(rec), stream.WithPollInterval(30*time.Millisecond))
				s := c.Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				requireSameAsServer(t, agent, s, got)
				require.Len(t, rec.requests, 1, "asked once")
				require.Equal(t, "Which dates?", rec.requests[0].Text())
				fu := followUps(agent)
				require.Len(t, fu, 1, "the reply is sent once")
				require.Equal(t, "Oct 10", fu[0].Message.Text())
				require.Equal(t, s.Task().ID, fu[0].Message.TaskID)
				require.Equal(t, s.Task().ContextID, fu[0].Message.ContextID)
				require.Equal(t, 0, sends(agent), "no streaming call at all")
				require.Equal(t, 2, unarySends(agent))
			})
		})
	}
}

// A REST server without a subscribe route (404 HTML), a stream cut twice:
// one Polling notice, no second subscribe, the server's result.
func TestRedteam3_RESTWithoutSubscribeRoute(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
					a2atest.WithoutResubscribe(), a2atest.WithScript(paced()...),
					a2atest.WithFaults(a2atest.CutAfterEvents(2)),
					a2atest.WithGetFaults(a2atest.Drop()))
				var ns r3notices
				c := r3Resolve(t, agent, ns.option(), stream.WithPollInterval(tick),
					stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: tick}))
				s := c.Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				requireSameAsServer(t, agent, s, got)
				require.Equal(t, 1, resubscribes(agent))
				require.Equal(t, 1, sends(agent))
				require.Equal(t, 0, unarySends(agent))
				require.Equal(t, 1, ns.count(stream.Polling))
			})
		})
	}
}

// A REST server without a subscribe route, and a prompt: the reply goes out
// once and the human is asked once.
func TestRedteam3_RESTWithoutSubscribeAndAPrompt(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
					a2atest.WithoutResubscribe(), a2atest.WithScript(asking()...),
					// the first stream cut before the prompt, the reply's stream cut too
					a2atest.WithFaults(a2atest.CutAfterEvents(2), a2atest.Fault{}, a2atest.CutAfterEvents(1)))
				rec := &recorder{answers: []string{"Oct 10"}}
				c := r3Resolve(t, agent, stream.WithHumanInput(rec), stream.WithPollInterval(tick))
				s := c.Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				requireSameAsServer(t, agent, s, got)
				require.Len(t, rec.requests, 1)
				require.Len(t, followUps(agent), 1)
			})
		})
	}
}

// A 1.0 tenant from the card goes with every request: the send, the polls,
// the reply.
func TestRedteam3_RESTTenantOnEveryRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithBindings(a2a.BindingHTTPJSON), a2atest.WithTenant("acme"),
			a2atest.WithoutStreaming(), a2atest.WithScript(asking()...))
		rec := &recorder{answers: []string{"yes"}}
		c := r3Resolve(t, agent, stream.WithHumanInput(rec), stream.WithPollInterval(tick))
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

// Cancelling the context while the stream waits between polls ends it with
// ctx's error at once, and a deadline inside a poll wait ends it exactly at
// the deadline.
func TestRedteam3_ContextEndsDuringAPollWait(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v)+"/cancel", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
					a2atest.WithoutStreaming(), a2atest.WithScript(a2atest.Working(""), a2atest.Pause(time.Hour),
						a2atest.Finish(a2a.StateCompleted, "")))
				ctx, cancel := context.WithCancel(background())
				defer cancel()
				time.AfterFunc(2500*time.Millisecond, cancel)
				start := time.Now()
				_, err := drain(t, r3Resolve(t, agent).Send(ctx, hello()))
				require.ErrorIs(t, err, context.Canceled)
				require.Equal(t, 2500*time.Millisecond, time.Since(start))
				require.Equal(t, 2, gets(agent), "polls at 1 s and 2 s")
			})
		})
		t.Run(string(v)+"/deadline", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
					a2atest.WithoutStreaming(), a2atest.WithScript(a2atest.Working(""), a2atest.Pause(time.Hour),
						a2atest.Finish(a2a.StateCompleted, "")))
				ctx, cancel := context.WithTimeout(background(), 3700*time.Millisecond)
				defer cancel()
				start := time.Now()
				_, err := drain(t, r3Resolve(t, agent).Send(ctx, hello()))
				require.ErrorIs(t, err, context.DeadlineExceeded)
				require.Equal(t, 3700*time.Millisecond, time.Since(start))
			})
		})
	}
}

// README: "A task that shows nothing new for WithStallTimeout ... ends in
// *stream.StalledError carrying the task". The default limit is 5 min,
// counted from the last progress, with the default 1 s polls.
func TestRedteam3_DefaultStallOverREST(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
					a2atest.WithoutStreaming(), a2atest.WithScript(a2atest.Working(""), a2atest.Pause(10*time.Second),
						a2atest.Chunk("a1", "late", false, true), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")))
				start := time.Now()
				s := r3Resolve(t, agent).Send(background(), hello())
				got, err := drain(t, s)
				var st *stream.StalledError
				require.ErrorAs(t, err, &st)
				require.Equal(t, stream.DefaultStallTimeout, st.After)
				require.Equal(t, "late", st.Task.Artifact("a1").Text())
				require.Equal(t, "late", got.text("a1"))
				require.Equal(t, 10*time.Second+stream.DefaultStallTimeout, time.Since(start),
					"progress last seen by the poll at 10 s")
			})
		})
	}
}

// A card that says streaming true, a REST server that refuses the streaming
// send with 400 -32004 (a message for an ended task, say): the message's
// refusal, no unary send. README: "from an agent whose card says it
// streams, that is the message's refusal (*a2a.RPCError), not 'cannot
// stream', and the message is not sent again".
func TestRedteam3_RESTRefusalFromAStreamingAgent(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := &restServer{v: v}
				srv.stream = srv.refuseStreaming
				srv.send = func(w http.ResponseWriter, _ *http.Request, _ []byte, _ int) { srv.result(w, snap(a2a.StateCompleted)) }
				card := `{"name":"n","supportedInterfaces":[{"url":"http://agent.test/r","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}],"capabilities":{"streaming":true}}`
				if v == a2a.V03 {
					card = `{"name":"n","url":"http://agent.test/r","preferredTransport":"HTTP+JSON","protocolVersion":"0.3.0","capabilities":{"streaming":true}}`
				}
				mux := http.NewServeMux()
				mux.Handle(stream.CardPath, serveCard(card))
				mux.Handle("/r/", srv)
				c, err := stream.Resolve(background(), "http://agent.test", stream.WithHTTPClient(a2atest.NewClient(mux)))
				require.NoError(t, err)
				require.Equal(t, a2a.BindingHTTPJSON, c.Binding())
				_, err = drain(t, c.Send(background(), hello()))
				var rpcErr *a2a.RPCError
				require.ErrorAs(t, err, &rpcErr)
				require.Equal(t, a2a.CodeUnsupportedOperation, rpcErr.Code)
				require.Equal(t, 0, srv.count("send"))
				require.Equal(t, 1, srv.count("stream"))
			})
		})
	}
}

// ---------------------------------------------------------------------------
// Hand-written agents that cannot stream, misbehaving poll by poll.

// agentMsg is an agent message of t-1 / c-1.
func agentMsg(id, text string) *a2a.Message {
	return &a2a.Message{ID: id, Role: a2a.RoleAgent, TaskID: "t-1", ContextID: "c-1", Parts: textParts(text)}
}

// withHistory returns t with history hs.
func withHistory(t *a2a.Task, hs ...*a2a.Message) *a2a.Task {
	for _, m := range hs {
		t.History = append(t.History, *m)
	}
	return t
}

// A task that goes backwards (the server lost it and rebuilt it): working
// with [x y], then submitted with no artifact, then [x y z], completed.
// README: "Task() always equals what the deltas build"; no part twice.
func TestRedteam3_PolledTaskGoesBackwards(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(v, snap(a2a.StateSubmitted),
					answer(snap(a2a.StateWorking, "x", "y")),
					answer(snap(a2a.StateSubmitted)),
					answer(snap(a2a.StateWorking, "x", "y", "z")),
					answer(snap(a2a.StateCompleted, "x", "y", "z")))
				s := restClient(t, srv, v).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				require.Equal(t, "xyz", got.text("a1"))
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
				require.Equal(t, 1, srv.count("send"))
			})
		})
	}
}

// Artifacts shrink, then grow: [a b c], [a], [a d]. The shrink is the
// agent's (a truncation), delivered as a replacement; the final artifact
// is the server's.
func TestRedteam3_PolledArtifactShrinksThenGrows(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(v, snap(a2a.StateSubmitted),
					answer(snap(a2a.StateWorking, "a", "b", "c")),
					answer(snap(a2a.StateWorking, "a")),
					answer(snap(a2a.StateWorking, "a", "d")),
					answer(snap(a2a.StateCompleted, "a", "d")))
				s := restClient(t, srv, v).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				require.Equal(t, []a2a.Part{{Text: "a"}, {Text: "d"}}, got.artifacts[got.find("a1")].Parts)
			})
		})
	}
}

// History reorders between polls: g1 g2, then g2 g1, then g1 g2 g3. Each
// agent message is delivered once ("Each message is delivered once, by
// messageId ... history alike").
func TestRedteam3_PolledHistoryReorders(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g1, g2, g3 := agentMsg("g1", "one"), agentMsg("g2", "two"), agentMsg("g3", "three")
				srv := pollSeq(v, snap(a2a.StateSubmitted),
					answer(withHistory(snap(a2a.StateWorking), g1, g2)),
					answer(withHistory(snap(a2a.StateWorking), g2, g1)),
					answer(withHistory(snap(a2a.StateWorking), g1, g2, g3)),
					answer(withHistory(snap(a2a.StateCompleted), g3, g1, g2)))
				got, err := drain(t, restClient(t, srv, v).Send(background(), hello()))
				require.NoError(t, err)
				n := map[string]int{}
				for _, id := range got.messages {
					n[id]++
				}
				require.Equal(t, 1, n["g1"])
				require.Equal(t, 1, n["g2"])
				require.Equal(t, 1, n["g3"])
			})
		})
	}
}

// A server whose clock jumps back: working stamped 12:00:10, then the
// completed task stamped 12:00:05. A get-task result is the task as it is
// now, and a terminal task ends the stream ("terminal ends the stream").
func TestRedteam3_PolledTerminalWithAnOlderTimestamp(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
				working := snap(a2a.StateWorking, "x")
				working.Status.Timestamp = t0.Add(10 * time.Second)
				done := snap(a2a.StateCompleted, "x", "y")
				done.Status.Timestamp = t0.Add(5 * time.Second)
				srv := pollSeq(v, snap(a2a.StateSubmitted), answer(working), answer(done))
				start := time.Now()
				s := restClient(t, srv, v, stream.WithStallTimeout(time.Minute)).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err, "the polled task is completed")
				require.Equal(t, "xy", got.text("a1"))
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
				require.Equal(t, 2*time.Second, time.Since(start))
			})
		})
	}
}

// A server that stamps the status afresh on every get-task (it builds the
// status when it answers): the task still shows nothing new, so the stall
// limit applies. README: "A task that shows nothing new for
// WithStallTimeout ... ends in *stream.StalledError"; WithStallTimeout:
// "nothing new (no status change, part or message)".
func TestRedteam3_StallWithFreshTimestamps(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(v, snap(a2a.StateSubmitted), func(w http.ResponseWriter, s *restServer) {
					tk := snap(a2a.StateWorking, "x")
					tk.Status.Timestamp = time.Now().UTC()
					s.task(w, tk)
				})
				start := time.Now()
				s := restClient(t, srv, v, stream.WithStallTimeout(time.Minute)).Send(background(), hello())
				got, err := drain(t, s)
				var st *stream.StalledError
				require.ErrorAs(t, err, &st, "got %v after %v, %d events", err, time.Since(start), len(got.events))
				require.Equal(t, time.Minute+time.Second, time.Since(start), "progress last seen by the first poll")
			})
		})
	}
}

// README: "event for another task or another context" is a
// *stream.ProtocolError, never retried, carrying the last task.
func TestRedteam3_PollAnswersAnotherTask(t *testing.T) {
	for _, v := range versions {
		for _, c := range []struct {
			name string
			bad  *a2a.Task
		}{
			{"another task", &a2a.Task{ID: "t-2", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateCompleted}}},
			{"another context", &a2a.Task{ID: "t-1", ContextID: "c-9", Status: a2a.TaskStatus{State: a2a.StateCompleted}}},
		} {
			t.Run(string(v)+"/"+c.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					srv := pollSeq(v, snap(a2a.StateSubmitted), answer(snap(a2a.StateWorking, "kept")), answer(c.bad))
					_, err := drain(t, restClient(t, srv, v).Send(background(), hello()))
					pe := requireProtocolError(t, err, "")
					requireKept(t, pe)
					require.Equal(t, 2, srv.count("get"), "never retried")
				})
			})
		}
	}
}

// README: "a Retry-After lengthens one wait"; "HTTP 408, 429 and 5xx ...
// are failed attempts". A poll answered 429 with Retry-After: 7 (seconds)
// and one with an HTTP date 4 s ahead.
func TestRedteam3_PollRetryAfter(t *testing.T) {
	for _, v := range versions {
		for _, form := range []string{"seconds", "date"} {
			t.Run(string(v)+"/"+form, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					start := time.Now()
					want := 7 * time.Second
					srv := pollSeq(v, snap(a2a.StateWorking),
						func(w http.ResponseWriter, s *restServer) {
							if form == "seconds" {
								w.Header().Set("Retry-After", "7")
							} else {
								// time.Now() is 1 s after start: the date is 8 s after start.
								w.Header().Set("Retry-After", time.Now().Add(want).UTC().Format(http.TimeFormat))
							}
							w.Header().Set("Content-Type", "text/plain")
							w.WriteHeader(http.StatusTooManyRequests)
							io.WriteString(w, "slow down")
						},
						answer(snap(a2a.StateCompleted, "x")))
					var rc reconnects
					got, err := drain(t, restClient(t, srv, v, rc.option()).Send(background(), hello()))
					require.NoError(t, err)
					require.Equal(t, "x", got.text("a1"))
					require.Equal(t, 2, srv.count("get"))
					require.Equal(t, time.Second+want, time.Since(start), "one poll interval, then the wait the server asked for")
					require.Len(t, rc.waits, 1)
					require.Equal(t, want, rc.waits[0])
				})
			})
		}
	}
}

// A poll answered 200 with an HTML page (a captive portal, a proxy's error
// page served as 200): README: "wrong content type" is a
// *stream.ProtocolError carrying the last task.
func TestRedteam3_PollAnswersHTMLWith200(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(v, snap(a2a.StateSubmitted), answer(snap(a2a.StateWorking, "kept")),
					func(w http.ResponseWriter, _ *restServer) {
						w.Header().Set("Content-Type", "text/html")
						io.WriteString(w, htmlPage)
					})
				_, err := drain(t, restClient(t, srv, v).Send(background(), hello()))
				pe := requireProtocolError(t, err, "")
				requireKept(t, pe)
				require.Equal(t, 1, srv.count("send"))
			})
		})
	}
}

// Truncated JSON in a complete response (the server's bug, not the
// network's): a *stream.ProtocolError carrying the last task.
func TestRedteam3_PollAnswersTruncatedJSON(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(v, snap(a2a.StateSubmitted), answer(snap(a2a.StateWorking, "kept")),
					func(w http.ResponseWriter, _ *restServer) {
						w.Header().Set("Content-Type", "application/json")
						w.Header().Set("Content-Length", "20")
						io.WriteString(w, `{"id":"t-1","status"`)
					})
				_, err := drain(t, restClient(t, srv, v).Send(background(), hello()))
				pe := requireProtocolError(t, err, "")
				requireKept(t, pe)
			})
		})
	}
}

// A poll answered with an endless body: README: "oversized event" is a
// *stream.ProtocolError; the client stops reading near the limit.
func TestRedteam3_PollAnswersAHugeBody(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			var written int64
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(v, snap(a2a.StateSubmitted), answer(snap(a2a.StateWorking, "kept")),
					func(w http.ResponseWriter, _ *restServer) {
						w.Header().Set("Content-Type", "application/json")
						io.WriteString(w, `{"id":"t-1","contextId":"c-1","metadata":{"x":"`)
						buf := make([]byte, 32<<10)
						for i := range buf {
							buf[i] = 'a'
						}
						for written < 100<<20 {
							n, err := w.Write(buf)
							written += int64(n)
							if err != nil {
								return
							}
						}
					})
				_, err := drain(t, restClient(t, srv, v, stream.WithMaxEventSize(1<<20)).Send(background(), hello()))
				pe := requireProtocolError(t, err, "")
				requireKept(t, pe)
			})
			require.Less(t, written, int64(4<<20), "the client stopped reading near the 1 MiB limit")
		})
	}
}

// A poll answered 204 No Content, then the task: an empty answer is not a
// task. Whatever it is taken for, the stream must not end in nil with a
// task that is not done, and must not take it for the end of the task.
func TestRedteam3_PollAnswers204(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(v, snap(a2a.StateSubmitted), answer(snap(a2a.StateWorking, "kept")),
					func(w http.ResponseWriter, _ *restServer) { w.WriteHeader(http.StatusNoContent) },
					answer(snap(a2a.StateCompleted, "kept", "!")))
				s := restClient(t, srv, v).Send(background(), hello())
				got, err := drain(t, s)
				if err == nil {
					require.Equal(t, "kept!", got.text("a1"))
					require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
					return
				}
				var pe *stream.ProtocolError
				var he *stream.HTTPError
				require.True(t, errors.As(err, &pe) || errors.As(err, &he), "a typed error: %T %v", err, err)
			})
		})
	}
}

// A poll redirected (307) to another host: README: "Headers set with
// WithHeader ... are never sent to another host."
func TestRedteam3_PollRedirectedToAnotherHost(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(v, snap(a2a.StateSubmitted), func(w http.ResponseWriter, _ *restServer) {
					w.Header().Set("Location", "http://evil.test/tasks/t-1")
					w.WriteHeader(http.StatusTemporaryRedirect)
				})
				var evilHeaders []http.Header
				var mu sync.Mutex
				evil := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					evilHeaders = append(evilHeaders, r.Header.Clone())
					mu.Unlock()
					srv.task(w, snap(a2a.StateCompleted, "x"))
				})
				both := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Host == "evil.test" {
						evil.ServeHTTP(w, r)
						return
					}
					srv.ServeHTTP(w, r)
				})
				c, err := stream.NewRESTClient("http://agent.test", stream.WithVersion(v),
					stream.WithHTTPClient(a2atest.NewClient(both)),
					stream.WithHeader("X-Api-Key", "sekrit"), stream.WithHeader("Authorization", "Bearer sekrit"))
				require.NoError(t, err)
				_, _ = drain(t, c.Send(background(), hello()))
				require.Equal(t, "sekrit", srv.header[0].Get("X-Api-Key"), "the agent's own origin gets the header")
				for _, h := range evilHeaders {
					require.Empty(t, h.Get("X-Api-Key"))
					require.Empty(t, h.Get("Authorization"))
				}
			})
		})
	}
}

// A REST unary send answered 200 with an error body (no task, no message):
// the stream must end in an error, and the message must not go out again.
func TestRedteam3_RESTSendAnswers200WithAnErrorBody(t *testing.T) {
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

// ---------------------------------------------------------------------------
// REST streams with "event: error".

// README: "A JSON-RPC error in the middle of a stream, once the task is
// known, makes the stream fetch the task: if it ended ..., the stream ends
// as the task did; otherwise the RPC error is the ending and Task() holds
// the task as fetched." Over REST, the error is an "event: error".
func TestRedteam3_RESTErrorEventMidStream(t *testing.T) {
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

// ---------------------------------------------------------------------------
// Human input discovered by polling, hand-written.

// The reply's poll still shows the answered prompt twice (the server has
// not processed the reply yet), the prompt has no message ID: README: "The
// human is never asked twice for the same prompt".
func TestRedteam3_StalePromptAfterTheReplyWhilePolling(t *testing.T) {
	for _, v := range versions {
		for _, withID := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/id %v", v, withID), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					prompt := agentMsg("q-1", "which city?")
					if !withID {
						prompt.ID = ""
					}
					asking := snap(a2a.StateInputRequired, "a")
					asking.Status.Message = prompt
					srv := &restServer{v: v}
					srv.stream = srv.refuseStreaming
					srv.send = func(w http.ResponseWriter, _ *http.Request, _ []byte, n int) {
						if n == 0 {
							srv.result(w, snap(a2a.StateWorking))
							return
						}
						srv.result(w, asking) // the reply's answer: the task as it was
					}
					srv.get = func(w http.ResponseWriter, _ *http.Request, n int) {
						switch {
						case srv.count("send") < 2:
							srv.task(w, asking)
						case n < 4:
							srv.task(w, asking) // stale
						default:
							srv.task(w, snap(a2a.StateCompleted, "a", "b"))
						}
					}
					rec := &recorder{answers: []string{"Lisbon", "again?"}}
					got, err := drain(t, restClient(t, srv, v, stream.WithHumanInput(rec)).Send(background(), hello()))
					require.NoError(t, err)
					require.Equal(t, "ab", got.text("a1"))
					require.Len(t, rec.requests, 1, "asked once")
					require.Equal(t, 2, srv.count("send"), "the message, then the reply, once each")
				})
			})
		}
	}
}

// The reply's unary send is dropped before the agent took it, then taken
// with its answer cut: README: "if the reply's send dies before any
// response, the stream ... re-sends the same reply with the same message
// ID"; the agent holds the reply once.
func TestRedteam3_ReplySendDroppedWhilePolling(t *testing.T) {
	for _, v := range versions {
		for _, f := range []a2atest.Fault{a2atest.Drop(), a2atest.CutAfterBytes(15)} {
			t.Run(string(v)+"/"+f.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
						a2atest.WithoutStreaming(), a2atest.WithScript(asking()...),
						a2atest.WithSendFaults(a2atest.Fault{}, f))
					rec := &recorder{answers: []string{"Oct 10", "again?"}}
					s := r3Resolve(t, agent, stream.WithHumanInput(rec), stream.WithPollInterval(tick)).Send(background(), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					server := requireSameAsServer(t, agent, s, got)
					require.Len(t, rec.requests, 1, "asked once")
					ids := map[string]bool{}
					for _, r := range followUps(agent) {
						ids[r.Message.ID] = true
					}
					require.Len(t, ids, 1, "one reply, re-sent with the same message ID if at all")
					n := 0
					for _, m := range server.History {
						if m.Role == a2a.RoleUser && m.Text() == "Oct 10" {
							n++
						}
					}
					require.Equal(t, 1, n, "the agent holds the reply once")
				})
			})
		}
	}
}

// ---------------------------------------------------------------------------
// Cards.

// README: Resolve "considers every interface of a binding and version this
// module speaks ... It takes the first JSON-RPC one, else the first
// HTTP+JSON one, in the card's order. stream.WithBinding(a2a.BindingHTTPJSON)
// puts REST first; stream.WithVersion keeps only that version."
func TestRedteam3_ResolveOddCards(t *testing.T) {
	cases := []struct {
		name     string
		card     string
		opts     []stream.Option
		binding  a2a.Binding
		endpoint string
		version  a2a.Version
	}{
		{"unknown bindings and versions first",
			`{"name":"x","supportedInterfaces":[` +
				`{"url":"http://agent.test/g","protocolBinding":"GRPC","protocolVersion":"1.0"},` +
				`{"url":"http://agent.test/f","protocolBinding":"FOO","protocolVersion":"1.0"},` +
				`{"url":"http://agent.test/j2","protocolBinding":"JSONRPC","protocolVersion":"2.0"},` +
				`{"url":"http://agent.test/r","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}]}`,
			nil, a2a.BindingHTTPJSON, "http://agent.test/r", a2a.V10},
		{"duplicates: the first wins",
			`{"name":"x","supportedInterfaces":[` +
				`{"url":"http://agent.test/r1","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"},` +
				`{"url":"http://agent.test/r2","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"},` +
				`{"url":"http://agent.test/j1","protocolBinding":"JSONRPC","protocolVersion":"1.0"},` +
				`{"url":"http://agent.test/j2","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`,
			nil, a2a.BindingJSONRPC, "http://agent.test/j1", a2a.V10},
		{"REST preferred, but only JSON-RPC in the version asked",
			`{"name":"x","supportedInterfaces":[` +
				`{"url":"http://agent.test/r","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"},` +
				`{"url":"http://agent.test/j","protocolBinding":"JSONRPC","protocolVersion":"0.3"}]}`,
			[]stream.Option{stream.WithBinding(a2a.BindingHTTPJSON), stream.WithVersion(a2a.V03)}, a2a.BindingJSONRPC, "http://agent.test/j", a2a.V03},
		{"0.3 card: REST in url, JSON-RPC in additionalInterfaces",
			`{"name":"x","url":"http://agent.test/r","preferredTransport":"HTTP+JSON","protocolVersion":"0.3.0",` +
				`"additionalInterfaces":[{"url":"http://agent.test/r","transport":"HTTP+JSON"},{"url":"http://agent.test/j","transport":"JSONRPC"}]}`,
			nil, a2a.BindingJSONRPC, "http://agent.test/j", a2a.V03},
		{"0.3 card: WithBinding REST",
			`{"name":"x","url":"http://agent.test/j","preferredTransport":"JSONRPC","protocolVersion":"0.3.0",` +
				`"additionalInterfaces":[{"url":"http://agent.test/j","transport":"JSONRPC"},{"url":"http://agent.test/r","transport":"HTTP+JSON"}]}`,
			[]stream.Option{stream.WithBinding(a2a.BindingHTTPJSON)}, a2a.BindingHTTPJSON, "http://agent.test/r", a2a.V03},
		{"hybrid card, REST in 0.3 asked",
			`{"name":"x","supportedInterfaces":[` +
				`{"url":"http://agent.test/j","protocolBinding":"JSONRPC","protocolVersion":"1.0"},` +
				`{"url":"http://agent.test/r","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}],` +
				`"url":"http://agent.test/j","preferredTransport":"JSONRPC","protocolVersion":"0.3.0",` +
				`"additionalInterfaces":[{"url":"http://agent.test/r03","transport":"HTTP+JSON"}]}`,
			[]stream.Option{stream.WithBinding(a2a.BindingHTTPJSON), stream.WithVersion(a2a.V03)}, a2a.BindingHTTPJSON, "http://agent.test/r03", a2a.V03},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithCardJSON([]byte(c.card)))
				client, err := stream.Resolve(background(), "http://agent.test", append([]stream.Option{stream.WithHTTPClient(agent.Client())}, c.opts...)...)
				require.NoError(t, err)
				require.Equal(t, c.binding, client.Binding())
				require.Equal(t, c.endpoint, client.Endpoint())
				require.Equal(t, c.version, client.Version())
			})
		})
	}
}

// A card whose interface URL is relative, or has no host, or another
// scheme: Resolve either makes it absolute against the card's URL or
// refuses the card with an *InvalidCardError; a Client must never be made
// for an endpoint it cannot reach.
func TestRedteam3_ResolveRelativeAndOddURLs(t *testing.T) {
	for _, u := range []string{"/rest", "rest", "", "//other.test/rest"} {
		for _, b := range []string{"HTTP+JSON", "JSONRPC"} {
			t.Run(b+"/"+u, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					card := fmt.Sprintf(`{"name":"x","supportedInterfaces":[{"url":%q,"protocolBinding":%q,"protocolVersion":"1.0"}]}`, u, b)
					agent := a2atest.NewAgent(a2atest.WithCardJSON([]byte(card)))
					client, err := stream.Resolve(background(), "http://agent.test", stream.WithHTTPClient(agent.Client()))
					if err != nil {
						var ic *stream.InvalidCardError
						require.ErrorAs(t, err, &ic)
						return
					}
					ep := client.Endpoint()
					require.True(t, strings.HasPrefix(ep, "http://agent.test/") || strings.HasPrefix(ep, "http://other.test/"),
						"an absolute http(s) endpoint, got %q", ep)
				})
			})
		}
	}
}

// A hybrid a2atest agent serving both versions over both bindings, REST
// first in its card: each (binding, version) picked by the options works
// end to end, cut and healed, the message sent once.
func TestRedteam3_HybridAgentEveryChoice(t *testing.T) {
	for _, b := range []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		for _, v := range versions {
			t.Run(string(b)+"/"+string(v), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03, a2a.V10),
						a2atest.WithBindings(a2a.BindingHTTPJSON, a2a.BindingJSONRPC), a2atest.WithRESTBase("/rest"),
						a2atest.WithScript(paced()...), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
					c := r3Resolve(t, agent, stream.WithBinding(b), stream.WithVersion(v))
					require.Equal(t, b, c.Binding())
					require.Equal(t, v, c.Version())
					s := c.Send(background(), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					requireSameAsServer(t, agent, s, got)
					require.Equal(t, 1, sends(agent))
					for _, r := range agent.Requests() {
						require.Equal(t, b, r.Binding)
					}
				})
			})
		}
	}
}

// ---------------------------------------------------------------------------
// Dialects crossed: a 0.3 REST agent answering polls in 1.0 shapes (parts
// under "parts"), a 1.0 REST agent answering in the 0.3 JSON-RPC shapes
// ("kind", lower-case states). The prompt's text reaches the hook and data
// parts are intact.
func TestRedteam3_PollsInTheOtherDialect(t *testing.T) {
	for _, c := range []struct {
		name      string
		client    a2a.Version
		writeV    a2a.Version
		writeBind a2a.Binding
	}{
		{"0.3 client, 1.0 shapes", a2a.V03, a2a.V10, a2a.BindingHTTPJSON},
		{"1.0 client, 0.3 JSON-RPC shapes", a2a.V10, a2a.V03, a2a.BindingJSONRPC},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				asking := snap(a2a.StateInputRequired, "x")
				asking.Artifacts[0].Parts = append(asking.Artifacts[0].Parts, a2a.Part{Data: json.RawMessage(`{"k":1}`)})
				asking.Status.Message = agentMsg("q-1", "which city?")
				done := snap(a2a.StateCompleted, "x")
				done.Artifacts[0].Parts = asking.Artifacts[0].Parts
				other := func(tk *a2a.Task) func(w http.ResponseWriter, _ *restServer) {
					return func(w http.ResponseWriter, _ *restServer) {
						raw, err := a2a.Codec{Version: c.writeV, Binding: c.writeBind}.EncodeTask(tk)
						if err != nil {
							panic(err)
						}
						w.Header().Set("Content-Type", "application/json")
						w.Write(raw)
					}
				}
				srv := pollSeq(c.client, snap(a2a.StateSubmitted), other(asking), other(done))
				var asked []string
				hook := hitl.Func(func(_ context.Context, req *hitl.Request) ([]a2a.Part, error) {
					asked = append(asked, req.Text())
					return hitl.Text("Lisbon"), nil
				})
				s := restClient(t, srv, c.client, stream.WithHumanInput(hook))
				got, err := drain(t, s.Send(background(), hello()))
				require.NoError(t, err)
				require.Equal(t, []string{"which city?"}, asked)
				parts := got.artifacts[got.find("a1")].Parts
				require.Len(t, parts, 2)
				require.JSONEq(t, `{"k":1}`, string(parts[1].Data))
			})
		})
	}
}

// DEFECT. Resolve: "A card with no usable interface ends in an
// *InvalidCardError"; README, Errors: "unusable agent card (from Resolve)
// | *stream.InvalidCardError"; "Match them with errors.As ..., never by
// text". An interface whose URL is not an absolute http(s) URL (another
// scheme, no host, a host:port without a scheme as misconfigured cards
// carry) makes Resolve fail with an untyped error, and an unusable first
// interface hides a usable one after it.
// Observed: *errors.errorString "stream: invalid endpoint ...: want an
// absolute http or https URL", for the card alone and with a good
// interface after it. Expected: *stream.InvalidCardError when nothing is
// usable; the next usable interface otherwise.
func TestRedteam3_UnusableInterfaceURL(t *testing.T) {
	for _, u := range []string{"ftp://agent.test/rest", "http:///rest", "agent.test:8080/rest"} {
		for _, b := range []string{"HTTP+JSON", "JSONRPC"} {
			t.Run(b+"/"+u+"/alone", func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					card := fmt.Sprintf(`{"name":"x","supportedInterfaces":[{"url":%q,"protocolBinding":%q,"protocolVersion":"1.0"}]}`, u, b)
					agent := a2atest.NewAgent(a2atest.WithCardJSON([]byte(card)))
					client, err := stream.Resolve(background(), "http://agent.test", stream.WithHTTPClient(agent.Client()))
					if err == nil {
						require.True(t, strings.HasPrefix(client.Endpoint(), "http://agent.test/"), client.Endpoint())
						return
					}
					var ic *stream.InvalidCardError
					require.ErrorAs(t, err, &ic, "%T: %v", err, err)
				})
			})
			t.Run(b+"/"+u+"/then a good one", func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					card := fmt.Sprintf(`{"name":"x","supportedInterfaces":[{"url":%q,"protocolBinding":%q,"protocolVersion":"1.0"},`+
						`{"url":"http://agent.test/","protocolBinding":%q,"protocolVersion":"1.0"}]}`, u, b, b)
					agent := a2atest.NewAgent(a2atest.WithBindings(a2a.BindingJSONRPC, a2a.BindingHTTPJSON), a2atest.WithCardJSON([]byte(card)))
					client, err := stream.Resolve(background(), "http://agent.test", stream.WithHTTPClient(agent.Client()))
					require.NoError(t, err)
					require.Equal(t, "http://agent.test/", client.Endpoint())
					_, err = drain(t, client.Send(background(), hello()))
					require.NoError(t, err)
				})
			})
		}
	}
}

// ---------------------------------------------------------------------------
// Scale: polling must stay linear.

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

// idlePolls runs a stream whose task shows nothing new for n polls (1 ms
// apart, no stall limit), then completes; it returns the mallocs counted.
func idlePolls(t *testing.T, v a2a.Version, n int) uint64 {
	working := mustTask(v, busyTask(a2a.StateWorking))
	raws := make([][]byte, n+1)
	for i := range n {
		raws[i] = working
	}
	raws[n] = mustTask(v, busyTask(a2a.StateCompleted))
	first := mustEvent(v, snap(a2a.StateSubmitted))
	var before, after runtimeMem
	var gets int
	before.read()
	synctest.Test(t, func(t *testing.T) {
		srv := rawPolls(v, first, raws)
		s := restClient(t, srv, v, stream.WithPollInterval(time.Millisecond), stream.WithStallTimeout(0))
		start := time.Now()
		_, err := s.Send(background(), hello()).Wait()
		require.NoError(t, err)
		require.Equal(t, time.Duration(n+1)*time.Millisecond, time.Since(start))
		gets = srv.count("get")
	})
	after.read()
	require.Equal(t, n+1, gets)
	return after.mallocs - before.mallocs
}

// README (Polling rules): "a poll with nothing new does neither"; the
// cost of a poll with nothing new must not grow with the number of polls
// before it. 10,000 idle polls cost about ten times 1,000.
func TestRedteam3_TenThousandIdlePollsAreLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("large")
	}
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			small := idlePolls(t, v, 1_000)
			large := idlePolls(t, v, 10_000)
			ratio := float64(large) / float64(small)
			t.Logf("%s: mallocs 1,000 polls %d, 10,000 polls %d, ratio %.1f (%.0f per poll)", v, small, large, ratio, float64(large)/10_000)
			require.Less(t, ratio, 15.0, "linear: about 10")
		})
	}
}

// growingPolls runs a stream whose task gains n/10 artifacts (or history
// messages) on each of 10 polls, then completes; it returns the mallocs
// counted and checks that everything arrived once.
func growingPolls(t *testing.T, v a2a.Version, n int, messages bool) uint64 {
	build := func(k int, st a2a.TaskState) *a2a.Task {
		tk := snap(st)
		for i := range k {
			if messages {
				tk.History = append(tk.History, *agentMsg(fmt.Sprintf("m%d", i), "x"))
			} else {
				tk.Artifacts = append(tk.Artifacts, a2a.Artifact{ID: fmt.Sprintf("a%d", i), Parts: textParts("x")})
			}
		}
		return tk
	}
	var raws [][]byte
	for p := 1; p <= 10; p++ {
		raws = append(raws, mustTask(v, build(p*n/10, a2a.StateWorking)))
	}
	raws = append(raws, mustTask(v, build(n, a2a.StateCompleted)))
	first := mustEvent(v, snap(a2a.StateSubmitted))
	var before, after runtimeMem
	before.read()
	var arts, msgs int
	synctest.Test(t, func(t *testing.T) {
		s := restClient(t, rawPolls(v, first, raws), v, stream.WithMaxEventSize(256<<20)).Send(background(), hello())
		defer s.Close()
		seen := map[string]bool{}
		for s.Next() {
			switch e := s.Event().(type) {
			case *a2a.ArtifactUpdate:
				require.False(t, seen[e.Artifact.ID], "artifact %s twice", e.Artifact.ID)
				seen[e.Artifact.ID] = true
				arts++
			case *a2a.Message:
				require.False(t, seen[e.ID], "message %s twice", e.ID)
				seen[e.ID] = true
				msgs++
			}
		}
		require.NoError(t, s.Err())
		if messages {
			require.Len(t, s.Task().History, n+1, "the agent's messages and the user's")
		} else {
			require.Len(t, s.Task().Artifacts, n)
		}
	})
	after.read()
	if messages {
		require.Equal(t, n, msgs)
	} else {
		require.Equal(t, n, arts)
	}
	return after.mallocs - before.mallocs
}

// 10,000 artifacts (and 10,000 history messages) arriving by polling, in
// ten polls: the client's work is linear in the task's size.
func TestRedteam3_TenThousandArtifactsByPollingAreLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("large")
	}
	for _, v := range versions {
		for _, messages := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/messages %v", v, messages), func(t *testing.T) {
				small := growingPolls(t, v, 1_000, messages)
				large := growingPolls(t, v, 10_000, messages)
				ratio := float64(large) / float64(small)
				t.Logf("mallocs 1,000: %d, 10,000: %d, ratio %.1f", small, large, ratio)
				require.Less(t, ratio, 15.0, "linear: about 10")
			})
		}
	}
}

// BenchmarkRedteam3_IdlePoll measures one poll with nothing new, over REST.
func BenchmarkRedteam3_IdlePoll(b *testing.B) {
	for _, v := range versions {
		b.Run(string(v), func(b *testing.B) {
			working := mustTask(v, busyTask(a2a.StateWorking))
			done := mustTask(v, busyTask(a2a.StateCompleted))
			first := mustEvent(v, snap(a2a.StateSubmitted))
			n := b.N
			raws := make([][]byte, n+1)
			for i := range n {
				raws[i] = working
			}
			raws[n] = done
			b.ReportAllocs()
			b.ResetTimer()
			srv := rawPolls(v, first, raws)
			c, err := stream.NewRESTClient("http://agent.test", stream.WithVersion(v),
				stream.WithHTTPClient(a2atest.NewClient(srv)), stream.WithPollInterval(time.Millisecond), stream.WithStallTimeout(0),
				stream.WithSleep(func(context.Context, time.Duration) error { return nil }))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := c.Send(background(), hello()).Wait(); err != nil {
				b.Fatal(err)
			}
			if got := srv.count("get"); got != n+1 {
				b.Fatalf("%d polls, want %d", got, n+1)
			}
		})
	}
}

type runtimeMem struct{ mallocs uint64 }

func (m *runtimeMem) read() {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.mallocs = ms.Mallocs
}

// ---------------------------------------------------------------------------
// More polling behaviours.

// The agent replaces an artifact and then restores its first version:
// [x], [y], [x]. A get-task result is the task as it is now: it wins every
// disagreement (dedupe.Ledger.Reconcile), a restore included.
func TestRedteam3_PolledArtifactRestoredToAnEarlierVersion(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(v, snap(a2a.StateSubmitted),
					answer(snap(a2a.StateWorking, "x")),
					answer(snap(a2a.StateWorking, "y")),
					answer(snap(a2a.StateWorking, "x")),
					answer(snap(a2a.StateCompleted, "x")))
				s := restClient(t, srv, v).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				require.Equal(t, "x", got.text("a1"), "the application holds what the server holds")
				require.Equal(t, "x", s.Task().Artifact("a1").Text())
			})
		})
	}
}

// Status messages without IDs, in the same state, poll after poll: README:
// "'step 1' then 'step 2' in the same state are both delivered", and each
// resets the stall clock.
func TestRedteam3_PolledStepsWithoutIDs(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				step := func(text string) *a2a.Task {
					tk := snap(a2a.StateWorking)
					m := agentMsg("", text)
					tk.Status.Message = m
					return tk
				}
				srv := pollSeq(v, snap(a2a.StateSubmitted),
					answer(step("step 1")), answer(step("step 1")), answer(step("step 2")), answer(step("step 2")))
				start := time.Now()
				s := restClient(t, srv, v, stream.WithStallTimeout(10*time.Second)).Send(background(), hello())
				var texts []string
				for s.Next() {
					if e, ok := s.Event().(*a2a.StatusUpdate); ok && e.Status.Message != nil {
						texts = append(texts, e.Status.Message.Text())
					}
				}
				var st *stream.StalledError
				require.ErrorAs(t, s.Err(), &st)
				require.Equal(t, []string{"step 1", "step 2"}, texts)
				require.Equal(t, 3*time.Second+10*time.Second, time.Since(start), "step 2 came with the third poll")
			})
		})
	}
}

// An agent that cannot stream answers with a Message (no task): README:
// "a Message answer (no task) | nil | the Message was yielded; Task() is
// nil". No poll follows. A send answering a completed task: no poll either.
func TestRedteam3_UnaryAnswersThatNeedNoPolls(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v)+"/message", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
					a2atest.WithoutStreaming(), a2atest.WithScript(a2atest.Reply("hi there")))
				s := r3Resolve(t, agent).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				require.Nil(t, s.Task())
				require.Len(t, got.events, 1)
				require.Equal(t, "hi there", got.events[0].(*a2a.Message).Text())
				require.Equal(t, 0, gets(agent))
			})
		})
		t.Run(string(v)+"/completed", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON), a2atest.WithoutStreaming())
				s := r3Resolve(t, agent).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				requireSameAsServer(t, agent, s, got)
				require.Equal(t, "hello world", got.text("a1"))
				require.Equal(t, 0, gets(agent))
			})
		})
	}
}

// Subscribe to a running task of a REST server without a subscribe route,
// and of an agent that cannot stream: both follow the task by polling.
func TestRedteam3_SubscribeThatMustPoll(t *testing.T) {
	for _, v := range versions {
		for _, mode := range []string{"without resubscribe", "without streaming"} {
			t.Run(string(v)+"/"+mode, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					opt := a2atest.WithoutResubscribe()
					if mode == "without streaming" {
						opt = a2atest.WithoutStreaming()
					}
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
						opt, a2atest.WithScript(paced()...))
					c := r3Resolve(t, agent, stream.WithPollInterval(tick))
					// Start the task with a unary send of another client, then follow it.
					req, _ := http.NewRequest(http.MethodPost, "http://agent.test"+map[a2a.Version]string{a2a.V03: "/v1", a2a.V10: ""}[v]+"/message:send",
						strings.NewReader(sendBody(t, v)))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("A2A-Version", string(v))
					resp, err := agent.Client().Do(req)
					require.NoError(t, err)
					resp.Body.Close()
					require.Less(t, resp.StatusCode, 300)
					ids := agent.TaskIDs()
					require.Len(t, ids, 1)
					s := c.Subscribe(background(), ids[0])
					got, err := drain(t, s)
					require.NoError(t, err)
					requireSameAsServer(t, agent, s, got)
					require.GreaterOrEqual(t, gets(agent), 1)
				})
			})
		}
	}
}

// sendBody is a non-blocking REST send body of version v.
func sendBody(t *testing.T, v a2a.Version) string {
	raw, err := a2a.Codec{Version: v, Binding: a2a.BindingHTTPJSON}.EncodeMessage(&a2a.Message{ID: "u-1", Role: a2a.RoleUser, Parts: textParts("go")})
	require.NoError(t, err)
	if v == a2a.V03 {
		return fmt.Sprintf(`{"message":%s,"configuration":{"blocking":false}}`, raw)
	}
	return fmt.Sprintf(`{"message":%s,"configuration":{"returnImmediately":true}}`, raw)
}

// README: "POST {base}/tasks/{id}:cancel and :subscribe (GET when POST gets
// 405)". A server that only takes GET for subscribe: after a cut, the
// stream subscribes by GET, and does not take the 405 for "cannot
// subscribe".
func TestRedteam3_RESTSubscribeByGETAfter405(t *testing.T) {
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
				var ns r3notices
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

// A poll answered with a Message instead of a Task: not the task; the
// stream must end in a typed error, not in nil and not in a silent stall.
func TestRedteam3_PollAnswersAMessage(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(v, snap(a2a.StateSubmitted), answer(snap(a2a.StateWorking, "kept")),
					func(w http.ResponseWriter, s *restServer) {
						raw, err := a2a.Codec{Version: v, Binding: a2a.BindingHTTPJSON}.EncodeEvent(agentMsg("x", "hello"))
						require.NoError(t, err)
						w.Header().Set("Content-Type", "application/json")
						w.Write(raw)
					})
				start := time.Now()
				_, err := drain(t, restClient(t, srv, v, stream.WithStallTimeout(time.Hour)).Send(background(), hello()))
				require.Error(t, err)
				var pe *stream.ProtocolError
				require.ErrorAs(t, err, &pe, "%T %v after %v", err, err, time.Since(start))
			})
		})
	}
}

// WithPollInterval: "It must be positive; values below 1 ms are raised to
// 1 ms." (Issue 13 made 0 and negative values an error; see
// TestOptionsAreValidatedByEveryConstructor.)
func TestRedteam3_PollIntervalFloor(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		_, err := stream.NewRESTClient("http://agent.test", stream.WithPollInterval(d))
		require.ErrorIs(t, err, stream.ErrInvalidOption, "%v", d)
	}
	for _, d := range []time.Duration{time.Nanosecond, 999 * time.Microsecond} {
		t.Run(d.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(a2a.V10, snap(a2a.StateWorking),
					answer(snap(a2a.StateWorking)), answer(snap(a2a.StateWorking)), answer(snap(a2a.StateCompleted)))
				start := time.Now()
				_, err := drain(t, restClient(t, srv, a2a.V10, stream.WithPollInterval(d)).Send(background(), hello()))
				require.NoError(t, err)
				require.Equal(t, 3*time.Millisecond, time.Since(start))
				require.Equal(t, 3, srv.count("get"))
			})
		})
	}
}

// A second, different prompt (a new message ID) after the reply is a new
// question: asked twice in all, each reply sent once; a prompt discovered
// by polling with no hook ends in *hitl.Error carrying the task.
func TestRedteam3_TwoPromptsByPolling(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				script := []a2atest.Step{
					a2atest.Working(""), a2atest.Pause(tick), a2atest.AskInput("first?"),
					a2atest.Pause(tick), a2atest.Chunk("a1", "one ", false, false), a2atest.AskInput("second?"),
					a2atest.Pause(tick), a2atest.Chunk("a1", "two", true, true), a2atest.Finish(a2a.StateCompleted, ""),
				}
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
					a2atest.WithoutStreaming(), a2atest.WithScript(script...))
				rec := &recorder{answers: []string{"A", "B", "C"}}
				s := r3Resolve(t, agent, stream.WithHumanInput(rec), stream.WithPollInterval(tick)).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				requireSameAsServer(t, agent, s, got)
				require.Len(t, rec.requests, 2)
				require.Equal(t, "first?", rec.requests[0].Text())
				require.Equal(t, "second?", rec.requests[1].Text())
				fu := followUps(agent)
				require.Len(t, fu, 2)
				require.Equal(t, "A", fu[0].Message.Text())
				require.Equal(t, "B", fu[1].Message.Text())
			})
		})
		t.Run(string(v)+"/no hook", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
					a2atest.WithoutStreaming(), a2atest.WithScript(asking()...))
				_, err := drain(t, r3Resolve(t, agent, stream.WithPollInterval(tick)).Send(background(), hello()))
				var he *hitl.Error
				require.ErrorAs(t, err, &he)
				require.ErrorIs(t, err, hitl.ErrNoHook)
				require.Equal(t, "draft ", he.Task.Artifact("a1").Text())
				require.Equal(t, "Which dates?", he.Prompt.Text())
			})
		})
	}
}

// Client.Cancel over REST while another goroutine's stream polls: the
// stream ends in *terminal.CanceledError at the next poll, with the task.
func TestRedteam3_CancelWhilePolling(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
					a2atest.WithoutStreaming(), a2atest.WithScript(a2atest.Working(""), a2atest.Chunk("a1", "partial", false, false),
						a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")))
				c := r3Resolve(t, agent)
				var canceled *a2a.Task
				var cancelErr error
				time.AfterFunc(1500*time.Millisecond, func() {
					canceled, cancelErr = c.Cancel(background(), agent.TaskIDs()[0])
				})
				start := time.Now()
				_, err := drain(t, c.Send(background(), hello()))
				var ce *terminal.CanceledError
				require.ErrorAs(t, err, &ce)
				require.Equal(t, "partial", ce.Task.Artifact("a1").Text())
				require.Equal(t, 2*time.Second, time.Since(start))
				synctest.Wait()
				require.NoError(t, cancelErr)
				require.Equal(t, a2a.StateCanceled, canceled.Status.State)
			})
		})
	}
}
