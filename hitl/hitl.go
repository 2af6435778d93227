package hitl

import (
	"context"
	"errors"

	"github.com/a2astream/a2astream/a2a"
)

// Request is one question from an agent.
type Request struct {
	// Task is the task as assembled so far: its artifacts, history and the
	// input-required status.
	Task *a2a.Task
	// Prompt is the agent's status message that asks the question. It may be
	// nil when the agent sent none.
	Prompt *a2a.Message
}

// Text returns the prompt's text, or "" when there is no prompt.
func (r *Request) Text() string { return r.Prompt.Text() }

// Hook answers an agent's question. It returns the parts of the reply
// message. The context is cancelled when the stream's context is, and carries
// the deadline set with the stream's input timeout.
type Hook interface {
	Ask(ctx context.Context, req *Request) ([]a2a.Part, error)
}

// Func adapts a function to a [Hook].
type Func func(ctx context.Context, req *Request) ([]a2a.Part, error)

// Ask calls f.
func (f Func) Ask(ctx context.Context, req *Request) ([]a2a.Part, error) { return f(ctx, req) }

// Text is a convenience for hooks that answer with plain text.
func Text(s string) []a2a.Part { return []a2a.Part{{Text: s}} }

// ErrNoHook is the cause of an [*Error] when a task needs input and no hook
// was configured.
var ErrNoHook = errors.New("hitl: no human-input hook configured")

// Error ends a stream whose task needed input that could not be obtained: no
// hook was configured, the hook failed, or it ran out of time. Err is
// ErrNoHook, the hook's error, or context.DeadlineExceeded.
type Error struct {
	Task   *a2a.Task
	Prompt *a2a.Message
	Err    error
}

// Error reads like "hitl: task t-1 needs input (Which dates?): hitl: no human-input hook configured".
func (e *Error) Error() string {
	s := "hitl: task "
	if e.Task != nil {
		s += e.Task.ID
	}
	s += " needs input"
	if text := e.Prompt.Text(); text != "" {
		s += " (" + text + ")"
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }
