package stream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

func TestEndings(t *testing.T) {
	cases := []struct {
		state  a2a.TaskState
		check  func(t *testing.T, err error) *a2a.Task
		errMsg string
	}{
		{a2a.StateCompleted, func(t *testing.T, err error) *a2a.Task { require.NoError(t, err); return nil }, ""},
		{a2a.StateFailed, func(t *testing.T, err error) *a2a.Task {
			var e *terminal.FailedError
			require.ErrorAs(t, err, &e)
			return e.Task
		}, "ended in state failed: the reason"},
		{a2a.StateRejected, func(t *testing.T, err error) *a2a.Task {
			var e *terminal.RejectedError
			require.ErrorAs(t, err, &e)
			return e.Task
		}, "ended in state rejected: the reason"},
		{a2a.StateCanceled, func(t *testing.T, err error) *a2a.Task {
			var e *terminal.CanceledError
			require.ErrorAs(t, err, &e)
			return e.Task
		}, "ended in state canceled: the reason"},
	}
	for _, v := range versions {
		for _, c := range cases {
			t.Run(string(v)+"/"+string(c.state), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(
						a2atest.Working("on it"), a2atest.Chunk("a1", "part one", false, false),
						a2atest.Say("a side note"), a2atest.Finish(c.state, "the reason")))
					s := newClient(t, agent, v).Send(background(), hello())
					_, err := drain(t, s)
					task := c.check(t, err)
					if task == nil {
						return
					}
					require.True(t, strings.HasPrefix(err.Error(), "terminal: task "+task.ID+" "), err.Error())
					require.True(t, strings.HasSuffix(err.Error(), c.errMsg), err.Error())
					var te terminal.Error
					require.ErrorAs(t, err, &te)
					// The full assembled task: status message, artifacts, history.
					require.Equal(t, "the reason", task.Status.Message.Text())
					require.Equal(t, "part one", task.Artifact("a1").Text())
					var texts []string
					for _, m := range task.History {
						texts = append(texts, m.Text())
					}
					require.Subset(t, texts, []string{"hello", "on it", "a side note", "the reason"})
				})
			})
		}
	}
}

func TestMessageAnswer(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(a2atest.Reply("direct reply")))
				s := newClient(t, agent, v).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				require.Nil(t, s.Task(), "no task for a message answer")
				require.Len(t, got.events, 1)
				require.Equal(t, "direct reply", got.events[0].(*a2a.Message).Text())
				task, err := s.Wait()
				require.NoError(t, err)
				require.Nil(t, task)
				require.Equal(t, "direct reply", s.Ending().Answer.Text(), "Wait's caller reads the answer")

				// Wait alone, without Next, keeps it too; and by polling.
				s = newClient(t, agent, v).Send(background(), hello())
				task, err = s.Wait()
				require.NoError(t, err)
				require.Nil(t, task)
				require.Equal(t, "direct reply", s.Ending().Answer.Text())
				polled := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithoutStreaming(), a2atest.WithScript(a2atest.Reply("unary reply")))
				s = newClient(t, polled, v).Send(background(), hello())
				_, err = s.Wait()
				require.NoError(t, err)
				require.Equal(t, "unary reply", s.Ending().Answer.Text())
			})
		})
	}
}

func TestCancelWhileStreaming(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(paced()...))
				c := newClient(t, agent, v)
				s := c.Send(background(), hello())
				defer s.Close()
				canceled := false
				for s.Next() {
					if !canceled && s.Task() != nil && s.Task().Artifact("a1") != nil {
						task, err := c.Cancel(background(), s.Task().ID)
						require.NoError(t, err)
						require.Equal(t, a2a.StateCanceled, task.Status.State)
						canceled = true
					}
				}
				var e *terminal.CanceledError
				require.ErrorAs(t, s.Err(), &e)
				require.Equal(t, "one ", e.Task.Artifact("a1").Text())
			})
		})
	}
}

// Stream.Cancel asks the agent to cancel, and the stream ends in
// *terminal.CanceledError at once, with the task as the agent reported it.
func TestStreamCancel(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(paced()...))
				s := newClient(t, agent, v).Send(background(), hello(), stream.WithHeader("Authorization", "Bearer u"))
				defer s.Close()
				events := 0
				for s.Next() {
					events++
					if s.Task() != nil && s.Task().Artifact("a1") != nil && s.Task().Status.State == a2a.StateWorking {
						require.NoError(t, s.Cancel(background()))
					}
				}
				var e *terminal.CanceledError
				require.ErrorAs(t, s.Err(), &e)
				require.Equal(t, "one ", e.Task.Artifact("a1").Text())
				require.Equal(t, a2a.StateCanceled, agent.Task(e.Task.ID).Status.State)
				reqs := agent.Requests()
				last := reqs[len(reqs)-1]
				require.Contains(t, []string{"tasks/cancel", "CancelTask"}, last.Method)
				require.Equal(t, "Bearer u", last.Header.Get("Authorization"), "the cancel carries the stream's options")
			})
		})
	}
}

// After Ctrl-C (the stream's context ended), Cancel cancels the task on the
// agent and the stream's ending becomes the task's; before any task is
// known it sends nothing.
func TestStreamCancelAfterItsContextEnded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(paced()...))
		ctx, interrupt := context.WithCancel(context.Background())
		defer interrupt()
		s := newClient(t, agent, a2a.V10).Send(ctx, hello())
		for s.Next() {
			if s.Task() != nil && s.Task().Status.State == a2a.StateWorking {
				interrupt()
			}
		}
		require.ErrorIs(t, s.Err(), context.Canceled)
		require.Equal(t, a2a.StateWorking, agent.Task(s.Task().ID).Status.State, "Close or a context is local only")

		require.NoError(t, s.Cancel(background()))
		require.True(t, s.Next(), "the canceled status is yielded")
		require.Equal(t, a2a.StateCanceled, s.Event().(*a2a.StatusUpdate).Status.State)
		require.False(t, s.Next())
		var e *terminal.CanceledError
		require.ErrorAs(t, s.Err(), &e)
		require.Equal(t, a2a.StateCanceled, agent.Task(s.Task().ID).Status.State)
		require.Equal(t, a2a.StateCanceled, s.Task().Status.State)

		// The agent refuses to cancel an ended task: Cancel returns its error
		// and the stream's ending stays.
		var rpcErr *a2a.RPCError
		require.ErrorAs(t, s.Cancel(background()), &rpcErr)
		require.ErrorAs(t, s.Err(), &e)

		fresh := newClient(t, agent, a2a.V10).Send(background(), hello())
		n := len(agent.Requests())
		require.Error(t, fresh.Cancel(background()), "no task known yet")
		require.Len(t, agent.Requests(), n, "nothing sent")
		fresh.Close()
	})
}

// rpcServer is a hand-written hostile server: it answers each streaming
// request with what script writes.
func rpcServer(script func(w http.ResponseWriter, id json.RawMessage, n int)) http.Handler {
	n := 0
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		n++
		script(w, req.ID, n)
	})
}

func sseEvent(w http.ResponseWriter, id json.RawMessage, v a2a.Version, ev a2a.Event) {
	raw, err := a2a.Codec{Version: v}.EncodeEvent(ev)
	if err != nil {
		panic(err)
	}
	fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", id, raw)
	w.(http.Flusher).Flush()
}

func sseHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
}

func handlerClient(t *testing.T, h http.Handler, v a2a.Version, opts ...stream.Option) *stream.Client {
	t.Helper()
	all := append([]stream.Option{stream.WithHTTPClient(a2atest.NewClient(h)), stream.WithVersion(v)}, opts...)
	c, err := stream.NewClient(endpoint, all...)
	require.NoError(t, err)
	return c
}

var firstTask = &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking}}
var firstChunk = &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{{Text: "kept"}}}}

func TestProtocolErrorsAreNotRetried(t *testing.T) {
	cases := []struct {
		name   string
		after  func(w http.ResponseWriter, id json.RawMessage, v a2a.Version)
		reason string
	}{
		{"malformed JSON", func(w http.ResponseWriter, id json.RawMessage, v a2a.Version) {
			fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"kind\":\n\n")
		}, "malformed JSON-RPC response"},
		{"event for another task", func(w http.ResponseWriter, id json.RawMessage, v a2a.Version) {
			sseEvent(w, id, v, &a2a.StatusUpdate{TaskID: "t-other", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateFailed}})
		}, "event for task \"t-other\""},
		{"oversized event", func(w http.ResponseWriter, id json.RawMessage, v a2a.Version) {
			sseEvent(w, id, v, &a2a.ArtifactUpdate{TaskID: "t-1", Append: true, Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{{Text: strings.Repeat("x", 8192)}}}})
		}, "event too large"},
		{"mismatched response id", func(w http.ResponseWriter, id json.RawMessage, v a2a.Version) {
			sseEvent(w, json.RawMessage(`"someone-else"`), v, firstChunk)
		}, "does not match"},
		{"unknown result", func(w http.ResponseWriter, id json.RawMessage, v a2a.Version) {
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"surprise\":1}}\n\n", id)
		}, "malformed result"},
		{"error frame without error", func(w http.ResponseWriter, id json.RawMessage, v a2a.Version) {
			raw, _ := a2a.Codec{Version: v}.EncodeEvent(firstChunk)
			fmt.Fprintf(w, "event: error\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", id, raw)
		}, "event: error"},
	}
	for _, v := range versions {
		for _, c := range cases {
			t.Run(string(v)+"/"+c.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					calls := 0
					h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
						calls++
						sseHeaders(w)
						sseEvent(w, id, v, firstTask)
						sseEvent(w, id, v, firstChunk)
						c.after(w, id, v)
					})
					s := handlerClient(t, h, v, stream.WithMaxEventSize(4096)).Send(background(), hello())
					_, err := drain(t, s)
					var pe *stream.ProtocolError
					require.ErrorAs(t, err, &pe)
					require.Contains(t, pe.Error(), c.reason)
					require.NotNil(t, pe.Task, "the last task is carried")
					require.Equal(t, "kept", pe.Task.Artifact("a1").Text())
					require.Equal(t, 1, calls, "a protocol error is never retried")
				})
			})
		}
	}
}

func TestRPCErrorMidStream(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
					sseHeaders(w)
					sseEvent(w, id, v, firstTask)
					fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32603,\"message\":\"internal error\"}}\n\n", id)
				})
				_, err := drain(t, handlerClient(t, h, v).Send(background(), hello()))
				var rpcErr *a2a.RPCError
				require.ErrorAs(t, err, &rpcErr)
				require.Equal(t, a2a.CodeInternalError, rpcErr.Code)
			})
		})
	}
}

// @a2a-js/sdk 0.3.14 reports an executor that throws as a failed status
// under a new, random task ID (testdata/js-0.3.14-stream-executor-error.txt,
// a byte-exact copy of shared/captures/js-0.3.14-stream-executor-error.txt;
// real-peers.md §9.7). That is a server bug and keeps its typed ending, a
// *ProtocolError, but the ending does not lose the agent's reason: the
// error carries the event, and its text the event's state and reason.
func TestEventForAnotherTaskKeepsTheAgentsReason(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		captured, err := os.ReadFile("testdata/js-0.3.14-stream-executor-error.txt")
		require.NoError(t, err)
		const capturedID = `"3c785ac0-68bd-4a38-a698-56e890dbb11c"`
		h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
			sseHeaders(w)
			w.Write(bytes.ReplaceAll(captured, []byte(capturedID), id))
		})
		s := handlerClient(t, h, a2a.V03).Send(background(), hello())
		_, err = drain(t, s)
		var pe *stream.ProtocolError
		require.ErrorAs(t, err, &pe)
		su, ok := pe.Event.(*a2a.StatusUpdate)
		require.True(t, ok, "the event at fault is carried: %T", pe.Event)
		require.Equal(t, a2a.StateFailed, su.Status.State)
		require.Equal(t, "Agent execution error: scripted executor error", su.Status.Message.Text())
		require.Equal(t, "stream: protocol error: event for task \"8f1d0958-1960-4b6c-a062-72209bbcb0ea\" on the stream of task "+
			"\"2f7b5633-5245-4cf7-9afc-6a16e9d68efa\" (a status update, failed: \"Agent execution error: scripted executor error\")", pe.Error())
		require.Equal(t, "2f7b5633-5245-4cf7-9afc-6a16e9d68efa", pe.Task.ID, "the stream's own task, as last known")
	})
}
