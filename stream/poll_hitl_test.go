package stream_test

// Human input discovered by polling: asked once per prompt, each reply sent
// once.

import (
	"fmt"
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
				rec := recorder{answers: []string{"Lisbon"}}
				s := handlerClient(t, p, v, stream.WithHumanInput(&rec)).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				require.Equal(t, "ab", got.text("a1"))
				require.Len(t, rec.requests, 1, "asked once, though two polls showed the prompt")
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
					a2atest.WithoutStreaming(), a2atest.WithScript(asking()...),
					// a poll dropped after the prompt, one refused
					a2atest.WithGetFaults(a2atest.Fault{}, a2atest.Fault{}, a2atest.Drop(), a2atest.HTTPStatus(503, "x")))
				rec := &recorder{answers: []string{"Oct 10"}}
				c := resolveAgent(t, agent, stream.WithHumanInput(rec), stream.WithPollInterval(30*time.Millisecond))
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

// A REST server without a subscribe route, and a prompt: the reply goes out
// once and the human is asked once.
func TestRESTWithoutSubscribeRouteAsksOnceAndRepliesOnce(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
					a2atest.WithoutResubscribe(), a2atest.WithScript(asking()...),
					// the first stream cut before the prompt, the reply's stream cut too
					a2atest.WithFaults(a2atest.CutAfterEvents(2), a2atest.Fault{}, a2atest.CutAfterEvents(1)))
				rec := &recorder{answers: []string{"Oct 10"}}
				c := resolveAgent(t, agent, stream.WithHumanInput(rec), stream.WithPollInterval(tick))
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
func TestReplySendDroppedWhilePollingIsResentOnce(t *testing.T) {
	for _, v := range versions {
		for _, f := range []a2atest.Fault{a2atest.Drop(), a2atest.CutAfterBytes(15)} {
			t.Run(string(v)+"/"+f.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
						a2atest.WithoutStreaming(), a2atest.WithScript(asking()...),
						a2atest.WithSendFaults(a2atest.Fault{}, f))
					rec := &recorder{answers: []string{"Oct 10", "again?"}}
					s := resolveAgent(t, agent, stream.WithHumanInput(rec), stream.WithPollInterval(tick)).Send(background(), hello())
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

// A second, different prompt (a new message ID) after the reply is a new
// question: asked twice in all, each reply sent once; a prompt discovered
// by polling with no hook ends in *hitl.Error carrying the task.
func TestTwoPromptsByPollingAreAskedOnceEach(t *testing.T) {
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
				s := resolveAgent(t, agent, stream.WithHumanInput(rec), stream.WithPollInterval(tick)).Send(background(), hello())
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
				_, err := drain(t, resolveAgent(t, agent, stream.WithPollInterval(tick)).Send(background(), hello()))
				var he *hitl.Error
				require.ErrorAs(t, err, &he)
				require.ErrorIs(t, err, hitl.ErrNoHook)
				require.Equal(t, "draft ", he.Task.Artifact("a1").Text())
				require.Equal(t, "Which dates?", he.Prompt.Text())
			})
		})
	}
}
