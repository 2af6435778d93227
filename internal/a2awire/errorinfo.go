package a2awire

// Domain is the ErrorInfo domain of A2A errors.
const Domain = "a2a-protocol.org"

// The type URLs of the google.rpc details an A2A 1.0 error carries.
const (
	ErrorInfoType = "type.googleapis.com/google.rpc.ErrorInfo"
	RetryInfoType = "type.googleapis.com/google.rpc.RetryInfo"
)

// RestError says how an error code is written in 1.0 over HTTP+JSON: the
// HTTP status and google.rpc.Code name of S10 §5.4 and §11.6 (as
// @a2a-js/sdk 1.3.0 sends them), and the ErrorInfo reason, which a 1.0
// JSON-RPC error carries too.
type RestError struct {
	Status int
	Name   string
	Reason string
}

// Rest returns how code is written in 1.0 (see [RestError]), for the codes
// of A2A and of JSON-RPC (a2a.CodeTaskNotFound and so on); false for any
// other.
func Rest(code int) (RestError, bool) {
	switch code {
	case -32001: // task not found
		return RestError{404, "NOT_FOUND", "TASK_NOT_FOUND"}, true
	case -32002: // task not cancelable
		return RestError{400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE"}, true
	case -32003: // push notification not supported
		return RestError{400, "FAILED_PRECONDITION", "PUSH_NOTIFICATION_NOT_SUPPORTED"}, true
	case -32004: // unsupported operation
		return RestError{400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION"}, true
	case -32005: // content type not supported
		return RestError{400, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED"}, true
	case -32006: // invalid agent response
		return RestError{500, "INTERNAL", "INVALID_AGENT_RESPONSE"}, true
	case -32007: // extended agent card not configured
		return RestError{400, "FAILED_PRECONDITION", "EXTENDED_AGENT_CARD_NOT_CONFIGURED"}, true
	case -32008: // extension support required
		return RestError{400, "FAILED_PRECONDITION", "EXTENSION_SUPPORT_REQUIRED"}, true
	case -32009: // version not supported
		return RestError{400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED"}, true
	case -32700: // parse error
		return RestError{400, "INVALID_ARGUMENT", "PARSE_ERROR"}, true
	case -32600: // invalid request
		return RestError{400, "INVALID_ARGUMENT", "INVALID_REQUEST"}, true
	case -32602: // invalid params
		return RestError{400, "INVALID_ARGUMENT", "INVALID_PARAMS"}, true
	case -32601: // method not found
		return RestError{501, "UNIMPLEMENTED", "METHOD_NOT_FOUND"}, true
	case -32603: // internal error
		return RestError{500, "INTERNAL", "INTERNAL_ERROR"}, true
	}
	return RestError{}, false
}
