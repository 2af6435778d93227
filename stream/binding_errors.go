package stream

import (
	"github.com/a2astream/a2astream/internal/callmark"
	"github.com/a2astream/a2astream/internal/httpx"
)

// What a Transport tells the driver through its errors (package transport's
// transport.NotSent, transport.CouldNotConnect and transport.Responded, as internal/callmark's marks, which
// this package's HTTP bindings put on their own errors in reach.go and
// call.go) is read with callmark's IsUnsent, IsResponded and Addr.

// unreachable names the agent a stream could not connect to, given the
// cause of its last attempt: the address a Transport of another module gave
// transport.CouldNotConnect, else the Client's endpoint, redacted ("" for a Client
// of NewClientFor: it has none).
func unreachable(endpoint string, cause error) string {
	if addr, ok := callmark.Addr(cause); ok {
		return addr
	}
	return httpx.RedactRawURL(endpoint)
}
