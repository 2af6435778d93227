package stream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// listReq is a ListTasks request as a listAgent got it.
type listReq struct {
	method string          // the JSON-RPC method, or "GET /path" over HTTP+JSON
	params json.RawMessage // the JSON-RPC params as sent
	query  url.Values      // the HTTP+JSON query
	header http.Header
}

// listReply is a listAgent's answer: the result (a page's JSON), or an RPC
// error, or a raw body with its status and content type.
type listReply struct {
	result json.RawMessage
	rpcErr *a2a.RPCError
	status int
	body   string
	ctype  string
}

// listAgent serves ListTasks over JSON-RPC (POST /) and HTTP+JSON
// (GET /tasks, or any path) with answer, and records every request. Other
// requests go to next, when it is set.
type listAgent struct {
	answer func(n int, r listReq) listReply // n counts the ListTasks requests from 0
	next   http.Handler

	mu   sync.Mutex
	reqs []listReq
}

func (a *listAgent) requests() []listReq {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]listReq(nil), a.reqs...)
}

func (a *listAgent) record(r listReq) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reqs = append(a.reqs, r)
	return len(a.reqs) - 1
}

func (a *listAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/tasks") {
		n := a.record(listReq{method: "GET " + r.URL.Path, query: r.URL.Query(), header: r.Header.Clone()})
		a.writeREST(w, a.answer(n, a.requests()[n]))
		return
	}
	if r.Method == http.MethodPost && r.URL.Path == "/" {
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &env) == nil && (env.Method == "ListTasks" || env.Method == "tasks/list" || a.next == nil) {
			i := a.record(listReq{method: env.Method, params: env.Params, header: r.Header.Clone()})
			a.writeRPC(w, env.ID, a.answer(i, a.requests()[i]))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	if a.next != nil {
		a.next.ServeHTTP(w, r)
		return
	}
	http.NotFound(w, r)
}

func (a *listAgent) writeRPC(w http.ResponseWriter, id json.RawMessage, rep listReply) {
	if rep.body != "" || rep.status != 0 {
		a.writeRaw(w, rep, "application/json")
		return
	}
	env := map[string]any{"jsonrpc": "2.0", "id": id}
	if rep.rpcErr != nil {
		env["error"] = rep.rpcErr
	} else {
		env["result"] = rep.result
	}
	b, _ := json.Marshal(env)
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

func (a *listAgent) writeREST(w http.ResponseWriter, rep listReply) {
	switch {
	case rep.body != "" || rep.status != 0:
		a.writeRaw(w, rep, "application/a2a+json")
	case rep.rpcErr != nil:
		w.Header().Set("Content-Type", "application/a2a+json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"code":400,"status":"FAILED_PRECONDITION","message":%q,"details":%s}}`, rep.rpcErr.Message, rep.rpcErr.Data)
	default:
		w.Header().Set("Content-Type", "application/a2a+json")
		w.Write(rep.result)
	}
}

func (a *listAgent) writeRaw(w http.ResponseWriter, rep listReply, ctype string) {
	if rep.ctype != "" {
		ctype = rep.ctype
	}
	w.Header().Set("Content-Type", ctype)
	if rep.status != 0 {
		w.WriteHeader(rep.status)
	}
	w.Write([]byte(rep.body))
}

// listClient is a 1.0 client of binding b for h, without WithVersion when
// v is "".
func listClient(t *testing.T, b a2a.Binding, h http.Handler, v a2a.Version, opts ...stream.Option) *stream.Client {
	t.Helper()
	all := []stream.Option{stream.WithHTTPClient(a2atest.NewClient(h))}
	if v != "" {
		all = append(all, stream.WithVersion(v))
	}
	return bindingClient(t, b, "http://agent.test", append(all, opts...)...)
}

// listedTask is a task as a page lists it.
func listedTask(id, contextID string, st a2a.TaskState) *a2a.Task {
	return &a2a.Task{ID: id, ContextID: contextID, Status: a2a.TaskStatus{State: st, Timestamp: time.Date(2026, 11, 29, 7, 20, 0, 0, time.UTC)}}
}

// pageJSON is the 1.0 ListTasksResponse of tasks with next, as both
// bindings carry it.
func pageJSON(t *testing.T, next string, total int, tasks ...*a2a.Task) json.RawMessage {
	t.Helper()
	raw := make([]json.RawMessage, 0, len(tasks))
	for _, task := range tasks {
		b, err := a2a.Codec{Version: a2a.V10}.EncodeTask(task)
		require.NoError(t, err)
		raw = append(raw, b)
	}
	b, err := json.Marshal(map[string]any{"tasks": raw, "nextPageToken": next, "pageSize": len(tasks), "totalSize": total})
	require.NoError(t, err)
	return b
}

// idsOf lists the IDs of tasks.
func idsOf(tasks []*a2a.Task) []string {
	var ids []string
	for _, t := range tasks {
		ids = append(ids, t.ID)
	}
	return ids
}

// tokenOf returns the page token a request carried.
func tokenOf(t *testing.T, r listReq) string {
	t.Helper()
	if r.query != nil {
		return r.query.Get("pageToken")
	}
	var p struct {
		PageToken string `json:"pageToken"`
	}
	require.NoError(t, json.Unmarshal(r.params, &p))
	return p.PageToken
}

// fivePages serves five tasks in pages of two, newest first, with the
// tokens "p2" and "p3".
func fivePages(t *testing.T) func(int, listReq) listReply {
	tasks := []*a2a.Task{
		listedTask("t-5", "c-b", a2a.StateInputRequired), listedTask("t-4", "c-b", a2a.StateFailed),
		listedTask("t-3", "c-a", a2a.StateWorking), listedTask("t-2", "c-a", a2a.StateFailed),
		listedTask("t-1", "c-a", a2a.StateCompleted),
	}
	return func(_ int, r listReq) listReply {
		switch tokenOf(t, r) {
		case "":
			return listReply{result: pageJSON(t, "p2", 5, tasks[0:2]...)}
		case "p2":
			return listReply{result: pageJSON(t, "p3", 5, tasks[2:4]...)}
		case "p3":
			return listReply{result: pageJSON(t, "", 5, tasks[4])}
		}
		return listReply{result: pageJSON(t, "", 5)}
	}
}

func TestListTasksPagesThroughEveryPage(t *testing.T) {
	for _, b := range bothBindings {
		t.Run(string(b), func(t *testing.T) {
			agent := &listAgent{answer: fivePages(t)}
			l := listClient(t, b, agent, a2a.V10).ListTasks(background(), a2a.TaskFilter{PageSize: 2})
			var pages [][]string
			for l.Next() {
				pages = append(pages, idsOf(l.Page().Tasks))
				require.Equal(t, 5, l.Page().TotalSize)
			}
			require.NoError(t, l.Err(), "the last page's empty token ends the listing cleanly")
			require.Nil(t, l.Page())
			require.Equal(t, [][]string{{"t-5", "t-4"}, {"t-3", "t-2"}, {"t-1"}}, pages)
			require.False(t, l.Next(), "a listing that ended stays ended")

			reqs := agent.requests()
			require.Len(t, reqs, 3, "one call per page")
			for i, want := range []string{"", "p2", "p3"} {
				require.Equal(t, want, tokenOf(t, reqs[i]))
				require.Equal(t, "1.0", reqs[i].header.Get("A2A-Version"), "a 1.3.0 server with compat routes a call without it to 0.3")
			}
		})
	}
}

func TestListTasksAllYieldsEveryTaskOfEveryPage(t *testing.T) {
	for _, b := range bothBindings {
		t.Run(string(b), func(t *testing.T) {
			agent := &listAgent{answer: fivePages(t)}
			c := listClient(t, b, agent, a2a.V10)
			var ids []string
			for task, err := range c.ListTasks(background(), a2a.TaskFilter{PageSize: 2}).All() {
				require.NoError(t, err)
				ids = append(ids, task.ID)
			}
			require.Equal(t, []string{"t-5", "t-4", "t-3", "t-2", "t-1"}, ids)

			agent = &listAgent{answer: fivePages(t)}
			c = listClient(t, b, agent, a2a.V10)
			for task := range c.ListTasks(background(), a2a.TaskFilter{PageSize: 2}).All() {
				if task.ID == "t-5" {
					break
				}
			}
			require.Len(t, agent.requests(), 1, "a break fetches no page after it")
		})
	}
}

func TestListTasksCutShortByAStaleToken(t *testing.T) {
	cases := []struct {
		name   string
		token  string // the filter's
		stale  listReply
		listed int
	}{
		{"empty page, empty next token", "", listReply{}, 2},
		{"empty page, a next token", "", listReply{result: json.RawMessage(`{"tasks":[],"nextPageToken":"p9","pageSize":2,"totalSize":5}`)}, 2},
		{"empty page, no next token at all", "", listReply{result: json.RawMessage(`{"tasks":[]}`)}, 2},
		{"the filter's own token", "old", listReply{}, 0},
	}
	for _, b := range bothBindings {
		for _, tc := range cases {
			t.Run(string(b)+"/"+tc.name, func(t *testing.T) {
				agent := &listAgent{answer: func(n int, r listReq) listReply {
					if tokenOf(t, r) == "" {
						return listReply{result: pageJSON(t, "p2", 5, listedTask("t-5", "c-b", a2a.StateWorking), listedTask("t-4", "c-b", a2a.StateWorking))}
					}
					if tc.stale.result == nil {
						return listReply{result: pageJSON(t, "", 5)} // @a2a-js/sdk 1.3.0's answer to a stale token
					}
					return tc.stale
				}}
				l := listClient(t, b, agent, a2a.V10).ListTasks(background(), a2a.TaskFilter{PageSize: 2, PageToken: tc.token})
				var ids []string
				for task, err := range l.All() {
					if err != nil {
						var cut *stream.ListingCutError
						require.ErrorAs(t, err, &cut)
						require.Equal(t, tc.listed, cut.Listed)
						require.Equal(t, tokenOf(t, agent.requests()[len(agent.requests())-1]), cut.PageToken)
						require.NotEmpty(t, cut.PageToken)
						continue
					}
					ids = append(ids, task.ID)
				}
				require.Len(t, ids, tc.listed)
				var cut *stream.ListingCutError
				require.ErrorAs(t, l.Err(), &cut, "an empty page for a token is not the end of the listing")
			})
		}
	}
}

func TestListTasksOfNoTaskEndsCleanly(t *testing.T) {
	for _, b := range bothBindings {
		t.Run(string(b), func(t *testing.T) {
			agent := &listAgent{answer: func(int, listReq) listReply { return listReply{result: pageJSON(t, "", 0)} }}
			l := listClient(t, b, agent, a2a.V10).ListTasks(background(), a2a.TaskFilter{ContextID: "c-none"})
			require.True(t, l.Next(), "the first page is yielded, empty")
			require.Empty(t, l.Page().Tasks)
			require.False(t, l.Next())
			require.NoError(t, l.Err(), "no token was sent: the filter matched no task")
		})
	}
}

// capture is one recorded exchange of a capture file.
type capture struct {
	Label   string `json:"label"`
	Kind    string `json:"kind"`
	Request struct {
		Method  string            `json:"method"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
		Body    struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		} `json:"body"`
	} `json:"request"`
	Response struct {
		Status  int               `json:"status"`
		Headers map[string]string `json:"headers"`
		Body    json.RawMessage   `json:"body"`
	} `json:"response"`
}

// loadCaptures reads the exchanges of a capture file under testdata.
func loadCaptures(t *testing.T, name string) []capture {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	var f struct {
		Exchanges []capture `json:"exchanges"`
	}
	require.NoError(t, json.Unmarshal(b, &f))
	return f.Exchanges
}

// replay answers each request with the response of the capture whose
// request it matches (JSON-RPC by label, HTTP+JSON by URL), which want
// names.
func replay(t *testing.T, want capture) func(int, listReq) listReply {
	return func(_ int, r listReq) listReply {
		var body string
		if want.Request.Method == http.MethodGet {
			body = string(want.Response.Body)
		} else {
			var env struct {
				Result json.RawMessage `json:"result"`
				Error  *a2a.RPCError   `json:"error"`
			}
			require.NoError(t, json.Unmarshal(want.Response.Body, &env))
			if env.Error != nil {
				return listReply{rpcErr: env.Error}
			}
			return listReply{result: env.Result}
		}
		return listReply{status: want.Response.Status, body: body, ctype: want.Response.Headers["content-type"]}
	}
}

// The requests are the ones @a2a-js/sdk 1.3.0 answered in the captures,
// and its answers read as pages.
func TestListTasksSendsFiltersAsTheCapturesShow(t *testing.T) {
	contextA, contextB := "044c1d83-3983-4d17-9277-8e28e8d5a0bd", "313a69fd-8340-40bd-a39d-a52d15fee8e2"
	token := "MjAyNi0xMS0yOVQwNzoyMDo1MC4xNjJafDZlMTg4M2ZmLWY1NzQtNDFkYy1hNTA2LTg3NzU3NjY1NjRkMg=="
	cases := []struct {
		label  string // the JSON-RPC capture's label, or the HTTP+JSON capture's URL
		filter a2a.TaskFilter
		tasks  int
		next   string
	}{
		{"ListTasks {}", a2a.TaskFilter{}, 5, ""},
		{"ListTasks page 1", a2a.TaskFilter{PageSize: 2}, 2, token},
		{"ListTasks page 2", a2a.TaskFilter{PageSize: 2, PageToken: token}, 2, "MjAyNi0xMS0yOVQwNzoyMDo0OS4yMjFafDM5OGRkOTUzLTYzMjAtNGE3ZC04ODdhLWZlMjM5ODQ4ZTczZQ=="},
		{"ListTasks contextId=A", a2a.TaskFilter{ContextID: contextA}, 3, ""},
		{"ListTasks status=FAILED", a2a.TaskFilter{State: a2a.StateFailed}, 2, ""},
		{"ListTasks contextId=B status=INPUT_REQUIRED historyLength=0", a2a.TaskFilter{ContextID: contextB, State: a2a.StateInputRequired, HistoryLength: ptr(0)}, 1, ""},
		{"ListTasks historyLength=1 includeArtifacts pageSize=1", a2a.TaskFilter{ContextID: contextA, HistoryLength: ptr(1), IncludeArtifacts: true, PageSize: 1}, 1, "MjAyNi0xMS0yOVQwNzoyMDo0OS42NjlafGQ4Y2NlZGI3LWFmZGEtNDlhMS05NTc5LTY5ZDU1Yjc5ZTZhNw=="},
		{"ListTasks statusTimestampAfter", a2a.TaskFilter{StatusAfter: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), PageSize: 1}, 1, "MjAyNi0xMS0yOVQwNzoyMDo1MC42NDhafDg1NjcwZTQzLTU5MjUtNDA5Yi04N2FkLTQxZmU1NGNlZmY2Ng=="},
		{"/rest/tasks", a2a.TaskFilter{}, 5, ""},
		{"/rest/tasks?pageSize=2", a2a.TaskFilter{PageSize: 2}, 2, token},
		{"/rest/tasks?pageSize=2&pageToken=" + url.QueryEscape(token), a2a.TaskFilter{PageSize: 2, PageToken: token}, 2, "MjAyNi0xMS0yOVQwNzoyMDo0OS4yMjFafDM5OGRkOTUzLTYzMjAtNGE3ZC04ODdhLWZlMjM5ODQ4ZTczZQ=="},
		{"/rest/tasks?contextId=" + contextA + "&status=TASK_STATE_INPUT_REQUIRED&historyLength=1", a2a.TaskFilter{ContextID: contextA, State: a2a.StateInputRequired, HistoryLength: ptr(1)}, 2, ""},
		{"/rest/tasks?status=TASK_STATE_FAILED&includeArtifacts=true", a2a.TaskFilter{State: a2a.StateFailed, IncludeArtifacts: true}, 2, ""},
	}
	exchanges := loadCaptures(t, "js-1.3.0-list.json")
	find := func(label string) capture {
		for _, e := range exchanges {
			if e.Kind == "call" && (e.Label == label || e.Label == "" && e.Request.URL == label) {
				return e
			}
		}
		t.Fatalf("no capture %q", label)
		return capture{}
	}
	for _, tc := range cases {
		t.Run(tc.label, func(t *testing.T) {
			want := find(tc.label)
			b := a2a.BindingJSONRPC
			if want.Request.Method == http.MethodGet {
				b = a2a.BindingHTTPJSON
			}
			agent := &listAgent{answer: replay(t, want)}
			c := bindingClient(t, b, "http://agent.test", stream.WithHTTPClient(a2atest.NewClient(agent)), stream.WithVersion(a2a.V10))
			if b == a2a.BindingHTTPJSON {
				c = bindingClient(t, b, "http://agent.test/rest", stream.WithHTTPClient(a2atest.NewClient(agent)), stream.WithVersion(a2a.V10))
			}
			l := c.ListTasks(background(), tc.filter)
			require.True(t, l.Next(), "%v", l.Err())
			require.Len(t, l.Page().Tasks, tc.tasks)
			require.Equal(t, tc.next, l.Page().NextPageToken)
			for _, task := range l.Page().Tasks {
				require.NotEmpty(t, task.ID)
				require.NotEmpty(t, task.ContextID)
			}

			got := agent.requests()[0]
			require.Equal(t, want.Request.Headers["A2A-Version"], got.header.Get("A2A-Version"))
			if b == a2a.BindingHTTPJSON {
				wantURL, err := url.Parse(want.Request.URL)
				require.NoError(t, err)
				require.Equal(t, "GET "+wantURL.Path, got.method)
				require.Equal(t, wantURL.Query(), got.query)
				return
			}
			require.Equal(t, want.Request.Body.Method, got.method)
			require.JSONEq(t, string(want.Request.Body.Params), string(got.params))
		})
	}
}

// What the server keeps out of a page stays out: history cut to 0 is no
// history, and artifacts are there only when asked for.
func TestListTasksReadsWhatThePageHolds(t *testing.T) {
	exchanges := loadCaptures(t, "js-1.3.0-list.json")
	for _, tc := range []struct {
		label     string
		filter    a2a.TaskFilter
		history   int
		artifacts bool
	}{
		{"ListTasks contextId=B status=INPUT_REQUIRED historyLength=0", a2a.TaskFilter{ContextID: "313a69fd-8340-40bd-a39d-a52d15fee8e2", State: a2a.StateInputRequired, HistoryLength: ptr(0)}, 0, false},
		{"ListTasks historyLength=1 includeArtifacts pageSize=1", a2a.TaskFilter{ContextID: "044c1d83-3983-4d17-9277-8e28e8d5a0bd", HistoryLength: ptr(1), IncludeArtifacts: true, PageSize: 1}, 1, true},
	} {
		t.Run(tc.label, func(t *testing.T) {
			var want capture
			for _, e := range exchanges {
				if e.Label == tc.label {
					want = e
				}
			}
			agent := &listAgent{answer: replay(t, want)}
			l := listClient(t, a2a.BindingJSONRPC, agent, a2a.V10).ListTasks(background(), tc.filter)
			require.True(t, l.Next(), "%v", l.Err())
			task := l.Page().Tasks[0]
			require.Len(t, task.History, tc.history)
			require.Equal(t, tc.artifacts, len(task.Artifacts) > 0)
			require.Equal(t, a2a.StateInputRequired, task.Status.State)
		})
	}
}

func TestListTasksIsNotSupportedOnA03Client(t *testing.T) {
	for _, b := range bothBindings {
		t.Run(string(b), func(t *testing.T) {
			agent := &listAgent{answer: func(int, listReq) listReply { return listReply{result: pageJSON(t, "", 0)} }}
			l := listClient(t, b, agent, a2a.V03).ListTasks(background(), a2a.TaskFilter{})
			require.False(t, l.Next())
			require.ErrorIs(t, l.Err(), errors.ErrUnsupported)
			require.Empty(t, agent.requests(), "A2A 0.3 has no ListTasks: nothing is sent")
		})
	}
}

func TestListTasksIsNotSupportedByARefusingServer(t *testing.T) {
	rpc := func(code int) listReply { return listReply{rpcErr: &a2a.RPCError{Code: code, Message: "no"}} }
	exchanges := loadCaptures(t, "js-0.3.14-list.json")
	var notFound03, html404 capture
	for _, e := range exchanges {
		switch {
		case e.Label == "ListTasks":
			notFound03 = e
		case e.Request.URL == "/rest/tasks":
			html404 = e
		}
	}
	cases := []struct {
		name    string
		binding a2a.Binding
		v       a2a.Version // "" negotiates
		reply   listReply
	}{
		{"-32601 (@a2a-js/sdk 0.3.14)", a2a.BindingJSONRPC, a2a.V10, replay(t, notFound03)(0, listReq{})},
		{"-32601, negotiating", a2a.BindingJSONRPC, "", replay(t, notFound03)(0, listReq{})},
		{"-32004", a2a.BindingJSONRPC, a2a.V10, rpc(a2a.CodeUnsupportedOperation)},
		{"-32009", a2a.BindingJSONRPC, a2a.V10, rpc(a2a.CodeVersionNotSupported)},
		{"HTTP 404 with HTML (@a2a-js/sdk 0.3.14)", a2a.BindingHTTPJSON, a2a.V10, replay(t, html404)(0, listReq{})},
		{"HTTP 404, negotiating", a2a.BindingHTTPJSON, "", replay(t, html404)(0, listReq{})},
		{"HTTP 405", a2a.BindingHTTPJSON, a2a.V10, listReply{status: http.StatusMethodNotAllowed, body: "no"}},
		{"HTTP 501", a2a.BindingHTTPJSON, a2a.V10, listReply{status: http.StatusNotImplemented, body: "no"}},
		{"HTTP 400 UNSUPPORTED_OPERATION", a2a.BindingHTTPJSON, a2a.V10, listReply{rpcErr: &a2a.RPCError{Code: a2a.CodeUnsupportedOperation, Message: "no",
			Data: json.RawMessage(`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"UNSUPPORTED_OPERATION","domain":"a2a-protocol.org"}]`)}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			agent := &listAgent{answer: func(int, listReq) listReply { return tc.reply }}
			l := listClient(t, tc.binding, agent, tc.v).ListTasks(background(), a2a.TaskFilter{})
			require.False(t, l.Next())
			require.ErrorIs(t, l.Err(), errors.ErrUnsupported)
			var rpcErr *a2a.RPCError
			var httpErr *transport.HTTPError
			require.True(t, errors.As(l.Err(), &rpcErr) || errors.As(l.Err(), &httpErr), "the agent's answer stays in the chain: %v", l.Err())
			require.Len(t, agent.requests(), 1, "no call is made again")
		})
	}
}

// Other refusals are not "not supported": they are GetTask's errors.
func TestListTasksOtherRefusalsAreTheAgentsErrors(t *testing.T) {
	for _, b := range bothBindings {
		t.Run(string(b), func(t *testing.T) {
			agent := &listAgent{answer: func(int, listReq) listReply {
				if b == a2a.BindingHTTPJSON {
					return listReply{status: 400, body: `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"Invalid page token format.","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INVALID_PARAMS","domain":"a2a-protocol.org"}]}}`}
				}
				return listReply{rpcErr: &a2a.RPCError{Code: a2a.CodeInvalidParams, Message: "Invalid page token format."}}
			}}
			l := listClient(t, b, agent, a2a.V10).ListTasks(background(), a2a.TaskFilter{PageToken: "not-a-token"})
			require.False(t, l.Next())
			require.NotErrorIs(t, l.Err(), errors.ErrUnsupported)
			require.ErrorIs(t, l.Err(), &a2a.RPCError{Code: a2a.CodeInvalidParams})
			var cut *stream.ListingCutError
			require.False(t, errors.As(l.Err(), &cut))

			agent = &listAgent{answer: func(int, listReq) listReply { return listReply{status: 503, body: "busy"} }}
			l = listClient(t, b, agent, a2a.V10).ListTasks(background(), a2a.TaskFilter{})
			require.False(t, l.Next())
			var httpErr *transport.HTTPError
			require.ErrorAs(t, l.Err(), &httpErr)
			require.Equal(t, 503, httpErr.StatusCode)
			require.Len(t, agent.requests(), 1, "as GetTask, ListTasks makes its call once")
		})
	}
}

func TestListTasksRefusesInvalidFiltersWithoutARequest(t *testing.T) {
	cases := []struct {
		name   string
		filter a2a.TaskFilter
		opts   []stream.Option
	}{
		{"page size 101", a2a.TaskFilter{PageSize: 101}, nil},
		{"page size -1", a2a.TaskFilter{PageSize: -1}, nil},
		{"negative history length", a2a.TaskFilter{HistoryLength: ptr(-1)}, nil},
		{"unknown state", a2a.TaskFilter{State: "TASK_STATE_BOGUS"}, nil},
		{"the unknown state", a2a.TaskFilter{State: a2a.StateUnknown}, nil},
		{"a stream's option", a2a.TaskFilter{}, []stream.Option{stream.WithPollInterval(time.Minute)}},
		{"a Client's option", a2a.TaskFilter{}, []stream.Option{stream.WithVersion(a2a.V10)}},
		{"a nil option", a2a.TaskFilter{}, []stream.Option{nil}},
	}
	for _, b := range bothBindings {
		for _, tc := range cases {
			t.Run(string(b)+"/"+tc.name, func(t *testing.T) {
				agent := &listAgent{answer: func(int, listReq) listReply { return listReply{result: pageJSON(t, "", 0)} }}
				l := listClient(t, b, agent, a2a.V10).ListTasks(background(), tc.filter, tc.opts...)
				require.False(t, l.Next())
				require.ErrorIs(t, l.Err(), stream.ErrInvalidOption)
				require.Empty(t, agent.requests())
			})
		}
	}
	// The limits themselves are sent.
	for _, f := range []a2a.TaskFilter{{PageSize: 0}, {PageSize: 1}, {PageSize: 100}, {HistoryLength: ptr(0)}, {State: "TASK_STATE_AUTH_REQUIRED"}, {State: "cancelled"}} {
		agent := &listAgent{answer: func(int, listReq) listReply { return listReply{result: pageJSON(t, "", 0)} }}
		l := listClient(t, a2a.BindingJSONRPC, agent, a2a.V10).ListTasks(background(), f)
		require.True(t, l.Next(), "%+v: %v", f, l.Err())
	}
}

func TestListTasksRefusesHostilePages(t *testing.T) {
	long := `{"tasks":[` + strings.Repeat(`{"id":"t","contextId":"c"},`, 2000) + `{"id":"t"}],"nextPageToken":""}`
	cases := []struct {
		name   string
		result string
		filter a2a.TaskFilter
		opts   []stream.Option
	}{
		{"not JSON", `{"tasks":[`, a2a.TaskFilter{}, nil},
		{"not an object", `[1,2]`, a2a.TaskFilter{}, nil},
		{"tasks not a list", `{"tasks":{"id":"t"}}`, a2a.TaskFilter{}, nil},
		{"a null task", `{"tasks":[null]}`, a2a.TaskFilter{}, nil},
		{"a task without an ID", `{"tasks":[{"contextId":"c"}]}`, a2a.TaskFilter{}, nil},
		{"a task that is a number", `{"tasks":[7]}`, a2a.TaskFilter{}, nil},
		{"a message among the tasks", `{"tasks":[{"kind":"message","messageId":"m"}]}`, a2a.TaskFilter{}, nil},
		{"a task of another context", `{"tasks":[{"id":"t","contextId":"c-other"}]}`, a2a.TaskFilter{ContextID: "c-mine"}, nil},
		{"the token it was sent back as the next", `{"tasks":[{"id":"t","contextId":"c"}],"nextPageToken":"same"}`, a2a.TaskFilter{PageToken: "same"}, nil},
		{"over the size limit", long, a2a.TaskFilter{}, []stream.Option{stream.WithMaxEventSize(1 << 10)}},
	}
	for _, b := range bothBindings {
		for _, tc := range cases {
			t.Run(string(b)+"/"+tc.name, func(t *testing.T) {
				agent := &listAgent{answer: func(int, listReq) listReply { return listReply{result: json.RawMessage(tc.result)} }}
				if !json.Valid([]byte(tc.result)) {
					agent.answer = func(int, listReq) listReply { return listReply{status: 200, body: tc.result} }
				}
				l := listClient(t, b, agent, a2a.V10, tc.opts...).ListTasks(background(), tc.filter)
				require.False(t, l.Next())
				var perr *transport.ProtocolError
				require.ErrorAs(t, l.Err(), &perr)
				require.Nil(t, l.Page())
				require.Len(t, agent.requests(), 1)
			})
		}
	}
}

// Headers go to the origin named only, as every call's: a redirect to
// another origin does not carry them.
func TestListTasksSendsHeadersToTheOriginNamedOnly(t *testing.T) {
	for _, b := range bothBindings {
		t.Run(string(b), func(t *testing.T) {
			other := &listAgent{answer: func(int, listReq) listReply { return listReply{result: pageJSON(t, "", 0)} }}
			router := newOriginRouter().
				serve("http://agent.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, "http://elsewhere.test"+r.URL.RequestURI(), http.StatusTemporaryRedirect)
				})).
				serve("http://elsewhere.test", other)
			c := bindingClient(t, b, "http://agent.test", stream.WithHTTPClient(router.client()), stream.WithVersion(a2a.V10),
				stream.WithHeader("Authorization", "Bearer s3cret"))
			l := c.ListTasks(background(), a2a.TaskFilter{}, stream.WithHeader("X-Api-Key", "k"))
			require.True(t, l.Next(), "%v", l.Err())
			hops := router.recorded()
			require.Len(t, hops, 2)
			require.Equal(t, "Bearer s3cret", hops[0].header.Get("Authorization"))
			require.Equal(t, "k", hops[0].header.Get("X-Api-Key"))
			require.Empty(t, hops[1].header.Get("Authorization"), "no header crosses to another origin")
			require.Empty(t, hops[1].header.Get("X-Api-Key"))
		})
	}
}

// The tenant of a 1.0 interface goes with the call as every call's does:
// in the params over JSON-RPC, as the path's first segment over HTTP+JSON.
func TestListTasksCarriesTheTenant(t *testing.T) {
	for _, b := range bothBindings {
		t.Run(string(b), func(t *testing.T) {
			list := &listAgent{answer: func(int, listReq) listReply { return listReply{result: pageJSON(t, "", 0)} }}
			agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V10), a2atest.WithBindings(b), a2atest.WithTenant("acme"))
			list.next = agent
			c, err := stream.Resolve(background(), "http://agent.test", stream.WithHTTPClient(a2atest.NewClient(list)))
			require.NoError(t, err)
			l := c.ListTasks(background(), a2a.TaskFilter{})
			require.True(t, l.Next(), "%v", l.Err())
			got := list.requests()[0]
			if b == a2a.BindingHTTPJSON {
				require.True(t, strings.HasSuffix(got.method, "/acme/tasks"), got.method)
				return
			}
			require.JSONEq(t, `{"tenant":"acme"}`, string(got.params))
		})
	}
}

// A Transport of another module lists when it implements
// transport.TaskLister; otherwise ListTasks is not supported.
func TestListTasksOverATransportOfAnotherModule(t *testing.T) {
	c, err := stream.NewClientFor(plainTransport{}, stream.WithVersion(a2a.V10))
	require.NoError(t, err)
	l := c.ListTasks(background(), a2a.TaskFilter{})
	require.False(t, l.Next())
	require.ErrorIs(t, l.Err(), errors.ErrUnsupported)

	lister := &listingTransport{pages: []*a2a.TaskPage{
		{Tasks: []*a2a.Task{listedTask("t-2", "c", a2a.StateWorking)}, NextPageToken: "p2"},
		{Tasks: []*a2a.Task{listedTask("t-1", "c", a2a.StateWorking)}},
	}}
	c, err = stream.NewClientFor(lister, stream.WithVersion(a2a.V10), stream.WithHeader("X-Api-Key", "k"))
	require.NoError(t, err)
	var ids []string
	for task, err := range c.ListTasks(background(), a2a.TaskFilter{ContextID: "c", PageSize: 1}).All() {
		require.NoError(t, err)
		ids = append(ids, task.ID)
	}
	require.Equal(t, []string{"t-2", "t-1"}, ids)
	require.Len(t, lister.calls, 2)
	require.Equal(t, "p2", lister.calls[1].filter.PageToken)
	require.Equal(t, 1, lister.calls[1].filter.PageSize)
	require.Equal(t, "k", lister.calls[0].call.Header.Get("X-Api-Key"))

	// A page whose task has no ID is refused, as from the HTTP bindings.
	lister = &listingTransport{pages: []*a2a.TaskPage{{Tasks: []*a2a.Task{{ContextID: "c"}}}}}
	c, err = stream.NewClientFor(lister, stream.WithVersion(a2a.V10))
	require.NoError(t, err)
	l = c.ListTasks(background(), a2a.TaskFilter{})
	require.False(t, l.Next())
	var perr *transport.ProtocolError
	require.ErrorAs(t, l.Err(), &perr)
}

// plainTransport is a Transport that cannot list; no call reaches it.
type plainTransport struct{ transport.Transport }

// listingTransport is a TaskLister that answers with pages, one per call.
type listingTransport struct {
	plainTransport
	pages []*a2a.TaskPage
	calls []struct {
		call   transport.Call
		filter a2a.TaskFilter
	}
}

func (l *listingTransport) ListTasks(_ context.Context, call transport.Call, f a2a.TaskFilter) (*a2a.TaskPage, error) {
	l.calls = append(l.calls, struct {
		call   transport.Call
		filter a2a.TaskFilter
	}{call, f})
	p := l.pages[0]
	l.pages = l.pages[1:]
	return p, nil
}

func ptr(n int) *int { return &n }

// listOf serves ListTasks from agent's tasks as they are now, newest first,
// filtered by context and state, in one page.
func listOf(t *testing.T, agent *a2atest.Agent) func(int, listReq) listReply {
	return func(_ int, r listReq) listReply {
		var f struct {
			ContextID string `json:"contextId"`
			Status    string `json:"status"`
		}
		if r.query != nil {
			f.ContextID, f.Status = r.query.Get("contextId"), r.query.Get("status")
		} else {
			require.NoError(t, json.Unmarshal(r.params, &f))
		}
		ids := agent.TaskIDs()
		var tasks []*a2a.Task
		for i := len(ids) - 1; i >= 0; i-- {
			task := agent.Task(ids[i])
			if f.ContextID != "" && task.ContextID != f.ContextID {
				continue
			}
			tasks = append(tasks, task)
		}
		return listReply{result: pageJSON(t, "", len(tasks), tasks...)}
	}
}

// After a restart without a checkpoint, the listing finds the context's
// running task, and Subscribe resumes it: every event from there once, the
// task as the agent holds it at the end.
func TestListTasksFindsARunningTaskThatSubscribeResumes(t *testing.T) {
	for _, b := range bothBindings {
		t.Run(string(b), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V10), a2atest.WithBindings(b),
					a2atest.WithScriptFunc(func(m *a2a.Message) []a2atest.Step {
						if m.Parts[0].Text == "quick" {
							return a2atest.DefaultScript()
						}
						return wirematrix.Paced()
					}))
				list := &listAgent{next: agent}
				list.answer = listOf(t, agent)
				c := listClient(t, b, list, a2a.V10)

				quick := a2a.NewTextMessage(a2a.RoleUser, "quick")
				quick.ContextID = "ctx-1"
				done, err := c.Send(background(), quick).Wait()
				require.NoError(t, err)
				long := a2a.NewTextMessage(a2a.RoleUser, "long")
				long.ContextID = "ctx-1"
				first := c.Send(background(), long)
				for first.Next() {
					if first.Task() != nil && first.Task().Artifact("a1") != nil {
						break
					}
				}
				require.NotNil(t, first.Task())
				running := first.Task().ID
				first.Close() // the process restarts: nothing of the stream is kept

				var found []string
				for task, err := range c.ListTasks(background(), a2a.TaskFilter{ContextID: "ctx-1"}).All() {
					require.NoError(t, err)
					if !task.Status.State.Terminal() {
						found = append(found, task.ID)
					}
				}
				require.Equal(t, []string{running}, found, "the finished task %s is listed too, and left alone", done.ID)

				s := c.Subscribe(background(), found[0])
				got, err := drain(t, s)
				require.NoError(t, err)
				wirematrix.RequireSameAsServer(t, agent, s, got.fold)
				require.Equal(t, "one two three", got.text("a1"))
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
			})
		})
	}
}
