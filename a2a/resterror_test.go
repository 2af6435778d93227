package a2a_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

func TestParseHTTPError(t *testing.T) {
	t.Parallel()
	const info = `{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"%s","domain":"a2a-protocol.org"}`
	googleStatus := func(code int, status, reason string) string {
		details := "[]"
		if reason != "" {
			details = "[" + fmt.Sprintf(info, reason) + "]"
		}
		return fmt.Sprintf(`{"error":{"code":%d,"status":%q,"message":"m","details":%s}}`, code, status, details)
	}
	tests := []struct {
		name   string
		status int
		body   string
		code   int // 0: not an A2A error
		msg    string
		data   string
	}{
		// google.rpc.Status with ErrorInfo: the reason decides.
		{"1.0 task not found", 404, googleStatus(404, "NOT_FOUND", "TASK_NOT_FOUND"), a2a.CodeTaskNotFound, "m", "[" + fmt.Sprintf(info, "TASK_NOT_FOUND") + "]"},
		{"1.0 not cancelable", 400, googleStatus(400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE"), a2a.CodeTaskNotCancelable, "m", "[" + fmt.Sprintf(info, "TASK_NOT_CANCELABLE") + "]"},
		{"1.0 push", 400, googleStatus(400, "FAILED_PRECONDITION", "PUSH_NOTIFICATION_NOT_SUPPORTED"), a2a.CodePushNotificationNotSupported, "m", ""},
		{"1.0 unsupported", 400, googleStatus(400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION"), a2a.CodeUnsupportedOperation, "m", ""},
		{"1.0 content type", 400, googleStatus(400, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED"), a2a.CodeContentTypeNotSupported, "m", ""},
		{"1.0 invalid agent response", 500, googleStatus(500, "INTERNAL", "INVALID_AGENT_RESPONSE"), a2a.CodeInvalidAgentResponse, "m", ""},
		{"1.0 extended card", 400, googleStatus(400, "FAILED_PRECONDITION", "EXTENDED_AGENT_CARD_NOT_CONFIGURED"), a2a.CodeExtendedAgentCardNotConfigured, "m", ""},
		{"0.3 extended card reason", 400, googleStatus(400, "FAILED_PRECONDITION", "AUTHENTICATED_EXTENDED_CARD_NOT_CONFIGURED"), a2a.CodeExtendedAgentCardNotConfigured, "m", ""},
		{"1.0 extension required", 400, googleStatus(400, "FAILED_PRECONDITION", "EXTENSION_SUPPORT_REQUIRED"), a2a.CodeExtensionSupportRequired, "m", ""},
		{"1.0 version", 400, googleStatus(400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED"), a2a.CodeVersionNotSupported, "m", ""},
		{"js 1.x malformed request", 400, googleStatus(400, "INVALID_ARGUMENT", "INVALID_PARAMS"), a2a.CodeInvalidParams, "m", ""},
		{"js 1.x default reason", 500, googleStatus(500, "INTERNAL", "INTERNAL_ERROR"), a2a.CodeInternalError, "m", ""},
		{"reason wins over status", 404, googleStatus(404, "NOT_FOUND", "UNSUPPORTED_OPERATION"), a2a.CodeUnsupportedOperation, "m", ""},
		{"A2A reason of another domain", 404, `{"error":{"code":404,"status":"NOT_FOUND","message":"m","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"example.com"}]}}`, a2a.CodeTaskNotFound, "m", ""},
		{"first ErrorInfo with a reason", 400, `{"error":{"code":400,"message":"m","details":[{"@type":"type.googleapis.com/google.rpc.DebugInfo"},` + fmt.Sprintf(info, "TASK_NOT_FOUND") + `]}}`, a2a.CodeTaskNotFound, "m", ""},
		{"stream error event", 0, googleStatus(404, "NOT_FOUND", "TASK_NOT_FOUND"), a2a.CodeTaskNotFound, "m", ""},

		// An ErrorInfo of the A2A domain whose reason this package does not
		// know: an A2A error, whose code the HTTP status gives.
		{"405 unknown A2A reason", 405, googleStatus(405, "UNIMPLEMENTED", "SOMETHING_ELSE"), a2a.CodeMethodNotFound, "m", "[" + fmt.Sprintf(info, "SOMETHING_ELSE") + "]"},
		{"404 unknown A2A reason", 404, googleStatus(404, "NOT_FOUND", "SOMETHING_ELSE"), a2a.CodeTaskNotFound, "m", ""},
		{"unknown A2A reason, status from the body", 0, googleStatus(501, "UNIMPLEMENTED", "SOMETHING_ELSE"), a2a.CodeMethodNotFound, "m", ""},
		{"unknown A2A reason, 500", 500, googleStatus(500, "INTERNAL", "SOMETHING_ELSE"), 0, "", ""},
		// a2a-go (v2, internal/rest): its own reason for content types, and
		// 501 UNIMPLEMENTED for unsupported operations, with metadata.
		{"a2a-go content type", 400, `{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"m","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"UNSUPPORTED_CONTENT_TYPE","domain":"a2a-protocol.org","metadata":{"timestamp":"2026-11-23T00:19:34Z"}}]}}`, a2a.CodeContentTypeNotSupported, "m", ""},
		{"a2a-go unsupported operation", 501, `{"error":{"code":501,"status":"UNIMPLEMENTED","message":"m","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"UNSUPPORTED_OPERATION","domain":"a2a-protocol.org","metadata":{"taskId":"t-1"}}]}}`, a2a.CodeUnsupportedOperation, "m", ""},
		{"bare Status with a reason", 400, `{"code":9,"message":"m","details":[` + fmt.Sprintf(info, "VERSION_NOT_SUPPORTED") + `]}`, a2a.CodeVersionNotSupported, "m", ""},

		// JSON-RPC.
		{"0.3 bare", 404, `{"code":-32001,"message":"Task not found: nope"}`, a2a.CodeTaskNotFound, "Task not found: nope", ""},
		{"0.3 bare with data", 400, `{"code":-32602,"message":"m","data":{"field":"role"}}`, a2a.CodeInvalidParams, "m", `{"field":"role"}`},
		{"0.3 bare, code wins over status", 500, `{"code":-32004,"message":"m"}`, a2a.CodeUnsupportedOperation, "m", ""},
		{"0.3 bare, stream error event", 0, `{"code":-32001,"message":"m"}`, a2a.CodeTaskNotFound, "m", ""},
		{"error object without the envelope", 404, `{"error":{"code":-32001,"message":"m"}}`, a2a.CodeTaskNotFound, "m", ""},
		{"JSON-RPC response with 400", 400, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`, a2a.CodeMethodNotFound, "Method not found", ""},
		{"JSON-RPC response with 1.0 data", 200, `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"m","data":[` + fmt.Sprintf(info, "TASK_NOT_FOUND") + `]}}`, a2a.CodeTaskNotFound, "m", "[" + fmt.Sprintf(info, "TASK_NOT_FOUND") + "]"},
		{"JSON-RPC application code", 400, `{"jsonrpc":"2.0","id":1,"error":{"code":7,"message":"m"}}`, 7, "m", ""},
		{"server-defined negative code", 400, `{"code":-1,"message":"m"}`, -1, "m", ""},
		{"message of a wrong type", 404, `{"code":-32001,"message":17}`, a2a.CodeTaskNotFound, "", ""},

		// An RFC 9457 problem whose type names an A2A error.
		{"problem naming an A2A error", 400, `{"type":"https://a2a-protocol.org/errors/version-not-supported","title":"Version not supported","status":400}`, a2a.CodeVersionNotSupported, "Version not supported", ""},
		{"problem naming an A2A error, with detail", 404, `{"type":"urn:a2a:task-not-found","title":"Not Found","status":404,"detail":"no task t-1"}`, a2a.CodeTaskNotFound, "Not Found: no task t-1", ""},

		// Error bodies that name no A2A error: the HTTP status alone does not
		// make them one.
		{"google.rpc.Status without details", 404, googleStatus(404, "NOT_FOUND", ""), 0, "", ""},
		{"google.rpc.Status, 501", 501, googleStatus(501, "UNIMPLEMENTED", ""), 0, "", ""},
		{"google.rpc.Status, 400", 400, googleStatus(400, "INVALID_ARGUMENT", ""), 0, "", ""},
		{"google.rpc.Status, status from the body", 0, googleStatus(501, "UNIMPLEMENTED", ""), 0, "", ""},
		{"google.rpc.Status, status name only", 0, `{"error":{"status":"NOT_FOUND","message":"m"}}`, 0, "", ""},
		{"google.rpc.Status, 500", 500, googleStatus(500, "INTERNAL", ""), 0, "", ""},
		{"google.rpc.Status, 503", 503, googleStatus(503, "UNAVAILABLE", ""), 0, "", ""},
		{"google.rpc.Status, 401", 401, googleStatus(401, "UNAUTHENTICATED", ""), 0, "", ""},
		{"google.rpc.Status, 429", 429, googleStatus(429, "RESOURCE_EXHAUSTED", ""), 0, "", ""},
		{"JSON-RPC reason of another domain", 500, `{"error":{"code":500,"status":"INTERNAL","message":"m","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INTERNAL_ERROR","domain":"example.com"}]}}`, 0, "", ""},
		{"problem, JSON-RPC name", 500, `{"type":"https://example.com/problems/internal-error","title":"Internal Server Error","status":500}`, 0, "", ""},
		{"unknown reason of another domain", 404, `{"error":{"code":404,"message":"m","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"SERVICE_DISABLED","domain":"googleapis.com"}]}}`, 0, "", ""},
		{"bare google.rpc.Status (grpc-gateway)", 404, `{"code":5,"message":"m","details":[]}`, 0, "", ""},
		{"message alone", 404, `{"message":"Task not found"}`, 0, "", ""},
		{"message alone, 409", 409, `{"message":"Task cannot be canceled"}`, 0, "", ""},
		{"message alone, 422", 422, `{"message":"m"}`, 0, "", ""},
		{"HTTP status as code", 0, `{"code":404,"message":"m"}`, 0, "", ""},
		{"problem", 404, `{"type":"about:blank","title":"Not Found","status":404,"detail":"no task t-1"}`, 0, "", ""},
		{"problem, status in the body", 0, `{"title":"Method Not Allowed","status":405}`, 0, "", ""},
		{"problem, 503", 503, `{"title":"Service Unavailable","status":503}`, 0, "", ""},
		{"error string", 404, `{"error":"Not Found"}`, 0, "", ""},
		{"code out of range", 404, `{"code":-99999999999,"message":"m"}`, 0, "", ""},

		// Not error bodies.
		{"HTML", 404, `<!DOCTYPE html><html><body><pre>Cannot POST /v1/tasks/t:subscribe</pre></body></html>`, 0, "", ""},
		{"Express text", 404, `Cannot GET /v1/tasks/t`, 0, "", ""},
		{"empty", 405, ``, 0, "", ""},
		{"blank", 501, " \n", 0, "", ""},
		{"array", 400, `[{"code":-32001}]`, 0, "", ""},
		{"truncated", 404, `{"code":-32001,"message":"Task`, 0, "", ""},
		{"a task", 404, `{"id":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}`, 0, "", ""},
		{"null error", 400, `{"jsonrpc":"2.0","id":1,"error":null,"result":{}}`, 0, "", ""},
		{"empty error object", 400, `{"error":{}}`, 0, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, ok := a2a.ParseHTTPError(tc.status, []byte(tc.body))
			if tc.code == 0 {
				require.False(t, ok, "ParseHTTPError = %+v", e)
				require.Nil(t, e)
				return
			}
			require.True(t, ok)
			require.Equal(t, tc.code, e.Code)
			require.Equal(t, tc.msg, e.Message)
			if tc.data != "" {
				require.JSONEq(t, tc.data, string(e.Data))
			}
		})
	}
}

// TestParseHTTPErrorFrameworkBodies reads the JSON bodies with which web
// frameworks and gateways answer a route they do not have (or a request they
// refuse) before any A2A code runs. None is an A2A error, whatever the HTTP
// status: a 404 among them means "no such route", not "no such task".
func TestParseHTTPErrorFrameworkBodies(t *testing.T) {
	t.Parallel()
	bodies := map[string]string{
		"error string":           `{"error":"Not Found"}`,
		"Spring Boot":            `{"timestamp":"2026-11-23T00:19:41.295+00:00","status":404,"error":"Not Found","path":"/tasks/t-1:subscribe"}`,
		"Spring Boot problem":    `{"type":"about:blank","title":"Not Found","status":404,"detail":"No static resource tasks/t-1:subscribe.","instance":"/tasks/t-1:subscribe"}`,
		"ASP.NET Core problem":   `{"type":"https://tools.ietf.org/html/rfc9110#section-15.5.5","title":"Not Found","status":404,"traceId":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"}`,
		"FastAPI":                `{"detail":"Not Found"}`,
		"Django REST framework":  `{"detail":"Not found."}`,
		"express and others":     `{"message":"Not Found"}`,
		"NestJS":                 `{"message":"Cannot POST /tasks/t-1:subscribe","error":"Not Found","statusCode":404}`,
		"hapi":                   `{"statusCode":404,"error":"Not Found","message":"Not Found"}`,
		"Rails":                  `{"status":404,"error":"Not Found"}`,
		"grpc-gateway":           `{"code":5,"message":"Not Found","details":[]}`,
		"Google API gateway":     `{"error":{"code":404,"message":"The requested URL was not found on this server.","status":"NOT_FOUND"}}`,
		"code and message":       `{"code":404,"message":"Not Found"}`,
		"Method Not Allowed":     `{"timestamp":"2026-11-23T00:19:41.295+00:00","status":405,"error":"Method Not Allowed","path":"/tasks/t-1:subscribe"}`,
		"validation":             `{"error":"Bad Request","message":"Validation failed"}`,
		"Spring Boot, no status": `{"timestamp":"2026-11-23T00:19:41.295+00:00","error":"Not Found","path":"/v1/message:stream"}`,
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, status := range []int{0, 400, 404, 405, 409, 415, 422, 501} {
				e, ok := a2a.ParseHTTPError(status, []byte(body))
				require.False(t, ok, "HTTP %d: %v", status, e)
				require.Nil(t, e)
			}
		})
	}
}

// TestHTTPErrorRoundTrip writes every error code as a server of each version
// would, and reads it back.
func TestHTTPErrorRoundTrip(t *testing.T) {
	t.Parallel()
	codes := []int{
		a2a.CodeParseError, a2a.CodeInvalidRequest, a2a.CodeMethodNotFound, a2a.CodeInvalidParams, a2a.CodeInternalError,
		a2a.CodeTaskNotFound, a2a.CodeTaskNotCancelable, a2a.CodePushNotificationNotSupported, a2a.CodeUnsupportedOperation,
		a2a.CodeContentTypeNotSupported, a2a.CodeInvalidAgentResponse, a2a.CodeExtendedAgentCardNotConfigured,
		a2a.CodeExtensionSupportRequired, a2a.CodeVersionNotSupported,
	}
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		for _, code := range codes {
			in := &a2a.RPCError{Code: code, Message: "Task <b> not found: \"x\""}
			status, ct, body := a2a.MarshalHTTPError(v, in)
			require.GreaterOrEqual(t, status, 400, "%s %d", v, code)
			got, ok := a2a.ParseHTTPError(status, body)
			require.True(t, ok, "%s %d: %s", v, code, body)
			require.Equal(t, code, got.Code, "%s: %s", v, body)
			require.Equal(t, in.Message, got.Message)
			if v == a2a.V10 {
				require.Equal(t, "application/a2a+json", ct)
				require.NotEmpty(t, got.Reason(), "%s", body)
			} else {
				require.Equal(t, "application/json", ct)
				require.Nil(t, got.Data)
			}
		}
	}
}

func TestMarshalHTTPError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		v      a2a.Version
		e      *a2a.RPCError
		status int
		body   string
	}{
		{"0.3 not cancelable", a2a.V03, &a2a.RPCError{Code: a2a.CodeTaskNotCancelable, Message: "m"}, 409, `{"code":-32002,"message":"m"}`},
		{"0.3 method not found", a2a.V03, &a2a.RPCError{Code: a2a.CodeMethodNotFound, Message: "m"}, 404, `{"code":-32601,"message":"m"}`},
		{"0.3 unsupported", a2a.V03, &a2a.RPCError{Code: a2a.CodeUnsupportedOperation, Message: "m"}, 400, `{"code":-32004,"message":"m"}`},
		{"0.3 version", a2a.V03, &a2a.RPCError{Code: a2a.CodeVersionNotSupported, Message: "m"}, 500, `{"code":-32009,"message":"m"}`},
		{"0.3 data", a2a.V03, &a2a.RPCError{Code: a2a.CodeInternalError, Message: "m", Data: json.RawMessage(`{"x": 1}`)}, 500, `{"code":-32603,"message":"m","data":{"x":1}}`},
		{"0.3 broken data", a2a.V03, &a2a.RPCError{Code: a2a.CodeInternalError, Message: "m", Data: json.RawMessage(`{`)}, 500, `{"code":-32603,"message":"m"}`},
		{"1.0 content type", a2a.V10, &a2a.RPCError{Code: a2a.CodeContentTypeNotSupported, Message: "m"}, 400,
			`{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"m","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"CONTENT_TYPE_NOT_SUPPORTED","domain":"a2a-protocol.org"}]}}`},
		{"1.0 method not found", a2a.V10, &a2a.RPCError{Code: a2a.CodeMethodNotFound, Message: "m"}, 501,
			`{"error":{"code":501,"status":"UNIMPLEMENTED","message":"m","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"METHOD_NOT_FOUND","domain":"a2a-protocol.org"}]}}`},
		{"1.0 unknown code", a2a.V10, &a2a.RPCError{Code: -32099, Message: "m"}, 500,
			`{"error":{"code":500,"status":"INTERNAL","message":"m","details":[]}}`},
		{"1.0 own details", a2a.V10, &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "m", Data: json.RawMessage(`[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"example.com","metadata":{"taskId":"t"}}]`)}, 404,
			`{"error":{"code":404,"status":"NOT_FOUND","message":"m","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"example.com","metadata":{"taskId":"t"}}]}}`},
		{"1.0 0.3-style data is not details", a2a.V10, &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "m", Data: json.RawMessage(`{"x":1}`)}, 404,
			`{"error":{"code":404,"status":"NOT_FOUND","message":"m","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}`},
		{"nil", a2a.V10, nil, 500,
			`{"error":{"code":500,"status":"INTERNAL","message":"","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INTERNAL_ERROR","domain":"a2a-protocol.org"}]}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			status, _, body := a2a.MarshalHTTPError(tc.v, tc.e)
			require.Equal(t, tc.status, status)
			require.Equal(t, tc.body, string(body))
		})
	}
}

// ExampleParseHTTPError reads the body with which @a2a-js/sdk 1.3.0 refuses
// to subscribe to a task that has ended, then the 404 answers of servers
// that have no subscribe route: express's page and Spring Boot's JSON body.
// Neither is an A2A error (not task-not-found): the route is missing.
func ExampleParseHTTPError() {
	body := []byte(`{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"Task t-1 is in a terminal state",` +
		`"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"UNSUPPORTED_OPERATION","domain":"a2a-protocol.org"}]}}`)
	e, ok := a2a.ParseHTTPError(400, body)
	fmt.Println(ok, e.Code == a2a.CodeUnsupportedOperation, e.Reason())
	_, ok = a2a.ParseHTTPError(404, []byte("<html>Cannot POST /v1/tasks/t-1:subscribe</html>"))
	fmt.Println(ok)
	_, ok = a2a.ParseHTTPError(404, []byte(`{"timestamp":"2026-11-23T00:19:41.295+00:00","status":404,"error":"Not Found","path":"/tasks/t-1:subscribe"}`))
	fmt.Println(ok)
	// Output:
	// true true UNSUPPORTED_OPERATION
	// false
	// false
}
