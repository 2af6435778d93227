package stream_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

// endingCase is one kind of ending of the README's Errors table, as it is
// produced on one wire, and what Stream.Ending reads of it.
type endingCase struct {
	name string
	// run produces the ending and returns the stream, drained.
	run func(t *testing.T, w wire) *stream.Stream
	// check asserts what Err is, beyond the fields below.
	check  func(t *testing.T, err error)
	state  a2a.TaskState
	task   a2a.TaskState // the state of Ending.Task; "" when it is nil
	answer string        // Ending.Answer's text; "" when it is nil
	code   string        // Ending.Failure's code; "" when it is nil
	line   string        // the prefix of String's line
}

// drained runs s to its end and returns it.
func drained(t *testing.T, s *stream.Stream) *stream.Stream {
	t.Helper()
	_, _ = drain(t, s)
	return s
}

// scripted returns a stream of an a2atest agent on w that plays steps,
// with the agent and client options given.
func scripted(t *testing.T, w wire, steps []a2atest.Step, aopts []a2atest.Option, copts ...stream.Option) *stream.Stream {
	t.Helper()
	agent := a2atest.NewAgent(append([]a2atest.Option{a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithScript(steps...)}, aopts...)...)
	return sgNewClient(t, w, agent, copts...).Send(background(), hello())
}

func endingCases() []endingCase {
	long := []a2atest.Step{a2atest.Working("on it"), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")}
	finish := func(state a2a.TaskState, text string) func(t *testing.T, w wire) *stream.Stream {
		return func(t *testing.T, w wire) *stream.Stream {
			return drained(t, scripted(t, w, []a2atest.Step{a2atest.Working("on it"), a2atest.Chunk("a1", "part one", false, false), a2atest.Finish(state, text)}, nil))
		}
	}
	terminalErr := func(t *testing.T, err error) {
		var te terminal.Error
		require.ErrorAs(t, err, &te)
	}
	return []endingCase{
		{name: "completed", run: finish(a2a.StateCompleted, "done"),
			check: func(t *testing.T, err error) { require.NoError(t, err) },
			state: a2a.StateCompleted, task: a2a.StateCompleted, line: "completed"},
		{name: "message answer", run: func(t *testing.T, w wire) *stream.Stream {
			return drained(t, scripted(t, w, []a2atest.Step{a2atest.Reply("direct reply")}, nil))
		}, check: func(t *testing.T, err error) { require.NoError(t, err) },
			answer: "direct reply", line: "answered"},
		{name: "failed", run: finish(a2a.StateFailed, "the reason"), check: terminalErr,
			state: a2a.StateFailed, task: a2a.StateFailed, line: "failed: the reason"},
		{name: "rejected", run: finish(a2a.StateRejected, "not my job"), check: terminalErr,
			state: a2a.StateRejected, task: a2a.StateRejected, line: "rejected: not my job"},
		{name: "canceled", run: finish(a2a.StateCanceled, ""), check: terminalErr,
			state: a2a.StateCanceled, task: a2a.StateCanceled, line: "canceled"},
		{name: "failed with a structured failure", run: func(t *testing.T, w wire) *stream.Stream {
			return drained(t, failingAgents(w)["streaming"].client(t).Send(background(), hello()))
		}, check: terminalErr,
			state: a2a.StateFailed, task: a2a.StateFailed, code: "REMOTE_VALIDATION_FAILED",
			line: "failed: REMOTE_VALIDATION_FAILED: validation failed"},
		{name: "auth-required without credentials", run: func(t *testing.T, w wire) *stream.Stream {
			return drained(t, scripted(t, w, []a2atest.Step{a2atest.Working("on it"), a2atest.AskAuth("sign in to the calendar")}, nil))
		}, check: func(t *testing.T, err error) {
			var e *terminal.AuthRequiredError
			require.ErrorAs(t, err, &e)
		}, state: a2a.StateAuthRequired, task: a2a.StateAuthRequired, line: "auth-required: sign in to the calendar"},
		{name: "input-required without a hook", run: func(t *testing.T, w wire) *stream.Stream {
			return drained(t, scripted(t, w, []a2atest.Step{a2atest.Working("on it"), a2atest.AskInput("Which city?")}, nil))
		}, check: func(t *testing.T, err error) {
			var e *hitl.Error
			require.ErrorAs(t, err, &e)
			require.ErrorIs(t, err, hitl.ErrNoHook)
		}, state: a2a.StateInputRequired, task: a2a.StateInputRequired, line: "input-required: no answer: hitl: no human-input hook configured"},
		{name: "retry budget spent", run: func(t *testing.T, w wire) *stream.Stream {
			return drained(t, scripted(t, w, long, []a2atest.Option{a2atest.WithFaults(
				a2atest.CutAfterEvents(2), a2atest.CutAfterEvents(0), a2atest.CutAfterEvents(0), a2atest.CutAfterEvents(0), a2atest.CutAfterEvents(0))}))
		}, check: func(t *testing.T, err error) {
			var e *reconnect.Error
			require.ErrorAs(t, err, &e)
			require.NotErrorIs(t, err, reconnect.ErrNoTask)
		}, task: a2a.StateWorking, line: "ended: reconnect: "},
		{name: "drop before any task", run: func(t *testing.T, w wire) *stream.Stream {
			return drained(t, scripted(t, w, long, []a2atest.Option{a2atest.WithFaults(a2atest.CutAfterEvents(0))}))
		}, check: func(t *testing.T, err error) { require.ErrorIs(t, err, reconnect.ErrNoTask) }, line: "ended: reconnect: "},
		{name: "stalled", run: func(t *testing.T, w wire) *stream.Stream {
			return drained(t, scripted(t, w, long, []a2atest.Option{a2atest.WithoutStreaming()}, stream.WithStallTimeout(time.Minute)))
		}, check: func(t *testing.T, err error) {
			var e *stream.StalledError
			require.ErrorAs(t, err, &e)
		}, task: a2a.StateWorking, line: "ended: stream: "},
		{name: "no connection within the connect timeout", run: func(t *testing.T, w wire) *stream.Stream {
			var hole blackHole
			tr := &http.Transport{DialContext: hole.dial}
			t.Cleanup(tr.CloseIdleConnections)
			c := bindingClient(t, w.b, "http://agent.test", stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(w.v),
				stream.WithConnectTimeout(2*time.Second), stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: time.Second}))
			return drained(t, c.Send(background(), hello()))
		}, check: func(t *testing.T, err error) {
			var e *reconnect.Error
			require.ErrorAs(t, err, &e)
			require.ErrorIs(t, err, stream.ErrConnectTimeout)
		}, line: "ended: reconnect: "},
		{name: "circuit open", run: func(t *testing.T, w wire) *stream.Stream {
			b := &tripBreaker{threshold: 1, cooldown: time.Hour}
			agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithBindings(w.b),
				a2atest.WithFaults(a2atest.HTTPStatus(http.StatusServiceUnavailable, "busy")))
			c := sgNewClient(t, w, agent, stream.WithBreaker(b))
			drained(t, c.Send(background(), hello()))
			return drained(t, c.Send(background(), hello()))
		}, check: func(t *testing.T, err error) { require.ErrorIs(t, err, stream.ErrCircuitOpen) }, line: "ended: "},
		{name: "JSON-RPC error", run: func(t *testing.T, w wire) *stream.Stream {
			return drained(t, scripted(t, w, long, []a2atest.Option{a2atest.WithFaults(
				a2atest.RPCError(a2a.CodeInvalidParams, "bad params", a2atest.ErrorAsJSON))}))
		}, check: func(t *testing.T, err error) {
			var e *a2a.RPCError
			require.ErrorAs(t, err, &e)
			require.Equal(t, a2a.CodeInvalidParams, e.Code)
		}, line: "ended: "},
		{name: "HTTP error once the task is known", run: func(t *testing.T, w wire) *stream.Stream {
			return drained(t, scripted(t, w, long, []a2atest.Option{
				a2atest.WithFaults(a2atest.CutAfterEvents(2), a2atest.HTTPStatus(http.StatusUnauthorized, "expired")),
				a2atest.WithGetFaults(a2atest.HTTPStatus(http.StatusUnauthorized, "expired"))}))
		}, check: func(t *testing.T, err error) {
			var e *stream.HTTPError
			require.ErrorAs(t, err, &e)
			require.Equal(t, http.StatusUnauthorized, e.StatusCode)
			var te *stream.TaskError
			require.ErrorAs(t, err, &te)
		}, task: a2a.StateWorking, line: "ended: stream: HTTP 401"},
		{name: "invalid message", run: func(t *testing.T, w wire) *stream.Stream {
			agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithBindings(w.b))
			return drained(t, sgNewClient(t, w, agent).Send(background(), &a2a.Message{Role: a2a.RoleUser}))
		}, check: func(t *testing.T, err error) { require.ErrorIs(t, err, stream.ErrInvalidMessage) }, line: "ended: "},
		{name: "protocol error", run: func(t *testing.T, w wire) *stream.Stream {
			return drained(t, scripted(t, w, a2atest.DefaultScript(), nil, stream.WithMaxEventSize(100)))
		}, check: func(t *testing.T, err error) {
			var e *stream.ProtocolError
			require.ErrorAs(t, err, &e)
		}, line: "ended: stream: "},
		{name: "the caller's context ended", run: func(t *testing.T, w wire) *stream.Stream {
			agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithScript(long...))
			ctx, cancel := context.WithCancel(background())
			defer cancel()
			s := sgNewClient(t, w, agent).Send(ctx, hello())
			defer s.Close()
			for s.Next() {
				if s.Task() != nil && s.Task().Status.State == a2a.StateWorking {
					cancel()
				}
			}
			return s
		}, check: func(t *testing.T, err error) {
			require.ErrorIs(t, err, context.Canceled)
			var te *stream.TaskError
			require.ErrorAs(t, err, &te)
		}, task: a2a.StateWorking, line: "ended: context canceled"},
	}
}

// Stream.Ending reads every ending of the README's Errors table in one
// call, on every wire: the state the task ended in (none when it did not),
// the final task or the task as last known, the message answer, the
// structured failure, the error, and one line for a person. It agrees
// with the parts it is built from, and EndingOf reads the same from the
// error alone.
func TestEndingReadsEveryEnding(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, c := range endingCases() {
			t.Run(w.String()+"/"+c.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					s := c.run(t, w)
					e := s.Ending()
					c.check(t, e.Err)
					require.Equal(t, s.Err(), e.Err)
					require.Equal(t, c.state, e.State, "state")
					if c.task == "" {
						require.Nil(t, e.Task, "task")
					} else {
						require.NotNil(t, e.Task, "task")
						require.Equal(t, c.task, e.Task.Status.State, "the task's state")
					}
					if task := stream.EndingOf(e.Err).Task; task != nil {
						require.Same(t, task, e.Task, "the task the error carries")
					}
					if c.answer == "" {
						require.Nil(t, e.Answer, "answer")
					} else {
						require.Equal(t, c.answer, e.Answer.Text(), "answer")
						require.Same(t, s.Ending().Answer, e.Answer, "Ending hands over the answer itself, each time")
					}
					if c.code == "" {
						require.Nil(t, e.Failure, "failure")
					} else {
						require.NotNil(t, e.Failure, "failure")
						require.Equal(t, c.code, e.Failure.Code)
						f, _ := terminalFailure(e.Err)
						require.Equal(t, f, *e.Failure)
					}
					require.True(t, strings.HasPrefix(e.String(), c.line), "got %q; want it to start with %q", e.String(), c.line)
					require.NotContains(t, e.String(), "\n", "one line")

					of := stream.EndingOf(e.Err)
					if e.Err != nil {
						want := e
						want.Answer = nil
						if stream.EndingOf(e.Err).Task == nil {
							want.Task = nil
						}
						require.Equal(t, want, of, "EndingOf reads the error alone")
					} else {
						require.Equal(t, stream.Ending{}, of, "a nil error says nothing")
					}
					state, ended := terminalState(e.Err)
					require.Equal(t, ended, state == e.State && ended, "StateOf agrees")
				})
			})
		}
	}
}

// Before the stream ends, Ending reports the task so far and no state; a
// stream closed by its caller before its task ended reads "closed", and
// the zero Ending "not ended".
func TestEndingBeforeTheEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := wires()[0]
		agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithScript(a2atest.Working("on it"), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")))
		s := sgNewClient(t, w, agent).Send(background(), hello())
		require.True(t, s.Next())
		e := s.Ending()
		require.Empty(t, e.State)
		require.NotNil(t, e.Task)
		require.NoError(t, e.Err)
		require.NoError(t, s.Close())
		require.Equal(t, "closed", s.Ending().String())
		require.Equal(t, "not ended", stream.Ending{}.String())
		require.False(t, errors.Is(s.Ending().Err, context.Canceled))
	})
}
