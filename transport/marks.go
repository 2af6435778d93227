package transport

import (
	"errors"

	"github.com/a2astream/a2astream/internal/callmark"
)

// ErrNotAuthenticated is the agent's refusal of a call for want of valid
// credentials. A [Transport] of another module returns an error wrapping it
// (for gRPC's UNAUTHENTICATED, say); an [*HTTPError] of status 401, which
// stream's HTTP bindings return, matches it too. Once the task is known,
// a call other than a send that fails with it asks the stream.WithCredentials
// hook, and is made again with the hook's headers; otherwise it ends the
// stream, never sent again as a drop would be.
var ErrNotAuthenticated = errors.New("stream: the agent refused the call: not authenticated")

// ErrPermissionDenied is the agent's refusal of a call from a caller it
// knows but does not allow: HTTP's 403 Forbidden (an [*HTTPError] of status
// 403 matches it) or gRPC's PERMISSION_DENIED (a Transport of another module
// returns an error that matches it). It ends the stream: the same call made
// again gets the same answer, and the stream.WithCredentials hook is not
// asked, since the agent knew who called.
var ErrPermissionDenied = errors.New("stream: the agent refused the call: permission denied")

// ErrClosed is the cause of a call of a Transport that was closed (a
// Client's Close closes the Transport it opened): the call was not made. A
// stream ends with it at once, made again by no reconnect, and GetTask and
// Cancel return it.
var ErrClosed = errors.New("stream: the transport is closed")

// ErrMisconfigured is matched by the error of a call that a Transport
// could not make because of how its caller set it up: an option that fails
// only when a call is made (say, a nil inside one of a gRPC binding's dial
// options). Nothing was sent, and the same call made again would fail the
// same way, so a stream ends with the error at once, made again by no
// reconnect, as with ErrInvalidMessage. A Transport of another module
// returns an error that matches it (a2agrpc's *OptionError does).
var ErrMisconfigured = errors.New("stream: the transport cannot make the call as it is configured")

// NotSent marks err as the error of a call whose request never reached the
// agent, so that the Client may make it again (see [Transport]). It returns
// nil for a nil err. For a call that could not connect to the agent, use
// [CouldNotConnect].
func NotSent(err error) error {
	if err == nil {
		return nil
	}
	return &callmark.Unsent{Err: err}
}

// CouldNotConnect marks err as the error of a call that could not connect
// to the agent at addr (a refused or timed-out dial, a name that does not
// resolve), so its request never left: it is [NotSent] too, and a send is
// made again within the reconnect budget. A stream none of whose calls
// could connect ends in a *reconnect.Error that matches
// reconnect.ErrCouldNotConnect, with addr in its Unreachable field, as a
// stream of stream's HTTP bindings names its endpoint there.
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
	return &callmark.Unsent{Err: &callmark.Connect{Addr: addr, Err: err}}
}

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
	return &callmark.Responded{Err: err}
}
