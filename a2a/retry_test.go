package a2a_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
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

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
