package a2a_test

// MarshalHTTPError keeps an error's retry hint: an RPCError whose data is
// a RetryInfo alone (no ErrorInfo beside it, as a 1.0 JSON-RPC server may
// send it, or as a client builds it) reads back from the body with the
// same hint, in either version; and a 1.0 body of an error whose data is
// 0.3's {"retryable":…,"retryAfter":…} carries that hint as a RetryInfo.

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

func TestMarshalHTTPErrorKeepsARetryInfoWithoutErrorInfo(t *testing.T) {
	t.Parallel()
	data := json.RawMessage(`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.5s"}]`)
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		for _, code := range []int{a2a.CodeInternalError, a2a.CodeTaskNotFound, a2a.CodeUnsupportedOperation, a2a.CodeInvalidAgentResponse} {
			t.Run(string(v)+"/"+strconv.Itoa(code), func(t *testing.T) {
				t.Parallel()
				in := &a2a.RPCError{Code: code, Message: "busy", Data: data}
				require.True(t, in.Retryable())
				status, _, body := a2a.MarshalHTTPError(v, in)
				got, ok := a2a.ParseHTTPError(status, body)
				require.True(t, ok, "%s", body)
				require.Equal(t, code, got.Code)
				require.Equal(t, "busy", got.Message)
				require.True(t, got.Retryable(), "%s", body)
				require.Equal(t, 1500*time.Millisecond, got.RetryAfter(), "%s", body)
				if v == a2a.V10 {
					require.NotEmpty(t, got.Reason(), "the code's ErrorInfo first: %s", body)
				}
				retryable, after := a2a.ParseHTTPRetry(body)
				require.True(t, retryable)
				require.Equal(t, 1500*time.Millisecond, after)
			})
		}
	}
}

func TestMarshalHTTPErrorWritesTheDetailsBesideTheCodesErrorInfo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		e    *a2a.RPCError
		body string
	}{
		{"RetryInfo alone", &a2a.RPCError{Code: a2a.CodeInternalError, Message: "m",
			Data: json.RawMessage(`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"5s"}]`)},
			`{"error":{"code":500,"status":"INTERNAL","message":"m","details":[` +
				`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INTERNAL_ERROR","domain":"a2a-protocol.org"},` +
				`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"5s"}]}}`},
		{"other details, and entries that are no objects", &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "m",
			Data: json.RawMessage(`[ {"@type":"type.googleapis.com/google.rpc.DebugInfo","detail":"d"}, 1, "x", null ]`)},
			`{"error":{"code":404,"status":"NOT_FOUND","message":"m","details":[` +
				`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"},` +
				`{"@type":"type.googleapis.com/google.rpc.DebugInfo","detail":"d"}]}}`},
		{"unknown code", &a2a.RPCError{Code: -32099, Message: "m",
			Data: json.RawMessage(`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"5s"}]`)},
			`{"error":{"code":500,"status":"INTERNAL","message":"m","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"5s"}]}}`},
		{"0.3 hint", &a2a.RPCError{Code: a2a.CodeInternalError, Message: "m", Data: json.RawMessage(`{"retryable":true,"retryAfter":2.5,"trace":"t"}`)},
			`{"error":{"code":500,"status":"INTERNAL","message":"m","details":[` +
				`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INTERNAL_ERROR","domain":"a2a-protocol.org"},` +
				`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2.5s"}]}}`},
		{"0.3 hint without a delay", &a2a.RPCError{Code: a2a.CodeInternalError, Message: "m", Data: json.RawMessage(`{"retryable":true}`)},
			`{"error":{"code":500,"status":"INTERNAL","message":"m","details":[` +
				`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INTERNAL_ERROR","domain":"a2a-protocol.org"},` +
				`{"@type":"type.googleapis.com/google.rpc.RetryInfo"}]}}`},
		{"0.3 hint that says no", &a2a.RPCError{Code: a2a.CodeInternalError, Message: "m", Data: json.RawMessage(`{"retryable":false,"retryAfter":2}`)},
			`{"error":{"code":500,"status":"INTERNAL","message":"m","details":[` +
				`{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INTERNAL_ERROR","domain":"a2a-protocol.org"}]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, _, body := a2a.MarshalHTTPError(a2a.V10, tc.e)
			require.Equal(t, tc.body, string(body))
		})
	}
}
