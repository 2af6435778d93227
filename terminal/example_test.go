package terminal_test

import (
	"errors"
	"fmt"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/terminal"
)

// ExampleError reads the four unsuccessful endings: errors.As with an
// Error target finds one through any wrapping, its State and FinalTask name
// the state and the task, and errors.As on a concrete type picks the
// application's response.
func ExampleError() {
	for _, state := range []a2a.TaskState{a2a.StateFailed, a2a.StateRejected, a2a.StateCanceled, a2a.StateAuthRequired} {
		err := fmt.Errorf("booking: %w", terminal.FromTask(&a2a.Task{ID: "t-1", Status: a2a.TaskStatus{State: state}}))
		var te terminal.Error
		errors.As(err, &te)
		fmt.Printf("%s (task %s): %s\n", te.State(), te.FinalTask().ID, respond(err))
	}
	var te terminal.Error
	fmt.Println("other errors:", errors.As(errors.New("connection refused"), &te))
	// Output:
	// failed (task t-1): show the agent's reason, offer a retry
	// rejected (task t-1): the agent will not do this; rephrase
	// canceled (task t-1): say it stopped
	// auth-required (task t-1): sign in, then send again
	// other errors: false
}

// respond picks what an application does about each ending.
func respond(err error) string {
	var (
		failed   *terminal.FailedError
		rejected *terminal.RejectedError
		canceled *terminal.CanceledError
		auth     *terminal.AuthRequiredError
	)
	switch {
	case errors.As(err, &failed):
		return "show the agent's reason, offer a retry"
	case errors.As(err, &rejected):
		return "the agent will not do this; rephrase"
	case errors.As(err, &canceled):
		return "say it stopped"
	case errors.As(err, &auth):
		return "sign in, then send again"
	}
	return "unexpected"
}

// ExampleError_failure reads a structured failure in the tRPC-Agent-Go
// convention: the agent's status update carried error_type, error_code and
// error_message in its metadata, which the stream folded into the task's.
// The code is for the program, the message for a person.
func ExampleError_failure() {
	tk := &a2a.Task{ID: "t-1",
		Status: a2a.TaskStatus{State: a2a.StateFailed, Message: &a2a.Message{ID: "resp-1", Role: a2a.RoleAgent,
			Parts: []a2a.Part{{Text: "validation failed"}}}},
		Metadata: map[string]any{"object_type": "error", "error_type": "flow_error",
			"error_code": "REMOTE_VALIDATION_FAILED", "error_message": "validation failed", "task_state": "failed"},
	}
	err := fmt.Errorf("booking: %w", terminal.FromTask(tk))
	var te terminal.Error
	if errors.As(err, &te) {
		if f, ok := te.Failure(); ok {
			fmt.Printf("type %s, code %s: %s\n", f.Type, f.Code, f.Message)
			if f.Code == "REMOTE_VALIDATION_FAILED" {
				fmt.Println("fix the input, then send again")
			}
		}
	}
	fmt.Println(err)
	// Output:
	// type flow_error, code REMOTE_VALIDATION_FAILED: validation failed
	// fix the input, then send again
	// booking: terminal: task t-1 ended in state failed: REMOTE_VALIDATION_FAILED: validation failed
}
