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
		require.Same(t, task, stream.TaskOf(err), "%T", err)
	}
	for _, err := range []error{nil, errors.New("x"), &a2a.RPCError{}, &reconnect.Error{}, &stream.TaskError{Err: context.Canceled}} {
		require.Nil(t, stream.TaskOf(err), "%v", err)
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
		require.Equal(t, a2a.StateWorking, stream.TaskOf(err).Status.State)
		_, isTerminal := terminal.StateOf(err)
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
		require.Nil(t, stream.TaskOf(err))
	})
}
