package transport

import "errors"

// Breaker is a circuit breaker that a stream.Client asks before each
// request to its agent (stream.WithBreaker). Allow either refuses the request with an error, or lets it through
// and returns done, which the Client calls exactly once with the request's
// result. *gobreaker.TwoStepCircuitBreaker of github.com/sony/gobreaker/v2
// (v2.4.0 and later) satisfies it as it is.
//
// The Client calls done when the response's status line arrives, before
// reading its body (the body of a stream may last for hours), or when the
// request fails without one. It reports:
//
//   - nil for a response the agent sent, whatever its status, except
//     408, 429 and 5xx, the statuses a Client retries;
//   - an *HTTPError (StatusCode, Status and Header; no Body, which is not
//     read yet) for 408, 429 and 5xx;
//   - the transport's error when no response arrived: refused or reset
//     connections, DNS and TLS failures;
//   - ErrIdleTimeout when no response arrived within the idle timeout;
//   - ErrConnectTimeout when no connection was made within
//     the connect timeout (a black-holed agent);
//   - context.Canceled or context.DeadlineExceeded when the caller's context
//     ended the request before a response arrived. That says nothing about
//     the agent (fanout.Quorum cancels the calls it no longer needs): tell the
//     breaker to leave it out of its counts (gobreaker's
//     Settings.IsExcluded), or it counts as a failure.
//
// A Breaker must be safe for concurrent use: the Clients of one agent share
// one, and each asks it from the goroutines of all its streams and calls.
type Breaker interface {
	Allow() (done func(err error), err error)
}

// ErrCircuitOpen is wrapped by the error of a request that the Client's
// Breaker refused: nothing was sent to the agent. The error wraps the
// Breaker's own error too, so errors.Is also matches that (gobreaker's
// ErrOpenState or ErrTooManyRequests). A stream's Send ends with it at once,
// and GetTask and Cancel return it; in the middle of a stream, a refused
// resubscribe or get-task is a failed reconnect attempt like any other.
var ErrCircuitOpen = errors.New("stream: the agent's circuit is open")
