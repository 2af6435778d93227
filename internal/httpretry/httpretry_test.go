package httpretry_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/internal/httpretry"
)

// The statuses that count as a failed attempt: 408, 429 and 5xx but 501.
func TestStatusCountsTimeoutsTooManyRequestsAndServerErrorsButNotImplemented(t *testing.T) {
	for code, want := range map[int]bool{
		200: false, 400: false, 401: false, 403: false, 404: false, 408: true, 409: false, 429: true,
		500: true, 501: false, 502: true, 503: true, 504: true, 599: true,
	} {
		require.Equal(t, want, httpretry.Status(code), "HTTP %d", code)
	}
}

// The wait a body asks for is the longer of its own delay and the
// Retry-After header's; a body without a hint is not retryable, whatever
// the header says (the status decides that).
func TestBodyHintWaitsTheLongerOfBodyAndHeader(t *testing.T) {
	for _, tc := range []struct {
		name      string
		body      string
		header    time.Duration
		retryable bool
		after     time.Duration
	}{
		{"RetryInfo, no header", `{"error":{"code":503,"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"3s"}]}}`, 0, true, 3 * time.Second},
		{"RetryInfo, longer header", `{"error":{"code":503,"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"3s"}]}}`, 7 * time.Second, true, 7 * time.Second},
		{"0.3 retryable, shorter header", `{"code":400,"data":{"retryable":true,"retryAfter":"6"}}`, 2 * time.Second, true, 6 * time.Second},
		{"no hint, a header", `<html>busy</html>`, 5 * time.Second, false, 5 * time.Second},
		{"no body", ``, 0, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			retryable, after := httpretry.BodyHint([]byte(tc.body), tc.header)
			require.Equal(t, tc.retryable, retryable)
			require.Equal(t, tc.after, after)
		})
	}
}
