package stream_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/stream"
)

// promptScript asks a question, then works on after the reply.
func promptScript() []a2atest.Step {
	return []a2atest.Step{
		a2atest.Working("thinking"), a2atest.Chunk("a1", "draft ", false, false),
		a2atest.AskInput("Which city?"),
		a2atest.Chunk("a1", "for the city", true, true), a2atest.Pause(time.Second),
		a2atest.Finish(a2a.StateCompleted, "done"),
	}
}

// neverAsked is a hook that fails the test when it is asked.
func neverAsked(t *testing.T) hitl.Hook {
	return hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
		t.Errorf("the resumed stream asked the human again")
		return hitl.Text("again"), nil
	})
}

// followModes are the two ways a stream follows its task.
var followModes = []struct {
	name string
	opts []a2atest.Option
}{
	{"streamed", nil},
	{"polled", []a2atest.Option{a2atest.WithoutStreaming()}},
}

// A process that dies while its reply is in flight resumes from the
// checkpoint saved before the send: whether the reply reached the agent or
// not, the human is not asked again, and the agent gets the reply once.
func TestResumeAfterAReplyInFlightNeverAsksAgainNorRepliesTwice(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, mode := range followModes {
			for _, reached := range []bool{true, false} {
				name := w.String() + "/" + mode.name + "/reply never left"
				if reached {
					name = w.String() + "/" + mode.name + "/reply reached the agent"
				}
				t.Run(name, func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						agent := a2atest.NewAgent(append([]a2atest.Option{a2atest.WithScript(promptScript()...),
							a2atest.WithVersions(w.v), a2atest.WithBindings(w.b)}, mode.opts...)...)
						ctx, die := context.WithCancel(bounded(t))
						var saved []byte
						asked := 0
						s := clientOn(t, agent, w.v, w.b, stream.WithPollInterval(250*time.Millisecond),
							stream.WithHumanInput(hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
								asked++
								return hitl.Text("Lisbon"), nil
							})),
							stream.WithCheckpointBeforeReply(func(_ context.Context, cp *stream.Checkpoint) error {
								var err error
								saved, err = cp.MarshalBinary()
								if !reached {
									die() // the process dies before the send
								}
								return err
							})).Send(ctx, hello())
						var before []a2a.Event
						for s.Next() {
							before = append(before, s.Event())
							if len(followUps(agent)) > 0 {
								break // the process dies after the reply reached the agent
							}
						}
						s.Close()
						die()
						require.Equal(t, 1, asked)
						require.NotNil(t, saved, "the checkpoint was saved before the reply")
						if reached {
							require.Len(t, followUps(agent), 1)
						} else {
							require.Empty(t, followUps(agent), "the reply never left")
						}

						cp, err := stream.ParseCheckpoint(saved)
						require.NoError(t, err)
						resumed := clientOn(t, agent, w.v, w.b, stream.WithPollInterval(250*time.Millisecond),
							stream.WithHumanInput(neverAsked(t))).Resume(bounded(t), cp)
						after, err := drainResumed(t, resumed, before[:cp.Delivered()])
						require.NoError(t, err)
						replies := followUps(agent)
						require.Len(t, replies, 1, "the agent got the reply once")
						require.Equal(t, "Lisbon", replies[0].Message.Text())
						requireHandedOverOnce(t, agent.Task(cp.TaskID()), append(before[:cp.Delivered()], after...))
					})
				})
			}
		}
	}
}

// A process that stops while the prompt is shown, before the human
// answered, resumes and asks the human: the reply goes once, and the task
// goes on.
func TestResumeWhileAPromptIsShownAsksTheHuman(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, mode := range followModes {
			t.Run(w.String()+"/"+mode.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(append([]a2atest.Option{a2atest.WithScript(promptScript()...),
						a2atest.WithVersions(w.v), a2atest.WithBindings(w.b)}, mode.opts...)...)
					s := clientOn(t, agent, w.v, w.b, stream.WithPollInterval(250*time.Millisecond)).Send(bounded(t), hello())
					var before []a2a.Event
					for s.Next() {
						before = append(before, s.Event())
						if u, ok := s.Event().(*a2a.StatusUpdate); ok && u.Status.State == a2a.StateInputRequired {
							break
						}
					}
					saved, err := s.Checkpoint().MarshalBinary()
					require.NoError(t, err)
					s.Close()

					cp, err := stream.ParseCheckpoint(saved)
					require.NoError(t, err)
					asked := 0
					resumed := clientOn(t, agent, w.v, w.b, stream.WithPollInterval(250*time.Millisecond),
						stream.WithHumanInput(hitl.Func(func(_ context.Context, r *hitl.Request) ([]a2a.Part, error) {
							asked++
							require.Equal(t, "Which city?", r.Text())
							return hitl.Text("Porto"), nil
						}))).Resume(bounded(t), cp)
					after, err := drainResumed(t, resumed, before)
					require.NoError(t, err)
					require.Equal(t, 1, asked)
					replies := followUps(agent)
					require.Len(t, replies, 1)
					require.Equal(t, "Porto", replies[0].Message.Text())
					requireHandedOverOnce(t, agent.Task(cp.TaskID()), append(before, after...))
				})
			})
		}
	}
}

// A reply saved as in flight, resumed against a server that keeps no user
// messages in its history (a2a-go), is never sent again: nothing proves
// that it did not reach the agent. The stream waits for the agent instead.
func TestResumeNeverResendsAReplyInFlightThatTheTaskCannotDisprove(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				prompt := agentMsg("m-ask", "Which city?")
				asking := func() *a2a.Task { // no user message in the history
					t := taskWith(a2a.StateInputRequired, []*a2a.Message{prompt})
					t.Status.Message = prompt
					return t
				}
				srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
					switch {
					case r.isSend() && r.msg.TaskID == "":
						sseHeaders(w)
						sseEvent(w, r.id, v, &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking}})
						sseEvent(w, r.id, v, statusEvent(v, a2a.StateInputRequired, prompt))
					case r.isGet():
						unaryTask(w, r.id, v, asking())
					case r.isSubscribe():
						sseHeaders(w)
						sseEvent(w, r.id, v, asking())
						<-r.ctx.Done()
					default: // the reply, or anything else
						jsonRPCError(w, r.id, -32603, "not expected")
					}
				})
				ctx, die := context.WithCancel(bounded(t))
				var saved []byte
				s := handlerClient(t, srv, v, stream.WithHumanInput(&pollAnswer{text: "Lisbon"}),
					stream.WithCheckpointBeforeReply(func(_ context.Context, cp *stream.Checkpoint) error {
						var err error
						saved, err = cp.MarshalBinary()
						die() // the process dies: did the reply leave? Nobody knows.
						return err
					})).Send(ctx, hello())
				_, _ = drain(t, s)
				require.NotNil(t, saved)
				cp, err := stream.ParseCheckpoint(saved)
				require.NoError(t, err)

				waitCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				resumed := handlerClient(t, srv, v, stream.WithHumanInput(neverAsked(t))).Resume(waitCtx, cp)
				_, err = drain(t, resumed)
				require.Error(t, err, "the stream waited for the agent until it gave up")
				require.Zero(t, srv.count(func(r scriptedReq) bool { return r.msg != nil && r.msg.TaskID != "" }), "the reply was never sent again")
			})
		})
	}
}
