package stream

import (
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/httpretry"
	"github.com/a2astream/a2astream/transport"
)

// maxErrorBody is how much of a non-2xx response body a transport.HTTPError keeps.
const maxErrorBody = 4 << 10

// bodyHint reads the retry hint of an error body that names no A2A error
// (a google.rpc.Status with a google.rpc.RetryInfo, a 0.3 "retryable"),
// and the wait asked for: the longer of the Retry-After header and the
// body's delay. An A2A error in the body carries its own hint (Err).
func bodyHint(e *transport.HTTPError) (retryable bool, after time.Duration) {
	h, _ := e.RetryAfter()
	return httpretry.BodyHint(e.Body, h)
}

// hasBodyHint reports an error body, naming no A2A error, that still says
// the call may be retried.
func hasBodyHint(e *transport.HTTPError) bool {
	ok, _ := bodyHint(e)
	return ok
}

// StalledError ends a stream whose task showed nothing new for longer than
// the stall limit (WithStallTimeout): a polled task, or, with an idle
// timeout, a streamed one whose stream brought no event with anything new
// (silent, or sending keep-alive comments only) while the task ran. Task
// is the task as last fetched or streamed.
type StalledError struct {
	Task  *a2a.Task
	After time.Duration
}

// Error reads like "stream: task t-1 made no progress for 5m0s".
func (e *StalledError) Error() string {
	id := ""
	if e.Task != nil {
		id = e.Task.ID + " "
	}
	return "stream: task " + id + "made no progress for " + e.After.String()
}
