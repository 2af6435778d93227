package stream_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

var styles = []a2atest.ResubscribeStyle{a2atest.LiveOnly, a2atest.SnapshotFirst, a2atest.FullReplay}

const tick = 100 * time.Millisecond

// paced is a script whose events are 100 ms apart, so that a cut leaves
// events to be produced while the client is away. Its send stream carries 8
// events: the task, working, three chunks of a1, a message, a2, completed.
func paced() []a2atest.Step {
	return []a2atest.Step{
		a2atest.Working("thinking"),
		a2atest.Pause(tick), a2atest.Chunk("a1", "one ", false, false),
		a2atest.Pause(tick), a2atest.Chunk("a1", "two ", true, false),
		a2atest.Pause(tick), a2atest.Say("aside"),
		a2atest.Pause(tick), a2atest.Chunk("a1", "three", true, true),
		a2atest.Pause(tick), a2atest.Chunk("a2", "x", false, true),
		a2atest.Pause(tick), a2atest.Finish(a2a.StateCompleted, "done"),
	}
}

const pacedEvents = 8

// countMethod counts the requests with one of the given methods.
func countMethod(agent *a2atest.Agent, methods ...string) int {
	n := 0
	for _, r := range agent.Requests() {
		for _, m := range methods {
			if r.Method == m {
				n++
			}
		}
	}
	return n
}

func sends(agent *a2atest.Agent) int {
	return countMethod(agent, "message/stream", "SendStreamingMessage")
}

func resubscribes(agent *a2atest.Agent) int {
	return countMethod(agent, "tasks/resubscribe", "SubscribeToTask")
}

func gets(agent *a2atest.Agent) int { return countMethod(agent, "tasks/get", "GetTask") }

// partsDelivered counts the artifact parts the stream delivered.
func partsDelivered(c *collected) int {
	n := 0
	for _, ev := range c.events {
		if u, ok := ev.(*a2a.ArtifactUpdate); ok {
			n += len(u.Artifact.Parts)
		}
	}
	return n
}

func serverParts(t *a2a.Task) int {
	n := 0
	for _, a := range t.Artifacts {
		n += len(a.Parts)
	}
	return n
}

// requireSameAsServer checks the no-loss guarantee: the application's
// artifacts equal the server's final ones and the final state matches.
func requireSameAsServer(t *testing.T, agent *a2atest.Agent, s *stream.Stream, got *collected) *a2a.Task {
	t.Helper()
	require.NotNil(t, s.Task())
	server := agent.Task(s.Task().ID)
	require.NotNil(t, server)
	got.requireArtifacts(t, server.Artifacts, "against the server's final task")
	require.Equal(t, server.Status.State, s.Task().Status.State)
	return server
}

func TestDropsAreHealed(t *testing.T) {
	drops := []struct {
		name  string
		fault a2atest.Fault
	}{
		{"transport error", a2atest.CutAfterEvents(3)},
		{"unexpected EOF mid-event", a2atest.CutAfterBytes(700)},
		{"clean EOF before settled", a2atest.CloseAfterEvents(3)},
	}
	for _, v := range versions {
		for _, d := range drops {
			t.Run(string(v)+"/"+d.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(paced()...),
						a2atest.WithFaults(d.fault))
					start := time.Now()
					s := newClient(t, agent, v).Send(background(), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					requireSameAsServer(t, agent, s, got)
					require.Equal(t, 1, sends(agent), "the user's message is never sent again")
					require.Equal(t, 1, resubscribes(agent))
					reqs := agent.Requests()
					require.Equal(t, s.Task().ID, reqs[1].TaskID, "resubscribe by task ID")
					// The stream waited exactly one backoff of 500 ms: the task
					// itself takes 600 ms and ends while the client waits or
					// after it is back.
					require.GreaterOrEqual(t, time.Since(start), 500*time.Millisecond)
				})
			})
		}
	}
}

func TestIdleTimeoutIsADrop(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// The first leg is cut before the chunk "one" reaches the
				// client; the resubscribe then hangs in silence. After the 2 s
				// idle timeout the stream fetches the task, which recovers
				// "one" at once, then resubscribes for the rest.
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(
					a2atest.Working(""), a2atest.Chunk("a1", "one ", false, false),
					a2atest.Pause(4*time.Second), a2atest.Chunk("a1", "two", true, true),
					a2atest.Finish(a2a.StateCompleted, "")),
					a2atest.WithFaults(a2atest.CutAfterEvents(2), a2atest.Hang()))
				start := time.Now()
				var causes []error
				var oneAt time.Duration
				s := newClient(t, agent, v, stream.WithIdleTimeout(2*time.Second),
					stream.WithNotify(func(n stream.Notice) {
						if n.Kind == stream.Reconnecting {
							causes = append(causes, n.Cause)
						}
					})).Send(background(), hello())
				defer s.Close()
				for s.Next() {
					if u, ok := s.Event().(*a2a.ArtifactUpdate); ok && u.Artifact.Text() == "one " {
						oneAt = time.Since(start)
					}
				}
				require.NoError(t, s.Err())
				require.Equal(t, "one two", s.Task().Artifact("a1").Text())
				// 0.5 s backoff, 2 s of silence, then get-task: "one" at 2.5 s.
				require.Equal(t, 2500*time.Millisecond, oneAt)
				require.Equal(t, 4*time.Second, time.Since(start))
				require.Equal(t, 2, resubscribes(agent))
				require.Equal(t, 1, gets(agent))
				require.Len(t, causes, 2)
				require.ErrorIs(t, causes[1], stream.ErrIdleTimeout, "the second reconnect is caused by the idle timeout")
			})
		})
	}
}

func TestSilentServerStillSpendsTheBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Every resubscribe hangs and the task makes no progress: each
		// silent cycle (idle timeout, get-task) costs an attempt.
		agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Working(""), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")),
			a2atest.WithFaults(a2atest.CutAfterEvents(2), a2atest.Hang(), a2atest.Hang(), a2atest.Hang()))
		start := time.Now()
		_, err := drain(t, newClient(t, agent, a2a.V10, stream.WithIdleTimeout(time.Second)).Send(background(), hello()))
		var re *reconnect.Error
		require.ErrorAs(t, err, &re)
		require.Equal(t, 3, re.Attempts)
		require.ErrorIs(t, err, stream.ErrIdleTimeout)
		require.NotErrorIs(t, err, context.Canceled, "the caller canceled nothing: the idle timer cut the call")
		require.Equal(t, 3*(500*time.Millisecond+time.Second), time.Since(start))
		require.Equal(t, 3, gets(agent))
	})
}

func TestBudgetSpentEndsInReconnectError(t *testing.T) {
	for _, v := range versions {
		for _, code := range []int{429, 502, 503, 504} {
			t.Run(fmt.Sprintf("%s/%d", v, code), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(paced()...),
						a2atest.WithFaults(a2atest.CutAfterEvents(3),
							a2atest.HTTPStatus(code, "busy"), a2atest.HTTPStatus(code, "busy"), a2atest.HTTPStatus(code, "busy")))
					var dropped time.Time
					s := newClient(t, agent, v, stream.WithNotify(func(n stream.Notice) {
						if dropped.IsZero() {
							dropped = time.Now()
						}
					})).Send(background(), hello())
					_, err := drain(t, s)
					if got := time.Since(dropped); got != 1500*time.Millisecond {
						t.Fatalf("gave up after %v; want exactly 3 attempts x 500 ms = 1.5s", got)
					}
					var re *reconnect.Error
					require.ErrorAs(t, err, &re)
					require.Equal(t, 3, re.Attempts)
					var httpErr *stream.HTTPError
					require.ErrorAs(t, err, &httpErr, "the last cause is kept")
					require.Equal(t, code, httpErr.StatusCode)
					require.NotNil(t, re.Task)
					require.Equal(t, "one ", re.Task.Artifact("a1").Text(), "the last known task is carried")
					require.Equal(t, 3, resubscribes(agent))
				})
			})
		}
	}
}

func TestTransportErrorsOnResubscribeCountAsAttempts(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(paced()...),
					a2atest.WithFaults(a2atest.CutAfterEvents(3), a2atest.CutAfterBytes(0), a2atest.CutAfterBytes(0)))
				policy := reconnect.Policy{MaxAttempts: 2, Backoff: 250 * time.Millisecond}
				var dropped time.Time
				s := newClient(t, agent, v, stream.WithReconnect(policy), stream.WithNotify(func(stream.Notice) {
					if dropped.IsZero() {
						dropped = time.Now()
					}
				})).Send(background(), hello())
				_, err := drain(t, s)
				require.Equal(t, 500*time.Millisecond, time.Since(dropped))
				var re *reconnect.Error
				require.ErrorAs(t, err, &re)
				require.Equal(t, 2, re.Attempts)
			})
		})
	}
}

func TestProgressResetsTheBudget(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// With a budget of two attempts, the pattern drop, failed
				// attempt, good attempt repeats three times: five attempts in
				// all, never more than two without progress.
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.SnapshotFirst),
					a2atest.WithScript(paced()...),
					a2atest.WithFaults(a2atest.CutAfterEvents(3),
						a2atest.HTTPStatus(503, ""), a2atest.CutAfterEvents(2),
						a2atest.HTTPStatus(503, ""), a2atest.CutAfterEvents(2),
						a2atest.HTTPStatus(503, "")))
				policy := reconnect.Policy{MaxAttempts: 2, Backoff: 10 * time.Millisecond}
				s := newClient(t, agent, v, stream.WithReconnect(policy)).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				requireSameAsServer(t, agent, s, got)
				require.Equal(t, 6, resubscribes(agent))
			})
		})
	}
}

func TestNoProgressMeansNoReset(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The same pattern against a server whose good attempts bring nothing
		// new (they are cut before any event): the budget runs out.
		agent := a2atest.NewAgent(a2atest.WithStyle(a2atest.SnapshotFirst), a2atest.WithScript(paced()...),
			a2atest.WithFaults(a2atest.CutAfterEvents(3), a2atest.HTTPStatus(503, ""), a2atest.CutAfterEvents(0),
				a2atest.HTTPStatus(503, "")))
		policy := reconnect.Policy{MaxAttempts: 2, Backoff: 10 * time.Millisecond}
		_, err := drain(t, newClient(t, agent, a2a.V10, stream.WithReconnect(policy)).Send(background(), hello()))
		var re *reconnect.Error
		require.ErrorAs(t, err, &re)
		require.Equal(t, 2, re.Attempts)
		require.Equal(t, 2, resubscribes(agent))
	})
}

func TestNeverReconnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(paced()...), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
		s := newClient(t, agent, a2a.V10, stream.WithReconnect(reconnect.Never())).Send(background(), hello())
		_, err := drain(t, s)
		var re *reconnect.Error
		require.ErrorAs(t, err, &re)
		require.Equal(t, 0, re.Attempts)
		require.ErrorIs(t, err, io.ErrUnexpectedEOF)
		require.NotNil(t, re.Task)
		require.Equal(t, 0, resubscribes(agent))
	})
}

func TestDropBeforeTaskIDIsAttemptsZero(t *testing.T) {
	for _, v := range versions {
		for _, f := range []a2atest.Fault{a2atest.CutAfterBytes(0), a2atest.CutAfterBytes(20), a2atest.CloseAfterEvents(0)} {
			t.Run(string(v)+"/"+f.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithFaults(f))
					s := newClient(t, agent, v).Send(background(), hello())
					_, err := drain(t, s)
					var re *reconnect.Error
					require.ErrorAs(t, err, &re)
					require.Equal(t, 0, re.Attempts)
					require.Nil(t, re.Task)
					require.Error(t, re.Err)
					require.Nil(t, s.Task())
					require.Equal(t, 0, resubscribes(agent))
				})
			})
		}
	}
}

func TestInitialSendErrorsAreReturnedAsIs(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithFaults(a2atest.HTTPStatus(503, "down")))
				_, err := drain(t, newClient(t, agent, v).Send(background(), hello()))
				var httpErr *stream.HTTPError
				require.ErrorAs(t, err, &httpErr)
				require.Equal(t, 503, httpErr.StatusCode)
				require.Equal(t, 1, sends(agent), "a send is never retried: the message may have been accepted")

				for _, shape := range []a2atest.ErrorShape{a2atest.ErrorAsJSON, a2atest.ErrorAsEvent, a2atest.ErrorAsErrorEvent} {
					agent := a2atest.NewAgent(a2atest.WithVersions(v),
						a2atest.WithFaults(a2atest.RPCError(a2a.CodeInternalError, "boom", shape)))
					_, err := drain(t, newClient(t, agent, v).Send(background(), hello()))
					var rpcErr *a2a.RPCError
					require.ErrorAs(t, err, &rpcErr, shape.String())
					require.Equal(t, a2a.CodeInternalError, rpcErr.Code)
					require.Equal(t, "boom", rpcErr.Message)
					require.Equal(t, 1, sends(agent))
				}
			})
		})
	}
}

// TestCutAnywhere is the no-loss test: the send stream is cut at every event
// boundary and at random byte offsets, against all three server styles, and
// the application must end with the server's artifacts, each message once,
// and (except to heal a live-only gap) no part twice.
func TestCutAnywhere(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, v := range versions {
		for _, style := range styles {
			var faults []a2atest.Fault
			for k := 1; k < pacedEvents; k++ {
				faults = append(faults, a2atest.CutAfterEvents(k), a2atest.CloseAfterEvents(k))
			}
			for range 12 {
				faults = append(faults, a2atest.CutAfterBytes(200+rng.IntN(2400)))
			}
			for _, f := range faults {
				t.Run(fmt.Sprintf("%s/%s/%s", v, style, f), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(style),
							a2atest.WithScript(paced()...), a2atest.WithFaults(f))
						s := newClient(t, agent, v).Send(background(), hello())
						got, err := drain(t, s)
						if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, stream.ErrEndedEarly) {
							var re *reconnect.Error
							if errors.As(err, &re) && re.Attempts == 0 {
								return // cut before the task ID was known: nothing to resume
							}
						}
						require.NoError(t, err)
						server := requireSameAsServer(t, agent, s, got)
						require.Equal(t, 1, sends(agent))
						if style != a2atest.LiveOnly {
							require.Equal(t, serverParts(server), partsDelivered(got), "no part delivered twice")
						}
						require.Contains(t, got.messages, server.Status.Message.ID, "the final status message arrives")
					})
				})
			}
		}
	}
}

func TestResubscribeRefusalsFallBackToGetTask(t *testing.T) {
	cases := []struct {
		name  string
		fault a2atest.Fault
	}{
		{"-32001 JSON", a2atest.RPCError(a2a.CodeTaskNotFound, "task not found", a2atest.ErrorAsJSON)},
		{"-32001 first event", a2atest.RPCError(a2a.CodeTaskNotFound, "task not found", a2atest.ErrorAsEvent)},
		{"-32004 JSON", a2atest.RPCError(a2a.CodeUnsupportedOperation, "terminal", a2atest.ErrorAsJSON)},
		{"-32602 error frame", a2atest.RPCError(a2a.CodeInvalidParams, "invalid", a2atest.ErrorAsErrorEvent)},
	}
	for _, v := range versions {
		for _, c := range cases {
			t.Run(string(v)+"/"+c.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					// Refused while the task still runs: get-task says working,
					// so the stream waits and resubscribes as its next attempt.
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(paced()...),
						a2atest.WithFaults(a2atest.CutAfterEvents(2), c.fault))
					s := newClient(t, agent, v).Send(background(), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					requireSameAsServer(t, agent, s, got)
					require.GreaterOrEqual(t, gets(agent), 1)
					require.Equal(t, 2, resubscribes(agent))
				})
			})
		}
	}
}

func TestRefusalAfterTheTaskEnded(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// Live-only servers answer -32001 once the task is over, as
				// a2a-go does; the final state comes from get-task, and the
				// budget is not burned on a finished task.
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.LiveOnly),
					a2atest.WithScript(paced()...), a2atest.WithFaults(a2atest.CutAfterEvents(pacedEvents-1)))
				s := newClient(t, agent, v).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				requireSameAsServer(t, agent, s, got)
				require.Equal(t, 1, resubscribes(agent))
				require.Equal(t, 1, gets(agent))
			})
		})
	}
}

func TestGetTaskTerminalStatesEndTyped(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				script := []a2atest.Step{a2atest.Working(""), a2atest.Chunk("a1", "partial", false, false),
					a2atest.Pause(tick), a2atest.Finish(a2a.StateFailed, "upstream API timed out")}
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.LiveOnly),
					a2atest.WithScript(script...), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
				s := newClient(t, agent, v).Send(background(), hello())
				_, err := drain(t, s)
				var failed *terminal.FailedError
				require.ErrorAs(t, err, &failed)
				require.Equal(t, "partial", failed.Task.Artifact("a1").Text())
				require.Equal(t, "terminal: task "+failed.Task.ID+" ended in state failed: upstream API timed out", err.Error())
			})
		})
	}
}

func TestFatalResubscribeErrors(t *testing.T) {
	for _, v := range versions {
		for _, f := range []a2atest.Fault{a2atest.HTTPStatus(401, "no"), a2atest.HTTPStatus(403, "no"), a2atest.HTTPStatus(400, "bad"),
			a2atest.RPCError(a2a.CodeInternalError, "boom", a2atest.ErrorAsJSON)} {
			t.Run(string(v)+"/"+f.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(paced()...),
						a2atest.WithFaults(a2atest.CutAfterEvents(2), f))
					_, err := drain(t, newClient(t, agent, v).Send(background(), hello()))
					require.Error(t, err)
					var (
						httpErr *stream.HTTPError
						rpcErr  *a2a.RPCError
						re      *reconnect.Error
					)
					require.True(t, errors.As(err, &httpErr) || errors.As(err, &rpcErr), "got %T %v", err, err)
					require.False(t, errors.As(err, &re), "a fatal error is returned as is")
					require.Equal(t, 1, resubscribes(agent))
				})
			})
		}
	}
}

func TestGetTaskTransportFailureIsAnAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithStyle(a2atest.LiveOnly), a2atest.WithScript(paced()...),
			a2atest.WithFaults(a2atest.CutAfterEvents(pacedEvents-1)),
			a2atest.WithGetFaults(a2atest.HTTPStatus(503, "busy")))
		s := newClient(t, agent, a2a.V10).Send(background(), hello())
		got, err := drain(t, s)
		require.NoError(t, err)
		requireSameAsServer(t, agent, s, got)
		require.Equal(t, 2, gets(agent))
	})
}

func TestContextCancellation(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(paced()...),
					a2atest.WithFaults(a2atest.Hang()))
				ctx, cancel := context.WithTimeout(background(), 3*time.Second)
				defer cancel()
				start := time.Now()
				_, err := drain(t, newClient(t, agent, v).Send(ctx, hello()))
				require.ErrorIs(t, err, context.DeadlineExceeded)
				require.Equal(t, 3*time.Second, time.Since(start))

				// Cancelled during the backoff.
				agent = a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(paced()...),
					a2atest.WithFaults(a2atest.CutAfterEvents(2)))
				ctx, cancel = context.WithCancel(background())
				s := newClient(t, agent, v, stream.WithNotify(func(n stream.Notice) {
					if n.Kind == stream.Reconnecting {
						cancel()
					}
				})).Send(ctx, hello())
				_, err = drain(t, s)
				require.ErrorIs(t, err, context.Canceled)
				require.Equal(t, 0, resubscribes(agent))
			})
		})
	}
}

func TestBreakingOutOfAllClosesTheStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(paced()...))
		s := newClient(t, agent, a2a.V10).Send(background(), hello())
		n := 0
		for ev, err := range s.All() {
			require.NoError(t, err)
			require.NotNil(t, ev)
			n++
			if n == 2 {
				break
			}
		}
		require.Equal(t, 2, n)
		require.False(t, s.Next(), "the stream is closed")
		require.NoError(t, s.Err(), "the caller's own close is not an error")
		require.NoError(t, s.Close(), "Close is idempotent")
		// synctest.Test fails if the agent's handler were still running.
	})
}

func TestAllYieldsTheErrorLast(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Working(""), a2atest.Finish(a2a.StateRejected, "not my job")))
		var errs []error
		events := 0
		for ev, err := range newClient(t, agent, a2a.V10).Send(background(), hello()).All() {
			if err != nil {
				require.Nil(t, ev)
				errs = append(errs, err)
				continue
			}
			events++
		}
		require.Len(t, errs, 1)
		var rejected *terminal.RejectedError
		require.ErrorAs(t, errs[0], &rejected)
		require.Equal(t, 3, events)
	})
}

// failingTransport fails chosen requests before they reach the agent, the way
// a reset connection does.
type failingTransport struct {
	next http.RoundTripper
	fail func(n int, r *http.Request) bool
	n    int
}

func (f *failingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	f.n++
	if f.fail(f.n, r) {
		return nil, errors.New("connection reset by peer")
	}
	return f.next.RoundTrip(r)
}
