package a2atest

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/a2astream/a2astream/a2a"
)

// retryHint is the hint a RetryableError fault adds to its error.
type retryHint struct {
	on    bool
	after time.Duration
}

// data returns the error data that carries the hint in version v's shape,
// for an error of the given code: A2A 0.3's {"retryable":true,
// "retryAfter":seconds} object, or 1.0's details, the code's ErrorInfo
// (reason INTERNAL_ERROR for a code without an A2A reason) and a
// google.rpc.RetryInfo whose retryDelay is the delay in seconds, "1.5s".
func (h retryHint) data(v a2a.Version, code int) json.RawMessage {
	secs := strconv.FormatFloat(h.after.Seconds(), 'f', -1, 64)
	if v == a2a.V03 {
		return json.RawMessage(`{"retryable":true,"retryAfter":` + secs + `}`)
	}
	r := reason(code)
	if r == "" {
		r = "INTERNAL_ERROR"
	}
	type retryInfo struct {
		Type       string `json:"@type"`
		RetryDelay string `json:"retryDelay"`
	}
	b, _ := json.Marshal([]any{
		errorInfo{Type: "type.googleapis.com/google.rpc.ErrorInfo", Reason: r, Domain: "a2a-protocol.org"},
		retryInfo{Type: "type.googleapis.com/google.rpc.RetryInfo", RetryDelay: secs + "s"},
	})
	return b
}

// refuseKey is the context key under which this package's transport hands
// the handler a way to refuse the connection.
type refuseKey struct{}

// refuser is what a handler served by this package's transport calls to
// make the RoundTrip fail as a refused dial.
type refuser struct{ refused bool }

// refuseConn makes the exchange's RoundTrip fail as a refused dial, when the
// agent is served by this package's transport, and reports whether it
// could.
func refuseConn(ctx context.Context) bool {
	r, ok := ctx.Value(refuseKey{}).(*refuser)
	if ok {
		r.refused = true
	}
	return ok
}

// dialRefused is the error of a RoundTrip whose connection a [Refuse] fault
// refused: what net.Dialer returns for a closed port.
func dialRefused(req string) error {
	return &net.OpError{Op: "dial", Net: "tcp", Addr: refusedAddr(req), Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
}

// refusedAddr is the address a refused dial names: the request's host.
type refusedAddr string

func (a refusedAddr) Network() string { return "tcp" }
func (a refusedAddr) String() string  { return string(a) }
