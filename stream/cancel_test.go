package stream_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

// Client.Cancel over REST while another goroutine's stream polls: the
// stream ends in *terminal.CanceledError at the next poll, with the task.
func TestCancelWhileAnotherGoroutinePollsOverREST(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
					a2atest.WithoutStreaming(), a2atest.WithScript(a2atest.Working(""), a2atest.Chunk("a1", "partial", false, false),
						a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")))
				c := resolveAgent(t, agent)
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

// After the task is known, Cancel asks the agent, the stream yields the
// canceled status and ends in *terminal.CanceledError carrying the task,
// in both versions and both bindings.
func TestCancelAfterTheTaskIsKnownEndsCanceled(t *testing.T) {
	for _, v := range versions {
		for _, b := range bothBindings {
			t.Run(string(v)+"/"+string(b), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(b), a2atest.WithScript(longScript()...))
					s := clientOn(t, agent, v, b).Send(background(), hello(), stream.WithHeader("Authorization", "Bearer u"))
					nextUntilWorking(t, s)
					require.NoError(t, s.Cancel(background()))
					var last *a2a.StatusUpdate
					for s.Next() {
						if u, ok := s.Event().(*a2a.StatusUpdate); ok {
							last = u
						}
					}
					require.NotNil(t, last, "the canceled status is yielded")
					require.Equal(t, a2a.StateCanceled, last.Status.State)
					requireCanceled(t, agent, s, s.Err())
					require.Equal(t, 1, cancelCalls(agent))
					require.Equal(t, "draft ", s.Task().Artifact("a1").Text(), "the artifact stays")
					for _, r := range agent.Requests() {
						if r.Method == "tasks/cancel" || r.Method == "CancelTask" {
							require.Equal(t, "Bearer u", r.Header.Get("Authorization"), "Cancel uses the stream's options")
						}
					}
				})
			})
		}
	}
}

// Cancel before any task is known is refused with an error that matches
// ErrInvalidOption and says what to do, and sends nothing, on every wire;
// on a stream whose option was refused too, whose ending stays.
func TestCancelBeforeAnyTaskIsKnownSendsNothing(t *testing.T) {
	const text = "stream: Stream.Cancel: the stream knows no task yet, so nothing was sent; " +
		"call it once Next has yielded an event of the task, or call Client.Cancel with the task's ID"
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			agent := w.agent(a2atest.WithScript(longScript()...))
			c := clientOn(t, agent, w.v, w.b)
			s := c.Send(background(), hello())
			err := s.Cancel(background())
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.EqualError(t, err, text)
			require.Empty(t, agent.Requests(), "nothing sent")
			s.Close()

			refused := c.Send(background(), hello(), stream.WithMaxEventSize(0))
			err = refused.Cancel(background())
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.EqualError(t, err, text)
			require.ErrorIs(t, refused.Err(), stream.ErrInvalidOption, "the refusal stays the ending")
			require.Empty(t, agent.Requests())
		})
	}
}

// After the stream's own context ended (Ctrl-C), Cancel still reaches the
// agent and the stream's Err becomes the canceled ending.
func TestCancelAfterTheStreamsContextEndedReachesTheAgent(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(longScript()...))
				ctx, stop := context.WithCancel(background())
				s := newClient(t, agent, v).Send(ctx, hello())
				nextUntilWorking(t, s)
				stop()
				for s.Next() {
				}
				require.ErrorIs(t, s.Err(), context.Canceled)
				require.Equal(t, a2a.StateWorking, stream.EndingOf(s.Err()).Task.Status.State)
				require.NoError(t, s.Cancel(background()))
				for s.Next() {
				}
				requireCanceled(t, agent, s, s.Err())
			})
		})
	}
}

// Cancel on a stream that already ended, completed or failed: the agent
// refuses (the task is terminal), Cancel returns the refusal, nothing more
// is yielded, and the stream's ending stays, on every wire.
func TestCancelOnAnEndedStreamIsRefused(t *testing.T) {
	cases := []struct {
		state  a2a.TaskState
		script []a2atest.Step // nil: a2atest's default, which completes
		ending func(t *testing.T, err error)
	}{
		{a2a.StateCompleted, nil, func(t *testing.T, err error) { require.NoError(t, err) }},
		{a2a.StateFailed, []a2atest.Step{a2atest.Working("w"), a2atest.Finish(a2a.StateFailed, "boom")},
			func(t *testing.T, err error) {
				require.ErrorAs(t, err, new(*terminal.FailedError))
				state, _ := wirematrix.TerminalState(err)
				require.Equal(t, a2a.StateFailed, state)
			}},
	}
	for _, v := range versions {
		for _, b := range bothBindings {
			for _, c := range cases {
				t.Run(string(v)+"/"+string(b)+"/"+string(c.state), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						opts := []a2atest.Option{a2atest.WithVersions(v), a2atest.WithBindings(b)}
						if c.script != nil {
							opts = append(opts, a2atest.WithScript(c.script...))
						}
						agent := a2atest.NewAgent(opts...)
						s := clientOn(t, agent, v, b).Send(background(), hello())
						_, err := s.Wait()
						c.ending(t, err)
						err = s.Cancel(background())
						require.Error(t, err, "the agent refuses to cancel a %s task", c.state)
						var rpcErr *a2a.RPCError
						require.ErrorAs(t, err, &rpcErr)
						c.ending(t, s.Err())
						require.Equal(t, c.state, s.Task().Status.State)
						require.False(t, s.Next())
						require.Equal(t, 1, cancelCalls(agent))
					})
				})
			}
		}
	}
}

// Cancel on a Subscribe stream before its first Next: the task ID is
// known, so the cancel is sent, and the stream yields what the reported
// task holds and ends canceled.
func TestCancelOfASubscribeStreamBeforeItsFirstNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(longScript()...))
		c := newClient(t, agent, a2a.V10)
		first := c.Send(background(), hello())
		nextUntilWorking(t, first)
		id := first.Task().ID
		first.Close()
		s := c.Subscribe(background(), id)
		require.NoError(t, s.Cancel(background()))
		got, err := drain(t, s)
		requireCanceled(t, agent, s, err)
		require.Equal(t, "draft ", got.text("a1"), "the artifact is yielded from the reported task")
	})
}

// Cancel after the reconnect budget was spent, and after Close.
func TestCancelAfterTheBudgetWasSpentOrAfterClose(t *testing.T) {
	t.Run("budget spent", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithScript(longScript()...), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
			s := newClient(t, agent, a2a.V10, stream.WithReconnect(reconnect.Never())).Send(background(), hello())
			_, err := s.Wait()
			require.ErrorAs(t, err, new(*reconnect.Error))
			require.NoError(t, s.Cancel(background()))
			for s.Next() {
			}
			requireCanceled(t, agent, s, s.Err())
		})
	})
	t.Run("after Close", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithScript(longScript()...))
			s := newClient(t, agent, a2a.V10).Send(background(), hello())
			nextUntilWorking(t, s)
			require.NoError(t, s.Close())
			require.NoError(t, s.Cancel(background()))
			for s.Next() {
			}
			requireCanceled(t, agent, s, s.Err())
		})
	})
	t.Run("no hook, then Cancel twice", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithScript(wirematrix.Asking()...))
			s := newClient(t, agent, a2a.V10).Send(background(), hello())
			_, err := s.Wait()
			require.ErrorIs(t, err, hitl.ErrNoHook)
			require.NoError(t, s.Cancel(background()))
			for s.Next() {
			}
			requireCanceled(t, agent, s, s.Err())
			err = s.Cancel(background())
			var rpcErr *a2a.RPCError
			require.ErrorAs(t, err, &rpcErr, "the second cancel is refused: the task is canceled")
			requireCanceled(t, agent, s, s.Err())
			require.Equal(t, 2, cancelCalls(agent))
		})
	})
	t.Run("Cancel's own context done", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithScript(longScript()...))
			s := newClient(t, agent, a2a.V10).Send(background(), hello())
			defer s.Close()
			nextUntilWorking(t, s)
			ctx, stop := context.WithCancel(background())
			stop()
			n := len(agent.Requests())
			require.ErrorIs(t, s.Cancel(ctx), context.Canceled)
			require.Len(t, agent.Requests(), n, "nothing sent")
			require.NoError(t, s.Err(), "the stream goes on")
			require.Equal(t, a2a.StateWorking, agent.Task(s.Task().ID).Status.State)
		})
	})
}

// Cancel on a stream that follows its task by polling (an agent that cannot
// stream), over both bindings.
func TestCancelOfAPolledStream(t *testing.T) {
	for _, b := range bothBindings {
		t.Run(string(b), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithBindings(b), a2atest.WithoutStreaming(), a2atest.WithScript(longScript()...))
				c, err := stream.Resolve(background(), "http://agent.test", stream.WithHTTPClient(agent.Client()))
				require.NoError(t, err)
				s := c.Send(background(), hello())
				nextUntilWorking(t, s)
				require.NoError(t, s.Cancel(background()))
				for s.Next() {
				}
				requireCanceled(t, agent, s, s.Err())
				require.Equal(t, "draft ", s.Task().Artifact("a1").Text())
			})
		})
	}
}

// The agent answers the cancel with the task completed (it finished first)
// and holding more output than the stream saw: the stream yields the rest
// and ends as the task did, in nil; the artifacts the events build equal the
// reported task's.
func TestCancelAnsweredWithTheTaskCompletedEndsAsTheTaskDid(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				done := taskWith(a2a.StateCompleted, nil, a2a.Artifact{ID: "a1", Parts: []a2a.Part{a2a.TextPart("one "), a2a.TextPart("two")}})
				srv := cancelServer(v, done, nil)
				s := newClient(t, srv, v).Send(bounded(t), hello())
				arts := map[string][]a2a.Part{}
				for s.Next() {
					applyParts(arts, s.Event())
					if _, ok := s.Event().(*a2a.ArtifactUpdate); ok {
						break
					}
				}
				require.NoError(t, s.Cancel(background()))
				var states []a2a.TaskState
				for s.Next() {
					applyParts(arts, s.Event())
					if u, ok := s.Event().(*a2a.StatusUpdate); ok {
						states = append(states, u.Status.State)
					}
				}
				require.NoError(t, s.Err(), "the task completed: the stream ends in nil")
				require.Equal(t, []a2a.TaskState{a2a.StateCompleted}, states)
				require.Equal(t, done.Artifacts[0].Parts, arts["a1"])
				require.Equal(t, done.Artifacts[0].Parts, s.Task().Artifact("a1").Parts)
			})
		})
	}
}

// The agent answers the cancel with the task still working (it cancels
// later) and then sends the canceled status on the stream: Cancel returns
// nil, the live stream goes on and ends canceled.
func TestCancelThatTakesEffectLaterEndsCanceledOnTheStream(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				working := taskWith(a2a.StateWorking, nil, a2a.Artifact{ID: "a1", Parts: []a2a.Part{a2a.TextPart("one ")}})
				srv := cancelServer(v, working, []a2a.Event{statusEvent(v, a2a.StateCanceled, agentMsgParts("m-9", a2a.TextPart("stopped")))})
				s := newClient(t, srv, v).Send(bounded(t), hello())
				for s.Next() {
					if _, ok := s.Event().(*a2a.ArtifactUpdate); ok {
						break
					}
				}
				require.NoError(t, s.Cancel(background()))
				require.NoError(t, s.Err(), "still running")
				for s.Next() {
				}
				var canceled *terminal.CanceledError
				require.ErrorAs(t, s.Err(), &canceled)
				require.Equal(t, "stopped", canceled.Task.Status.Message.Text())
				require.Equal(t, "one ", canceled.Task.Artifact("a1").Text())
			})
		})
	}
}

func cancelCalls(agent *a2atest.Agent) int {
	return wirematrix.CountMethod(agent, "tasks/cancel", "CancelTask")
}

// requireCanceled checks a stream that ended canceled.
func requireCanceled(t *testing.T, agent *a2atest.Agent, s *stream.Stream, err error) {
	t.Helper()
	var canceled *terminal.CanceledError
	require.ErrorAs(t, err, &canceled, "got %T: %v", err, err)
	require.NotNil(t, canceled.Task)
	require.Equal(t, a2a.StateCanceled, canceled.Task.Status.State)
	require.Equal(t, s.Task().ID, canceled.Task.ID)
	state, ok := wirematrix.TerminalState(err)
	require.True(t, ok)
	require.Equal(t, a2a.StateCanceled, state)
	require.Equal(t, a2a.StateCanceled, stream.EndingOf(err).Task.Status.State)
	require.Equal(t, a2a.StateCanceled, agent.Task(s.Task().ID).Status.State)
	require.Equal(t, a2a.StateCanceled, s.Task().Status.State)
}

// applyParts applies an artifact update to arts, as an application does.
func applyParts(arts map[string][]a2a.Part, ev a2a.Event) {
	if u, ok := ev.(*a2a.ArtifactUpdate); ok {
		if u.Append {
			arts[u.Artifact.ID] = append(arts[u.Artifact.ID], u.Artifact.Clone().Parts...)
		} else {
			arts[u.Artifact.ID] = u.Artifact.Clone().Parts
		}
	}
}

// cancelServer streams a task that works (a1 "one ") and then waits; its
// cancel answers with cancelAnswer, and, when onCancel is set, the stream
// writes onCancel's events once the cancel arrived.
func cancelServer(v a2a.Version, cancelAnswer *a2a.Task, onCancel []a2a.Event) *scriptedServer {
	canceled := make(chan struct{})
	var once sync.Once
	return newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
		switch {
		case r.isSend():
			sseHeaders(w)
			sseEvent(w, r.id, v, taskWith(a2a.StateSubmitted, []*a2a.Message{r.msg}))
			sseEvent(w, r.id, v, statusEvent(v, a2a.StateWorking, nil))
			sseEvent(w, r.id, v, &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1",
				Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{a2a.TextPart("one ")}}})
			select {
			case <-canceled:
				for _, ev := range onCancel {
					sseEvent(w, r.id, v, ev)
				}
			case <-time.After(time.Hour):
			}
		case r.method == "tasks/cancel" || r.method == "CancelTask":
			unaryTask(w, r.id, v, cancelAnswer)
			once.Do(func() { close(canceled) })
		default:
			jsonRPCError(w, r.id, a2a.CodeTaskNotFound, "no")
		}
	})
}

// TestCancelBetweenDeltasKeepsTheFold: Stream.Cancel called
// between two deltas of one server event (a Task that brings two
// artifacts and a status message) leaves Task() the fold of the events
// yielded so far, before the next Next and after each one; the cancel's
// task (with one more artifact) is delivered as deltas, and the stream
// ends canceled.
func TestCancelBetweenDeltasKeepsTheFold(t *testing.T) {
	for _, w := range wires() {
		for _, after := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/after-%d", w, after), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					msg := &a2a.Message{ID: "m-1", TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("working on it")}}
					snapshot := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking, Message: msg},
						Artifacts: []a2a.Artifact{textArtifact("a1", "one"), textArtifact("a2", "two")}, History: []a2a.Message{*msg}}
					agent := newWireAgent(w, map[callKind]func(w *wireWriter, c wireCall){
						kindStream: func(w *wireWriter, c wireCall) {
							w.sse()
							w.event(snapshot)
							<-c.ctx.Done()
						},
						kindCancel: func(w *wireWriter, c wireCall) {
							done := snapshot.Clone()
							done.Status = a2a.TaskStatus{State: a2a.StateCanceled}
							done.Artifacts = append(done.Artifacts, textArtifact("a3", "three"))
							w.task(done)
						},
						kindGet: func(w *wireWriter, c wireCall) { w.task(snapshot) },
					})
					c := agent.client(t)
					s := c.Send(context.Background(), hello())
					defer s.Close()
					fold := &a2a.Task{}
					for i := 0; i < after; i++ {
						require.True(t, s.Next(), "delta %d (ended in %v)", i, s.Err())
						fold.Apply(s.Event())
						requireArtifactsFold(t, fold, s.Task(), fmt.Sprintf("after delta %d", i))
					}
					require.NoError(t, s.Cancel(context.Background()))
					requireArtifactsFold(t, fold, s.Task(), "right after Cancel, before Next")
					for s.Next() {
						fold.Apply(s.Event())
						requireArtifactsFold(t, fold, s.Task(), "after a delta that followed Cancel")
					}
					state, ok := wirematrix.TerminalState(s.Err())
					require.True(t, ok, "ended in %v", s.Err())
					require.Equal(t, a2a.StateCanceled, state)
					require.Len(t, fold.Artifacts, 3, "the cancel's task was delivered whole")
					require.NotNil(t, fold.Artifact("a3"))
				})
			})
		}
	}
}

// TestCancelStillRunningKeepsTheFold: a cancel whose answer shows
// the task still running (with an artifact the stream has not delivered
// yet) leaves Task() the fold of the events yielded so far; the live
// stream goes on and ends canceled.
func TestCancelStillRunningKeepsTheFold(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				canceled := make(chan struct{})
				snapshot := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking},
					Artifacts: []a2a.Artifact{textArtifact("a1", "one"), textArtifact("a2", "two")}}
				agent := newWireAgent(w, map[callKind]func(w *wireWriter, c wireCall){
					kindStream: func(ww *wireWriter, c wireCall) {
						ww.sse()
						ww.event(snapshot)
						select {
						case <-canceled:
						case <-c.ctx.Done():
							return
						}
						ww.event(&a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Artifact: textArtifact("a3", "three")})
						ww.event(&a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateCanceled}, Final: true})
					},
					kindCancel: func(ww *wireWriter, c wireCall) {
						running := snapshot.Clone()
						running.Artifacts = append(running.Artifacts, textArtifact("a3", "three"))
						ww.task(running)
						close(canceled)
					},
				})
				s := agent.client(t).Send(context.Background(), hello())
				defer s.Close()
				fold := &a2a.Task{}
				require.True(t, s.Next())
				fold.Apply(s.Event())
				require.NoError(t, s.Cancel(context.Background()))
				requireArtifactsFold(t, fold, s.Task(), "right after Cancel, before Next")
				for s.Next() {
					fold.Apply(s.Event())
					requireArtifactsFold(t, fold, s.Task(), "after a delta that followed Cancel")
				}
				state, ok := wirematrix.TerminalState(s.Err())
				require.True(t, ok, "ended in %v", s.Err())
				require.Equal(t, a2a.StateCanceled, state)
				require.Len(t, fold.Artifacts, 3)
				require.Equal(t, "three", fold.Artifact("a3").Text(), "a3 once, whole")
			})
		})
	}
}
