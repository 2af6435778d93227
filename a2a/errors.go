package a2a

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/a2astream/a2astream/internal/clip"
)

// JSON-RPC error codes: the standard ones, then those A2A defines (0.3 and
// 1.0 share -32001…-32007; -32008 and -32009 are new in 1.0).
const (
	CodeParseError                     = -32700
	CodeInvalidRequest                 = -32600
	CodeMethodNotFound                 = -32601
	CodeInvalidParams                  = -32602
	CodeInternalError                  = -32603
	CodeTaskNotFound                   = -32001
	CodeTaskNotCancelable              = -32002
	CodePushNotificationNotSupported   = -32003
	CodeUnsupportedOperation           = -32004
	CodeContentTypeNotSupported        = -32005
	CodeInvalidAgentResponse           = -32006
	CodeExtendedAgentCardNotConfigured = -32007
	CodeExtensionSupportRequired       = -32008
	CodeVersionNotSupported            = -32009
)

var codeNames = map[int]string{
	CodeParseError:                     "parse error",
	CodeInvalidRequest:                 "invalid request",
	CodeMethodNotFound:                 "method not found",
	CodeInvalidParams:                  "invalid params",
	CodeInternalError:                  "internal error",
	CodeTaskNotFound:                   "task not found",
	CodeTaskNotCancelable:              "task not cancelable",
	CodePushNotificationNotSupported:   "push notification not supported",
	CodeUnsupportedOperation:           "unsupported operation",
	CodeContentTypeNotSupported:        "content type not supported",
	CodeInvalidAgentResponse:           "invalid agent response",
	CodeExtendedAgentCardNotConfigured: "extended agent card not configured",
	CodeExtensionSupportRequired:       "extension support required",
	CodeVersionNotSupported:            "version not supported",
}

// RPCError is a JSON-RPC error object sent by a server. Data is kept as it
// came: a free-form value in 0.3, an array of google.rpc.ErrorInfo objects in
// 1.0, often absent.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error returns "a2a: json-rpc error CODE (name): message". A message over
// 256 bytes is cut there, on a UTF-8 boundary, and ends in "…"; the Message
// field keeps it whole.
func (e *RPCError) Error() string {
	s := "a2a: json-rpc error " + strconv.Itoa(e.Code)
	if n, ok := codeNames[e.Code]; ok {
		s += " (" + n + ")"
	}
	if e.Message != "" {
		s += ": " + clip.Text(e.Message, clip.Message)
	}
	return s
}

// Is reports whether target is an *RPCError with the same code, so that
// errors.Is(err, &a2a.RPCError{Code: a2a.CodeTaskNotFound}) works.
func (e *RPCError) Is(target error) bool {
	t, ok := target.(*RPCError)
	return ok && t.Code == e.Code
}

// Reason returns the "reason" of the first ErrorInfo entry of a 1.0 error's
// data (for example "TASK_NOT_FOUND"), or "" when there is none.
// Entries that are not objects, or have no reason, are skipped.
func (e *RPCError) Reason() string {
	data := bytes.TrimSpace(e.Data)
	if len(data) == 0 || data[0] != '[' {
		return ""
	}
	var entries []json.RawMessage
	if json.Unmarshal(data, &entries) != nil {
		return ""
	}
	for _, raw := range entries {
		var info struct {
			Reason string `json:"reason"`
		}
		if json.Unmarshal(raw, &info) == nil && info.Reason != "" {
			return info.Reason
		}
	}
	return ""
}
