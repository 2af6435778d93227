package a2a_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/a2awire"
)

const retryInfo = `{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":%s}`

func TestRPCErrorRetryHints(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		data      string
		retryable bool
		after     time.Duration
	}{
		{"no data", ``, false, 0},
		{"null data", `null`, false, 0},
		{"string data", `"try later"`, false, 0},
		{"0.3 retryable with delay", `{"retryable":true,"retryAfter":5}`, true, 5 * time.Second},
		{"0.3 retryable without delay", `{"retryable":true}`, true, 0},
		{"0.3 fractional delay", `{"retryable":true,"retryAfter":0.25}`, true, 250 * time.Millisecond},
		{"0.3 delay as a string", `{"retryable":true,"retryAfter":"7"}`, true, 7 * time.Second},
		{"0.3 delay alone", `{"retryAfter":3}`, true, 3 * time.Second},
		{"0.3 not retryable", `{"retryable":false,"retryAfter":5}`, false, 0},
		{"0.3 other members", `{"detail":"boom"}`, false, 0},
		{"0.3 negative delay", `{"retryable":true,"retryAfter":-4}`, true, 0},
		{"0.3 retryable of the wrong type", `{"retryable":"yes"}`, false, 0},
		{"0.3 huge delay is capped", `{"retryable":true,"retryAfter":1e300}`, true, a2a.MaxRetryHint},
		{"0.3 delay just past int64 nanoseconds", `{"retryable":true,"retryAfter":9223372037}`, true, a2a.MaxRetryHint},
		{"0.3 delay just past 2^64 nanoseconds", `{"retryable":true,"retryAfter":"18446744074"}`, true, a2a.MaxRetryHint},
		{"1.0 RetryInfo just past 2^64 nanoseconds", `[` + sprintf(retryInfo, `"18446744074s"`) + `]`, true, a2a.MaxRetryHint},
		{"1.0 RetryInfo of 10^300 s", `[` + sprintf(retryInfo, `"1e300s"`) + `]`, true, a2a.MaxRetryHint},
		{"1.0 RetryInfo object past int64 nanoseconds", `[` + sprintf(retryInfo, `{"seconds":"9223372037","nanos":999999999}`) + `]`, true, a2a.MaxRetryHint},
		{"1.0 RetryInfo object of 2^64 s", `[` + sprintf(retryInfo, `{"seconds":18446744073709551616}`) + `]`, true, a2a.MaxRetryHint},
		{"1.0 RetryInfo just under the cap", `[` + sprintf(retryInfo, `{"seconds":86399,"nanos":999999999}`) + `]`, true, a2a.MaxRetryHint - time.Nanosecond},
		{"1.0 RetryInfo", `[` + sprintf(retryInfo, `"5s"`) + `]`, true, 5 * time.Second},
		{"1.0 RetryInfo fractional", `[` + sprintf(retryInfo, `"1.5s"`) + `]`, true, 1500 * time.Millisecond},
		{"1.0 RetryInfo as an object", `[` + sprintf(retryInfo, `{"seconds":2,"nanos":500000000}`) + `]`, true, 2500 * time.Millisecond},
		{"1.0 RetryInfo without a delay", `[{"@type":"type.googleapis.com/google.rpc.RetryInfo"}]`, true, 0},
		{"1.0 RetryInfo with a bad delay", `[` + sprintf(retryInfo, `"soon"`) + `]`, true, 0},
		{"1.0 RetryInfo with bad nanos", `[` + sprintf(retryInfo, `{"seconds":2,"nanos":-1}`) + `]`, true, 0},
		{"1.0 RetryInfo after an ErrorInfo", `[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INTERNAL_ERROR","domain":"a2a-protocol.org"},` + sprintf(retryInfo, `"30s"`) + `]`, true, 30 * time.Second},
		{"1.0 ErrorInfo only", `[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INTERNAL_ERROR"}]`, false, 0},
		{"1.0 entry with the 0.3 members", `[{"retryable":true,"retryAfter":2}]`, true, 2 * time.Second},
		{"1.0 entries that are not objects", `[1,"x",null]`, false, 0},
		{"malformed", `{"retryable":true`, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := &a2a.RPCError{Code: a2a.CodeInternalError, Data: json.RawMessage(tc.data)}
			require.Equal(t, tc.retryable, e.Retryable())
			require.Equal(t, tc.after, e.RetryAfter())
		})
	}
}

func TestRPCErrorRetryHintSurvivesDecoding(t *testing.T) {
	t.Parallel()
	var resp struct {
		Error *a2a.RPCError `json:"error"`
	}
	raw := `{"jsonrpc":"2.0","id":"1","error":{"code":-32603,"message":"model overloaded","data":{"retryable":true,"retryAfter":5}}}`
	require.NoError(t, json.Unmarshal([]byte(raw), &resp))
	require.True(t, resp.Error.Retryable())
	require.Equal(t, 5*time.Second, resp.Error.RetryAfter())
}

func TestParseHTTPRetry(t *testing.T) {
	t.Parallel()
	status := `{"error":{"code":503,"status":"UNAVAILABLE","message":"overloaded","details":[` + sprintf(retryInfo, `"4s"`) + `]}}`
	for _, tc := range []struct {
		name      string
		body      string
		retryable bool
		after     time.Duration
	}{
		{"google.rpc.Status with RetryInfo only", status, true, 4 * time.Second},
		{"google.rpc.Status unwrapped", `{"code":503,"details":[` + sprintf(retryInfo, `"4s"`) + `]}`, true, 4 * time.Second},
		{"0.3 bare error object", `{"code":-32603,"message":"busy","data":{"retryable":true,"retryAfter":2}}`, true, 2 * time.Second},
		{"JSON-RPC response", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"busy","data":{"retryable":true}}}`, true, 0},
		{"no hint", `{"error":{"code":500,"status":"INTERNAL","message":"boom"}}`, false, 0},
		{"framework body", `{"error":"Not Found"}`, false, 0},
		{"not JSON", `<html>busy</html>`, false, 0},
		{"empty", ``, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ok, after := a2a.ParseHTTPRetry([]byte(tc.body))
			require.Equal(t, tc.retryable, ok)
			require.Equal(t, tc.after, after)
		})
	}
}

// TestParseRetryAfter reads Retry-After values (RFC 9110 §10.2.3) as a
// delay from now, bounded as every retry hint: never negative, never over
// MaxRetryHint, never a count that wrapped around a time.Duration.
func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		value string
		after time.Duration
		ok    bool
	}{
		{"seconds", "7", 7 * time.Second, true},
		{"zero", "0", 0, true},
		{"spaces around", " 7 ", 7 * time.Second, true},
		{"the cap", "86400", a2a.MaxRetryHint, true},
		{"over the cap", "86401", a2a.MaxRetryHint, true},
		{"just past int64 nanoseconds", "9223372037", a2a.MaxRetryHint, true},
		{"just past 2^64 nanoseconds", "18446744074", a2a.MaxRetryHint, true},
		{"past uint64", "99999999999999999999999999", a2a.MaxRetryHint, true},
		{"IMF-fixdate", "Sun, 01 Mar 2026 12:00:13 GMT", 13 * time.Second, true},
		{"RFC 850 date", "Sunday, 01-Mar-26 12:00:13 GMT", 13 * time.Second, true},
		{"asctime date", "Sun Mar  1 12:00:13 2026", 13 * time.Second, true},
		{"date past", "Sun, 01 Mar 2026 11:00:00 GMT", 0, true},
		{"date far past", "Mon, 01 Jan 0001 00:00:00 GMT", 0, true},
		{"date a day and a second ahead", "Mon, 02 Mar 2026 12:00:01 GMT", a2a.MaxRetryHint, true},
		{"date in the year 9999", "Fri, 31 Dec 9999 23:59:59 GMT", a2a.MaxRetryHint, true},
		{"empty", "", 0, false},
		{"negative", "-5", 0, false},
		{"signed", "+5", 0, false},
		{"fractional", "1.5", 0, false},
		{"words", "soon", 0, false},
		{"date in another zone", "Sun, 01 Mar 2026 12:00:13 +0100", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			after, ok := a2a.ParseRetryAfter(tc.value, now)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.after, after)
		})
	}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// MaxRetryHint is the bound internal/a2awire applies to every hint, for a2a
// and for the chains of package chain alike.
func TestMaxRetryHintIsTheBoundOfEveryHint(t *testing.T) {
	require.Equal(t, a2a.MaxRetryHint, a2awire.Max)
	require.Equal(t, a2a.MaxRetryHint, a2awire.Bound(a2a.MaxRetryHint+time.Second))
}
