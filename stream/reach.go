package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"time"

	"github.com/a2astream/a2astream/internal/httpx"
	"github.com/a2astream/a2astream/transport"
)

// Whether a request left: net/http's Transport reports, through
// net/http/httptrace, when it starts to get a connection for a request
// (GetConn) and when it has one (GotConn), after the dial, the proxy's
// CONNECT and the TLS handshake. A request that failed between the two
// never had a byte of it written: the agent cannot have seen it, and it may
// be sent again. A RoundTripper that reports neither (a test double, a
// custom transport) proves nothing that way; its dial errors still do.

// defaultConnectTimeout is the connect timeout unless WithConnectTimeout
// says otherwise.
const defaultConnectTimeout = 10 * time.Second

// errConnect is the cancel cause of a call whose connect timer fired.
var errConnect = errors.New("connect timeout")

// reach follows one request (with the redirects the http.Client follows
// for it) through the Transport's connection steps, runs the connect timer
// between them, and notes whether any hop got a response.
type reach struct {
	mu        sync.Mutex
	asked     bool // GetConn: the Transport began to get a connection
	got       bool // GotConn: it had one, and the request went out on it
	responded bool // a hop got a response: the agent has seen the request
	timer     *time.Timer
	d         time.Duration
	cancel    context.CancelCauseFunc
}

// reachKey is the context key under which a request's *reach travels to
// the RoundTripper that records responses (responseRecorder).
type reachKey struct{}

// trace returns ctx with r's hooks added to any trace ctx carries, and r
// itself for responseRecorder. Each hop's connection gets its own connect
// timer.
func (r *reach) trace(ctx context.Context) context.Context {
	ctx = context.WithValue(ctx, reachKey{}, r)
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GetConn: func(string) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.asked = true
			r.stop()
			if r.d > 0 {
				r.timer = time.AfterFunc(r.d, func() { r.cancel(errConnect) })
			}
		},
		GotConn: func(httptrace.GotConnInfo) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.got = true
			r.stop()
		},
	})
}

// stop stops the connect timer; r.mu is held.
func (r *reach) stop() {
	if r.timer != nil {
		r.timer.Stop()
	}
}

// gotResponse notes that a hop of the request got a response.
func (r *reach) gotResponse() {
	r.mu.Lock()
	r.responded = true
	r.mu.Unlock()
}

// hadResponse reports whether a hop of the request got a response.
func (r *reach) hadResponse() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.responded
}

// done stops the connect timer and reports whether the request provably
// never left, given the error the exchange failed with: no hop
// got a response, and the Transport failed before it had a connection (or the
// breaker refused the request, or a transport that reports no connection
// steps says its dial failed).
func (r *reach) done(err error) (unsent bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stop()
	switch {
	case err == nil, r.responded:
		return false
	case errors.Is(err, transport.ErrCircuitOpen):
		return true
	case r.asked:
		return !r.got
	}
	return httpx.DialFailed(err)
}

// guardBody keeps net/http from sending req's body a second time before
// any response. net/http's Transport may repeat a request on its own (HTTP/2
// does after some stream resets, golang/go#47635), rewinding the body with
// GetBody; a redirect rewinds it too, after a response. GetBody now gives
// the body again only once a hop got a response (a 307 or 308 redirect), or
// while not a byte of it was taken (nothing of the message was sent).
func (r *reach) guardBody(req *http.Request) {
	if req.GetBody == nil || req.Body == nil || req.Body == http.NoBody {
		return
	}
	body := &countingBody{ReadCloser: req.Body}
	get := req.GetBody
	req.Body = body
	req.GetBody = func() (io.ReadCloser, error) {
		if r.hadResponse() || body.n.Load() == 0 {
			return get()
		}
		return nil, errBodySent
	}
}

// errBodySent is what GetBody answers a Transport that would send a body
// again before any response.
var errBodySent = errors.New("stream: the request's body was sent without an answer; it is not sent again")

// countingBody counts the bytes the Transport took from a request's body.
type countingBody struct {
	io.ReadCloser
	n atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// responseRecorder is the RoundTripper that notes, for the request's reach,
// each hop that got a response. It wraps the Client's transport, breaker
// included.
type responseRecorder struct{ next http.RoundTripper }

func (a responseRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := a.next.RoundTrip(req)
	if resp != nil {
		if r, ok := req.Context().Value(reachKey{}).(*reach); ok {
			r.gotResponse()
		}
	}
	return resp, err
}

// recordResponses returns hc with its transport wrapped in a responseRecorder.
// hc is the Client's own copy.
func recordResponses(hc *http.Client) *http.Client {
	return wrapTransport(hc, func(next http.RoundTripper) http.RoundTripper { return responseRecorder{next: next} })
}

// wrapTransport returns a copy of hc whose transport is wrap of hc's
// (net/http's default when hc has none). hc is not modified.
func wrapTransport(hc *http.Client, wrap func(next http.RoundTripper) http.RoundTripper) *http.Client {
	c := *hc
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = wrap(next)
	return &c
}

// connectTimeoutErr is err as the connect timer's cut: transport.ErrConnectTimeout
// wrapping the transport's error.
func connectTimeoutErr(d time.Duration, err error) error {
	return fmt.Errorf("%w (%s): %w", transport.ErrConnectTimeout, d, err)
}
