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

// EndingCase is one ending of a stream and what Stream.Ending reads of it.
type EndingCase struct {
	// Name names the case in subtests.
	Name string
	// Run produces the ending on w and returns the stream, drained.
	Run func(t *testing.T, w Wire) *stream.Stream
	// Check asserts what Err is, beyond the fields below.
	Check  func(t *testing.T, err error)
	State  a2a.TaskState // Ending.State
	Task   a2a.TaskState // the state of Ending.Task; "" when it is nil
	Answer string        // Ending.Answer's text; "" when it is nil
	Code   string        // Ending.Failure's code; "" when it is nil
	Line   string        // the prefix of String's line
}

// Quick is the client options of the ending and resend cases: a reconnect
// policy of 3 attempts 100 ms apart, polls 100 ms apart, then opts.
func Quick(opts ...stream.Option) []stream.Option {
	return append([]stream.Option{stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 100 * time.Millisecond}),
		stream.WithPollInterval(100 * time.Millisecond)}, opts...)
}

// Scripted returns a stream, sending hello, of an agent on w that plays
// steps, with the agent options given and the client options Quick(copts).
func Scripted(t *testing.T, w Wire, steps []a2atest.Step, aopts []a2atest.Option, copts ...stream.Option) *stream.Stream {
	t.Helper()
	agent := w.Agent(append([]a2atest.Option{a2atest.WithScript(steps...)}, aopts...)...)
	return w.Client(t, agent, Quick(copts...)...).Send(context.Background(), hello())
}

// Drained runs s to its end (Drain) and returns it.
func Drained(t *testing.T, s *stream.Stream) *stream.Stream {
	t.Helper()
	_, _ = Drain(t, s)
	return s
}

// EndingCases are the endings that any wire can produce with an a2atest
// agent: not those of an HTTP client (a connect timeout of net/http, HTTP
// errors, the HTTP bindings' breaker and event size limit) nor of a
// hand-written agent (a structured failure), which stream's
// TestEndingReadsEveryEnding adds on the HTTP wires.
func EndingCases() []EndingCase {
	long := []a2atest.Step{a2atest.Working("on it"), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")}
	finish := func(state a2a.TaskState, text string) func(t *testing.T, w Wire) *stream.Stream {
		return func(t *testing.T, w Wire) *stream.Stream {
			return Drained(t, Scripted(t, w, []a2atest.Step{a2atest.Working("on it"), a2atest.Chunk("a1", "part one", false, false), a2atest.Finish(state, text)}, nil))
		}
	}
	terminalErr := func(t *testing.T, err error) {
		var te terminal.Error
		require.ErrorAs(t, err, &te)
	}
	return []EndingCase{
		{Name: "completed", Run: finish(a2a.StateCompleted, "done"),
			Check: func(t *testing.T, err error) { require.NoError(t, err) },
			State: a2a.StateCompleted, Task: a2a.StateCompleted, Line: "completed"},
		{Name: "message answer", Run: func(t *testing.T, w Wire) *stream.Stream {
			return Drained(t, Scripted(t, w, []a2atest.Step{a2atest.Reply("direct reply")}, nil))
		}, Check: func(t *testing.T, err error) { require.NoError(t, err) },
			Answer: "direct reply", Line: "answered"},
		{Name: "failed", Run: finish(a2a.StateFailed, "the reason"), Check: terminalErr,
			State: a2a.StateFailed, Task: a2a.StateFailed, Line: "failed: the reason"},
		{Name: "rejected", Run: finish(a2a.StateRejected, "not my job"), Check: terminalErr,
			State: a2a.StateRejected, Task: a2a.StateRejected, Line: "rejected: not my job"},
		{Name: "canceled", Run: finish(a2a.StateCanceled, ""), Check: terminalErr,
			State: a2a.StateCanceled, Task: a2a.StateCanceled, Line: "canceled"},
		{Name: "auth-required without credentials", Run: func(t *testing.T, w Wire) *stream.Stream {
			return Drained(t, Scripted(t, w, []a2atest.Step{a2atest.Working("on it"), a2atest.AskAuth("sign in to the calendar")}, nil))
		}, Check: func(t *testing.T, err error) {
			var e *terminal.AuthRequiredError
			require.ErrorAs(t, err, &e)
		}, State: a2a.StateAuthRequired, Task: a2a.StateAuthRequired, Line: "auth-required: sign in to the calendar"},
		{Name: "input-required without a hook", Run: func(t *testing.T, w Wire) *stream.Stream {
			return Drained(t, Scripted(t, w, []a2atest.Step{a2atest.Working("on it"), a2atest.AskInput("Which city?")}, nil))
		}, Check: func(t *testing.T, err error) {
			var e *hitl.Error
			require.ErrorAs(t, err, &e)
			require.ErrorIs(t, err, hitl.ErrNoHook)
		}, State: a2a.StateInputRequired, Task: a2a.StateInputRequired, Line: "input-required: no answer: hitl: no human-input hook configured"},
		{Name: "retry budget spent", Run: func(t *testing.T, w Wire) *stream.Stream {
			return Drained(t, Scripted(t, w, long, []a2atest.Option{a2atest.WithFaults(
				a2atest.CutAfterEvents(2), a2atest.CutAfterEvents(0), a2atest.CutAfterEvents(0), a2atest.CutAfterEvents(0), a2atest.CutAfterEvents(0))}))
		}, Check: func(t *testing.T, err error) {
			var e *reconnect.Error
			require.ErrorAs(t, err, &e)
			require.NotErrorIs(t, err, reconnect.ErrNoTask)
		}, Task: a2a.StateWorking, Line: "ended: reconnect: "},
		{Name: "drop before any task", Run: func(t *testing.T, w Wire) *stream.Stream {
			return Drained(t, Scripted(t, w, long, []a2atest.Option{a2atest.WithFaults(a2atest.CutAfterEvents(0))}))
		}, Check: func(t *testing.T, err error) { require.ErrorIs(t, err, reconnect.ErrNoTask) }, Line: "ended: reconnect: "},
		{Name: "stalled", Run: func(t *testing.T, w Wire) *stream.Stream {
			return Drained(t, Scripted(t, w, long, []a2atest.Option{a2atest.WithoutStreaming()}, stream.WithStallTimeout(time.Minute)))
		}, Check: func(t *testing.T, err error) {
			var e *stream.StalledError
			require.ErrorAs(t, err, &e)
		}, Task: a2a.StateWorking, Line: "ended: stream: "},
		{Name: "A2A error", Run: func(t *testing.T, w Wire) *stream.Stream {
			return Drained(t, Scripted(t, w, long, []a2atest.Option{a2atest.WithFaults(
				a2atest.RPCError(a2a.CodeInvalidParams, "bad params", a2atest.ErrorAsJSON))}))
		}, Check: func(t *testing.T, err error) {
			var e *a2a.RPCError
			require.ErrorAs(t, err, &e)
			require.Equal(t, a2a.CodeInvalidParams, e.Code)
		}, Line: "ended: "},
		{Name: "invalid message", Run: func(t *testing.T, w Wire) *stream.Stream {
			agent := w.Agent()
			return Drained(t, w.Client(t, agent, Quick()...).Send(context.Background(), &a2a.Message{Role: a2a.RoleUser}))
		}, Check: func(t *testing.T, err error) { require.ErrorIs(t, err, transport.ErrInvalidMessage) }, Line: "ended: "},
		{Name: "the caller's context ended", Run: func(t *testing.T, w Wire) *stream.Stream {
			agent := w.Agent(a2atest.WithScript(long...))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s := w.Client(t, agent, Quick()...).Send(ctx, hello())
			defer s.Close()
			for s.Next() {
				if s.Task() != nil && s.Task().Status.State == a2a.StateWorking {
					cancel()
				}
			}
			return s
		}, Check: func(t *testing.T, err error) {
			require.ErrorIs(t, err, context.Canceled)
			// stream's own test finds its unexported task error; from
			// outside, the error carries the task (EndingOf).
			require.NotNil(t, stream.EndingOf(err).Task, "the error carries the task as last known")
		}, Task: a2a.StateWorking, Line: "ended: context canceled"},
	}
}

// Endings: Stream.Ending reads each ending of cases (EndingCases, and
// stream's TestEndingReadsEveryEnding adds the HTTP wires' own) in one
// call: the state the task ended in (none when it did not), the final task
// or the task as last known, the message answer, the structured failure,
// the error, and one line for a person. It agrees with the parts it is
// built from, and EndingOf reads the same from the error alone.
func Endings(t *testing.T, w Wire, cases []EndingCase) {
	for _, c := range cases {
		t.Run(w.String()+"/"+c.Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := c.Run(t, w)
				e := s.Ending()
				c.Check(t, e.Err)
				require.Equal(t, s.Err(), e.Err)
				require.Equal(t, c.State, e.State, "state")
				if c.Task == "" {
					require.Nil(t, e.Task, "task")
				} else {
					require.NotNil(t, e.Task, "task")
					require.Equal(t, c.Task, e.Task.Status.State, "the task's state")
				}
				if task := stream.EndingOf(e.Err).Task; task != nil {
					require.Same(t, task, e.Task, "the task the error carries")
				}
				if c.Answer == "" {
					require.Nil(t, e.Answer, "answer")
				} else {
					require.Equal(t, c.Answer, e.Answer.Text(), "answer")
					require.Same(t, s.Ending().Answer, e.Answer, "Ending hands over the answer itself, each time")
				}
				if c.Code == "" {
					require.Nil(t, e.Failure, "failure")
				} else {
					require.NotNil(t, e.Failure, "failure")
					require.Equal(t, c.Code, e.Failure.Code)
					f, _ := TerminalFailure(e.Err)
					require.Equal(t, f, *e.Failure)
				}
				require.True(t, strings.HasPrefix(e.String(), c.Line), "got %q; want it to start with %q", e.String(), c.Line)
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
				state, ended := TerminalState(e.Err)
				require.Equal(t, ended, state == e.State && ended, "StateOf agrees")
			})
		})
	}
}

// TerminalState and TerminalFailure read a terminal error through any
// wrapping, as a caller does with errors.As and the terminal.Error
// interface: the state, and the structured failure, of a failed,
// rejected, canceled or auth-required task; false for any other error.
func TerminalState(err error) (a2a.TaskState, bool) {
	var te terminal.Error
	if !errors.As(err, &te) {
		return "", false
	}
	return te.State(), true
}

// TerminalFailure: see TerminalState.
func TerminalFailure(err error) (terminal.Failure, bool) {
	var te terminal.Error
	if !errors.As(err, &te) {
		return terminal.Failure{}, false
	}
	return te.Failure()
}
