package stream

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/a2astream/a2astream/internal/httpretry"
)

// Breaker is a circuit breaker that a Client asks before each request to its
// agent. Allow either refuses the request with an error, or lets it through
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
//   - ErrIdleTimeout when no response arrived within WithIdleTimeout;
//   - ErrConnectTimeout when no connection was made within
//     WithConnectTimeout (a black-holed agent);
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
// ErrOpenState or ErrTooManyRequests). Send's stream ends with it at once,
// and GetTask and Cancel return it; in the middle of a stream, a refused
// resubscribe or get-task is a failed reconnect attempt like any other.
var ErrCircuitOpen = errors.New("stream: the agent's circuit is open")

// WithBreaker makes the Client ask b before each HTTP request it sends to
// the agent (every send, resubscribe, get-task and cancel, and each
// redirect followed) and report the request's result to it, as Breaker
// says. A request b refuses fails at once with an error wrapping
// ErrCircuitOpen. Give the same b to every Client of one agent. Resolve's
// fetch of the agent card does not go through b. Nil, the default, means
// no breaker. It applies to NewClient, NewRESTClient and Resolve only: it
// is Client-wide, the card's request does not go through it, and a Transport
// of another module (NewClientFor) makes its own requests.
func WithBreaker(b Breaker) Option {
	return option{"WithBreaker", overHTTP, func(cfg *config) { cfg.breaker = b }}
}

// withBreaker returns a copy of hc whose requests go through b, or hc
// itself when b is nil. hc is not modified.
func withBreaker(hc *http.Client, b Breaker) *http.Client {
	if b == nil {
		return hc
	}
	return wrapTransport(hc, func(next http.RoundTripper) http.RoundTripper { return breakerTransport{b: b, next: next} })
}

// breakerTransport asks its Breaker before each round trip and reports the
// result when the response's status line arrives.
type breakerTransport struct {
	b    Breaker
	next http.RoundTripper
}

func (t breakerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	done, err := t.b.Allow()
	if err != nil {
		if req.Body != nil {
			req.Body.Close() // a RoundTripper closes the body, even on error
		}
		return nil, fmt.Errorf("%w: %w", ErrCircuitOpen, err)
	}
	resp, err := t.next.RoundTrip(req)
	if done != nil {
		done(breakerResult(req.Context(), resp, err))
	}
	return resp, err
}

// breakerResult is the result a Breaker is told of one round trip, as
// Breaker says.
func breakerResult(ctx context.Context, resp *http.Response, err error) error {
	switch {
	case err == nil && httpretry.Status(resp.StatusCode):
		return &HTTPError{StatusCode: resp.StatusCode, Status: resp.Status, Header: resp.Header.Clone()}
	case err == nil:
		return nil
	case context.Cause(ctx) == errIdle:
		return ErrIdleTimeout
	case context.Cause(ctx) == errConnect:
		return ErrConnectTimeout
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return err
}
