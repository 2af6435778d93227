package stream_test

import (
	"context"
	"errors"
	"fmt"
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

func TestTaskOfEveryCarrier(t *testing.T) {
	task := &a2a.Task{ID: "t-1"}
	for _, err := range []error{
		&terminal.FailedError{Task: task},
		&terminal.AuthRequiredError{Task: task},
		&reconnect.Error{Attempts: 3, Task: task},
		&hitl.Error{Task: task},
		&stream.ProtocolError{Reason: "bad", Task: task},
		&stream.StalledError{Task: task},
		&stream.TaskError{Err: &a2a.RPCError{Code: -32603}, Task: task},
		fmt.Errorf("outer: %w", &terminal.CanceledError{Task: task}),
	} {
		require.Same(t, task, stream.EndingOf(err).Task, "%T", err)
	}
	for _, err := range []error{nil, errors.New("x"), &a2a.RPCError{}, &reconnect.Error{}, &stream.TaskError{Err: context.Canceled}} {
		require.Nil(t, stream.EndingOf(err).Task, "%v", err)
	}
}

// Once the task is known, the caller's context ending carries it too.
func TestContextEndingCarriesTheTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Working("on it"), a2atest.Pause(time.Minute), a2atest.Finish(a2a.StateCompleted, "")))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		s := newClient(t, agent, a2a.V10).Send(ctx, hello())
		for s.Next() {
			if u, ok := s.Event().(*a2a.StatusUpdate); ok && u.Status.State == a2a.StateWorking {
				cancel()
			}
		}
		err := s.Err()
		require.ErrorIs(t, err, context.Canceled)
		require.Equal(t, a2a.StateWorking, stream.EndingOf(err).Task.Status.State)
		_, isTerminal := terminalState(err)
		require.False(t, isTerminal)
	})
}

// Before any task is known there is nothing to carry.
func TestNoTaskNoTaskError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithFaults(a2atest.HTTPStatus(400, "bad request")))
		_, err := drain(t, newClient(t, agent, a2a.V10).Send(background(), hello()))
		require.Error(t, err)
		var te *stream.TaskError
		require.False(t, errors.As(err, &te))
		require.Nil(t, stream.EndingOf(err).Task)
	})
}

// stream.TaskOf returns the last known task of every ending (the stream's
// Task, state and artifacts alike), nil when none was known or for nil;
// terminal.StateOf names the terminal state of terminal endings only.
func TestTaskOfAndStateOfOnEveryEnding(t *testing.T) {
	for _, v := range versions {
		for _, e := range taskOfCases() {
			if e.wild && v != a2a.V03 {
				continue // the wild agent speaks 0.3 only
			}
			t.Run(string(v)+"/"+e.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := e.agent(v)
					ctx, before := background(), func(*stream.Stream) {}
					if e.ctx != nil {
						ctx, before = e.ctx(t)
					}
					s := newClient(t, agent, v).Send(ctx, hello(), e.opts...)
					before(s)
					for s.Next() {
					}
					err := s.Err()
					e.check(t, err)
					state, ok := terminalState(err)
					require.Equal(t, e.state != "", ok, "StateOf reports a state for terminal endings only (%T: %v)", err, err)
					require.Equal(t, e.state, state)
					got := stream.EndingOf(err).Task
					if e.noTask {
						require.Nil(t, got)
						return
					}
					require.NotNil(t, got, "TaskOf(%T: %v)", err, err)
					require.NotNil(t, s.Task())
					require.Equal(t, s.Task().ID, got.ID)
					require.Equal(t, s.Task().Status.State, got.Status.State, "TaskOf is the last known task")
					require.Equal(t, s.Task().Artifacts, got.Artifacts)
					require.Equal(t, len(s.Task().History), len(got.History))
					if e.state != "" {
						require.Equal(t, e.state, got.Status.State)
					}
				})
			})
		}
	}
}

func taskOfCases() []taskOfCase {
	long := func(opts ...a2atest.Option) func(a2a.Version) *a2atest.Agent {
		return func(v a2a.Version) *a2atest.Agent {
			return a2atest.NewAgent(append([]a2atest.Option{a2atest.WithVersions(v), a2atest.WithScript(longScript()...)}, opts...)...)
		}
	}
	finish := func(st a2a.TaskState) func(a2a.Version) *a2atest.Agent {
		return func(v a2a.Version) *a2atest.Agent {
			return a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(a2atest.Working("w"), a2atest.Chunk("a1", "part", false, true),
				a2atest.Finish(st, "because")))
		}
	}
	isA := func(target any) func(t *testing.T, err error) {
		return func(t *testing.T, err error) { require.ErrorAs(t, err, target) }
	}
	return []taskOfCase{
		{name: "completed", agent: finish(a2a.StateCompleted), noTask: true,
			check: func(t *testing.T, err error) { require.NoError(t, err) }},
		{name: "failed", agent: finish(a2a.StateFailed), state: a2a.StateFailed, check: isA(new(*terminal.FailedError))},
		{name: "rejected", agent: finish(a2a.StateRejected), state: a2a.StateRejected, check: isA(new(*terminal.RejectedError))},
		{name: "canceled", agent: finish(a2a.StateCanceled), state: a2a.StateCanceled, check: isA(new(*terminal.CanceledError))},
		{name: "auth-required", agent: func(v a2a.Version) *a2atest.Agent {
			return a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(a2atest.Working("w"), a2atest.AskAuth("sign in")))
		}, state: a2a.StateAuthRequired, check: isA(new(*terminal.AuthRequiredError))},
		{name: "in-stream failure (wild)", wild: true, agent: func(a2a.Version) *a2atest.Agent {
			return a2atest.NewAgent(a2atest.WithWildHabits("bot"), a2atest.WithScript(a2atest.Working("w"), a2atest.Finish(a2a.StateFailed, "model")))
		}, state: a2a.StateFailed, check: isA(new(*terminal.FailedError))},
		{name: "budget spent", agent: long(a2atest.WithFaults(a2atest.CutAfterEvents(3), a2atest.Drop())),
			opts:  []stream.Option{stream.WithReconnect(reconnect.Policy{MaxAttempts: 1, Backoff: time.Second})},
			check: isA(new(*reconnect.Error))},
		{name: "drop before a task", agent: long(a2atest.WithFaults(a2atest.CutAfterEvents(0))), noTask: true,
			check: func(t *testing.T, err error) { require.ErrorIs(t, err, reconnect.ErrNoTask) }},
		{name: "no hook", agent: func(v a2a.Version) *a2atest.Agent {
			return a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(asking()...))
		},
			check: func(t *testing.T, err error) { require.ErrorIs(t, err, hitl.ErrNoHook) }},
		{name: "RPC error on resubscribe", agent: long(a2atest.WithFaults(a2atest.CutAfterEvents(3),
			a2atest.RPCError(a2a.CodeInternalError, "down", a2atest.ErrorAsJSON))),
			check: isA(new(*a2a.RPCError))},
		{name: "HTTP 403 on resubscribe", agent: long(a2atest.WithFaults(a2atest.CutAfterEvents(3),
			a2atest.HTTPStatus(403, "forbidden"))),
			check: isA(new(*stream.HTTPError))},
		{name: "stalled", agent: long(a2atest.WithoutStreaming()),
			opts: []stream.Option{stream.WithStallTimeout(time.Minute)}, check: isA(new(*stream.StalledError))},
		{name: "event too large", agent: func(v a2a.Version) *a2atest.Agent {
			return a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(a2atest.Working("w"), a2atest.Pause(time.Second),
				a2atest.Chunk("a1", string(make([]byte, 4000)), false, true), a2atest.Finish(a2a.StateCompleted, "")))
		}, opts: []stream.Option{stream.WithMaxEventSize(1500)}, check: isA(new(*stream.ProtocolError))},
		{name: "context canceled", agent: long(), ctx: func(t *testing.T) (context.Context, func(*stream.Stream)) {
			ctx, stop := context.WithCancel(background())
			return ctx, func(s *stream.Stream) { nextUntilWorking(t, s); stop() }
		}, check: func(t *testing.T, err error) { require.ErrorIs(t, err, context.Canceled) }},
		{name: "context canceled before a task", agent: long(), noTask: true, ctx: func(t *testing.T) (context.Context, func(*stream.Stream)) {
			ctx, stop := context.WithCancel(background())
			stop()
			return ctx, func(*stream.Stream) {}
		}, check: func(t *testing.T, err error) { require.ErrorIs(t, err, context.Canceled) }},
	}
}

// taskOfCase is one way a stream ends.
type taskOfCase struct {
	name   string
	agent  func(v a2a.Version) *a2atest.Agent
	wild   bool // 0.3 only
	opts   []stream.Option
	ctx    func(t *testing.T) (context.Context, func(s *stream.Stream))
	state  a2a.TaskState // the terminal state StateOf names; "" for none
	noTask bool          // TaskOf is nil
	check  func(t *testing.T, err error)
}
