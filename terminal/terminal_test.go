package terminal_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/terminal"
)

// stateOf and failureOf read an error of this package through any
// wrapping, as a caller does with errors.As and the Error interface.
func stateOf(err error) (a2a.TaskState, bool) {
	var te terminal.Error
	if !errors.As(err, &te) {
		return "", false
	}
	return te.State(), true
}

func failureOf(err error) (terminal.Failure, bool) {
	var te terminal.Error
	if !errors.As(err, &te) {
		return terminal.Failure{}, false
	}
	return te.Failure()
}

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

func TestStateThroughTheErrorInterface(t *testing.T) {
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
		state, ok := stateOf(c.err)
		require.Equal(t, c.ok, ok, "%v", c.err)
		require.Equal(t, c.state, state, "%v", c.err)
	}
}

// structured returns a failed task whose metadata (md) and status message's
// metadata (mirror) are as given, with the status message's text.
func structured(md, mirror map[string]any, text string) *a2a.Task {
	tk := &a2a.Task{ID: "t-1", Status: a2a.TaskStatus{State: a2a.StateFailed}, Metadata: md}
	if text != "" || mirror != nil {
		tk.Status.Message = &a2a.Message{ID: "resp-1", Role: a2a.RoleAgent, Metadata: mirror, Parts: []a2a.Part{{Text: text}}}
	}
	return tk
}

// tRPC-Agent-Go's structured failure: read from the task's metadata first,
// then the status message's, key by key; the message falls back to the
// status message's text; a task without the convention has none.
func TestReadStructured(t *testing.T) {
	full := map[string]any{"object_type": "error", "error_type": "flow_error", "error_code": "REMOTE_VALIDATION_FAILED",
		"error_message": "validation failed", "task_state": "failed", "llm_response_id": "resp-1"}
	want := terminal.Failure{ObjectType: "error", Type: "flow_error", Code: "REMOTE_VALIDATION_FAILED", Message: "validation failed", TaskState: "failed"}
	tests := []struct {
		name string
		task *a2a.Task
		want terminal.Failure
		ok   bool
	}{
		{"task metadata", structured(full, nil, "validation failed"), want, true},
		{"status message metadata only", structured(nil, full, "validation failed"), want, true},
		{"the task's key wins, the mirror fills in",
			structured(map[string]any{"error_code": "A"}, map[string]any{"error_code": "B", "error_type": "flow_error"}, "x"),
			terminal.Failure{Type: "flow_error", Code: "A", Message: "x"}, true},
		{"no error_message: the status text", structured(map[string]any{"error_code": "E1"}, nil, "upstream API timed out"),
			terminal.Failure{Code: "E1", Message: "upstream API timed out"}, true},
		{"error_message wins over the text", structured(map[string]any{"error_message": "quota exceeded"}, nil, "failed"),
			terminal.Failure{Message: "quota exceeded"}, true},
		{"object_type error alone", structured(map[string]any{"object_type": "error"}, nil, "boom"),
			terminal.Failure{ObjectType: "error", Message: "boom"}, true},
		{"a numeric code", structured(map[string]any{"error_code": float64(1003)}, nil, ""),
			terminal.Failure{Code: "1003"}, true},
		{"values of other types are absent", structured(map[string]any{"error_code": true, "error_type": map[string]any{}, "error_message": ""}, nil, "x"),
			terminal.Failure{}, false},
		{"another object type", structured(map[string]any{"object_type": "chat.completion", "task_state": "failed"}, nil, "x"),
			terminal.Failure{}, false},
		{"text only", structured(nil, nil, "upstream API timed out"), terminal.Failure{}, false},
		{"no task", nil, terminal.Failure{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := terminal.ReadStructured(tt.task)
			require.Equal(t, tt.ok, ok)
			require.Equal(t, tt.want, got)
		})
	}
}

// Each terminal error reports the structured failure its task carries,
// through any wrapping: read with ReadStructured by FromTask (and for an
// error built by hand), with the given Reader by FromTaskWith, once.
func TestFailureThroughTheErrorInterface(t *testing.T) {
	md := map[string]any{"error_type": "flow_error", "error_code": "REMOTE_VALIDATION_FAILED", "error_message": "validation failed"}
	want := terminal.Failure{Type: "flow_error", Code: "REMOTE_VALIDATION_FAILED", Message: "validation failed"}
	for _, state := range []a2a.TaskState{a2a.StateFailed, a2a.StateRejected, a2a.StateCanceled, a2a.StateAuthRequired} {
		t.Run(string(state), func(t *testing.T) {
			tk := &a2a.Task{ID: "t-1", Status: a2a.TaskStatus{State: state}, Metadata: md}
			got, ok := failureOf(fmt.Errorf("booking: %w", terminal.FromTask(tk)))
			require.True(t, ok)
			require.Equal(t, want, got)

			calls := 0
			other := terminal.Failure{Code: "E42", Message: "from the error part"}
			err := terminal.FromTaskWith(tk, func(got *a2a.Task) (terminal.Failure, bool) {
				calls++
				require.Same(t, tk, got)
				return other, true
			})
			got, ok = failureOf(err)
			require.True(t, ok)
			require.Equal(t, other, got)
			_ = err.Error()
			require.Equal(t, 1, calls, "the reader is called once, when the error is built")

			none := terminal.FromTaskWith(tk, func(*a2a.Task) (terminal.Failure, bool) { return terminal.Failure{Code: "ignored"}, false })
			got, ok = failureOf(none)
			require.False(t, ok, "the reader found none: ReadStructured is not asked")
			require.Equal(t, terminal.Failure{}, got)
		})
	}
	for _, err := range []error{&terminal.FailedError{Task: structured(md, nil, "")}, &terminal.RejectedError{Task: structured(md, nil, "")},
		&terminal.CanceledError{Task: structured(md, nil, "")}, &terminal.AuthRequiredError{Task: structured(md, nil, "")}} {
		got, ok := failureOf(err)
		require.True(t, ok, "%T built by hand reads with ReadStructured", err)
		require.Equal(t, want, got)
	}
	_, ok := failureOf(terminal.FromTask(task(a2a.StateFailed, "upstream API timed out")))
	require.False(t, ok, "a text alone is no structured failure")
	_, ok = failureOf(errors.New("terminal: task t-1 ended in state failed: E1: x"))
	require.False(t, ok)
	_, ok = failureOf(nil)
	require.False(t, ok)
}

// A terminal error's text names the structured failure's code and message
// when the task carries one; otherwise the status message's text, as before.
func TestErrorTextNamesTheStructuredFailure(t *testing.T) {
	for _, c := range []struct {
		md   map[string]any
		text string
		want string
	}{
		{map[string]any{"error_code": "REMOTE_VALIDATION_FAILED", "error_message": "validation failed"}, "validation failed",
			"terminal: task t-1 ended in state failed: REMOTE_VALIDATION_FAILED: validation failed"},
		{map[string]any{"error_code": "REMOTE_VALIDATION_FAILED"}, "the reason",
			"terminal: task t-1 ended in state failed: REMOTE_VALIDATION_FAILED: the reason"},
		{map[string]any{"error_code": "REMOTE_VALIDATION_FAILED"}, "",
			"terminal: task t-1 ended in state failed: REMOTE_VALIDATION_FAILED"},
		{map[string]any{"error_message": "quota exceeded"}, "failed",
			"terminal: task t-1 ended in state failed: quota exceeded"},
		{map[string]any{"object_type": "error"}, "",
			"terminal: task t-1 ended in state failed"},
		{nil, "upstream API timed out", "terminal: task t-1 ended in state failed: upstream API timed out"},
	} {
		require.EqualError(t, terminal.FromTask(structured(c.md, nil, c.text)), c.want)
	}
}
