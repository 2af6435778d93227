package wirematrix

import (
	"context"
	"errors"
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
	"github.com/a2astream/a2astream/transport"
)

// endingCase is one ending of a stream and what Ending reads of it.
type endingCase struct {
	name string
	run  func(t *testing.T, w Wire) *stream.Stream
	// check asserts what Err is, beyond the fields below.
	check  func(t *testing.T, err error)
	state  a2a.TaskState
	task   a2a.TaskState // the state of Ending.Task; "" when it is nil
	answer string        // Ending.Answer's text; "" when it is nil
	code   string        // Ending.Failure's code; "" when it is nil
	line   string        // the prefix of String's line
}

// quick is the client options of the ending cases: a reconnect policy of 3
// attempts 100 ms apart, polls 100 ms apart.
func quick(opts ...stream.Option) []stream.Option {
	return append([]stream.Option{stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 100 * time.Millisecond}),
		stream.WithPollInterval(100 * time.Millisecond)}, opts...)
}

// scripted returns a stream of an agent on w that plays steps, with the
// agent and client options given.
func scripted(t *testing.T, w Wire, steps []a2atest.Step, aopts []a2atest.Option, copts ...stream.Option) *stream.Stream {
	t.Helper()
	agent := w.Agent(append([]a2atest.Option{a2atest.WithScript(steps...)}, aopts...)...)
	return w.Client(t, agent, quick(copts...)...).Send(context.Background(), hello())
}

// drained runs s to its end and returns it.
func drained(t *testing.T, s *stream.Stream) *stream.Stream {
	t.Helper()
	_, _ = drain(t, s)
	return s
}

// endingCases are the endings of stream's TestEndingReadsEveryEnding that
// any wire can produce with an a2atest agent: not those of an HTTP client
// (a connect timeout of net/http, HTTP errors, the HTTP bindings' breaker and
// event size limit) nor of a hand-written agent (a structured failure).
func endingCases() []endingCase {
	long := []a2atest.Step{a2atest.Working("on it"), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")}
	finish := func(state a2a.TaskState, text string) func(t *testing.T, w Wire) *stream.Stream {
		return func(t *testing.T, w Wire) *stream.Stream {
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
		{name: "message answer", run: func(t *testing.T, w Wire) *stream.Stream {
			return drained(t, scripted(t, w, []a2atest.Step{a2atest.Reply("direct reply")}, nil))
		}, check: func(t *testing.T, err error) { require.NoError(t, err) },
			answer: "direct reply", line: "answered"},
		{name: "failed", run: finish(a2a.StateFailed, "the reason"), check: terminalErr,
			state: a2a.StateFailed, task: a2a.StateFailed, line: "failed: the reason"},
		{name: "rejected", run: finish(a2a.StateRejected, "not my job"), check: terminalErr,
			state: a2a.StateRejected, task: a2a.StateRejected, line: "rejected: not my job"},
		{name: "canceled", run: finish(a2a.StateCanceled, ""), check: terminalErr,
			state: a2a.StateCanceled, task: a2a.StateCanceled, line: "canceled"},
		{name: "auth-required without credentials", run: func(t *testing.T, w Wire) *stream.Stream {
			return drained(t, scripted(t, w, []a2atest.Step{a2atest.Working("on it"), a2atest.AskAuth("sign in to the calendar")}, nil))
		}, check: func(t *testing.T, err error) {
			var e *terminal.AuthRequiredError
			require.ErrorAs(t, err, &e)
		}, state: a2a.StateAuthRequired, task: a2a.StateAuthRequired, line: "auth-required: sign in to the calendar"},
		{name: "input-required without a hook", run: func(t *testing.T, w Wire) *stream.Stream {
			return drained(t, scripted(t, w, []a2atest.Step{a2atest.Working("on it"), a2atest.AskInput("Which city?")}, nil))
		}, check: func(t *testing.T, err error) {
			var e *hitl.Error
			require.ErrorAs(t, err, &e)
			require.ErrorIs(t, err, hitl.ErrNoHook)
		}, state: a2a.StateInputRequired, task: a2a.StateInputRequired, line: "input-required: no answer: hitl: no human-input hook configured"},
		{name: "retry budget spent", run: func(t *testing.T, w Wire) *stream.Stream {
			return drained(t, scripted(t, w, long, []a2atest.Option{a2atest.WithFaults(
				a2atest.CutAfterEvents(2), a2atest.CutAfterEvents(0), a2atest.CutAfterEvents(0), a2atest.CutAfterEvents(0), a2atest.CutAfterEvents(0))}))
		}, check: func(t *testing.T, err error) {
			var e *reconnect.Error
			require.ErrorAs(t, err, &e)
			require.NotErrorIs(t, err, reconnect.ErrNoTask)
		}, task: a2a.StateWorking, line: "ended: reconnect: "},
		{name: "drop before any task", run: func(t *testing.T, w Wire) *stream.Stream {
			return drained(t, scripted(t, w, long, []a2atest.Option{a2atest.WithFaults(a2atest.CutAfterEvents(0))}))
		}, check: func(t *testing.T, err error) { require.ErrorIs(t, err, reconnect.ErrNoTask) }, line: "ended: reconnect: "},
		{name: "stalled", run: func(t *testing.T, w Wire) *stream.Stream {
			return drained(t, scripted(t, w, long, []a2atest.Option{a2atest.WithoutStreaming()}, stream.WithStallTimeout(time.Minute)))
		}, check: func(t *testing.T, err error) {
			var e *stream.StalledError
			require.ErrorAs(t, err, &e)
		}, task: a2a.StateWorking, line: "ended: stream: "},
		{name: "A2A error", run: func(t *testing.T, w Wire) *stream.Stream {
			return drained(t, scripted(t, w, long, []a2atest.Option{a2atest.WithFaults(
				a2atest.RPCError(a2a.CodeInvalidParams, "bad params", a2atest.ErrorAsJSON))}))
		}, check: func(t *testing.T, err error) {
			var e *a2a.RPCError
			require.ErrorAs(t, err, &e)
			require.Equal(t, a2a.CodeInvalidParams, e.Code)
		}, line: "ended: "},
		{name: "invalid message", run: func(t *testing.T, w Wire) *stream.Stream {
			agent := w.Agent()
			return drained(t, w.Client(t, agent, quick()...).Send(context.Background(), &a2a.Message{Role: a2a.RoleUser}))
		}, check: func(t *testing.T, err error) { require.ErrorIs(t, err, transport.ErrInvalidMessage) }, line: "ended: "},
		{name: "the caller's context ended", run: func(t *testing.T, w Wire) *stream.Stream {
			agent := w.Agent(a2atest.WithScript(long...))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s := w.Client(t, agent, quick()...).Send(ctx, hello())
			defer s.Close()
			for s.Next() {
				if s.Task() != nil && s.Task().Status.State == a2a.StateWorking {
					cancel()
				}
			}
			return s
		}, check: func(t *testing.T, err error) {
			require.ErrorIs(t, err, context.Canceled)
			// stream's own test finds its unexported task error; from
			// outside, the error carries the task (EndingOf).
			require.NotNil(t, stream.EndingOf(err).Task, "the error carries the task as last known")
		}, task: a2a.StateWorking, line: "ended: context canceled"},
	}
}

// Endings: Stream.Ending reads each ending (those of endingCases) in one
// call: the state the task ended in (none when it did not), the final task
// or the task as last known, the message answer, the error, and one line
// for a person. It agrees with the parts it is built from, and EndingOf
// reads the same from the error alone. stream's TestEndingReadsEveryEnding
// holds these and the HTTP wires' own.
func Endings(t *testing.T, w Wire) {
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

func terminalState(err error) (a2a.TaskState, bool) {
	var te terminal.Error
	if !errors.As(err, &te) {
		return "", false
	}
	return te.State(), true
}

func terminalFailure(err error) (terminal.Failure, bool) {
	var te terminal.Error
	if !errors.As(err, &te) {
		return terminal.Failure{}, false
	}
	return te.Failure()
}
