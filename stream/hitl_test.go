package stream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
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
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

func TestStayOpenSubscriptionActsOnTheState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// a2a-js 1.3.0 keeps a subscription to an input-required task open.
		// The stream must ask on the state, not wait for an EOF that never
		// comes (synctest would report the deadlock).
		agent := a2atest.NewAgent(a2atest.WithStyle(a2atest.SnapshotFirst), a2atest.WithStayOpenOnInterrupt(),
			a2atest.WithScript(wirematrix.Asking()...), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
		hook := &wirematrix.Recorder{Answers: []string{"yes"}}
		s := newClient(t, agent, a2a.V10, stream.WithHumanInput(hook)).Send(background(), hello())
		got, err := drain(t, s)
		require.NoError(t, err)
		wirematrix.RequireSameAsServer(t, agent, s, got.fold)
		require.Len(t, hook.Requests, 1)
	})
}

func TestNoHook(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(wirematrix.Asking()...))
				s := newClient(t, agent, v).Send(background(), hello())
				_, err := drain(t, s)
				require.ErrorIs(t, err, hitl.ErrNoHook)
				var he *hitl.Error
				require.ErrorAs(t, err, &he)
				require.Equal(t, "draft ", he.Task.Artifact("a1").Text())
				require.Equal(t, a2a.StateInputRequired, he.Task.Status.State)
				require.Equal(t, "Which dates?", he.Prompt.Text())
				require.Equal(t, he.Task.ID, s.Task().ID, "the caller can continue later with the task ID")
			})
		})
	}
}

func TestHookErrorAndTimeout(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				boom := errors.New("nobody home")
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(wirematrix.Asking()...))
				failing := hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) { return nil, boom })
				_, err := drain(t, newClient(t, agent, v, stream.WithHumanInput(failing)).Send(background(), hello()))
				require.ErrorIs(t, err, boom)
				var he *hitl.Error
				require.ErrorAs(t, err, &he)
				require.NotNil(t, he.Task)

				agent = a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(wirematrix.Asking()...))
				var asked time.Time
				slow := hitl.Func(func(ctx context.Context, _ *hitl.Request) ([]a2a.Part, error) {
					asked = time.Now()
					<-ctx.Done()
					return nil, ctx.Err()
				})
				_, err = drain(t, newClient(t, agent, v, stream.WithHumanInput(slow), stream.WithInputTimeout(2*time.Second)).Send(background(), hello()))
				require.ErrorIs(t, err, context.DeadlineExceeded)
				require.ErrorAs(t, err, &he)
				require.Equal(t, 2*time.Second, time.Since(asked), "the hook call is bounded by the input timeout")
			})
		})
	}
}

// TestReplyLostBeforeAnyResponseIsResentOnlyToAnIdempotentAgent: the
// follow-up dies in transport with no response (here before reaching the
// agent, which the client cannot tell from after). With WithIdempotentSends
// the stream resubscribes, sees the same prompt, and sends the same reply
// again with the same message ID. Without it the reply may have reached
// the agent and is never sent again: the stream follows the task, which
// still waits, until its budget is spent, and ends carrying the task.
func TestReplyLostBeforeAnyResponseIsResentOnlyToAnIdempotentAgent(t *testing.T) {
	for _, v := range versions {
		for _, style := range wirematrix.Styles() {
			for _, idempotent := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/%s/idempotent=%v", v, style, idempotent), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(style), a2atest.WithScript(wirematrix.Asking()...))
						var lostID string
						ft := &failingTransport{next: a2atest.NewTransport(agent), fail: func(n int, r *http.Request) bool {
							if n != 2 {
								return false
							}
							lostID = messageIDOf(t, r)
							return true
						}}
						hook := &wirematrix.Recorder{Answers: []string{"yes"}}
						opts := []stream.Option{stream.WithHTTPClient(&http.Client{Transport: ft}), stream.WithVersion(v), stream.WithHumanInput(hook),
							stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: time.Second})}
						if idempotent {
							opts = append(opts, stream.WithIdempotentSends())
						}
						c, err := stream.NewClient(endpoint, opts...)
						require.NoError(t, err)
						s := c.Send(background(), hello())
						got, err := drain(t, s)
						require.Len(t, hook.Requests, 1, "the human is not asked again")
						require.NotEmpty(t, lostID)
						fu := wirematrix.FollowUps(agent)
						if !idempotent {
							require.Empty(t, fu, "a reply that may have reached the agent is never sent again")
							var re *reconnect.Error
							require.ErrorAs(t, err, &re)
							require.Equal(t, a2a.StateInputRequired, stream.EndingOf(err).Task.Status.State, "the ending carries the task, still waiting")
							return
						}
						require.NoError(t, err)
						wirematrix.RequireSameAsServer(t, agent, s, got.fold)
						require.Len(t, fu, 1)
						require.Equal(t, lostID, fu[0].Message.ID, "the same reply, same message ID")
					})
				})
			}
		}
	}
}

func TestReplyAcceptedIsNotResent(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// The follow-up reaches the agent but its response is cut
				// before the first byte: the agent did take it.
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.SnapshotFirst),
					a2atest.WithScript(wirematrix.Asking()...), a2atest.WithFaults(a2a0(), a2atest.CutAfterBytes(0)))
				hook := &wirematrix.Recorder{Answers: []string{"yes"}}
				s := newClient(t, agent, v, stream.WithHumanInput(hook)).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				wirematrix.RequireSameAsServer(t, agent, s, got.fold)
				require.Len(t, wirematrix.FollowUps(agent), 1)
				require.Len(t, hook.Requests, 1)
			})
		})
	}
}

func messageIDOf(t *testing.T, r *http.Request) string {
	t.Helper()
	body, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var req struct {
		Params struct {
			Message struct {
				MessageID string `json:"messageId"`
			} `json:"message"`
		} `json:"params"`
	}
	require.NoError(t, json.Unmarshal(body, &req))
	return req.Params.Message.MessageID
}

func TestAuthRequiredEndsAtOnce(t *testing.T) {
	script := []a2atest.Step{
		a2atest.Working(""), a2atest.Chunk("a1", "partial", false, false),
		a2atest.Pause(wirematrix.Tick), a2atest.AskAuth("sign in to the calendar"),
	}
	sources := []struct {
		name  string
		style a2atest.ResubscribeStyle
		fault a2atest.Fault
	}{
		{"event", a2atest.SnapshotFirst, a2atest.Fault{}},
		{"snapshot", a2atest.SnapshotFirst, a2atest.CutAfterEvents(3)},
		{"get-task", a2atest.LiveOnly, a2atest.CutAfterEvents(3)},
	}
	for _, v := range versions {
		for _, src := range sources {
			t.Run(string(v)+"/"+src.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(src.style),
						a2atest.WithScript(script...), a2atest.WithFaults(src.fault))
					hook := &wirematrix.Recorder{}
					_, err := drain(t, newClient(t, agent, v, stream.WithHumanInput(hook)).Send(background(), hello()))
					var auth *terminal.AuthRequiredError
					require.ErrorAs(t, err, &auth)
					require.Equal(t, "partial", auth.Task.Artifact("a1").Text())
					require.True(t, strings.HasSuffix(err.Error(), "ended in state auth-required: sign in to the calendar"), err.Error())
					require.Empty(t, hook.Requests, "auth-required never goes to the input hook")
				})
			})
		}
	}
}

func TestUnknownStateIsNotSettled(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(
					a2atest.Status(a2a.StateUnknown, ""), a2atest.Pause(wirematrix.Tick), a2atest.Chunk("a1", "x", false, true),
					a2atest.Pause(wirematrix.Tick), a2atest.Finish(a2a.StateCompleted, "")),
					a2atest.WithFaults(a2atest.CloseAfterEvents(2)))
				s := newClient(t, agent, v).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				wirematrix.RequireSameAsServer(t, agent, s, got.fold)
				require.Equal(t, 1, wirematrix.Resubscribes(agent), "a clean EOF in state unknown is a drop")
			})
		})
	}
}

// A reply whose send got a response, even one whose body was then cut, may
// have been taken: it is never sent again, even while the agent, slow to
// act on it and listing no user messages in its history, still shows the
// prompt. Polling (a unary send), and streaming (a 200 JSON answer in place
// of a stream), on every wire.
func TestReplyWithACutAnswerIsNotSentAgain(t *testing.T) {
	prompt := &a2a.Message{ID: "p-1", TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("Which city?")}}
	asking := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateInputRequired, Message: prompt}}
	done := snap(a2a.StateCompleted, "Lisbon it is")
	cut := func(w *wireWriter) {
		raw, err := a2a.Codec{Version: w.a.v, Binding: w.a.b}.EncodeEvent(asking)
		if err != nil {
			panic(err)
		}
		w.cutAfter(12, raw)
	}
	polls := func(w *wireWriter, c wireCall) {
		if c.n < 3 {
			w.task(asking) // the agent has not acted on the reply yet
			return
		}
		w.task(done)
	}
	for _, w := range wires() {
		for _, streaming := range []bool{false, true} {
			name := w.String() + "/polling"
			if streaming {
				name = w.String() + "/streaming"
			}
			t.Run(name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					on := map[callKind]func(*wireWriter, wireCall){kindGet: polls}
					if streaming {
						// The subscribe route is missing: the stream polls
						// after the cut.
						on[kindStream] = func(w *wireWriter, c wireCall) {
							if c.n == 0 {
								w.sse()
								w.event(asking)
								return
							}
							cut(w)
						}
					} else {
						on[kindStream] = func(w *wireWriter, _ wireCall) {
							w.rpcError(a2a.CodeUnsupportedOperation, "Streaming is not supported.")
						}
						on[kindSend] = func(w *wireWriter, c wireCall) {
							if c.n == 0 {
								w.result(asking)
								return
							}
							cut(w)
						}
					}
					agent := newWireAgent(w, on)
					hook := &pollAnswer{text: "Lisbon"}
					s := agent.client(t, stream.WithHumanInput(hook)).Send(bounded(t), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					require.Equal(t, 1, hook.asked)
					sends := agent.count(kindSend)
					if streaming {
						sends = agent.count(kindStream)
					}
					require.Equal(t, 2, sends, "the message and the reply, each once")
					require.Equal(t, 4, agent.count(kindGet), "polled until the task moved on")
					require.Equal(t, "Lisbon it is", got.task.Artifact("a1").Text())
				})
			})
		}
	}
}

// Without timestamps: after the resubscribe brought the prompt (and no new
// part), the reply's own stream says "working" (no message), as the task did
// before the prompt. It is a new status: the task left input-required.
func TestWorkingAfterTheReplyIsANewStatusInsideTheReplayWindow(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				prompt := agentMessage("m-prompt", "Which dates?")
				srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
					switch {
					case r.isSend() && (r.msg == nil || r.msg.TaskID == ""):
						sseHeaders(w)
						sseEvent(w, r.id, v, firstTask)
						sseEvent(w, r.id, v, firstChunk)
						cutHere()
					case r.isSubscribe():
						sseHeaders(w)
						sseEvent(w, r.id, v, statusEvent(v, a2a.StateInputRequired, prompt))
					case r.isGet():
						unaryTask(w, r.id, v, &a2a.Task{ID: "t-1", ContextID: "c-1",
							Status:    a2a.TaskStatus{State: a2a.StateInputRequired, Message: prompt},
							Artifacts: []a2a.Artifact{firstChunk.Artifact}})
					case r.isSend():
						sseHeaders(w)
						sseEvent(w, r.id, v, statusEvent(v, a2a.StateWorking, nil))
						sseEvent(w, r.id, v, artEvent("a1", true, " more"))
						sseEvent(w, r.id, v, statusEvent(v, a2a.StateCompleted, nil))
					default:
						jsonRPCError(w, r.id, a2a.CodeInternalError, "unexpected request")
					}
				})
				hook := &wirematrix.Recorder{Answers: []string{"Oct"}}
				s := newClient(t, srv, v, stream.WithHumanInput(hook)).Send(bounded(t), hello())
				defer s.Close()
				var states []a2a.TaskState
				for s.Next() {
					switch e := s.Event().(type) {
					case *a2a.StatusUpdate:
						states = append(states, e.Status.State)
					case *a2a.ArtifactUpdate:
						if e.Append {
							require.Equal(t, a2a.StateWorking, s.Task().Status.State,
								"the appended chunk arrives while the task works, not while it waits for input (states %v)", states)
						}
					}
				}
				require.NoError(t, s.Err())
				i := indexOfState(states, a2a.StateInputRequired)
				require.GreaterOrEqual(t, i, 0)
				require.Contains(t, states[i+1:], a2a.StateWorking, "states %v", states)
			})
		})
	}
}

// The server keeps user messages in its history but not status messages: a
// follow-up stream that opens with the task as it was (still showing the
// answered prompt) is not a new question.
func TestAnswerLaterStaleTaskWithoutStatusMessagesIsNotANewQuestion(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				prompt := agentMessage("m-prompt", "Which dates?")
				reply := &a2a.Message{ID: "m-reply", TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleUser, Parts: textParts("Oct")}
				user := &a2a.Message{ID: "m-hello", TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleUser, Parts: textParts("hello")}
				stale := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateInputRequired, Message: prompt},
					History: []a2a.Message{*user, *reply}}
				srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
					if r.n != 1 {
						jsonRPCError(w, r.id, a2a.CodeInternalError, "unexpected request")
						return
					}
					sseHeaders(w)
					sseEvent(w, r.id, v, stale)
					sseEvent(w, r.id, v, statusEvent(v, a2a.StateWorking, nil))
					sseEvent(w, r.id, v, firstChunk)
					sseEvent(w, r.id, v, statusEvent(v, a2a.StateCompleted, nil))
				})
				hook := &wirematrix.Recorder{Answers: []string{"asked again"}}
				s := newClient(t, srv, v, stream.WithHumanInput(hook)).Send(bounded(t), reply)
				got, err := drain(t, s)
				require.Empty(t, hook.Requests, "the human is never asked twice for the same prompt")
				require.NoError(t, err)
				require.Equal(t, "kept", got.text("a1"))
				require.Len(t, srv.requests(), 1)
			})
		})
	}
}

// The reply's own stream opens with the task already asking a NEW question
// (its history lists the reply before the new prompt): the new question
// goes to the hook.
func TestAnswerLaterFollowUpOpeningWithANewPromptAsksTheHook(t *testing.T) {
	for _, v := range versions {
		for _, listsUser := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/history lists user messages %v", v, listsUser), func(t *testing.T) {
				if !listsUser {
					// A known limitation, documented in the README ("Human in
					// the loop"): with no user message in the history, a Task
					// opening the reply's own stream is taken for the task as
					// it was, so a new prompt in it is not asked.
					t.Skip("known limitation: a server that lists no user messages gives no way to tell a new prompt from the one answered")
				}
				synctest.Test(t, func(t *testing.T) {
					prompt1 := agentMessage("m-p1", "Which dates?")
					prompt2 := agentMessage("m-p2", "Which city?")
					reply := &a2a.Message{ID: "m-reply", TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleUser, Parts: textParts("Oct")}
					hist := []a2a.Message{*prompt1, *reply, *prompt2}
					if !listsUser {
						hist = []a2a.Message{*prompt1, *prompt2}
					}
					asking := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateInputRequired, Message: prompt2},
						History: hist}
					srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
						switch {
						case r.n == 1:
							sseHeaders(w)
							sseEvent(w, r.id, v, asking)
						case r.isSend() && r.msg != nil && r.msg.ID != reply.ID:
							sseHeaders(w)
							sseEvent(w, r.id, v, statusEvent(v, a2a.StateWorking, nil))
							sseEvent(w, r.id, v, statusEvent(v, a2a.StateCompleted, nil))
						case r.isGet():
							unaryTask(w, r.id, v, asking)
						case r.isSubscribe():
							sseHeaders(w)
							sseEvent(w, r.id, v, asking)
						default:
							jsonRPCError(w, r.id, a2a.CodeInternalError, "unexpected request")
						}
					})
					hook := &wirematrix.Recorder{Answers: []string{"Lisbon"}}
					s := newClient(t, srv, v, stream.WithHumanInput(hook)).Send(bounded(t), reply)
					_, err := drain(t, s)
					require.NoError(t, err, "got %T: %v", err, err)
					require.Len(t, hook.Requests, 1, "the new question is asked")
					require.Equal(t, "Which city?", hook.Requests[0].Text())
				})
			})
		}
	}
}

// A task stopped at input-required without a hook is answered later with
// Client.Send. The follow-up stream opens with the task as it was (still
// input-required with the same prompt, as captured from a2a-js): that prompt
// is the one being answered, not a new question.
func TestAnswerLaterWithSendIsNotANewQuestion(t *testing.T) {
	for _, c := range followUpCaptures {
		reply := func() *a2a.Message {
			return &a2a.Message{ID: c.replyID, TaskID: c.taskID, ContextID: c.contextID, Role: a2a.RoleUser,
				Parts: []a2a.Part{{Text: "more input"}}}
		}
		t.Run(c.name+"/no hook", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := replayServer(t, c)
				s := newClient(t, srv, c.v).Send(bounded(t), reply())
				got, err := drain(t, s)
				require.NoError(t, err, "the prompt shown first is the one this message answers")
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
				require.Equal(t, "result for follow-up: more input", got.text(c.result), "the follow-up's artifact is delivered")
				require.Contains(t, got.states, a2a.StateWorking)
				require.Len(t, srv.requests(), 1)
			})
		})
		t.Run(c.name+"/hook", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := replayServer(t, c)
				hook := &wirematrix.Recorder{Answers: []string{"asked again"}}
				s := newClient(t, srv, c.v, stream.WithHumanInput(hook)).Send(bounded(t), reply())
				got, err := drain(t, s)
				require.Empty(t, hook.Requests, "the hook is not asked the question the caller just answered")
				require.Len(t, srv.requests(), 1, "one follow-up message, no second reply")
				require.NoError(t, err)
				require.Equal(t, "result for follow-up: more input", got.text(c.result))
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
			})
		})
	}

	// a2atest in 1.0 also repeats the task as it was before the follow-up.
	for _, withHook := range []bool{false, true} {
		t.Run(fmt.Sprintf("a2atest 1.0/hook %v", withHook), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V10), a2atest.WithStyle(a2atest.SnapshotFirst),
					a2atest.WithStayOpenOnInterrupt(), a2atest.WithScript(wirematrix.Asking()...))
				_, err := drain(t, newClient(t, agent, a2a.V10).Send(bounded(t), hello()))
				var he *hitl.Error
				require.ErrorAs(t, err, &he)
				require.ErrorIs(t, err, hitl.ErrNoHook)

				later := a2a.NewTextMessage(a2a.RoleUser, "Oct 10-17")
				later.TaskID, later.ContextID = he.Task.ID, he.Task.ContextID
				hook := &wirematrix.Recorder{Answers: []string{"asked again"}}
				var opts []stream.Option
				if withHook {
					opts = append(opts, stream.WithHumanInput(hook))
				}
				s := newClient(t, agent, a2a.V10, opts...).Send(bounded(t), later)
				got, err := drain(t, s)
				require.Empty(t, hook.Requests, "the hook is not asked the question the caller just answered")
				fu := wirematrix.FollowUps(agent)
				require.Len(t, fu, 1, "only the caller's follow-up was sent")
				require.Equal(t, later.ID, fu[0].Message.ID)
				require.NoError(t, err)
				wirematrix.RequireSameAsServer(t, agent, s, got.fold)
				require.Equal(t, "draft final", got.text("a1"))
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
			})
		})
	}
}

// A second input-required with no status message and no timestamp is a new
// question, not the one already answered.
func TestSecondPromptWithoutMessageOrTimestampIsAsked(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				inputRequired := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateInputRequired}}
				var mu sync.Mutex
				replies := 0
				srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
					switch {
					case r.isSend() && (r.msg == nil || r.msg.TaskID == ""):
						sseHeaders(w)
						sseEvent(w, r.id, v, &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking}})
						sseEvent(w, r.id, v, statusEvent(v, a2a.StateInputRequired, nil))
					case r.isSend():
						mu.Lock()
						replies++
						k := replies
						mu.Unlock()
						sseHeaders(w)
						sseEvent(w, r.id, v, statusEvent(v, a2a.StateWorking, nil))
						switch k {
						case 1:
							sseEvent(w, r.id, v, statusEvent(v, a2a.StateInputRequired, nil))
						case 2:
							sseEvent(w, r.id, v, statusEvent(v, a2a.StateCompleted, nil))
						}
					case r.isSubscribe():
						// The task waits for input, as after the first reply.
						sseHeaders(w)
						sseEvent(w, r.id, v, inputRequired)
					case r.isGet():
						unaryTask(w, r.id, v, inputRequired)
					default:
						jsonRPCError(w, r.id, a2a.CodeInternalError, "unexpected request")
					}
				})
				hook := &wirematrix.Recorder{Answers: []string{"first answer", "second answer"}}
				s := newClient(t, srv, v, stream.WithHumanInput(hook)).Send(bounded(t), hello())
				_, err := drain(t, s)
				require.NoError(t, err)
				require.Len(t, hook.Requests, 2, "the hook is asked twice")
				var sent []*a2a.Message
				for _, r := range srv.requests() {
					if r.isSend() && r.msg != nil && r.msg.TaskID != "" {
						sent = append(sent, r.msg)
					}
				}
				require.Len(t, sent, 2, "each reply sent once")
				require.Equal(t, "first answer", sent[0].Text())
				require.Equal(t, "second answer", sent[1].Text())
				require.NotEqual(t, sent[0].ID, sent[1].ID)
				require.Equal(t, 0, srv.count(scriptedReq.isSubscribe))
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
			})
		})
	}
}

var followUpCaptures = []followUpCapture{
	{"js-1.3.0", "testdata/js-1.3.0-stream-followup.txt", a2a.V10, "6c42fe50-deb3-46c9-90ac-04ce975fd67d",
		"45cca664-8eb5-41df-a5b8-4751ba90c17b", "dc471aba-e1b1-45fa-9368-8f43db5dcc27",
		"a2f02210-9a7e-4b07-bd02-4aa2f4d222e9", "c6ab2f9e-f6c8-43da-916f-34f125ad2c03"},
	{"js-1.3.0-compat03", "testdata/js-1.3.0-compat03-stream-followup.txt", a2a.V03, "ec5718fb-b94a-4a02-b527-567e761b15eb",
		"6a799648-30b9-4e70-87fa-d9d210d16cc3", "b31c51cb-5a60-40be-ae0c-dbbee0aaf5a3",
		"241d5a60-674a-4ac5-ac8b-8bd761e1f617", "e6693bc3-4cf5-4ca2-9948-fb0999632c2c"},
}

// replayServer answers the first send with the captured follow-up stream
// (its JSON-RPC id rewritten to the request's) and anything else with a
// JSON-RPC error.
func replayServer(t *testing.T, c followUpCapture) *scriptedServer {
	t.Helper()
	captured, err := os.ReadFile(c.file)
	require.NoError(t, err)
	quoted := []byte(`"` + c.capturedID + `"`)
	require.Equal(t, 4, bytes.Count(captured, quoted), "four events in the capture")
	return newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
		if r.n != 1 || !r.isSend() {
			jsonRPCError(w, r.id, a2a.CodeInternalError, "only one follow-up was expected")
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		_, _ = w.Write(bytes.ReplaceAll(captured, quoted, r.id))
	})
}

type followUpCapture struct {
	name                               string
	file                               string
	v                                  a2a.Version
	capturedID                         string // the JSON-RPC id in the capture
	taskID, contextID, replyID, result string // result: the ID of the follow-up's artifact
}

// Human input discovered by polling: asked once per prompt, each reply sent
// once, over both bindings.
func TestHumanInputWhilePolling(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				snaps := progression(a2a.StateCompleted, "a", "b")
				asking := *snaps[2]
				asking.Status = a2a.TaskStatus{State: a2a.StateInputRequired, Message: &a2a.Message{ID: "q-1", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: "which city?"}}}}
				p := &pollServer{v: v, refuse: rpcErrorJSON(a2a.CodeUnsupportedOperation),
					snaps: []*a2a.Task{snaps[0], snaps[1], &asking, &asking, snaps[3], snaps[4]}}
				rec := wirematrix.Recorder{Answers: []string{"Lisbon"}}
				s := newClient(t, p, v, stream.WithHumanInput(&rec)).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				require.Equal(t, "ab", got.text("a1"))
				require.Len(t, rec.Requests, 1, "asked once, though two polls showed the prompt")
				require.Len(t, p.sends, 2, "the message, then the reply, each unary and once")
				require.Contains(t, string(p.sends[1]), "Lisbon")
			})
		})
	}
}

// README: "input-required — from a status update, a snapshot or a get-task
// result — ... calls your hook"; "The human is never asked twice for the
// same prompt". Discovered by polling over REST, answered, the task goes on.
func TestRESTHumanInputDiscoveredByPolling(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
					a2atest.WithoutStreaming(), a2atest.WithScript(wirematrix.Asking()...),
					// a poll dropped after the prompt, one refused
					a2atest.WithGetFaults(a2atest.Fault{}, a2atest.Fault{}, a2atest.Drop(), a2atest.HTTPStatus(503, "x")))
				rec := &wirematrix.Recorder{Answers: []string{"Oct 10"}}
				c := resolveAgent(t, agent, stream.WithHumanInput(rec), stream.WithPollInterval(30*time.Millisecond))
				s := c.Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				wirematrix.RequireSameAsServer(t, agent, s, got.fold)
				require.Len(t, rec.Requests, 1, "asked once")
				require.Equal(t, "Which dates?", rec.Requests[0].Text())
				fu := wirematrix.FollowUps(agent)
				require.Len(t, fu, 1, "the reply is sent once")
				require.Equal(t, "Oct 10", fu[0].Message.Text())
				require.Equal(t, s.Task().ID, fu[0].Message.TaskID)
				require.Equal(t, s.Task().ContextID, fu[0].Message.ContextID)
				require.Equal(t, 0, wirematrix.Sends(agent), "no streaming call at all")
				require.Equal(t, 2, unarySends(agent))
			})
		})
	}
}

// A REST server without a subscribe route, and a prompt: the reply goes out
// once and the human is asked once.
func TestRESTWithoutSubscribeRouteAsksOnceAndRepliesOnce(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
					a2atest.WithoutResubscribe(), a2atest.WithScript(wirematrix.Asking()...),
					// the first stream cut before the prompt, the reply's stream cut too
					a2atest.WithFaults(a2atest.CutAfterEvents(2), a2atest.Fault{}, a2atest.CutAfterEvents(1)))
				rec := &wirematrix.Recorder{Answers: []string{"Oct 10"}}
				c := resolveAgent(t, agent, stream.WithHumanInput(rec), stream.WithPollInterval(wirematrix.Tick))
				s := c.Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				wirematrix.RequireSameAsServer(t, agent, s, got.fold)
				require.Len(t, rec.Requests, 1)
				require.Len(t, wirematrix.FollowUps(agent), 1)
			})
		})
	}
}

// The reply's poll still shows the answered prompt twice (the server has
// not processed the reply yet), the prompt has no message ID: README: "The
// human is never asked twice for the same prompt".
func TestStalePromptAfterTheReplyWhilePollingIsNotAskedAgain(t *testing.T) {
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
					rec := &wirematrix.Recorder{Answers: []string{"Lisbon", "again?"}}
					got, err := drain(t, restClient(t, srv, v, stream.WithHumanInput(rec)).Send(background(), hello()))
					require.NoError(t, err)
					require.Equal(t, "ab", got.text("a1"))
					require.Len(t, rec.Requests, 1, "asked once")
					require.Equal(t, 2, srv.count("send"), "the message, then the reply, once each")
				})
			})
		}
	}
}

// The reply's unary send is dropped before the agent took it (the client
// cannot tell: no response came), or taken with its answer cut. A dropped
// reply is sent again, with the same message ID, only to an agent that
// WithIdempotentSends says takes a message ID twice as once; otherwise it
// may have reached the agent and is never sent again, and the stream ends
// carrying the task, still waiting (docs/human-input.md). A reply whose
// answer was cut is never sent again. The agent holds the reply at most
// once.
func TestReplySendDroppedWhilePollingIsResentOnlyToAnIdempotentAgent(t *testing.T) {
	for _, v := range versions {
		for _, fault := range []struct {
			f       a2atest.Fault
			dropped bool // no response came
		}{{a2atest.Drop(), true}, {a2atest.CutAfterBytes(15), false}} {
			f := fault.f
			for _, idempotent := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/%s/idempotent=%v", v, f, idempotent), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
							a2atest.WithoutStreaming(), a2atest.WithScript(wirematrix.Asking()...),
							a2atest.WithSendFaults(a2atest.Fault{}, f))
						rec := &wirematrix.Recorder{Answers: []string{"Oct 10", "again?"}}
						opts := []stream.Option{stream.WithHumanInput(rec), stream.WithPollInterval(wirematrix.Tick)}
						if idempotent {
							opts = append(opts, stream.WithIdempotentSends())
						}
						s := resolveAgent(t, agent, opts...).Send(background(), hello())
						got, err := drain(t, s)
						require.Len(t, rec.Requests, 1, "asked once")
						ids := map[string]int{}
						for _, r := range wirematrix.FollowUps(agent) {
							ids[r.Message.ID]++
						}
						require.Len(t, ids, 1, "one reply, re-sent with the same message ID if at all")
						if fault.dropped && !idempotent {
							for _, n := range ids {
								require.Equal(t, 1, n, "a reply that may have reached the agent is never sent again")
							}
							require.Error(t, err)
							require.Equal(t, a2a.StateInputRequired, stream.EndingOf(err).Task.Status.State, "the ending carries the task, still waiting")
							return
						}
						require.NoError(t, err)
						server := wirematrix.RequireSameAsServer(t, agent, s, got.fold)
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
}

// A second, different prompt (a new message ID) after the reply is a new
// question: asked twice in all, each reply sent once; a prompt discovered
// by polling with no hook ends in *hitl.Error carrying the task.
func TestTwoPromptsByPollingAreAskedOnceEach(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				script := []a2atest.Step{
					a2atest.Working(""), a2atest.Pause(wirematrix.Tick), a2atest.AskInput("first?"),
					a2atest.Pause(wirematrix.Tick), a2atest.Chunk("a1", "one ", false, false), a2atest.AskInput("second?"),
					a2atest.Pause(wirematrix.Tick), a2atest.Chunk("a1", "two", true, true), a2atest.Finish(a2a.StateCompleted, ""),
				}
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
					a2atest.WithoutStreaming(), a2atest.WithScript(script...))
				rec := &wirematrix.Recorder{Answers: []string{"A", "B", "C"}}
				s := resolveAgent(t, agent, stream.WithHumanInput(rec), stream.WithPollInterval(wirematrix.Tick)).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				wirematrix.RequireSameAsServer(t, agent, s, got.fold)
				require.Len(t, rec.Requests, 2)
				require.Equal(t, "first?", rec.Requests[0].Text())
				require.Equal(t, "second?", rec.Requests[1].Text())
				fu := wirematrix.FollowUps(agent)
				require.Len(t, fu, 2)
				require.Equal(t, "A", fu[0].Message.Text())
				require.Equal(t, "B", fu[1].Message.Text())
			})
		})
		t.Run(string(v)+"/no hook", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
					a2atest.WithoutStreaming(), a2atest.WithScript(wirematrix.Asking()...))
				_, err := drain(t, resolveAgent(t, agent, stream.WithPollInterval(wirematrix.Tick)).Send(background(), hello()))
				var he *hitl.Error
				require.ErrorAs(t, err, &he)
				require.ErrorIs(t, err, hitl.ErrNoHook)
				require.Equal(t, "draft ", he.Task.Artifact("a1").Text())
				require.Equal(t, "Which dates?", he.Prompt.Text())
			})
		})
	}
}
