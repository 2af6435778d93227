package stream

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http/httptrace"
	"sync"
	"time"
)

// Whether a request left: net/http's Transport reports, through
// net/http/httptrace, when it starts to get a connection for a request
// (GetConn) and when it has one (GotConn), after the dial, the proxy's
// CONNECT and the TLS handshake. A request that failed between the two
// never had a byte of it written: the agent cannot have seen it, and it may
// be sent again. A RoundTripper that reports neither (a test double, a
// custom transport) proves nothing that way; its dial errors still do.

// DefaultConnectTimeout is the connect timeout unless WithConnectTimeout
// says otherwise.
const DefaultConnectTimeout = 10 * time.Second

// ErrConnectTimeout is the cause of a failed call whose connection (the
// dial, a proxy's CONNECT, the TLS handshake) was not made within the
// connect timeout. Nothing was sent, so a send is made again within the
// reconnect budget.
var ErrConnectTimeout = errors.New("stream: no connection within the connect timeout")

// errConnect is the cancel cause of a call whose connect timer fired.
var errConnect = errors.New("connect timeout")

// reach follows one request through the Transport's connection steps, and
// runs the connect timer between them.
type reach struct {
	mu     sync.Mutex
	asked  bool // GetConn: the Transport began to get a connection
	got    bool // GotConn: it had one, and the request went out on it
	timer  *time.Timer
	d      time.Duration
	cancel context.CancelCauseFunc
}

// trace returns ctx with r's hooks added to any trace ctx carries.
func (r *reach) trace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GetConn: func(string) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.asked = true
			if r.d > 0 && r.timer == nil && !r.got {
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

// done stops the connect timer and reports whether the request provably
// never left, given the error the exchange failed with.
func (r *reach) done(err error) (unsent bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stop()
	if err == nil {
		return false
	}
	if r.asked {
		return !r.got
	}
	return dialFailed(err)
}

// dialFailed reports an error of a transport that says it could not
// connect: a failed dial or name resolution.
func dialFailed(err error) bool {
	var (
		opErr  *net.OpError
		dnsErr *net.DNSError
	)
	return errors.As(err, &opErr) && opErr.Op == "dial" || errors.As(err, &dnsErr)
}

// unsentError is a call's error when its request never left: it may be
// sent again, whatever it carried. Only classify and prompt.heard look for
// it.
type unsentError struct{ err error }

func (e *unsentError) Error() string { return e.err.Error() }
func (e *unsentError) Unwrap() error { return e.err }

// isUnsent reports an error whose request never left.
func isUnsent(err error) bool {
	var u *unsentError
	return errors.As(err, &u)
}

// connectTimeoutErr is err as the connect timer's cut: ErrConnectTimeout
// wrapping the transport's error.
func connectTimeoutErr(d time.Duration, err error) error {
	return fmt.Errorf("%w (%s): %w", ErrConnectTimeout, d, err)
}
