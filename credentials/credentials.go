package credentials

import (
	"context"
	"net/http"

	"github.com/a2astream/a2astream/a2a"
)

// Request is an agent's request for credentials: its task entered
// auth-required, or it refused a call of the stream with 401 Unauthorized
// (the credentials expired in the middle of the task).
type Request struct {
	// Task is the task as assembled so far: in auth-required, or in the
	// state it was in when the agent refused the call. It is nil when the
	// refused call belongs to no task: Resolve's fetch of the extended
	// card (stream.WithExtendedCard).
	Task *a2a.Task
	// Message is the agent's status message that says what it needs (a
	// sign-in link, a scope). It may be nil when the agent sent none, and is
	// nil for a refused call.
	Message *a2a.Message
	// Cause is the refusal of a call (an error matching
	// transport.ErrNotAuthenticated: a *transport.HTTPError with status 401,
	// or the error of a binding of another module), or nil when the task
	// entered auth-required.
	Cause error
	// Attempt counts the calls of the hook on this stream, from 1: a
	// second call means the agent asked again after the first credentials
	// (they may have been refused, or have expired).
	Attempt int
}

// Text returns the text of the agent's message, or "" when there is none.
func (r *Request) Text() string { return r.Message.Text() }

// Hook gives the credentials an agent asks for: headers such as a fresh
// "Authorization: Bearer …". The streams of a Client call it from their
// own goroutines, so it must be safe for concurrent use.
type Hook interface {
	Credentials(ctx context.Context, req *Request) (http.Header, error)
}

// Func adapts a function to a [Hook].
type Func func(ctx context.Context, req *Request) (http.Header, error)

// Credentials calls f.
func (f Func) Credentials(ctx context.Context, req *Request) (http.Header, error) {
	return f(ctx, req)
}
