package a2a

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/a2astream/a2astream/internal/a2awire"
)

// Retry hints. A server may say that a failed call is worth making again,
// and when:
//
//   - A2A 0.3 over JSON-RPC (and the bare error objects of 0.3 HTTP+JSON
//     servers): the error's data is an object with "retryable" (a boolean)
//     and "retryAfter" (a delay in seconds), as A2A's error-handling guide
//     writes them: {"retryable":true,"retryAfter":5}.
//   - A2A 1.0, over JSON-RPC (the data array) and HTTP+JSON (the details of
//     a google.rpc.Status): an entry of type google.rpc.RetryInfo, whose
//     "retryDelay" is a protobuf Duration, "5s" in JSON, or the object
//     {"seconds":5,"nanos":0} that some encoders write.
//
// A delay alone, without "retryable", also says the call may be retried; an
// explicit "retryable": false says it may not, whatever delay comes with it.
// Delays that are negative, not numbers, or not finite are ignored; a delay
// over MaxRetryHint is cut to it, however large: one too large for a
// time.Duration (10^10 seconds, 10^300) is MaxRetryHint too, never a count
// that wrapped around.

// MaxRetryHint is the longest delay a retry hint reads as, from every source:
// [RPCError.RetryAfter], [ParseHTTPRetry], [ParseRetryAfter] and the links
// of a chain of agents (package chain). A caller applies its own, shorter,
// cap. Every hint passes through one bound: a delay below 0 is 0, one over
// MaxRetryHint is MaxRetryHint.
const MaxRetryHint = 24 * time.Hour

// ParseRetryAfter reads the value of an HTTP Retry-After header (RFC 9110
// §10.2.3): a delay in whole seconds, or an HTTP date, which is read as the
// delay from now to it (0 for a date past). It reports false for an empty
// value and for anything else, a negative count among them. The delay is
// bounded as every retry hint is: at most MaxRetryHint, however far ahead
// the header points; a count of seconds too large for any integer is read
// as MaxRetryHint, as RFC 9111 §1.2.2 has caches read such a delta.
func ParseRetryAfter(value string, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(value)
	if v == "" {
		return 0, false
	}
	if strings.Trim(v, "0123456789") == "" {
		n, err := strconv.ParseUint(v, 10, 64) // all digits: fails only by overflow, as MaxUint64
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, false
		}
		return a2awire.SecondsDelay(float64(n)), true
	}
	// The layouts of an HTTP date, as net/http.ParseTime reads them:
	// IMF-fixdate, then the obsolete RFC 850 and asctime forms.
	for _, layout := range [...]string{"Mon, 02 Jan 2006 15:04:05 GMT", time.RFC850, time.ANSIC} {
		if t, err := time.Parse(layout, v); err == nil {
			return a2awire.Bound(t.Sub(now)), true // Sub saturates: no overflow
		}
	}
	return 0, false
}

// Retryable reports whether the server said the call may be made again:
// its data carries "retryable": true, a "retryAfter" delay, or a
// google.rpc.RetryInfo entry (see the package's retry hints).
func (e *RPCError) Retryable() bool {
	ok, _ := retryHint(e.Data)
	return ok
}

// RetryAfter returns the delay the server asked for before the call is made
// again, or 0 when it named none (or said the call may not be retried).
func (e *RPCError) RetryAfter() time.Duration {
	_, d := retryHint(e.Data)
	return d
}

// ParseHTTPRetry reads the retry hint of an HTTP+JSON error body: the
// google.rpc.RetryInfo among a google.rpc.Status's details (with or without
// the "error" wrapper), or the data of a JSON-RPC error object (bare, in an
// "error" member, or in a whole JSON-RPC response). It reads a body that
// names no A2A error too (a 503 whose google.rpc.Status carries only a
// RetryInfo). It reports false and 0 for any other body. The HTTP
// Retry-After header is the caller's to read.
func ParseHTTPRetry(body []byte) (retryable bool, after time.Duration) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return false, 0
	}
	var b restErrorBody
	if json.Unmarshal(body, &b) != nil {
		return false, 0
	}
	if a2awire.IsObject(b.Error) {
		var inner restErrorBody
		if json.Unmarshal(b.Error, &inner) != nil {
			return false, 0
		}
		b = inner
	}
	if a2awire.IsArray(b.Details) {
		return retryHint(b.Details)
	}
	return retryHint(b.Data)
}

// retryHint reads a retry hint from an error's data: an object (0.3) or an
// array of details (1.0).
func retryHint(data json.RawMessage) (retryable bool, after time.Duration) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return false, 0
	}
	switch data[0] {
	case '{':
		return objectHint(data)
	case '[':
		var entries []json.RawMessage
		if json.Unmarshal(data, &entries) != nil {
			return false, 0
		}
		for _, raw := range entries {
			if ok, d := detailHint(raw); ok {
				return true, d
			}
		}
	}
	return false, 0
}

// objectHint reads {"retryable":…,"retryAfter":…}.
func objectHint(raw json.RawMessage) (bool, time.Duration) {
	var o struct {
		Retryable  json.RawMessage `json:"retryable"`
		RetryAfter json.RawMessage `json:"retryAfter"`
	}
	if json.Unmarshal(raw, &o) != nil {
		return false, 0
	}
	d, hasDelay := a2awire.Seconds(o.RetryAfter)
	switch string(bytes.TrimSpace(o.Retryable)) {
	case "true":
		return true, d
	case "false":
		return false, 0
	}
	return hasDelay, d
}

// detailHint reads one entry of a 1.0 details array: a google.rpc.RetryInfo,
// or an object that carries the 0.3 members.
func detailHint(raw json.RawMessage) (bool, time.Duration) {
	var d struct {
		Type       string          `json:"@type"`
		RetryDelay json.RawMessage `json:"retryDelay"`
	}
	if !a2awire.IsObject(bytes.TrimSpace(raw)) || json.Unmarshal(raw, &d) != nil {
		return false, 0
	}
	if d.Type == a2awire.RetryInfoType || strings.HasSuffix(d.Type, "/google.rpc.RetryInfo") {
		after, _ := a2awire.ProtoDuration(d.RetryDelay)
		return true, after
	}
	return objectHint(raw)
}
