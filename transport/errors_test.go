package transport_test

import (
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/transport"
)

func TestHTTPErrorReadsItsStatusRequestAndCause(t *testing.T) {
	rpc := &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "no such task"}
	for _, tc := range []struct {
		name string
		err  *transport.HTTPError
		text string
	}{
		{"status code only", &transport.HTTPError{StatusCode: 502}, "stream: HTTP 502 Bad Gateway"},
		{"status line", &transport.HTTPError{StatusCode: 503, Status: "503 Busy "}, "stream: HTTP 503 Busy"},
		{"request", &transport.HTTPError{StatusCode: 404, Method: "POST", URL: "https://agent.example/a2a", Call: "tasks/get"},
			"stream: HTTP 404 Not Found from POST https://agent.example/a2a (tasks/get)"},
		{"A2A error of the body", &transport.HTTPError{StatusCode: 404, Err: rpc}, "stream: HTTP 404 Not Found: " + rpc.Error()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.EqualError(t, tc.err, tc.text)
		})
	}
	var got *a2a.RPCError
	require.ErrorAs(t, &transport.HTTPError{StatusCode: 404, Err: rpc}, &got, "errors.As finds the body's A2A error")
	require.Same(t, rpc, got)
}

func TestOnlyA401IsNotAuthenticated(t *testing.T) {
	for code, want := range map[int]bool{401: true, 403: false, 407: false, 500: false} {
		require.Equal(t, want, errors.Is(&transport.HTTPError{StatusCode: code}, transport.ErrNotAuthenticated), "HTTP %d", code)
	}
}

func TestRetryAfterReadsSecondsAndIsBounded(t *testing.T) {
	e := &transport.HTTPError{StatusCode: 429, Header: http.Header{"Retry-After": {"7"}}}
	d, ok := e.RetryAfter()
	require.True(t, ok)
	require.Equal(t, 7*time.Second, d)

	e.Header.Set("Retry-After", "999999999")
	d, ok = e.RetryAfter()
	require.True(t, ok)
	require.Equal(t, a2a.MaxRetryHint, d, "a huge hint is cut to the longest")

	_, ok = (&transport.HTTPError{StatusCode: 503}).RetryAfter()
	require.False(t, ok, "no header, no hint")
}

func TestProtocolErrorReadsItsReasonAndCause(t *testing.T) {
	require.EqualError(t, &transport.ProtocolError{Reason: "event for another task"}, "stream: protocol error: event for another task")
	err := &transport.ProtocolError{Reason: "malformed JSON", Err: io.ErrUnexpectedEOF}
	require.EqualError(t, err, "stream: protocol error: malformed JSON: unexpected EOF")
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

func TestMarksKeepTheirErrorAndANilStaysNil(t *testing.T) {
	base := io.ErrUnexpectedEOF
	for name, mark := range map[string]func(error) error{
		"NotSent":                  transport.NotSent,
		"Responded":                transport.Responded,
		"CouldNotConnect":          func(err error) error { return transport.CouldNotConnect("agent.example:443", err) },
		"CouldNotConnect, no addr": func(err error) error { return transport.CouldNotConnect("", err) },
	} {
		require.NoError(t, mark(nil), "%s(nil)", name)
		err := mark(base)
		require.ErrorIs(t, err, base, name)
		require.Equal(t, base.Error(), err.Error(), "%s adds nothing to the text", name)
	}
}
