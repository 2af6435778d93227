package stream

import (
	"context"
	"fmt"
	"net/http"

	"github.com/a2astream/a2astream/internal/httpretry"
	"github.com/a2astream/a2astream/transport"
)

// WithBreaker makes the Client ask b before each HTTP request it sends to
// the agent (every send, resubscribe, get-task and cancel, and each
// redirect followed) and report the request's result to it, as transport.Breaker
// says. A request b refuses fails at once with an error wrapping
// transport.ErrCircuitOpen. Give the same b to every Client of one agent. Resolve's
// fetch of the agent card does not go through b. Nil, the default, means
// no breaker. It applies to NewClient, NewRESTClient and Resolve only: it
// is Client-wide, the card's request does not go through it, and a Transport
// of another module (NewClientFor) makes its own requests.
func WithBreaker(b transport.Breaker) Option {
	return option{"WithBreaker", overHTTP, func(cfg *config) { cfg.breaker = b }}
}

// withBreaker returns a copy of hc whose requests go through b, or hc
// itself when b is nil. hc is not modified.
func withBreaker(hc *http.Client, b transport.Breaker) *http.Client {
	if b == nil {
		return hc
	}
	return wrapTransport(hc, func(next http.RoundTripper) http.RoundTripper { return breakerTransport{b: b, next: next} })
}

// breakerTransport asks its transport.Breaker before each round trip and reports the
// result when the response's status line arrives.
type breakerTransport struct {
	b    transport.Breaker
	next http.RoundTripper
}

func (t breakerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	done, err := t.b.Allow()
	if err != nil {
		if req.Body != nil {
			req.Body.Close() // a RoundTripper closes the body, even on error
		}
		return nil, fmt.Errorf("%w: %w", transport.ErrCircuitOpen, err)
	}
	resp, err := t.next.RoundTrip(req)
	if done != nil {
		done(breakerResult(req.Context(), resp, err))
	}
	return resp, err
}

// breakerResult is the result a transport.Breaker is told of one round trip, as
// transport.Breaker says.
func breakerResult(ctx context.Context, resp *http.Response, err error) error {
	switch {
	case err == nil && httpretry.Status(resp.StatusCode):
		return &transport.HTTPError{StatusCode: resp.StatusCode, Status: resp.Status, Header: resp.Header.Clone()}
	case err == nil:
		return nil
	case context.Cause(ctx) == errIdle:
		return transport.ErrIdleTimeout
	case context.Cause(ctx) == errConnect:
		return transport.ErrConnectTimeout
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return err
}
