// Package httpretry says whether an HTTP response that failed may be tried
// again, and after how long, as package stream decides it for its own
// calls and package chain reports it to an agent's caller: the statuses
// that count as a failed attempt, and the retry hint of an error body that
// names no A2A error. stream and chain share this one copy, so that a
// chain's link calls retryable what the stream retries.
package httpretry

import (
	"net/http"
	"time"

	"github.com/a2astream/a2astream/a2a"
)

// Status reports the HTTP statuses that count as a failed attempt: 408,
// 429 and 5xx but 501, with which a server says it does not implement the
// call at all.
func Status(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500 && code != http.StatusNotImplemented
}

// BodyHint reads the retry hint of an error body that names no A2A error
// (a google.rpc.Status with a google.rpc.RetryInfo, a 0.3 "retryable":
// [a2a.ParseHTTPRetry]), and the wait asked for: the longer of the body's
// delay and header, the delay of the response's Retry-After header (0
// when it has none). An A2A error in the body carries its own hint.
func BodyHint(body []byte, header time.Duration) (retryable bool, after time.Duration) {
	retryable, after = a2a.ParseHTTPRetry(body)
	return retryable, max(after, header)
}
