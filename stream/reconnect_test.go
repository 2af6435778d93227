package stream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
	"github.com/a2astream/a2astream/transport"
)

// Reconnecting: drops, idle timeouts, the retry budget and its resets,
// refused resubscribes and the get-task that follows them.

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
				require.Equal(t, 2, wirematrix.Resubscribes(agent))
				require.Equal(t, 1, gets(agent))
				require.Len(t, causes, 2)
				require.ErrorIs(t, causes[1], transport.ErrIdleTimeout, "the second reconnect is caused by the idle timeout")
			})
		})
	}
}

func TestSlowConsumerIsNotAnIdleServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The application spends 5 s on each event, far beyond the 1 s idle
		// timeout, while the server has sent everything: nothing is dropped.
		agent := a2atest.NewAgent(a2atest.WithScript(wirematrix.Paced()...))
		s := newClient(t, agent, a2a.V10, stream.WithIdleTimeout(time.Second)).Send(background(), hello())
		defer s.Close()
		for s.Next() {
			work := time.NewTimer(5 * time.Second) // the application at work, on the fake clock
			<-work.C
		}
		require.NoError(t, s.Err())
		require.Equal(t, 0, wirematrix.Resubscribes(agent))
	})
}

func TestSilentServerIsBoundedByTheStallLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Every resubscribe hangs while get-task shows the task working:
		// each silent cycle (idle timeout, get-task) costs no attempt, and
		// the first get-task past the stall limit ends the stream.
		agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Working(""), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")),
			a2atest.WithFaults(a2atest.CutAfterEvents(2), a2atest.Hang(), a2atest.Hang(), a2atest.Hang(), a2atest.Hang()))
		start := time.Now()
		_, err := drain(t, newClient(t, agent, a2a.V10, stream.WithIdleTimeout(time.Second), stream.WithStallTimeout(5*time.Second)).Send(background(), hello()))
		var stalled *stream.StalledError
		require.ErrorAs(t, err, &stalled)
		require.Equal(t, 5*time.Second, stalled.After)
		var re *reconnect.Error
		require.False(t, errors.As(err, &re), "not a spent budget: %v", err)
		// Cycles of 500 ms backoff and 1 s of silence, from the cut at 0:
		// get-tasks at 1.5, 3, 4.5 and 6 s, the last past the limit.
		require.Equal(t, 4*(500*time.Millisecond+time.Second), time.Since(start))
		require.Equal(t, 4, gets(agent))
	})
}

func TestSlowDrip(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// One byte every 10 ms is slow but alive: with a 1 s idle
				// timeout nothing is dropped and every event arrives whole.
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithFaults(a2atest.Drip(10*time.Millisecond)))
				s := newClient(t, agent, v, stream.WithIdleTimeout(time.Second)).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				require.Equal(t, "hello world", got.text("a1"))
				require.Equal(t, 0, wirematrix.Resubscribes(agent))

				// One byte every 2 s against the same timeout is a drop.
				agent = a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithFaults(a2atest.Drip(2*time.Second)))
				s = newClient(t, agent, v, stream.WithIdleTimeout(time.Second)).Send(background(), hello())
				_, err = drain(t, s)
				var re *reconnect.Error
				require.ErrorAs(t, err, &re)
				require.ErrorIs(t, err, transport.ErrIdleTimeout)
				require.NotErrorIs(t, err, context.Canceled, "the caller canceled nothing")
				require.Equal(t, 0, re.Attempts, "no byte of the first event arrived in time, so no task is known")
			})
		})
	}
}

func TestBudgetSpentEndsInReconnectError(t *testing.T) {
	for _, v := range versions {
		for _, code := range []int{429, 502, 503, 504} {
			t.Run(fmt.Sprintf("%s/%d", v, code), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(wirematrix.Paced()...),
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
					var httpErr *transport.HTTPError
					require.ErrorAs(t, err, &httpErr, "the last cause is kept")
					require.Equal(t, code, httpErr.StatusCode)
					require.NotNil(t, re.Task)
					require.Equal(t, "one ", re.Task.Artifact("a1").Text(), "the last known task is carried")
					require.Equal(t, 3, wirematrix.Resubscribes(agent))
				})
			})
		}
	}
}

func TestReconnectErrorCarriesCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(wirematrix.Paced()...),
			a2atest.WithFaults(a2atest.CutAfterEvents(3), a2atest.CutAfterBytes(0)))
		_, err := drain(t, newClient(t, agent, a2a.V10, stream.WithReconnect(reconnect.Policy{MaxAttempts: 1})).Send(background(), hello()))
		var re *reconnect.Error
		require.ErrorAs(t, err, &re)
		require.Equal(t, 1, re.Attempts)
		require.Contains(t, err.Error(), "gave up after 1 attempts")
	})
}

func TestTransportErrorsOnResubscribeCountAsAttempts(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(wirematrix.Paced()...),
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
					a2atest.WithScript(wirematrix.Paced()...),
					a2atest.WithFaults(a2atest.CutAfterEvents(3),
						a2atest.HTTPStatus(503, ""), a2atest.CutAfterEvents(2),
						a2atest.HTTPStatus(503, ""), a2atest.CutAfterEvents(2),
						a2atest.HTTPStatus(503, "")))
				policy := reconnect.Policy{MaxAttempts: 2, Backoff: 10 * time.Millisecond}
				s := newClient(t, agent, v, stream.WithReconnect(policy)).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				wirematrix.RequireSameAsServer(t, agent, s, got.fold)
				require.Equal(t, 6, wirematrix.Resubscribes(agent))
			})
		})
	}
}

func TestNoProgressMeansNoReset(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The same pattern against a server whose good attempts bring nothing
		// new (they are cut before any event): the budget runs out.
		agent := a2atest.NewAgent(a2atest.WithStyle(a2atest.SnapshotFirst), a2atest.WithScript(wirematrix.Paced()...),
			a2atest.WithFaults(a2atest.CutAfterEvents(3), a2atest.HTTPStatus(503, ""), a2atest.CutAfterEvents(0),
				a2atest.HTTPStatus(503, "")))
		policy := reconnect.Policy{MaxAttempts: 2, Backoff: 10 * time.Millisecond}
		_, err := drain(t, newClient(t, agent, a2a.V10, stream.WithReconnect(policy)).Send(background(), hello()))
		var re *reconnect.Error
		require.ErrorAs(t, err, &re)
		require.Equal(t, 2, re.Attempts)
		require.Equal(t, 2, wirematrix.Resubscribes(agent))
	})
}

func TestNeverReconnect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(wirematrix.Paced()...), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
		s := newClient(t, agent, a2a.V10, stream.WithReconnect(reconnect.Never())).Send(background(), hello())
		_, err := drain(t, s)
		var re *reconnect.Error
		require.ErrorAs(t, err, &re)
		require.Equal(t, 0, re.Attempts)
		require.ErrorIs(t, err, io.ErrUnexpectedEOF)
		require.NotNil(t, re.Task)
		require.Equal(t, 0, wirematrix.Resubscribes(agent))
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
					require.Equal(t, 0, wirematrix.Resubscribes(agent))
				})
			})
		}
	}
}

func TestEmptyJSONAnswerToAResubscribeIsADrop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// A 200 application/json with an empty body ends like an empty event
		// stream: a failed attempt, then a resume.
		agent := a2atest.NewAgent(a2atest.WithScript(wirematrix.Paced()...), a2atest.WithStyle(a2atest.SnapshotFirst),
			a2atest.WithFaults(a2atest.CutAfterEvents(3)))
		n := 0
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n++
			if n == 2 {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(200)
				return
			}
			agent.ServeHTTP(w, r)
		})
		var causes []error
		s := newClient(t, h, a2a.V10, stream.WithNotify(func(no stream.Notice) {
			if no.Kind == stream.Reconnecting {
				causes = append(causes, no.Cause)
			}
		})).Send(background(), hello())
		got, err := drain(t, s)
		require.NoError(t, err)
		wirematrix.RequireSameAsServer(t, agent, s, got.fold)
		require.Len(t, causes, 2)
		require.ErrorIs(t, causes[1], transport.ErrEndedEarly)
	})
}

func TestResubscribeRefusalsFallBackToGetTask(t *testing.T) {
	cases := []struct {
		name  string
		fault a2atest.Fault
		polls bool // the refusal means the server cannot stream the task
	}{
		{"-32001 JSON", a2atest.RPCError(a2a.CodeTaskNotFound, "task not found", a2atest.ErrorAsJSON), false},
		{"-32001 first event", a2atest.RPCError(a2a.CodeTaskNotFound, "task not found", a2atest.ErrorAsEvent), false},
		{"-32004 JSON", a2atest.RPCError(a2a.CodeUnsupportedOperation, "not supported", a2atest.ErrorAsJSON), true},
		{"-32602 error frame", a2atest.RPCError(a2a.CodeInvalidParams, "invalid", a2atest.ErrorAsErrorEvent), false},
	}
	for _, v := range versions {
		for _, c := range cases {
			t.Run(string(v)+"/"+c.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					// Refused while the task still runs: get-task says working,
					// so the stream waits and resubscribes as its next attempt;
					// after -32004 (unsupported operation), which 1.0 servers
					// answer only for an ended task, it polls instead.
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(wirematrix.Paced()...),
						a2atest.WithFaults(a2atest.CutAfterEvents(2), c.fault))
					var notes noticeLog
					s := newClient(t, agent, v, notes.option()).Send(background(), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					wirematrix.RequireSameAsServer(t, agent, s, got.fold)
					if c.polls {
						require.Equal(t, 1, wirematrix.Resubscribes(agent))
						require.Greater(t, gets(agent), 1)
						require.Equal(t, 1, notes.count(stream.Polling))
						return
					}
					require.GreaterOrEqual(t, gets(agent), 1)
					require.Equal(t, 2, wirematrix.Resubscribes(agent))
					require.Zero(t, notes.count(stream.Polling))
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
					a2atest.WithScript(wirematrix.Paced()...), a2atest.WithFaults(a2atest.CutAfterEvents(wirematrix.PacedEvents-1)))
				s := newClient(t, agent, v).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				wirematrix.RequireSameAsServer(t, agent, s, got.fold)
				require.Equal(t, 1, wirematrix.Resubscribes(agent))
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
					a2atest.Pause(wirematrix.Tick), a2atest.Finish(a2a.StateFailed, "upstream API timed out")}
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
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(wirematrix.Paced()...),
						a2atest.WithFaults(a2atest.CutAfterEvents(2), f))
					_, err := drain(t, newClient(t, agent, v).Send(background(), hello()))
					require.Error(t, err)
					var (
						httpErr *transport.HTTPError
						rpcErr  *a2a.RPCError
						re      *reconnect.Error
					)
					require.True(t, errors.As(err, &httpErr) || errors.As(err, &rpcErr), "got %T %v", err, err)
					require.False(t, errors.As(err, &re), "a fatal error is returned as is")
					require.Equal(t, 1, wirematrix.Resubscribes(agent))
				})
			})
		}
	}
}

func TestGetTaskTransportFailureIsAnAttempt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithStyle(a2atest.LiveOnly), a2atest.WithScript(wirematrix.Paced()...),
			a2atest.WithFaults(a2atest.CutAfterEvents(wirematrix.PacedEvents-1)),
			a2atest.WithGetFaults(a2atest.HTTPStatus(503, "busy")))
		s := newClient(t, agent, a2a.V10).Send(background(), hello())
		got, err := drain(t, s)
		require.NoError(t, err)
		wirematrix.RequireSameAsServer(t, agent, s, got.fold)
		require.Equal(t, 2, gets(agent))
	})
}

func TestRetryAfterOnGetTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithStyle(a2atest.LiveOnly), a2atest.WithScript(wirematrix.Paced()...),
			a2atest.WithFaults(a2atest.CutAfterEvents(wirematrix.PacedEvents-1)),
			a2atest.WithGetFaults(a2atest.HTTPStatusWithHeader(503, "", http.Header{"Retry-After": {"9"}})))
		var waits []time.Duration
		s := newClient(t, agent, a2a.V10, stream.WithNotify(func(n stream.Notice) {
			if n.Kind == stream.Reconnecting {
				waits = append(waits, n.Wait)
			}
		})).Send(background(), hello())
		got, err := drain(t, s)
		require.NoError(t, err)
		wirematrix.RequireSameAsServer(t, agent, s, got.fold)
		require.Equal(t, []time.Duration{500 * time.Millisecond, 9 * time.Second}, waits)
	})
}

func TestRetryAfterIsHonoured(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(wirematrix.Paced()...), a2atest.WithStyle(a2atest.SnapshotFirst),
			a2atest.WithFaults(a2atest.CutAfterEvents(3),
				a2atest.HTTPStatusWithHeader(503, "busy", http.Header{"Retry-After": {"4"}}),
				a2atest.HTTPStatusWithHeader(503, "busy", http.Header{"Retry-After": {"3600"}})))
		var waits []time.Duration
		s := newClient(t, agent, a2a.V10, stream.WithNotify(func(n stream.Notice) {
			if n.Kind == stream.Reconnecting {
				waits = append(waits, n.Wait)
			}
		})).Send(background(), hello())
		got, err := drain(t, s)
		require.NoError(t, err)
		wirematrix.RequireSameAsServer(t, agent, s, got.fold)
		require.Equal(t, []time.Duration{500 * time.Millisecond, 4 * time.Second, 30 * time.Second}, waits,
			"the backoff, then the server's Retry-After, capped at 30 s")
	})
}

// A Subscribe knows its task from the start, by ID: when it never connects,
// it spends its budget and ends in a *reconnect.Error that names the task,
// not in reconnect.ErrNoTask, on every wire.
func TestSubscribeThatNeverConnectsNamesItsTask(t *testing.T) {
	for _, v := range versions {
		for _, b := range bothBindings {
			t.Run(string(v)+"/"+string(b), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(b))
					down := &resetTransport{next: a2atest.NewTransport(agent)}
					c := clientOn(t, agent, v, b, stream.WithHTTPClient(&http.Client{Transport: down}))
					start := time.Now()
					s := c.Subscribe(background(), "t-1")
					_, err := drain(t, s)
					var re *reconnect.Error
					require.ErrorAs(t, err, &re)
					require.NotErrorIs(t, err, reconnect.ErrNoTask, "the task was known by its ID")
					require.Equal(t, "t-1", re.TaskID)
					require.Equal(t, 3, re.Attempts)
					require.ErrorIs(t, err, errReset)
					require.Contains(t, err.Error(), "reconnect: task t-1: gave up after 3 attempts")
					require.Equal(t, 4, down.n, "the subscribe and three attempts")
					require.Equal(t, 3*reconnect.Default().Backoff, time.Since(start))
					require.Nil(t, stream.EndingOf(err).Task, "no state of the task was ever seen")
				})
			})
		}
	}
}

// A subscribe refused with HTTP 409 or 422 and no A2A error (a body such as
// a2a-python 0.3's {"message": …}) may mean that the task has ended: the
// stream fetches the task rather than lose the ending. Over HTTP+JSON in both
// versions. (A 400 stays fatal: TestFatalResubscribeErrors.)
func TestSubscribeRefusedWithAPlainClientErrorFetchesTheTask(t *testing.T) {
	for _, v := range versions {
		for _, status := range []int{http.StatusConflict, http.StatusUnprocessableEntity} {
			t.Run(fmt.Sprintf("%s/%d", v, status), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := newWireAgent(wire{v, a2a.BindingHTTPJSON}, map[callKind]func(*wireWriter, wireCall){
						kindStream: func(w *wireWriter, _ wireCall) {
							w.sse()
							w.event(snap(a2a.StateWorking, "one "))
							panic(http.ErrAbortHandler)
						},
						kindSubscribe: func(w *wireWriter, _ wireCall) {
							w.w.Header().Set("Content-Type", "application/json")
							w.w.WriteHeader(status)
							fmt.Fprint(w.w, `{"message":"Task t-1 is in a terminal state"}`)
						},
						kindGet: func(w *wireWriter, _ wireCall) { w.task(snap(a2a.StateCompleted, "one ", "two")) },
					})
					got, err := drain(t, agent.client(t).Send(bounded(t), hello()))
					require.NoError(t, err)
					require.Equal(t, "one two", got.task.Artifact("a1").Text())
					require.Equal(t, 1, agent.count(kindSubscribe))
					require.Equal(t, 1, agent.count(kindGet))
				})
			})
		}
	}
}

// legAgent is a client of a hand-written agent over binding b in version v:
// the streaming send, then each subscribe, is answered with the events of
// the next leg (the last one from then on), a nil event dropping the
// connection; get-task answers get.
func legAgent(t *testing.T, v a2a.Version, b a2a.Binding, get *a2a.Task, legs ...[]a2a.Event) *stream.Client {
	t.Helper()
	var mu sync.Mutex
	next := 0
	play := func(w *wireWriter, _ wireCall) {
		mu.Lock()
		l := legs[min(next, len(legs)-1)]
		next++
		mu.Unlock()
		w.sse()
		for _, ev := range l {
			if ev == nil {
				cutHere()
			}
			w.event(ev)
		}
	}
	agent := newWireAgent(wire{v, b}, map[callKind]func(*wireWriter, wireCall){
		kindStream:    play,
		kindSubscribe: play,
		kindGet:       func(w *wireWriter, _ wireCall) { w.task(get) },
	})
	return agent.client(t)
}

// After a cut, the first Task of the subscription lags what was delivered
// (a store behind its event bus, as a2a-js 1.3.0's follow-up snapshot is):
// it holds a prefix of the parts, and the events from that point follow.
// The application's artifact never shrinks, no part is delivered twice, and
// it ends as the server's. The mixed run (cut; full replay; cut; lagging
// snapshot) ends the same way.
func TestLaggingSnapshotAfterACutDeliversNothingTwice(t *testing.T) {
	chunkOf := func(appendChunk bool, texts ...string) *a2a.ArtifactUpdate {
		return &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Append: appendChunk, Artifact: a2a.Artifact{ID: "a1", Parts: textParts(texts...)}}
	}
	for _, w := range wires() {
		done := statusEvent(w.v, a2a.StateCompleted, nil)
		server := snap(a2a.StateCompleted, "a", "b", "c", "d", "e")
		scenarios := []struct {
			name string
			legs [][]a2a.Event
		}{
			{"lagging snapshot", [][]a2a.Event{
				{snap(a2a.StateWorking), chunkOf(false, "a"), chunkOf(true, "b"), chunkOf(true, "c"), nil},
				{snap(a2a.StateWorking, "a"), chunkOf(true, "b"), chunkOf(true, "c"), chunkOf(true, "d"), chunkOf(true, "e"), done},
			}},
			{"full replay then lagging snapshot", [][]a2a.Event{
				{snap(a2a.StateWorking), chunkOf(false, "a"), chunkOf(true, "b"), nil},
				{snap(a2a.StateWorking), chunkOf(false, "a"), chunkOf(true, "b"), chunkOf(true, "c"), chunkOf(true, "d"), nil},
				{snap(a2a.StateWorking, "a", "b"), chunkOf(true, "c"), chunkOf(true, "d"), chunkOf(true, "e"), done},
			}},
		}
		for _, sc := range scenarios {
			t.Run(fmt.Sprintf("%s/%s/%s", w.b, w.v, sc.name), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					s := legAgent(t, w.v, w.b, server, sc.legs...).Send(background(), hello())
					defer s.Close()
					var app a2a.Task
					held, delivered := 0, 0
					for s.Next() {
						app.Apply(s.Event())
						u, ok := s.Event().(*a2a.ArtifactUpdate)
						if !ok {
							continue
						}
						delivered += len(u.Artifact.Parts)
						n := len(app.Artifact("a1").Parts)
						require.GreaterOrEqual(t, n, held, "the artifact shrank: append=%v %q", u.Append, u.Artifact.Text())
						held = n
					}
					require.NoError(t, s.Err())
					require.Equal(t, server.Artifacts, app.Artifacts, "the application holds the server's artifact")
					require.Equal(t, server.Artifacts, s.Task().Artifacts)
					require.Equal(t, 5, delivered, "each part once")
				})
			})
		}
	}
}

// A final event held while the gap-closing get-task fails: the stream still
// ends as the final event says.
func TestHeldFinalStatusEndsTheStreamWhenTheGapCannotBeClosed(t *testing.T) {
	http503 := func(w http.ResponseWriter, r scriptedReq, k int) {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
	}
	cases := []struct {
		name string
		sub  func(w http.ResponseWriter, r scriptedReq, k int)
		get  func(w http.ResponseWriter, r scriptedReq, k int)
	}{
		{"get 503, resubscribe 503", http503, http503},
		{"get cut, resubscribe cut", func(w http.ResponseWriter, r scriptedReq, k int) { cutHere() },
			func(w http.ResponseWriter, r scriptedReq, k int) { cutHere() }},
		{"get 500, resubscribe refused -32001 (a2a-go)", func(w http.ResponseWriter, r scriptedReq, k int) {
			sseHeaders(w)
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32001,\"message\":\"task not found\"}}\n\n", r.id)
		}, func(w http.ResponseWriter, r scriptedReq, k int) {
			http.Error(w, "boom", http.StatusInternalServerError)
		}},
		{"get 429, resubscribe 429", func(w http.ResponseWriter, r scriptedReq, k int) {
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}, func(w http.ResponseWriter, r scriptedReq, k int) {
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}},
		{"get 503, then resubscribe answers 403", func(w http.ResponseWriter, r scriptedReq, k int) {
			http.Error(w, "forbidden", http.StatusForbidden)
		}, http503},
		{"get 503, then resubscribe answers -32603", func(w http.ResponseWriter, r scriptedReq, k int) {
			jsonRPCError(w, r.id, a2a.CodeInternalError, "internal error")
		}, http503},
		{"get 503, then resubscribe sends an RPC error mid-stream", func(w http.ResponseWriter, r scriptedReq, k int) {
			sseHeaders(w)
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32603,\"message\":\"internal\"}}\n\n", r.id)
		}, http503},
	}
	finals := []a2a.TaskState{a2a.StateCompleted, a2a.StateFailed}
	for _, v := range versions {
		for _, st := range finals {
			for _, c := range cases {
				t.Run(string(v)+"/"+string(st)+"/"+c.name, func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						final := statusEvent(v, st, agentMessage("m-final", "the end"))
						srv := heldFinalServer(v, final, c.sub, c.get)
						s := newClient(t, srv, v, stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: time.Second})).
							Send(bounded(t), hello())
						got, err := drain(t, s)
						require.NotEmpty(t, got.states)
						require.Equal(t, st, got.states[len(got.states)-1], "the final status is delivered; err %T: %v", err, err)
						require.Contains(t, got.messages, "m-final")
						if st == a2a.StateCompleted {
							require.NoError(t, err)
						} else {
							var fe *terminal.FailedError
							require.ErrorAs(t, err, &fe, "got %T: %v", err, err)
						}
					})
				})
			}
		}
	}
}

// heldFinalServer: the send is cut after working; every resubscribe answers
// with sub(k) (k counts from 1); every get-task with get(k).
func heldFinalServer(v a2a.Version, final *a2a.StatusUpdate, sub func(w http.ResponseWriter, r scriptedReq, k int),
	get func(w http.ResponseWriter, r scriptedReq, k int)) *scriptedServer {
	var mu sync.Mutex
	subs, gets := 0, 0
	return newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
		switch {
		case r.n == 1:
			sseHeaders(w)
			sseEvent(w, r.id, v, firstTask)
			sseEvent(w, r.id, v, statusEvent(v, a2a.StateWorking, agentMessage("m-working", "on it")))
			cutHere()
		case r.isSubscribe():
			mu.Lock()
			subs++
			k := subs
			mu.Unlock()
			if k == 1 {
				sseHeaders(w)
				sseEvent(w, r.id, v, final)
				return
			}
			sub(w, r, k)
		case r.isGet():
			mu.Lock()
			gets++
			k := gets
			mu.Unlock()
			get(w, r, k)
		default:
			jsonRPCError(w, r.id, a2a.CodeInternalError, "unexpected request")
		}
	})
}

// A live-only server cuts the send stream, the resubscribe brings the final
// status, and the get-task meant to close the gap fails. The final status the
// server did send is not lost.
func TestFinalEventKeptWhenTheGapGetTaskFails(t *testing.T) {
	finals := []struct {
		name  string
		state a2a.TaskState
		text  string
	}{
		{"completed", a2a.StateCompleted, "all done"},
		{"failed", a2a.StateFailed, "upstream API timed out"},
	}
	getErrors := []struct {
		name   string
		answer func(w http.ResponseWriter, id json.RawMessage)
	}{
		{"-32603", func(w http.ResponseWriter, id json.RawMessage) {
			jsonRPCError(w, id, a2a.CodeInternalError, "internal error")
		}},
		{"-32601", func(w http.ResponseWriter, id json.RawMessage) {
			jsonRPCError(w, id, a2a.CodeMethodNotFound, "method not found")
		}},
		{"-32001", func(w http.ResponseWriter, id json.RawMessage) {
			jsonRPCError(w, id, a2a.CodeTaskNotFound, "task not found")
		}},
		{"HTTP 400", func(w http.ResponseWriter, id json.RawMessage) {
			http.Error(w, "bad request", http.StatusBadRequest)
		}},
	}
	for _, v := range versions {
		for _, f := range finals {
			for _, g := range getErrors {
				t.Run(string(v)+"/"+f.name+"/"+g.name, func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
							switch {
							case r.n == 1:
								sseHeaders(w)
								sseEvent(w, r.id, v, firstTask)
								sseEvent(w, r.id, v, statusEvent(v, a2a.StateWorking, agentMessage("m-working", "on it")))
								cutHere()
							case r.isSubscribe():
								sseHeaders(w)
								sseEvent(w, r.id, v, statusEvent(v, f.state, agentMessage("m-final", f.text)))
							case r.isGet():
								g.answer(w, r.id)
							default:
								jsonRPCError(w, r.id, a2a.CodeInternalError, "unexpected request")
							}
						})
						s := newClient(t, srv, v).Send(bounded(t), hello())
						got, err := drain(t, s)
						require.Equal(t, 1, srv.count(scriptedReq.isSubscribe))
						require.NotEmpty(t, got.states)
						require.Equal(t, f.state, got.states[len(got.states)-1], "the final status is delivered as an event")
						require.Contains(t, got.messages, "m-final")
						if f.state == a2a.StateCompleted {
							require.NoError(t, err)
							require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
							return
						}
						var failed *terminal.FailedError
						require.ErrorAs(t, err, &failed, "got %T: %v", err, err)
						require.Equal(t, a2a.StateFailed, failed.Task.Status.State)
						require.Equal(t, f.text, failed.Task.Status.Message.Text())
					})
				})
			}
		}
	}
}

// The get-task that closes a gap before a held final status shows the task
// ended with a status message the streamed final lacked: the ending is
// delivered once, with that message, and the held final adds nothing (it
// was once delivered twice, the second time without the message).
func TestGapGetTaskShowingTheEndingsMessageEndsOnce(t *testing.T) {
	for _, v := range versions {
		for _, st := range []a2a.TaskState{a2a.StateCompleted, a2a.StateFailed} {
			t.Run(string(v)+"/"+string(st), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					unexpected := func(w http.ResponseWriter, r scriptedReq, k int) {
						jsonRPCError(w, r.id, a2a.CodeInternalError, "unexpected request")
					}
					ended := taskWith(st, []*a2a.Message{agentMessage("m-working", "on it"), agentMessage("m-done", "bye")})
					ended.Status.Message = agentMessage("m-done", "bye")
					srv := heldFinalServer(v, statusEvent(v, st, nil), unexpected, func(w http.ResponseWriter, r scriptedReq, k int) {
						unaryTask(w, r.id, v, ended)
					})
					s := newClient(t, srv, v).Send(bounded(t), hello())
					got, err := drain(t, s)
					require.Equal(t, 1, srv.count(scriptedReq.isGet), "the gap was closed by a get-task")
					require.Equal(t, []a2a.TaskState{a2a.StateWorking, a2a.StateWorking, st}, got.states, "the ending once")
					require.Equal(t, []string{"m-working", "m-done"}, got.messages, "each message once")
					require.Equal(t, "m-done", s.Task().Status.Message.ID, "the ending keeps its message")
					if st == a2a.StateCompleted {
						require.NoError(t, err)
						return
					}
					var failed *terminal.FailedError
					require.ErrorAs(t, err, &failed, "got %T: %v", err, err)
					require.Equal(t, "bye", failed.Task.Status.Message.Text())
				})
			})
		}
	}
}

// An error from the WithSleep function ends the stream with that error: a
// local error is not a network fault, and nothing resubscribes.
func TestSleepErrorEndsTheStream(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				boom := errors.New("sleep broke")
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(wirematrix.Paced()...),
					a2atest.WithFaults(a2atest.CutAfterEvents(3)))
				slept := 0
				sleep := func(context.Context, time.Duration) error {
					slept++
					return boom
				}
				s := newClient(t, agent, v, stream.WithSleep(sleep)).Send(bounded(t), hello())
				_, err := drain(t, s)
				require.Error(t, err, "the stream did not complete")
				require.ErrorIs(t, err, boom)
				require.Equal(t, 1, slept)
				require.Equal(t, 0, wirematrix.Resubscribes(agent))
			})
		})
	}
}

// A send that goes silent is dropped one idle timeout after its last byte,
// under every resubscribe style, and the stream resumes.
func TestSilentSocketIsADropUnderEveryStyle(t *testing.T) {
	for _, v := range versions {
		for _, style := range wirematrix.Styles() {
			t.Run(string(v)+"/"+style.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					// The send goes silent after the task, working and "one "
					// (at 100 ms). With a 250 ms idle timeout and a 50 ms
					// backoff the stream is back at 400 ms, while the agent is
					// still producing.
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(style), a2atest.WithScript(wirematrix.Paced()...))
					var rec reconnects
					start := time.Now()
					s := newClient(t, silentAfter(agent, 3), v, rec.option(), stream.WithIdleTimeout(250*time.Millisecond),
						stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 50 * time.Millisecond})).Send(background(), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					wirematrix.RequireSameAsServer(t, agent, s, got.fold)
					require.Len(t, rec.causes, 1)
					require.ErrorIs(t, rec.causes[0], transport.ErrIdleTimeout)
					require.Equal(t, 350*time.Millisecond, rec.at[0].Sub(start), "dropped one idle timeout after the last byte")
					require.Equal(t, 1, wirematrix.Sends(agent))
					require.Equal(t, 1, wirematrix.Resubscribes(agent))
				})
			})
		}
	}
}

// 200 text/event-stream then a clean EOF before any event: on the send it
// ends in transport.ErrEndedEarly without resending; on a resubscribe it is a
// failed attempt.
func TestCleanEOFBeforeAnyEventIsErrEndedEarly(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v)+"/send", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// 200 text/event-stream, then a clean EOF before any event.
				calls := 0
				h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
					calls++
					sseHeaders(w)
				})
				s := newClient(t, h, v).Send(background(), hello())
				_, err := drain(t, s)
				var re *reconnect.Error
				require.ErrorAs(t, err, &re)
				require.Equal(t, 0, re.Attempts)
				require.Nil(t, re.Task)
				require.ErrorIs(t, err, transport.ErrEndedEarly)
				require.Nil(t, s.Task())
				require.Equal(t, 1, calls, "the message is never sent twice")
			})
		})
		t.Run(string(v)+"/resubscribe", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// The task still runs when the stream comes back, so the
				// resubscribe is answered as a stream: 200, headers, EOF.
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(wirematrix.Paced()...),
					a2atest.WithFaults(a2atest.CutAfterEvents(3), a2atest.CloseAfterEvents(0)))
				var rec reconnects
				s := newClient(t, agent, v, rec.option(),
					stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 50 * time.Millisecond})).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				wirematrix.RequireSameAsServer(t, agent, s, got.fold)
				require.Len(t, rec.causes, 2, "the drop, then the empty resubscribe as a failed attempt")
				require.ErrorIs(t, rec.causes[1], transport.ErrEndedEarly)
				require.Equal(t, 2, wirematrix.Resubscribes(agent))
				require.Equal(t, 1, wirematrix.Sends(agent))
			})
		})
	}
}

// One byte a second for minutes, against a 1.5 s idle timeout: slow but
// alive, never dropped. (The stall limit is off: it counts whole events
// only, and one event here takes minutes to drip.)
func TestSlowDripIsAlive(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// One byte a second, for minutes of fake time, against a
				// 1.5 s idle timeout: slow but alive.
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithFaults(a2atest.Drip(time.Second)))
				ct := &countingTransport{next: a2atest.NewTransport(agent)}
				start := time.Now()
				s := newClient(t, agent, v, stream.WithHTTPClient(&http.Client{Transport: ct}),
					stream.WithIdleTimeout(1500*time.Millisecond), stream.WithStallTimeout(0)).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				wirematrix.RequireSameAsServer(t, agent, s, got.fold)
				require.Equal(t, "hello world", got.text("a1"))
				require.Equal(t, 0, wirematrix.Resubscribes(agent))
				n := ct.n.Load()
				require.Greater(t, n, int64(100))
				require.Equal(t, time.Duration(n-1)*time.Second, time.Since(start), "one second per byte after the first")
			})
		})
	}
}

// TestSlowDripOnGetTaskIsAlive drips the get-task answers too: the idle
// timeout must treat them as alive, as it does the streams.
func TestSlowDripOnGetTaskIsAlive(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				drip := a2atest.Drip(time.Second)
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.LiveOnly), a2atest.WithScript(wirematrix.Paced()...),
					a2atest.WithFaults(a2atest.CutAfterEvents(wirematrix.PacedEvents-1)),
					a2atest.WithGetFaults(drip, drip, drip, drip, drip))
				c := newClient(t, agent, v, stream.WithIdleTimeout(1500*time.Millisecond))
				s := c.Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err, "a get-task that drips one byte a second is alive")
				wirematrix.RequireSameAsServer(t, agent, s, got.fold)
				require.Equal(t, 1, gets(agent))

				task, err := c.GetTask(background(), s.Task().ID)
				require.NoError(t, err)
				require.Equal(t, a2a.StateCompleted, task.Status.State)
			})
		})
	}
}

// silentAfter serves agent, but the first streaming request goes silent
// after n events: the connection stays open and nothing more arrives.
func silentAfter(agent *a2atest.Agent, n int) http.Handler {
	var calls atomic.Int32
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w = &silencer{ResponseWriter: w, left: n, done: r.Context().Done()}
		}
		agent.ServeHTTP(w, r)
	})
}

// countingTransport counts the response body bytes the client read.
type countingTransport struct {
	next http.RoundTripper
	n    atomic.Int64
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err == nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, n: &c.n}
	}
	return resp, err
}

type silencer struct {
	http.ResponseWriter
	left int
	done <-chan struct{}
}

func (s *silencer) Write(p []byte) (int, error) {
	if s.left <= 0 {
		<-s.done
		return 0, io.ErrClosedPipe
	}
	n, err := s.ResponseWriter.Write(p)
	s.left -= bytes.Count(p[:n], []byte("\n\n"))
	return n, err
}

func (s *silencer) Flush() { s.ResponseWriter.(http.Flusher).Flush() }

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// stylesSeeds is how many seeds TestResubscribeStylesMixedPerReconnect
// runs per version; CI passes the full size (.ci/run).
var stylesSeeds = flag.Int("styles.seeds", wirematrix.MixedSeeds, "how many seeds TestResubscribeStylesMixedPerReconnect runs per version (CI: 3,000)")

// Mixed server styles on each reconnect: a hand-written server that holds a
// task timeline and answers each resubscribe in a style chosen per leg, for
// -styles.seeds seeds per version, on the two JSON-RPC wires
// (wirematrix.StylesMixedPerReconnect; the grpc module runs it on gRPC 0.3
// and 1.0 through the same server).
func TestResubscribeStylesMixedPerReconnect(t *testing.T) {
	t.Parallel()
	for _, v := range versions {
		w := matrixWire(wire{v, a2a.BindingJSONRPC})
		w.HandlerClient = func(t *testing.T, h http.Handler, opts ...stream.Option) *stream.Client {
			t.Helper()
			return newClient(t, h, v, opts...)
		}
		wirematrix.StylesMixedPerReconnect(t, w, *stylesSeeds)
	}
}

// Streams over HTTP/2 cleartext (h2c), where the streams of a Client share
// one connection: a real net/http server on loopback, since the server's
// HTTP/2 (resets, flow control) is what is under test, and no timer is.

// h2cOnly is the protocol set of an h2c server and of a Transport that
// speaks it with prior knowledge.
func h2cOnly() *http.Protocols {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	return &p
}

// h2cServer serves h over HTTP/2 cleartext only on loopback, refusing any
// request that did not come over HTTP/2, and holds the response of every
// request whose body holds holdWord after its first write, until release
// is closed or the request is cancelled: such a stream stays open on the
// shared connection while the others run.
type h2cServer struct {
	srv     *httptest.Server
	release chan struct{}
	notH2   atomic.Int32 // requests that came over another protocol

	mu    sync.Mutex
	conns map[string]int // requests per connection (the client's address)
}

const holdWord = "hold"

func newH2CServer(t *testing.T, h http.Handler) *h2cServer {
	t.Helper()
	s := &h2cServer{release: make(chan struct{}), conns: map[string]int{}}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.conns[r.RemoteAddr]++
		s.mu.Unlock()
		if r.ProtoMajor != 2 {
			s.notH2.Add(1)
			http.Error(w, "HTTP/2 only", http.StatusHTTPVersionNotSupported)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(holdWord)) {
			w = &heldWriter{ResponseWriter: w, release: s.release, done: r.Context().Done()}
		}
		h.ServeHTTP(w, r)
	}))
	s.srv.Config.Protocols = h2cOnly()
	s.srv.Start()
	t.Cleanup(s.srv.Close)
	return s
}

// client returns an HTTP client that speaks h2c to the server.
func (s *h2cServer) client(t *testing.T) *http.Client {
	t.Helper()
	tr := &http.Transport{Protocols: h2cOnly()}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// connections returns how many connections the server's requests came
// over. (Counting the client's dials would not do: net/http's Transport
// may dial a spare HTTP/2 connection it never uses when a request comes
// while the first connection is still being handed out.)
func (s *h2cServer) connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// heldWriter passes the first Write and Flush of a response through and
// blocks every later Write until release is closed or done is.
type heldWriter struct {
	http.ResponseWriter
	release <-chan struct{}
	done    <-chan struct{}
	mu      sync.Mutex
	writes  int
}

func (w *heldWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	w.writes++
	first := w.writes == 1
	w.mu.Unlock()
	if !first {
		select {
		case <-w.release:
		case <-w.done:
			return 0, http.ErrAbortHandler
		}
	}
	return w.ResponseWriter.Write(b)
}

func (w *heldWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

// noWait is a sleep that returns at once: the backoff between attempts
// takes no wall time in the loopback tests.
func noWait(context.Context, time.Duration) error { return nil }

// Over h2c the streams of a Client share one connection. A stream whose
// HTTP/2 stream the agent resets midway resubscribes and hands over each
// chunk once, on the four wires and whether the agent replays nothing,
// a snapshot or everything; the stream held open beside it on the same
// connection is not cut and completes, with no subscribe of its own; and
// a stream's Close cancels its own HTTP/2 stream only: the next stream
// runs on the same connection.
func TestStreamsSharingAnHTTP2ConnectionHealOnlyTheirOwnCuts(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, style := range []a2atest.ResubscribeStyle{a2atest.LiveOnly, a2atest.SnapshotFirst, a2atest.FullReplay} {
			t.Run(w.String()+"/"+styleName(style), func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithStyle(style),
					a2atest.WithScript(
						a2atest.Working("on it"),
						a2atest.Chunk("a1", "one ", false, false),
						a2atest.Chunk("a1", "two ", true, false),
						a2atest.Chunk("a1", "three", true, true),
						a2atest.Finish(a2a.StateCompleted, ""),
					),
					// The held stream's send takes no fault; the next send
					// is reset after its task and first status.
					a2atest.WithFaults(a2atest.Fault{}, a2atest.CutAfterEvents(2)))
				srv := newH2CServer(t, agent)
				c := bindingClient(t, w.b, srv.srv.URL, stream.WithHTTPClient(srv.client(t)), stream.WithVersion(w.v), stream.WithSleep(noWait))
				ctx := background()

				held := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, holdWord))
				defer held.Close()
				require.True(t, held.Next(), "the held stream's first event: %v", held.Err())
				heldTask := held.Task().ID

				reset := c.Send(ctx, hello())
				cut, err := drain(t, reset)
				require.NoError(t, err)
				require.Equal(t, "one two three", cut.text("a1"), "each chunk once after the reset")
				cutTask := reset.Task().ID

				close(srv.release)
				rest, err := drain(t, held)
				require.NoError(t, err, "the held stream survived the reset of the other")
				require.Equal(t, "one two three", rest.text("a1"))

				closed := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, holdWord+" and close"))
				require.True(t, closed.Next(), "%v", closed.Err())
				require.NoError(t, closed.Close())
				after, err := drain(t, c.Send(ctx, hello()))
				require.NoError(t, err)
				require.Equal(t, "one two three", after.text("a1"))

				subscribes := map[string]int{}
				for _, r := range agent.Requests() {
					if strings.Contains(strings.ToLower(r.Method), "subscribe") {
						subscribes[r.TaskID]++
					}
				}
				require.Equal(t, map[string]int{cutTask: 1}, subscribes, "only the reset stream resubscribed (held %s)", heldTask)
				require.Equal(t, 1, srv.connections(), "every request on one connection, before and after a Close")
				require.Zero(t, srv.notH2.Load(), "every request over HTTP/2")
			})
		}
	}
}

func styleName(s a2atest.ResubscribeStyle) string {
	switch s {
	case a2atest.LiveOnly:
		return "LiveOnly"
	case a2atest.SnapshotFirst:
		return "SnapshotFirst"
	}
	return "FullReplay"
}
