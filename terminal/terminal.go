package terminal

import (
	"github.com/a2astream/a2astream/a2a"
)

// Error is implemented by every error of this package. errors.As with an
// Error target catches all four, through any wrapping:
//
//	var te terminal.Error
//	if errors.As(err, &te) {
//		fmt.Println(te.State(), te.FinalTask().ID)
//	}
type Error interface {
	error
	// FinalTask returns the task as it stood when the stream ended.
	FinalTask() *a2a.Task
	// State returns the state the task ended in: failed, rejected,
	// canceled or auth-required.
	State() a2a.TaskState
	// Failure returns the structured failure the task carries, as the
	// Reader in force when the error was built read it (ReadStructured
	// unless the stream was given another), and false when it carries
	// none.
	Failure() (Failure, bool)
}

// FailedError reports a task that ended in state failed.
type FailedError struct {
	Task *a2a.Task
	read reading
}

// RejectedError reports a task the agent rejected.
type RejectedError struct {
	Task *a2a.Task
	read reading
}

// CanceledError reports a task that was canceled.
type CanceledError struct {
	Task *a2a.Task
	read reading
}

// AuthRequiredError reports a task that needs credentials the client has not
// given. Without a credentials hook (stream.WithCredentials), or when the
// hook fails, the stream ends here; the caller may supply credentials and
// continue the task by subscribing to it, or by sending a message with its
// ID.
type AuthRequiredError struct {
	Task *a2a.Task
	read reading
}

// Error reads like "terminal: task t-1 ended in state failed: upstream API
// timed out", or, for a structured failure with a code, "terminal: task t-1
// ended in state failed: REMOTE_VALIDATION_FAILED: validation failed".
func (e *FailedError) Error() string { return describe(e.Task, e.State(), e.read) }

// Error reads like "terminal: task t-1 ended in state rejected: not my job".
func (e *RejectedError) Error() string { return describe(e.Task, e.State(), e.read) }

// Error reads like "terminal: task t-1 ended in state canceled".
func (e *CanceledError) Error() string { return describe(e.Task, e.State(), e.read) }

// Error reads like "terminal: task t-1 ended in state auth-required: sign in to the calendar".
func (e *AuthRequiredError) Error() string { return describe(e.Task, e.State(), e.read) }

// Failure returns the structured failure the task carries, as the Reader
// given to FromTaskWith read it (ReadStructured for FromTask, and for an
// error built otherwise). It reports false when the task carries none.
func (e *FailedError) Failure() (Failure, bool) { return e.read.of(e.Task) }

// Failure returns the structured failure the task carries; see
// [FailedError.Failure].
func (e *RejectedError) Failure() (Failure, bool) { return e.read.of(e.Task) }

// Failure returns the structured failure the task carries; see
// [FailedError.Failure].
func (e *CanceledError) Failure() (Failure, bool) { return e.read.of(e.Task) }

// Failure returns the structured failure the task carries; see
// [FailedError.Failure].
func (e *AuthRequiredError) Failure() (Failure, bool) { return e.read.of(e.Task) }

// FinalTask returns the task as it stood when the stream ended.
func (e *FailedError) FinalTask() *a2a.Task { return e.Task }

// FinalTask returns the task as it stood when the stream ended.
func (e *RejectedError) FinalTask() *a2a.Task { return e.Task }

// FinalTask returns the task as it stood when the stream ended.
func (e *CanceledError) FinalTask() *a2a.Task { return e.Task }

// FinalTask returns the task as it stood when the stream ended.
func (e *AuthRequiredError) FinalTask() *a2a.Task { return e.Task }

// State returns a2a.StateFailed.
func (e *FailedError) State() a2a.TaskState { return a2a.StateFailed }

// State returns a2a.StateRejected.
func (e *RejectedError) State() a2a.TaskState { return a2a.StateRejected }

// State returns a2a.StateCanceled.
func (e *CanceledError) State() a2a.TaskState { return a2a.StateCanceled }

// State returns a2a.StateAuthRequired.
func (e *AuthRequiredError) State() a2a.TaskState { return a2a.StateAuthRequired }

// FromTask returns the terminal error for t's state: a *FailedError,
// *RejectedError, *CanceledError or *AuthRequiredError. It returns nil for
// nil, completed, and every state that is not an end (submitted, working,
// input-required, unknown). The error's structured failure is read with
// [ReadStructured].
func FromTask(t *a2a.Task) error { return FromTaskWith(t, nil) }

// FromTaskWith is FromTask, reading the error's structured failure with r
// (ReadStructured when r is nil). It calls r at most once, before it
// returns.
func FromTaskWith(t *a2a.Task, r Reader) error {
	if t == nil {
		return nil
	}
	switch t.Status.State {
	case a2a.StateFailed:
		return &FailedError{Task: t, read: read(t, r)}
	case a2a.StateRejected:
		return &RejectedError{Task: t, read: read(t, r)}
	case a2a.StateCanceled:
		return &CanceledError{Task: t, read: read(t, r)}
	case a2a.StateAuthRequired:
		return &AuthRequiredError{Task: t, read: read(t, r)}
	}
	return nil
}

// describe writes an error's text: the task, its state, and the reason:
// the structured failure's code and message when the task carries one,
// else the status message's text.
func describe(t *a2a.Task, state a2a.TaskState, r reading) string {
	id := ""
	var reason string
	if t != nil {
		id = t.ID
		reason = t.Status.Message.Text()
		if f, ok := r.of(t); ok {
			reason = f.Message
			if f.Code != "" && reason != "" {
				reason = f.Code + ": " + reason
			} else if f.Code != "" {
				reason = f.Code
			}
		}
	}
	s := "terminal: task " + id + " ended in state " + string(state)
	if reason != "" {
		s += ": " + reason
	}
	return s
}
