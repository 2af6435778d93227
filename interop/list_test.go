package interop_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/interop/proxy"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// listPeers are the servers that list tasks: @a2a-js/sdk 1.3.0 over
// JSON-RPC and HTTP+JSON (the matrix's js-1.3.0 and js-1.3.0-rest).
var listPeers = []peerDef{
	{name: "js-1.3.0", version: a2a.V10, command: nodePeer("js10")},
	{name: "js-1.3.0-rest", version: a2a.V10, binding: a2a.BindingHTTPJSON, command: nodePeer("js10", "--rest")},
}

// listCalls counts the ListTasks calls the proxy saw: JSON-RPC ListTasks
// (or 0.3's tasks/list), or GET …/tasks.
func listCalls(px *proxy.Proxy) int {
	n := 0
	for _, r := range px.Requests() {
		path, _, _ := strings.Cut(r.Path, "?")
		if r.RPC == "ListTasks" || r.RPC == "tasks/list" || r.Method == http.MethodGet && strings.HasSuffix(path, "/tasks") {
			n++
		}
	}
	return n
}

// played sends text in contextID (and, when taskID is set, to that task)
// and follows the stream to its end, which for input-required without a
// hook is the hook error. It returns the task as the stream left it.
func played(t *testing.T, c *stream.Client, contextID, taskID, text string) *a2a.Task {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	msg := a2a.NewTextMessage(a2a.RoleUser, text)
	msg.ContextID, msg.TaskID = contextID, taskID
	s := c.Send(ctx, msg)
	defer s.Close()
	for s.Next() {
	}
	task := s.Task()
	require.NotNil(t, task, "%q ended with %v and no task", text, s.Err())
	return task
}

// ids returns the IDs of tasks, in order.
func ids(tasks []*a2a.Task) []string {
	out := make([]string, len(tasks))
	for i, task := range tasks {
		out[i] = task.ID
	}
	return out
}

// listAll lists f to its end with All and returns the tasks, failing on
// any error.
func listAll(t *testing.T, c *stream.Client, f a2a.TaskFilter) []*a2a.Task {
	t.Helper()
	var tasks []*a2a.Task
	for task, err := range c.ListTasks(t.Context(), f).All() {
		require.NoError(t, err)
		tasks = append(tasks, task)
	}
	return tasks
}

func messageIDs(msgs []a2a.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.ID
	}
	return out
}

// TestListTasksAgainstJSPeer lists the tasks the scenarios made on
// @a2a-js/sdk 1.3.0, over JSON-RPC and HTTP+JSON, through the proxy: all of
// them, by context, by state, in pages of two (every task once across the
// pages, newest first), with history cut to 0 and 1 messages, with and
// without artifacts; then a listing whose page token goes stale (the task
// it names changes between two pages) ends in a *stream.ListingCutError,
// not in a clean end.
func TestListTasksAgainstJSPeer(t *testing.T) {
	eachPeerOf(t, listPeers, func(peerDef) bool { return true }, func(t *testing.T, p *peer) {
		px := newProxy(t, p, nil)
		c := resolve(t, px, p)
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("requests:\n%s", requestLog(px))
			}
		})

		// Five tasks, one after the other, so that each ends (its last
		// status timestamp) after the one before: three in context A, two
		// in context B.
		const ctxA, ctxB = "interop-list-a", "interop-list-b"
		plays := []struct{ ctx, text string }{
			{ctxA, "book a trip; ask for input"},
			{ctxA, "this one will fail"},
			{ctxB, "reject this"},
			{ctxA, "stream a story"},
			{ctxB, "book a trip; ask for input"},
		}
		states := []a2a.TaskState{a2a.StateInputRequired, a2a.StateFailed, a2a.StateRejected, a2a.StateCompleted, a2a.StateInputRequired}
		var made []*a2a.Task
		for i, pl := range plays {
			task := played(t, c, pl.ctx, "", pl.text)
			require.Equal(t, states[i], task.Status.State, "%q", pl.text)
			made = append(made, task)
		}
		newestFirst := slices.Clone(ids(made))
		slices.Reverse(newestFirst)
		pick := func(idx ...int) []string { // made's IDs at idx, as given
			var out []string
			for _, i := range idx {
				out = append(out, made[i].ID)
			}
			return out
		}

		// Everything, in one page of the server's default size.
		l := c.ListTasks(t.Context(), a2a.TaskFilter{})
		require.True(t, l.Next(), "%v", l.Err())
		all := l.Page()
		require.Equal(t, newestFirst, ids(all.Tasks), "newest first")
		require.Equal(t, "", all.NextPageToken)
		require.Equal(t, 5, all.TotalSize)
		require.Equal(t, 50, all.PageSize, "@a2a-js/sdk 1.3.0's default page size")
		require.False(t, l.Next())
		require.NoError(t, l.Err())
		full := map[string]*a2a.Task{}
		longest := 0
		for _, task := range all.Tasks {
			require.Empty(t, task.Artifacts, "artifacts are left out unless asked for: %s", task.ID)
			require.NotEmpty(t, task.History, "the whole history when no length is asked for: %s", task.ID)
			full[task.ID] = task
			longest = max(longest, len(task.History))
		}
		require.Greater(t, longest, 1, "some task's history has more than one message, so that a cut shows")
		for i, m := range made {
			require.Equal(t, plays[i].ctx, full[m.ID].ContextID)
			require.Equal(t, states[i], full[m.ID].Status.State)
		}

		// By context, by state, and both.
		require.Equal(t, pick(3, 1, 0), ids(listAll(t, c, a2a.TaskFilter{ContextID: ctxA})))
		require.Equal(t, pick(4, 2), ids(listAll(t, c, a2a.TaskFilter{ContextID: ctxB})))
		require.Equal(t, pick(1), ids(listAll(t, c, a2a.TaskFilter{State: a2a.StateFailed})))
		require.Equal(t, pick(4, 0), ids(listAll(t, c, a2a.TaskFilter{State: a2a.StateInputRequired})))
		require.Equal(t, pick(0), ids(listAll(t, c, a2a.TaskFilter{ContextID: ctxA, State: a2a.StateInputRequired})))
		require.Empty(t, listAll(t, c, a2a.TaskFilter{ContextID: ctxB, State: a2a.StateCompleted}))

		// Pages of two: 2, 2, 1, every task once, newest first.
		before := listCalls(px)
		l = c.ListTasks(t.Context(), a2a.TaskFilter{PageSize: 2})
		var paged []string
		var sizes []int
		for l.Next() {
			pg := l.Page()
			require.Equal(t, 2, pg.PageSize)
			require.Equal(t, 5, pg.TotalSize)
			sizes = append(sizes, len(pg.Tasks))
			paged = append(paged, ids(pg.Tasks)...)
		}
		require.NoError(t, l.Err())
		require.Equal(t, []int{2, 2, 1}, sizes)
		require.Equal(t, newestFirst, paged)
		require.Equal(t, 3, listCalls(px)-before, "one call per page")
		// And one at a time through All, the filter kept on every page.
		require.Equal(t, pick(3, 1, 0), ids(listAll(t, c, a2a.TaskFilter{ContextID: ctxA, PageSize: 1})))

		// History cut to none, and to the last message.
		zero, one := 0, 1
		for _, task := range listAll(t, c, a2a.TaskFilter{HistoryLength: &zero}) {
			require.Empty(t, task.History, "historyLength 0: %s", task.ID)
		}
		for _, task := range listAll(t, c, a2a.TaskFilter{HistoryLength: &one}) {
			h := full[task.ID].History
			require.Equal(t, messageIDs(h[len(h)-1:]), messageIDs(task.History), "historyLength 1: %s", task.ID)
		}
		got := listAll(t, c, a2a.TaskFilter{ContextID: ctxB, State: a2a.StateInputRequired, HistoryLength: &zero})
		require.Equal(t, pick(4), ids(got))
		require.Empty(t, got[0].History)

		// Artifacts when asked for: as GetTask has them.
		withArts := listAll(t, c, a2a.TaskFilter{IncludeArtifacts: true})
		require.Equal(t, newestFirst, ids(withArts))
		for _, task := range withArts {
			want, err := c.GetTask(t.Context(), task.ID)
			require.NoError(t, err)
			require.Equal(t, view(want.Artifacts), view(task.Artifacts), "artifacts of %s", task.ID)
		}
		require.Equal(t, made[3].ID, withArts[1].ID)
		require.Equal(t, story, view(withArts[1].Artifacts), "the story task's artifacts")

		// A stale page token: the newest task, named by the first page's
		// token, changes (its reply completes it) before the second page.
		l = c.ListTasks(t.Context(), a2a.TaskFilter{PageSize: 1})
		require.True(t, l.Next(), "%v", l.Err())
		first := l.Page()
		require.Equal(t, pick(4), ids(first.Tasks))
		require.NotEmpty(t, first.NextPageToken)
		replied := played(t, c, ctxB, made[4].ID, answer)
		require.Equal(t, a2a.StateCompleted, replied.Status.State)
		require.False(t, l.Next(), "the stale token's empty page is no page")
		var cutErr *stream.ListingCutError
		require.ErrorAs(t, l.Err(), &cutErr, "a stale token is no clean end: %v", l.Err())
		require.Equal(t, first.NextPageToken, cutErr.PageToken)
		require.Equal(t, 1, cutErr.Listed)
		require.Nil(t, l.Page())
		// Listed again from the start, every task is there, the replied
		// one first.
		again := listAll(t, c, a2a.TaskFilter{PageSize: 1})
		require.Len(t, again, 5)
		require.Equal(t, made[4].ID, again[0].ID)
		require.Equal(t, a2a.StateCompleted, again[0].Status.State)
	})
}

// TestListTasksUnsupportedAgainstJSPeers lists tasks on servers without
// ListTasks: a Client of A2A 0.3 (js-0.3.14, and js-1.3.0 in its 0.3
// dialect, as the matrix speaks to them) sends nothing; a Client of 1.0 made
// by hand for js-0.3.14 gets its -32601 over JSON-RPC and express's 404 over
// HTTP+JSON. Each ends with an error that matches errors.ErrUnsupported. The
// 1.0 Client of js-1.3.0 with legacyCompat on lists: it sends A2A-Version:
// 1.0.
func TestListTasksUnsupportedAgainstJSPeers(t *testing.T) {
	defs := []peerDef{
		{name: "js-0.3.14", version: a2a.V03, command: nodePeer("js03")},
		{name: "js-1.3.0-legacy", version: a2a.V03, command: nodePeer("js10", "--legacy")},
		{name: "js-0.3.14-rest", version: a2a.V03, binding: a2a.BindingHTTPJSON, command: nodePeer("js03", "--rest")},
	}
	eachPeerOf(t, defs, func(peerDef) bool { return true }, func(t *testing.T, p *peer) {
		px := newProxy(t, p, nil)
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("requests:\n%s", requestLog(px))
			}
		})
		c := resolve(t, px, p)
		require.Equal(t, a2a.V03, c.Version())
		played(t, c, "", "", "stream a story") // a task the listing would find
		sent := len(px.Requests())
		tasks, err := listEnding(t, c)
		require.Empty(t, tasks)
		require.ErrorIs(t, err, errors.ErrUnsupported, "%v", err)
		require.Len(t, px.Requests(), sent, "a 0.3 Client sends nothing")

		// A 1.0 Client at the same interface.
		opts := []stream.Option{
			stream.WithVersion(a2a.V10),
			stream.WithHTTPClient(&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}),
		}
		var c10 *stream.Client
		var err10 error
		switch p.def.name {
		case "js-1.3.0-legacy":
			c10 = resolve(t, px, p, stream.WithVersion(a2a.V10))
		case "js-0.3.14-rest":
			c10, err10 = stream.NewRESTClient("http://"+px.Addr()+"/rest", opts...)
		default:
			c10, err10 = stream.NewClient("http://"+px.Addr()+"/", opts...)
		}
		require.NoError(t, err10)
		before := listCalls(px)
		tasks, err = listEnding(t, c10)
		require.Equal(t, 1, listCalls(px)-before, "one call")
		if p.def.name == "js-1.3.0-legacy" {
			require.NoError(t, err, "the SDK routes ListTasks with A2A-Version: 1.0 to its 1.0 handler")
			require.Len(t, tasks, 1)
			return
		}
		require.Empty(t, tasks)
		require.ErrorIs(t, err, errors.ErrUnsupported, "%v", err)
		if p.def.rest() {
			var httpErr *transport.HTTPError
			require.ErrorAs(t, err, &httpErr)
			require.Equal(t, http.StatusNotFound, httpErr.StatusCode)
		} else {
			var rpc *a2a.RPCError
			require.ErrorAs(t, err, &rpc)
			require.Equal(t, a2a.CodeMethodNotFound, rpc.Code)
		}
	})
}

// listEnding lists every task with All and returns them and the error the
// listing ended with.
func listEnding(t *testing.T, c *stream.Client) ([]*a2a.Task, error) {
	t.Helper()
	var tasks []*a2a.Task
	for task, err := range c.ListTasks(t.Context(), a2a.TaskFilter{}).All() {
		if err != nil {
			return tasks, err
		}
		tasks = append(tasks, task)
	}
	return tasks, nil
}

// TestListTasksFindsARunningTaskAfterARestart: a Client sends a slow task
// and is gone after its first chunk (a process restart that kept nothing);
// a new Client lists the context on @a2a-js/sdk 1.3.0 (JSON-RPC and
// HTTP+JSON, through the proxy), finds the one task still running beside a
// finished one, and Subscribe resumes it: every chunk exactly once from
// there, the task completed as the server has it. With the subscribe's
// stream cut after two events too (the stream resubscribes).
func TestListTasksFindsARunningTaskAfterARestart(t *testing.T) {
	variants := []struct {
		name string
		plan []proxy.Fault // for the streams: the finished send, the slow send, the subscribe
		subs int
	}{
		{"uncut", nil, 1},
		{"subscribe-cut", []proxy.Fault{{}, {}, cut(2, 0)}, 2},
	}
	eachPeerOf(t, listPeers, func(peerDef) bool { return true }, func(t *testing.T, p *peer) {
		for _, v := range variants {
			t.Run(v.name, func(t *testing.T) {
				px := newProxy(t, p, v.plan)
				t.Cleanup(func() {
					if t.Failed() {
						t.Logf("streams %+v; requests:\n%s", px.Records(), requestLog(px))
					}
				})
				var prompts []string
				before := newClient(t, px, p, &prompts)
				ctxID := "interop-restart-" + v.name // the variants share the peer
				done := played(t, before, ctxID, "", "stream a story")
				require.Equal(t, a2a.StateCompleted, done.Status.State)

				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
				defer cancel()
				msg := a2a.NewTextMessage(a2a.RoleUser, "stream a story, slow")
				msg.ContextID = ctxID
				first := before.Send(ctx, msg)
				var running string
				for first.Next() {
					if up, ok := first.Event().(*a2a.ArtifactUpdate); ok {
						running = up.TaskID
						break
					}
				}
				require.NotEmpty(t, running, "no chunk came: %v", first.Err())
				first.Close() // the restart: nothing of the stream is kept

				after := newClient(t, px, p, &prompts)
				var found, finished []string
				for task, err := range after.ListTasks(ctx, a2a.TaskFilter{ContextID: ctxID}).All() {
					require.NoError(t, err)
					if task.Status.State.Terminal() {
						finished = append(finished, task.ID)
					} else {
						found = append(found, task.ID)
					}
				}
				require.Equal(t, []string{running}, found, "the one running task")
				require.Equal(t, []string{done.ID}, finished)

				s := after.Subscribe(ctx, running)
				defer s.Close()
				var folded a2a.Task
				var arts []a2a.Artifact
				for s.Next() {
					if up, ok := s.Event().(*a2a.ArtifactUpdate); ok {
						folded.Apply(up)
						arts = folded.Artifacts
					}
				}
				require.NoError(t, s.Err())
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
				require.Equal(t, story, view(arts), "every chunk once, from the snapshot on")
				require.Equal(t, view(arts), view(s.Task().Artifacts))
				server, err := after.GetTask(ctx, running)
				require.NoError(t, err)
				require.Equal(t, view(server.Artifacts), view(s.Task().Artifacts), "as the server has it")
				if v.plan != nil {
					recs := px.Records()
					require.Len(t, recs, 4, "the two sends' streams and the subscribe's two")
					require.True(t, recs[2].Fired, "the subscribe's stream was cut: %+v", recs)
				}
				require.Equal(t, v.subs, px.Count(proxy.Subscribe))
				require.Equal(t, 2, px.Count(proxy.Send), "each message sent once")
				require.Empty(t, prompts)
			})
		}
	})
}
