package httpx

import (
	"errors"
	"net/url"

	"github.com/a2astream/a2astream/reconnect"
)

// ConnectError is a request that could not connect to the agent (a refused
// dial, a failed name resolution): the agent is down or the URL names no
// host that answers. It matches reconnect.ErrCouldNotConnect, as the error
// of a stream that could not connect does.
type ConnectError struct {
	Pkg string // the package the error comes from, which starts its text
	URL string // the URL asked, redacted
	Err error  // the transport's error, redacted
}

// Error reads like "agentcard: could not connect to URL: dial tcp …:
// connect: connection refused": the URL once, without the request
// net/http's *url.Error names again ("Get "URL": ").
func (e *ConnectError) Error() string {
	cause := e.Err
	var ue *url.Error
	if errors.As(cause, &ue) {
		cause = ue.Err
	}
	return e.Pkg + ": could not connect to " + e.URL + ": " + cause.Error()
}

// Unwrap returns reconnect.ErrCouldNotConnect and Err.
func (e *ConnectError) Unwrap() []error { return []error{reconnect.ErrCouldNotConnect, e.Err} }
