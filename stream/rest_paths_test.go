package stream_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// sgRESTRecorder answers every REST call of version v under any base with a
// canned success, and records each request's method, escaped path and query.
type sgRESTRecorder struct {
	v a2a.Version
	// getSubscribe makes a POST to a subscribe route get 405, as servers
	// that route subscribe as GET only (a2a-python 0.3) answer.
	getSubscribe bool
	mu           sync.Mutex
	seen         []string // "METHOD escaped-path?raw-query"
}

func (h *sgRESTRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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

func (h *sgRESTRecorder) requests() []string {
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
					rec := &sgRESTRecorder{v: v}
					c, err := stream.NewRESTClient(tc.base, stream.WithHTTPClient(newSGOrigins().serve("http://agent.test", rec).client()), stream.WithVersion(v))
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
					rec := &sgRESTRecorder{v: v}
					c, err := stream.NewRESTClient("http://agent.test/api?code=K1", stream.WithHTTPClient(newSGOrigins().serve("http://agent.test", rec).client()), stream.WithVersion(v))
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
					rec := &sgRESTRecorder{v: v, getSubscribe: true}
					c, err := stream.NewRESTClient(base, stream.WithHTTPClient(newSGOrigins().serve("http://agent.test", rec).client()), stream.WithVersion(v))
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
			a2atest.WithoutStreaming(), a2atest.WithScript(asking()...))
		rec := &recorder{answers: []string{"yes"}}
		c := resolveAgent(t, agent, stream.WithHumanInput(rec), stream.WithPollInterval(tick))
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
