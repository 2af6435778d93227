package terminal_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/terminal"
)

func task(state a2a.TaskState, msg string) *a2a.Task {
	t := &a2a.Task{ID: "t-1", Status: a2a.TaskStatus{State: state}}
	if msg != "" {
		t.Status.Message = a2a.NewTextMessage(a2a.RoleAgent, msg)
	}
	return t
}

func TestFromTask(t *testing.T) {
	tests := []struct {
		state   a2a.TaskState
		msg     string
		wantNil bool
		text    string
	}{
		{state: a2a.StateFailed, msg: "upstream API timed out", text: "terminal: task t-1 ended in state failed: upstream API timed out"},
		{state: a2a.StateRejected, msg: "not my job", text: "terminal: task t-1 ended in state rejected: not my job"},
		{state: a2a.StateCanceled, text: "terminal: task t-1 ended in state canceled"},
		{state: a2a.StateAuthRequired, msg: "sign in", text: "terminal: task t-1 ended in state auth-required: sign in"},
		{state: a2a.StateCompleted, wantNil: true},
		{state: a2a.StateWorking, wantNil: true},
		{state: a2a.StateSubmitted, wantNil: true},
		{state: a2a.StateInputRequired, wantNil: true},
		{state: a2a.StateUnknown, wantNil: true},
	}
	for _, tt := range tests {
		t.Run(string(tt.state), func(t *testing.T) {
			tk := task(tt.state, tt.msg)
			err := terminal.FromTask(tk)
			if tt.wantNil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			if got := err.Error(); got != tt.text {
				t.Fatalf("got %q; want %q", got, tt.text)
			}
			var te terminal.Error
			require.True(t, errors.As(fmt.Errorf("wrapped: %w", err), &te))
			if te.FinalTask() != tk {
				t.Fatalf("FinalTask() = %p; want the task %p", te.FinalTask(), tk)
			}
		})
	}
	require.NoError(t, terminal.FromTask(nil))
}

func TestErrorsAsConcreteTypes(t *testing.T) {
	var failed *terminal.FailedError
	require.True(t, errors.As(terminal.FromTask(task(a2a.StateFailed, "x")), &failed))
	var rejected *terminal.RejectedError
	require.True(t, errors.As(terminal.FromTask(task(a2a.StateRejected, "")), &rejected))
	var canceled *terminal.CanceledError
	require.True(t, errors.As(terminal.FromTask(task(a2a.StateCanceled, "")), &canceled))
	var auth *terminal.AuthRequiredError
	require.True(t, errors.As(terminal.FromTask(task(a2a.StateAuthRequired, "")), &auth))
	require.False(t, errors.As(terminal.FromTask(task(a2a.StateFailed, "")), &auth), "a failed task is not auth-required")
}

func ExampleFromTask() {
	tk := &a2a.Task{ID: "t-1", Status: a2a.TaskStatus{
		State:   a2a.StateFailed,
		Message: a2a.NewTextMessage(a2a.RoleAgent, "upstream API timed out"),
	}}
	err := terminal.FromTask(tk)
	var failed *terminal.FailedError
	if errors.As(err, &failed) {
		fmt.Println(failed.Task.Status.State)
	}
	fmt.Println(err)
	// Output:
	// failed
	// terminal: task t-1 ended in state failed: upstream API timed out
}

func TestStateOf(t *testing.T) {
	task := &a2a.Task{ID: "t-1"}
	for _, c := range []struct {
		err   error
		state a2a.TaskState
		ok    bool
	}{
		{&terminal.FailedError{Task: task}, a2a.StateFailed, true},
		{&terminal.RejectedError{Task: task}, a2a.StateRejected, true},
		{&terminal.CanceledError{Task: task}, a2a.StateCanceled, true},
		{&terminal.AuthRequiredError{Task: task}, a2a.StateAuthRequired, true},
		{fmt.Errorf("wrapped: %w", &terminal.FailedError{}), a2a.StateFailed, true},
		{errors.New("terminal: task t-1 ended in state failed"), "", false},
		{nil, "", false},
	} {
		state, ok := terminal.StateOf(c.err)
		require.Equal(t, c.ok, ok, "%v", c.err)
		require.Equal(t, c.state, state, "%v", c.err)
	}
}
