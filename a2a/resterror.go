package a2a

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/a2astream/a2astream/internal/a2awire"
)

// Errors of the HTTP+JSON binding. A REST server answers a failed call with
// an HTTP status and a JSON body, whose shape depends on the server:
//
//   - A2A 1.0: a google.rpc.Status, {"error":{"code":404,"status":"NOT_FOUND",
//     "message":…,"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo",
//     "reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}, as
//     application/a2a+json. The ErrorInfo reason names the A2A error.
//   - A2A 0.3 (@a2a-js/sdk 0.3.x): the bare JSON-RPC error object,
//     {"code":-32001,"message":…}, as application/json.
//   - Some servers: a whole JSON-RPC error response, {"jsonrpc":"2.0",
//     "id":…,"error":{…}}, often with status 400; or an RFC 9457 problem
//     whose type names the A2A error.
//
// A server's web framework or gateway answers too, before any A2A code runs:
// a route the server does not have gets a 404 whose body may well be JSON,
// {"error":"Not Found"}, {"detail":"Not Found"}, {"message":"Not Found"},
// Spring Boot's {"timestamp","status":404,"error":"Not Found","path"}, an
// RFC 9457 problem of type about:blank, or grpc-gateway's google.rpc.Status
// without details. Such a body names no A2A error, and a 404 of it means "no
// such route", not "no such task".

// reasonCodes maps ErrorInfo reasons to error codes: the nine of A2A 1.0
// (S10 §5.4), the name 0.3 gave to -32007, and the UPPER_SNAKE_CASE names of
// the JSON-RPC errors that SDKs send as reasons (@a2a-js/sdk 1.x sends
// INVALID_PARAMS for a malformed request and INTERNAL_ERROR by default), and
// the name a2a-go (v2) gives to -32005.
var reasonCodes = map[string]int{
	"TASK_NOT_FOUND":                             CodeTaskNotFound,
	"TASK_NOT_CANCELABLE":                        CodeTaskNotCancelable,
	"PUSH_NOTIFICATION_NOT_SUPPORTED":            CodePushNotificationNotSupported,
	"UNSUPPORTED_OPERATION":                      CodeUnsupportedOperation,
	"CONTENT_TYPE_NOT_SUPPORTED":                 CodeContentTypeNotSupported,
	"UNSUPPORTED_CONTENT_TYPE":                   CodeContentTypeNotSupported,
	"INVALID_AGENT_RESPONSE":                     CodeInvalidAgentResponse,
	"EXTENDED_AGENT_CARD_NOT_CONFIGURED":         CodeExtendedAgentCardNotConfigured,
	"AUTHENTICATED_EXTENDED_CARD_NOT_CONFIGURED": CodeExtendedAgentCardNotConfigured,
	"EXTENSION_SUPPORT_REQUIRED":                 CodeExtensionSupportRequired,
	"VERSION_NOT_SUPPORTED":                      CodeVersionNotSupported,
	"PARSE_ERROR":                                CodeParseError,
	"INVALID_REQUEST":                            CodeInvalidRequest,
	"METHOD_NOT_FOUND":                           CodeMethodNotFound,
	"INVALID_PARAMS":                             CodeInvalidParams,
	"INTERNAL_ERROR":                             CodeInternalError,
}

// grpcStatuses maps the google.rpc.Code names that a google.rpc.Status may
// carry to their HTTP statuses, for a body whose own code is missing.
var grpcStatuses = map[string]int{
	"INVALID_ARGUMENT":    400,
	"FAILED_PRECONDITION": 400,
	"OUT_OF_RANGE":        400,
	"UNAUTHENTICATED":     401,
	"PERMISSION_DENIED":   403,
	"NOT_FOUND":           404,
	"ALREADY_EXISTS":      409,
	"ABORTED":             409,
	"RESOURCE_EXHAUSTED":  429,
	"CANCELLED":           499,
	"UNKNOWN":             500,
	"INTERNAL":            500,
	"DATA_LOSS":           500,
	"UNIMPLEMENTED":       501,
	"UNAVAILABLE":         503,
	"DEADLINE_EXCEEDED":   504,
}

// statusCode is the code an HTTP status stands for in A2A, if any: the code
// of an A2A error whose ErrorInfo reason this package does not know.
//
//   - 404: task not found, the only A2A error that 1.0 sends as 404.
//   - 405 and 501: method not found. The server has no such operation at
//     that path; this is not -32004, which 1.0 also sends for a subscribe
//     to a task that has ended.
//   - 400 and 422: invalid params. 409: task not cancelable, and 415:
//     content type not supported, as a2a-python 0.3 and @a2a-js/sdk 0.3.x
//     send them.
//
// Every other status (401, 403, 408, 429, 5xx, …) names no A2A error: the
// caller handles it as an HTTP failure, retrying where that is safe.
func statusCode(status int) (int, bool) {
	switch status {
	case 400, 422:
		return CodeInvalidParams, true
	case 404:
		return CodeTaskNotFound, true
	case 405, 501:
		return CodeMethodNotFound, true
	case 409:
		return CodeTaskNotCancelable, true
	case 415:
		return CodeContentTypeNotSupported, true
	}
	return 0, false
}

// restErrorBody is the union of the error bodies ParseHTTPError reads. Every
// member is raw, so that a member of an unexpected type skips that member
// instead of failing the whole body.
type restErrorBody struct {
	// JSON-RPC (a bare error object, or a whole response) and google.rpc.Status.
	JSONRPC json.RawMessage `json:"jsonrpc"`
	Code    json.RawMessage `json:"code"`
	Message json.RawMessage `json:"message"`
	Data    json.RawMessage `json:"data"`
	Error   json.RawMessage `json:"error"`
	Status  json.RawMessage `json:"status"` // a google.rpc.Code name
	Details json.RawMessage `json:"details"`
	// RFC 9457.
	Type   json.RawMessage `json:"type"`
	Title  json.RawMessage `json:"title"`
	Detail json.RawMessage `json:"detail"`
}

// ParseHTTPError reads the error body of an HTTP+JSON response, of either
// version, as an [RPCError]. It reports false for a body that is not an A2A
// error. An A2A error is one of:
//
//   - a JSON-RPC error response, {"jsonrpc":"2.0","id":…,"error":{"code",
//     "message","data"}}: its error as it is;
//   - a JSON-RPC error object with a negative code, bare, {"code":-32001,
//     "message":…}, as A2A 0.3 servers send it, or as {"error":{…}}: the
//     code as it is, with its "data";
//   - a google.rpc.Status, {"error":{"code","status","message","details"}}
//     (or without the "error" wrapper, as grpc-gateway writes it), whose
//     first ErrorInfo detail with a reason has an A2A reason: the code of
//     that reason (TASK_NOT_FOUND is [CodeTaskNotFound], and so on for
//     every A2A 1.0 reason), with the details as Data. The names of
//     JSON-RPC's own errors (INVALID_PARAMS, INTERNAL_ERROR, …), which other
//     APIs use too, count only in the domain "a2a-protocol.org". An
//     ErrorInfo of that domain with a reason this package does not know is
//     an A2A error too; its code comes from the HTTP status, where A2A gives
//     it one meaning: 404 is task not found, 405 and 501 method not found,
//     400 and 422 invalid params, 409 task not cancelable and 415 content
//     type not supported (any other status reports false);
//   - an RFC 9457 problem, {"type","title","status","detail"}, whose type
//     names an error A2A defines in its last segment (".../task-not-found"),
//     with its title and detail as the message.
//
// Any other body names no A2A error, whatever the HTTP status, and the
// caller handles the response as the plain HTTP failure it is: a web
// framework's or a gateway's JSON answer ({"error":"Not Found"},
// {"detail":…}, {"message":…} alone, Spring Boot's error body, a problem of
// type about:blank, a google.rpc.Status without an A2A ErrorInfo), HTML
// pages, plain text, a success body, empty input. A 404 of such a body means
// the server has no such route, not that the task does not exist.
//
// status is the response's HTTP status; pass 0 when there is none (the data
// of an "event: error" inside a stream, whose google.rpc.Status then gives
// the status). Message is the server's message in full.
func ParseHTTPError(status int, body []byte) (*RPCError, bool) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return nil, false
	}
	var b restErrorBody
	if json.Unmarshal(body, &b) != nil {
		return nil, false
	}
	if status < 400 {
		status = 0
	}
	if a2awire.IsObject(b.Error) {
		var inner restErrorBody
		if json.Unmarshal(b.Error, &inner) != nil {
			return nil, false
		}
		if code, ok := a2awire.Int32(inner.Code); ok && (code < 0 || len(b.JSONRPC) > 0) {
			return &RPCError{Code: code, Message: a2awire.String(inner.Message), Data: inner.Data}, true
		}
		return googleStatus(status, &inner)
	}
	if code, ok := a2awire.Int32(b.Code); ok && code < 0 {
		return &RPCError{Code: code, Message: a2awire.String(b.Message), Data: b.Data}, true
	}
	if a2awire.IsArray(b.Details) {
		// A google.rpc.Status without its "error" wrapper (grpc-gateway).
		return googleStatus(status, &b)
	}
	if a2awire.IsString(b.Type) {
		return problem(&b)
	}
	return nil, false
}

// isA2ACode reports the codes A2A itself defines (-32001 to -32009), as
// opposed to JSON-RPC's own, whose names other APIs use too.
func isA2ACode(code int) bool {
	return code >= CodeVersionNotSupported && code <= CodeTaskNotFound
}

// googleStatus reads a google.rpc.Status: an A2A error when its first
// ErrorInfo with a reason is of the A2A domain or has a reason only A2A
// uses.
func googleStatus(status int, s *restErrorBody) (*RPCError, bool) {
	if !a2awire.IsArray(s.Details) {
		return nil, false
	}
	reason, domain := errorInfo(s.Details)
	msg := a2awire.String(s.Message)
	if code, ok := reasonCodes[reason]; ok && (domain == a2awire.Domain || isA2ACode(code)) {
		return &RPCError{Code: code, Message: msg, Data: s.Details}, true
	}
	if reason == "" || domain != a2awire.Domain {
		return nil, false
	}
	// An A2A error this package does not know: what its status means.
	if status == 0 {
		if c, ok := a2awire.Int32(s.Code); ok && c >= 400 && c <= 599 {
			status = c
		} else if c, ok := grpcStatuses[a2awire.String(s.Status)]; ok {
			status = c
		}
	}
	code, ok := statusCode(status)
	if !ok {
		return nil, false
	}
	return &RPCError{Code: code, Message: msg, Data: s.Details}, true
}

// errorInfo returns the reason and domain of the first entry of a
// google.rpc.Status's details that has a reason, as [RPCError.Reason] picks
// it.
func errorInfo(details json.RawMessage) (reason, domain string) {
	var entries []json.RawMessage
	if json.Unmarshal(details, &entries) != nil {
		return "", ""
	}
	for _, raw := range entries {
		var info struct {
			Reason string `json:"reason"`
			Domain string `json:"domain"`
		}
		if json.Unmarshal(raw, &info) == nil && info.Reason != "" {
			return info.Reason, info.Domain
		}
	}
	return "", ""
}

// problem reads an RFC 9457 problem: an A2A error when the last path
// segment of its type names one that A2A defines ("…/task-not-found").
func problem(p *restErrorBody) (*RPCError, bool) {
	t := a2awire.String(p.Type)
	slug := t[strings.LastIndexAny(t, "/#:")+1:]
	code, ok := reasonCodes[strings.ToUpper(strings.ReplaceAll(slug, "-", "_"))]
	if !ok || !isA2ACode(code) {
		return nil, false
	}
	msg := a2awire.String(p.Title)
	if d := a2awire.String(p.Detail); d != "" {
		if msg != "" {
			msg += ": "
		}
		msg += d
	}
	return &RPCError{Code: code, Message: msg}, true
}

// MarshalHTTPError writes e as an HTTP+JSON server of version v answers it:
// the HTTP status, the media type and the body. It is the counterpart of
// [ParseHTTPError], for an agent that answers its own caller over HTTP+JSON
// (with the error of a chain of agents, say) and for fake servers.
//
//   - 1.0, as @a2a-js/sdk 1.3.0 writes it: a google.rpc.Status as
//     application/a2a+json, with the status and google.rpc.Code of S10 §5.4
//     (404 NOT_FOUND for task not found; 400 FAILED_PRECONDITION for the
//     other A2A errors, but 400 INVALID_ARGUMENT for content type not
//     supported and 500 INTERNAL for an invalid agent response; 400
//     INVALID_ARGUMENT for parse errors, invalid requests and invalid
//     params; 500 INTERNAL for internal errors), and one ErrorInfo detail
//     with the code's reason. Method not found, which has no REST form in
//     the spec, is written as 501 UNIMPLEMENTED with reason METHOD_NOT_FOUND.
//     When e.Data already holds ErrorInfo entries ([RPCError.Reason] is not
//     empty) they are the details as they are; otherwise the other details
//     e.Data holds (a google.rpc.RetryInfo, say; its entries that are
//     objects) follow the code's ErrorInfo, and a 0.3 retry hint in e.Data
//     ({"retryable":true,"retryAfter":5}) is written as a RetryInfo, so
//     that the error's retry hint reads back. Any other code is a plain 500
//     INTERNAL, as @a2a-js/sdk writes an error it does not know, with only
//     those details; [ParseHTTPError] reads that as no A2A error, and
//     [ParseHTTPRetry] reads its hint.
//   - 0.3, as @a2a-js/sdk 0.3.14 writes it: the bare {"code","message"}
//     (with "data" when e has some) as application/json, with the status of
//     its restHandler: 404 for task not found and method not found, 409 for
//     task not cancelable, 400 for parse errors, invalid requests and
//     params, push notifications not supported and unsupported operations,
//     500 for anything else.
//
// @a2a-js/sdk adds "; charset=utf-8" to both media types; the returned
// contentType does not. An unknown version is written as 1.0.
func MarshalHTTPError(v Version, e *RPCError) (status int, contentType string, body []byte) {
	if e == nil {
		e = &RPCError{Code: CodeInternalError}
	}
	if v == V03 {
		switch e.Code {
		case CodeTaskNotFound, CodeMethodNotFound:
			status = 404
		case CodeTaskNotCancelable:
			status = 409
		case CodeParseError, CodeInvalidRequest, CodeInvalidParams, CodePushNotificationNotSupported, CodeUnsupportedOperation:
			status = 400
		default:
			status = 500
		}
		return status, "application/json", mustMarshal(e, func(data json.RawMessage) any {
			return &RPCError{Code: e.Code, Message: e.Message, Data: data}
		})
	}
	type errorInfo struct {
		Type   string `json:"@type"`
		Reason string `json:"reason"`
		Domain string `json:"domain"`
	}
	type googleStatus struct {
		Code    int    `json:"code"`
		Status  string `json:"status"`
		Message string `json:"message"`
		Details any    `json:"details"`
	}
	g := googleStatus{Code: 500, Status: "INTERNAL", Message: e.Message}
	details := []any{}
	if re, ok := a2awire.Rest(e.Code); ok {
		g.Code, g.Status = re.Status, re.Name
		details = append(details, errorInfo{Type: a2awire.ErrorInfoType, Reason: re.Reason, Domain: a2awire.Domain})
	}
	own := e.Reason() != ""
	return g.Code, "application/a2a+json", mustMarshal(e, func(data json.RawMessage) any {
		c := g
		if own && data != nil {
			c.Details = data
		} else {
			c.Details = append(details, otherDetails(data)...)
		}
		return struct {
			Error googleStatus `json:"error"`
		}{c}
	})
}

// otherDetails are the details a 1.0 error body carries of an error's data
// beside the ErrorInfo of its code: the entries of a details array that are
// objects, or, for 0.3's data object, a RetryInfo of its retry hint.
func otherDetails(data json.RawMessage) []any {
	data = bytes.TrimSpace(data)
	var kept []any
	switch {
	case a2awire.IsArray(data):
		var entries []json.RawMessage
		_ = json.Unmarshal(data, &entries) // data that is not JSON has none
		for _, raw := range entries {
			if a2awire.IsObject(bytes.TrimSpace(raw)) {
				kept = append(kept, raw)
			}
		}
	case a2awire.IsObject(data):
		if retryable, after := objectHint(data); retryable {
			info := struct {
				Type       string `json:"@type"`
				RetryDelay string `json:"retryDelay,omitempty"`
			}{Type: a2awire.RetryInfoType}
			if after > 0 {
				info.RetryDelay = strconv.FormatFloat(after.Seconds(), 'f', -1, 64) + "s"
			}
			kept = append(kept, info)
		}
	}
	return kept
}

// mustMarshal encodes an error body, which holds only strings, ints and
// raw JSON. Raw JSON that is not valid (an RPCError built by hand with
// broken Data) is the only way this can fail; the body is then written
// without it.
func mustMarshal(e *RPCError, body func(data json.RawMessage) any) []byte {
	b, err := a2awire.Marshal(body(e.Data))
	if err != nil {
		b, _ = a2awire.Marshal(body(nil))
	}
	return b
}
