package stream_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// Send with a message that continues task t-1; the server streams another
// task. The README: an event for another task is a *ProtocolError.
func TestSendContinuingATaskAnsweredWithAnotherTaskIsAProtocolError(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
					sseHeaders(w)
					sseEvent(w, r.id, v, &a2a.Task{ID: "t-other", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking}})
					sseEvent(w, r.id, v, &a2a.StatusUpdate{TaskID: "t-other", ContextID: "c-1", Final: v == a2a.V03,
						Status: a2a.TaskStatus{State: a2a.StateCompleted}})
				})
				reply := &a2a.Message{ID: "m-reply", TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleUser, Parts: textParts("Oct")}
				s := handlerClient(t, srv, v).Send(bounded(t), reply)
				_, err := drain(t, s)
				requireProtocolError(t, err, "")
			})
		})
	}
}

// Context IDs: an event in a context other than the task's is a
// *stream.ProtocolError; events without a context ID are the task's.
func TestEventsInAnotherContextAreAProtocolError(t *testing.T) {
	noCtxTask := &a2a.Task{ID: "t-1", Status: a2a.TaskStatus{State: a2a.StateWorking}}
	cases := []struct {
		name    string
		events  []a2a.Event
		wantErr bool
	}{
		{"task without context, events in c-1, then c-2", []a2a.Event{
			noCtxTask,
			&a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking, Message: agentMessage("m-1", "x")}},
			&a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-2", Artifact: a2a.Artifact{ID: "a1", Parts: textParts("y")}},
		}, true},
		{"events without context IDs", []a2a.Event{
			firstTask,
			&a2a.ArtifactUpdate{TaskID: "t-1", Artifact: a2a.Artifact{ID: "a1", Parts: textParts("y")}},
			&a2a.StatusUpdate{TaskID: "t-1", Final: true, Status: a2a.TaskStatus{State: a2a.StateCompleted}},
		}, false},
		{"message in another context", []a2a.Event{
			firstTask,
			&a2a.Message{ID: "m-x", TaskID: "t-1", ContextID: "c-9", Role: a2a.RoleAgent, Parts: textParts("z")},
		}, true},
	}
	for _, v := range versions {
		for _, c := range cases {
			t.Run(string(v)+"/"+c.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
						if r.n != 1 {
							jsonRPCError(w, r.id, a2a.CodeInternalError, "unexpected request")
							return
						}
						sseHeaders(w)
						for _, ev := range c.events {
							sseEvent(w, r.id, v, ev)
						}
					})
					s := handlerClient(t, srv, v).Send(bounded(t), hello())
					_, err := drain(t, s)
					if c.wantErr {
						requireProtocolError(t, err, "context")
						return
					}
					require.NoError(t, err)
					require.Equal(t, "c-1", s.Task().ContextID)
				})
			})
		}
	}
}

// A get-task that closes a gap answers the right task in another context.
func TestGapGetTaskAnsweringTheTaskInAnotherContextIsAProtocolError(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
					switch {
					case r.n == 1:
						firstLegThenCut(w, r.id, v)
					case r.isSubscribe():
						jsonRPCError(w, r.id, a2a.CodeTaskNotFound, "task not found")
					case r.isGet():
						unaryTask(w, r.id, v, &a2a.Task{ID: "t-1", ContextID: "c-other", Status: a2a.TaskStatus{State: a2a.StateCompleted}})
					}
				})
				s := handlerClient(t, srv, v).Send(bounded(t), hello())
				_, err := drain(t, s)
				requireProtocolError(t, err, "context")
			})
		})
	}
}

// README: "event for another task or another context" is a
// *stream.ProtocolError, never retried, carrying the last task.
func TestPollAnsweringAnotherTaskIsAProtocolError(t *testing.T) {
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

// A resubscribe for the right task in another context is a protocol error,
// not retried, and keeps what was delivered.
func TestSnapshotFromAnotherContextIsAProtocolError(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				elsewhere := &a2a.Task{ID: "t-1", ContextID: "c-other", Status: a2a.TaskStatus{State: a2a.StateWorking},
					Artifacts: []a2a.Artifact{{ID: "a1", Parts: []a2a.Part{{Text: "kept"}}}}}
				srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
					if r.n == 1 {
						firstLegThenCut(w, r.id, v)
					}
					sseHeaders(w)
					sseEvent(w, r.id, v, elsewhere)
				})
				s := handlerClient(t, srv, v).Send(bounded(t), hello())
				got, err := drain(t, s)
				pe := requireProtocolError(t, err, "")
				requireKept(t, pe)
				require.Equal(t, "c-1", pe.Task.ContextID)
				require.Equal(t, "kept", got.text("a1"))
				require.Len(t, srv.requests(), 2, "not retried")
				require.Equal(t, 1, srv.count(scriptedReq.isSubscribe))
			})
		})
	}
}

// A status, artifact or message for another task, live, in a snapshot or
// from a get-task, is a *stream.ProtocolError; nothing of it reaches the
// application.
func TestEventForAnotherTaskIsAProtocolError(t *testing.T) {
	other := []a2a.Event{
		&a2a.StatusUpdate{TaskID: "t-other", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateCompleted}},
		&a2a.ArtifactUpdate{TaskID: "t-other", ContextID: "c-1", Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{{Text: "not yours"}}}},
		&a2a.Message{ID: "m-x", TaskID: "t-other", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: "not yours"}}},
	}
	for _, v := range versions {
		for _, ev := range other {
			for _, onResubscribe := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%T/resubscribe %v", v, ev, onResubscribe), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						calls := 0
						h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
							calls++
							if onResubscribe && n == 1 {
								firstLegThenCut(w, id, v)
							}
							sseHeaders(w)
							if !onResubscribe {
								sseEvent(w, id, v, firstTask)
								sseEvent(w, id, v, firstChunk)
							}
							sseEvent(w, id, v, ev)
						})
						s := handlerClient(t, h, v).Send(background(), hello())
						got, err := drain(t, s)
						pe := requireProtocolError(t, err, `event for task "t-other" on the stream of task "t-1"`)
						requireKept(t, pe)
						require.Equal(t, "kept", got.text("a1"), "nothing of the other task reached the application")
						require.Equal(t, []a2a.TaskState{a2a.StateWorking}, got.states)
						if onResubscribe {
							require.Equal(t, 2, calls)
						} else {
							require.Equal(t, 1, calls)
						}
					})
				})
			}
		}
	}
}

// A resubscribe answered with another task, as a snapshot or from the
// get-task, is a *stream.ProtocolError, not retried, keeping what was
// delivered.
func TestResubscribeAnsweringAnotherTaskIsAProtocolError(t *testing.T) {
	stranger := &a2a.Task{ID: "t-2", ContextID: "c-9", Status: a2a.TaskStatus{State: a2a.StateCompleted},
		Artifacts: []a2a.Artifact{{ID: "a1", Parts: []a2a.Part{{Text: "someone else's"}}}}}
	for _, v := range versions {
		t.Run(string(v)+"/snapshot", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				calls := 0
				h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
					calls++
					if n == 1 {
						firstLegThenCut(w, id, v)
					}
					sseHeaders(w)
					sseEvent(w, id, v, stranger)
				})
				got, err := drain(t, handlerClient(t, h, v).Send(background(), hello()))
				requireKept(t, requireProtocolError(t, err, `event for task "t-2" on the stream of task "t-1"`))
				require.Equal(t, "kept", got.text("a1"))
				require.Equal(t, 2, calls, "not retried")
			})
		})
		t.Run(string(v)+"/get-task", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				calls := 0
				h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
					calls++
					switch n {
					case 1:
						firstLegThenCut(w, id, v)
					case 2:
						jsonRPCError(w, id, a2a.CodeTaskNotFound, "task not found")
					default:
						unaryTask(w, id, v, stranger)
					}
				})
				got, err := drain(t, handlerClient(t, h, v).Send(background(), hello()))
				requireKept(t, requireProtocolError(t, err, `asked for task "t-1", got task "t-2"`))
				require.Equal(t, "kept", got.text("a1"))
				require.Equal(t, 3, calls, "not retried")
			})
		})
	}
}
