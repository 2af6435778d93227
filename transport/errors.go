package transport

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/a2astream/a2astream/a2a"
)

// HTTPError reports a response with a non-2xx status. Body holds at most the
// first 4 KiB of the response body; it is not part of the error text. When
// the body carries an A2A error (a JSON-RPC error, whatever the status, or an
// HTTP+JSON error body), Err is that error as an *a2a.RPCError, so that
// errors.As finds it through the HTTPError and the same rules apply as to an
// RPC error sent with HTTP 200.
//
// Method and URL name the request that got the response (the last hop of a
// redirect), the URL redacted as in every error text (no user name or
// password, no query value); Call is its JSON-RPC method ("" over HTTP+JSON, whose URL
// names the call). An HTTPError built without them reads without them.
type HTTPError struct {
	StatusCode int
	Status     string
	Header     http.Header
	Body       []byte
	Err        error
	Method     string
	URL        string
	Call       string
}

// Error reads like "stream: HTTP 502 Bad Gateway from POST
// https://agent.example/a2a (message/stream)", followed by the A2A error the
// body carried, if any.
func (e *HTTPError) Error() string {
	s := e.Status
	if s == "" {
		s = strconv.Itoa(e.StatusCode) + " " + http.StatusText(e.StatusCode)
	}
	s = "stream: HTTP " + strings.TrimSpace(s)
	if e.URL != "" {
		s += " from " + strings.TrimSpace(e.Method+" "+e.URL)
	}
	if e.Call != "" {
		s += " (" + e.Call + ")"
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns Err.
func (e *HTTPError) Unwrap() error { return e.Err }

// RetryAfter returns the wait the server asked for in a Retry-After header,
// in seconds or as an HTTP date, if any, read by [a2a.ParseRetryAfter]: at
// most [a2a.MaxRetryHint], however large the header's number.
func (e *HTTPError) RetryAfter() (time.Duration, bool) {
	return a2a.ParseRetryAfter(e.Header.Get("Retry-After"), time.Now())
}

// ProtocolError reports a response the runtime cannot use: malformed JSON,
// an oversized event, an unexpected content type, an event for another task,
// or a JSON-RPC response with the wrong ID. It is a server bug, not a network
// fault, so it is never retried. Task is the task as last known, if any.
// Event is the event at fault when one decoded but breaks the rules (an
// event for another task or context), else nil: a server may report the
// agent's failure that way (@a2a-js/sdk 0.3.14 sends a failed status under
// a new task ID when its executor throws), and the reason stays readable
// there and, up to its first 64 bytes, in the error text.
type ProtocolError struct {
	Reason string
	Err    error
	Task   *a2a.Task
	Event  a2a.Event
}

// Error reads like "stream: protocol error: malformed JSON: …".
func (e *ProtocolError) Error() string {
	s := "stream: protocol error: " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns Err.
func (e *ProtocolError) Unwrap() error { return e.Err }

// ErrIdleTimeout is the cause of a drop when no byte arrived for longer than
// the idle timeout (stream.WithIdleTimeout, or Call.IdleTimeout for a
// binding of another module).
var ErrIdleTimeout = errors.New("stream: no data within the idle timeout")

// ErrInvalidMessage reports a message that cannot be sent: nil, without
// parts, or one that does not encode (invalid JSON in a data part, a NaN in
// metadata). It is the caller's error, found before anything is sent, so it
// is never retried. A stream's Send ends with it, and a human-input hook's
// reply that cannot be sent ends the stream in a *hitl.Error wrapping it.
var ErrInvalidMessage = errors.New("stream: invalid message")

// ErrConnectTimeout is the cause of a failed call whose connection (the
// dial, a proxy's CONNECT, the TLS handshake) was not made within the
// connect timeout (stream.WithConnectTimeout). Nothing was sent, so a send is made again within the
// reconnect budget.
var ErrConnectTimeout = errors.New("stream: no connection within the connect timeout")

// Is reports whether target is ErrNotAuthenticated and the status is 401
// Unauthorized, or target is ErrPermissionDenied and the status is 403
// Forbidden.
func (e *HTTPError) Is(target error) bool {
	return target == ErrNotAuthenticated && e.StatusCode == http.StatusUnauthorized ||
		target == ErrPermissionDenied && e.StatusCode == http.StatusForbidden
}

// ErrEndedEarly is the cause of a drop when a connection closed cleanly
// while the stream still follows its task: the task has not ended, nor
// halted on a question the stream has yet to put to its hook (an
// input-required it already answered, or an auth-required it already gave
// credentials for, waits for the agent to move on).
var ErrEndedEarly = errors.New("stream: connection closed before the task settled")
