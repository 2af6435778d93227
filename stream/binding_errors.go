package stream

import (
	"errors"
	"net/http"

	"github.com/a2astream/a2astream/internal/httpx"
)

// What a Transport of another module tells the driver through its errors,
// as this package's HTTP bindings tell it from their own plumbing (reach.go,
// call.go): that a call never left (NotSent), that it could not connect
// (CouldNotConnect), that the agent answered before the call failed
// (Responded), and the agent's "not authenticated" (ErrNotAuthenticated).

// ErrNotAuthenticated is the agent's refusal of a call for want of valid
// credentials. A [Transport] of another module returns an error wrapping it
// (for gRPC's UNAUTHENTICATED, say); an [*HTTPError] of status 401, which
// this package's bindings return, matches it too. Once the task is known,
// a call other than a send that fails with it asks the WithCredentials
// hook, and is made again with the hook's headers; otherwise it ends the
// stream, never sent again as a drop would be.
var ErrNotAuthenticated = errors.New("stream: the agent refused the call: not authenticated")

// Is reports whether target is ErrNotAuthenticated and the status is 401
// Unauthorized.
func (e *HTTPError) Is(target error) bool {
	return target == ErrNotAuthenticated && e.StatusCode == http.StatusUnauthorized
}

// NotSent marks err as the error of a call whose request never reached the
// agent, so that the Client may make it again (see [Transport]). It returns
// nil for a nil err. For a call that could not connect to the agent, use
// [CouldNotConnect].
func NotSent(err error) error {
	if err == nil {
		return nil
	}
	return &unsentError{err}
}

// CouldNotConnect marks err as the error of a call that could not connect
// to the agent at addr (a refused or timed-out dial, a name that does not
// resolve), so its request never left: it is [NotSent] too, and a send is
// made again within the reconnect budget. A stream none of whose calls
// could connect ends in a *reconnect.Error that matches
// reconnect.ErrCouldNotConnect, with addr in its Unreachable field, as a
// stream of this package's bindings names its endpoint there.
//
// addr names the agent for a person: a host and port, or a gRPC target.
// It is shown as given, so it must hold no secret. An empty addr makes it
// NotSent(err) only. It returns nil for a nil err, and err's own text; the
// error matches err with errors.Is and errors.As, and does not match
// reconnect.ErrCouldNotConnect itself: only the stream's ending says that
// no call could connect.
func CouldNotConnect(addr string, err error) error {
	if err == nil {
		return nil
	}
	if addr == "" {
		return NotSent(err)
	}
	return &unsentError{&connectError{addr: addr, err: err}}
}

// connectError is a call's error that names the agent it could not
// connect to.
type connectError struct {
	addr string
	err  error
}

func (e *connectError) Error() string { return e.err.Error() }
func (e *connectError) Unwrap() error { return e.err }

// Responded marks err as the error of a call the agent answered before it
// failed (gRPC's response headers came, then the stream broke): its
// request reached the agent, which may have acted on it. A reply to a
// prompt whose send failed so is never sent again, whatever a later
// subscribe shows, where a send that failed with no word of an answer is
// sent again when the task still shows the prompt (see [Transport]). A
// response proves the request left: Responded wins over NotSent. It
// returns nil for a nil err, and err's own text; the error matches err
// with errors.Is and errors.As.
func Responded(err error) error {
	if err == nil {
		return nil
	}
	return &respondedError{err}
}

// isResponded reports an error marked as coming after a response, at any
// depth.
func isResponded(err error) bool {
	var r *respondedError
	return errors.As(err, &r)
}

// unreachable names the agent a stream could not connect to, given the
// cause of its last attempt: the address a Transport of another module gave
// CouldNotConnect, else the Client's endpoint, redacted ("" for a Client
// of NewClientFor: it has none).
func unreachable(endpoint string, cause error) string {
	var ce *connectError
	if errors.As(cause, &ce) {
		return ce.addr
	}
	return httpx.RedactRawURL(endpoint)
}
