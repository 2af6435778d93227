package a2agrpc

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/transport"
)

// a2aDomain is the domain of the google.rpc.ErrorInfo with which A2A 1.0
// servers name an A2A error in a status's details.
const a2aDomain = "a2a-protocol.org"

// StatusError reports a call that ended with a gRPC status other than OK,
// whether the agent sent it or grpc-go made it of a failed connection. Err
// is what the status means to A2A, when it means something; errors.As finds
// it through the StatusError, and the driver sorts the call as it sorts the
// same error over JSON-RPC:
//
//   - UNAUTHENTICATED: transport.ErrNotAuthenticated, whatever its details
//     (it reaches stream.WithCredentials' hook).
//   - A google.rpc.ErrorInfo of domain a2a-protocol.org among the details
//     (A2A 1.0 servers, and @a2a-js/sdk 1.3.0's 0.3 service): the
//     *a2a.RPCError of its reason (TASK_NOT_FOUND is a2a.CodeTaskNotFound,
//     and so on), read as a2a.ParseHTTPError reads the same google.rpc.Status
//     over HTTP+JSON (a reason A2A does not define reads as if it were not
//     there: by the rows below), with the details as its Data: a google.rpc.RetryInfo
//     among them is its retry hint (a2a.RPCError.RetryAfter), which the
//     driver waits as stream's HTTP bindings wait a Retry-After.
//   - A RetryInfo without an A2A reason, or RESOURCE_EXHAUSTED: the agent is
//     busy. Err is an *a2a.RPCError of code a2a.CodeInternalError (A2A has
//     none for it) marked retryable, with the details as Data: busy on a send
//     (sent again only with stream.WithIdempotentSends), a drop after the
//     wait asked for elsewhere, as a 429 or 503 over HTTP.
//   - Otherwise by code alone, as A2A 0.3 servers send their errors (no
//     details): NOT_FOUND is task not found (-32001); INVALID_ARGUMENT invalid
//     params (-32602). Two codes are ambiguous. UNIMPLEMENTED is method not
//     found (-32601) when its message is gRPC's own for a service or method
//     the server does not have (grpc-go's "unknown service …" and "unknown
//     method …", grpc-js's "… does not implement the method …"), as a 0.3-only
//     server refuses a 1.0 call, which the Client then makes in 0.3, but only
//     when the server sent the status alone, as gRPC servers answer a method
//     they lack: after response headers a handler ran and may have taken the
//     request, so the status has no A2A meaning (Err is nil); with any
//     other message it is unsupported operation (-32004), since @a2a-js/sdk
//     0.3.14 sends both -32003 and -32004 as UNIMPLEMENTED. FAILED_PRECONDITION
//     is task not cancelable (-32002) on a cancel, and unsupported operation
//     (-32004) on the other calls (0.3 servers send -32002 and -32007 so, and
//     1.0 servers their refusal of a subscribe to an ended task).
//   - PERMISSION_DENIED matches transport.ErrPermissionDenied (as a 403 does
//     over HTTP), whatever Err is: it ends the stream, not made again.
//   - Any other code means nothing to A2A: Err is nil, and the call is a drop,
//     made again as a lost connection is. A transport's UNAVAILABLE (a
//     connection lost, grpc-go's own) is one: a drop, never busy.
//
// RESOURCE_EXHAUSTED of a message over gRPC's size limit is not busy: the
// error is a *transport.ProtocolError, or wraps transport.ErrInvalidMessage
// (see Transport), with the StatusError inside. GRPCStatus returns the
// status, so status.FromError and status.Code read it too.
type StatusError struct {
	Code    codes.Code
	Message string // the status's message, as sent
	Target  string // the Transport's target
	Method  string // the call's full method, "/lf.a2a.v1.A2AService/GetTask"
	Err     error
	status  *status.Status
}

// Error reads like "stream: gRPC NotFound from 127.0.0.1:50051
// (/lf.a2a.v1.A2AService/GetTask): no such task", followed by the A2A error
// read of it, if any. The message is cut at 256 bytes.
func (e *StatusError) Error() string {
	s := fmt.Sprintf("stream: gRPC %s from %s (%s): %s", e.Code, e.Target, e.Method, clip(e.Message))
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns Err.
func (e *StatusError) Unwrap() error { return e.Err }

// Is reports whether target is transport.ErrPermissionDenied and the code
// PERMISSION_DENIED.
func (e *StatusError) Is(target error) bool {
	return target == transport.ErrPermissionDenied && e.Code == codes.PermissionDenied
}

// GRPCStatus returns the status the call ended with.
func (e *StatusError) GRPCStatus() *status.Status { return e.status }

// clip cuts a server's text to 256 bytes on a UTF-8 boundary.
func clip(s string) string {
	const max = 256
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// op is a call of the Transport, as far as reading its status goes.
type op int

const (
	opSendStream op = iota
	opSendUnary
	opSubscribe
	opGetTask
	opCancel
	opList
	opPushConfig
	opCard
)

// statusError makes the error of a call that ended with st (not OK).
func (t *Transport) statusError(st *status.Status, o op, method string) error {
	return &StatusError{Code: st.Code(), Message: st.Message(), Target: t.target, Method: method,
		Err: statusMeaning(st, o), status: st}
}

// statusMeaning reads what st means to A2A, as StatusError says, for a
// call of kind o.
func statusMeaning(st *status.Status, o op) error {
	if st.Code() == codes.Unauthenticated {
		return transport.ErrNotAuthenticated
	}
	st = withoutBadRetryInfo(st)
	var (
		a2aInfo, retry bool
	)
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			if d.GetDomain() == a2aDomain && d.GetReason() != "" {
				a2aInfo = true
			}
		case *errdetails.RetryInfo:
			retry = true
		}
	}
	data := detailsJSON(st)
	if a2aInfo {
		// With no HTTP status, only a reason A2A defines names an error:
		// one it does not (a later version's) reads by the gRPC code below,
		// which says more than the HTTP status it maps to (ABORTED is no
		// "task not cancelable", as a 409 would read).
		if body, err := protojson.Marshal(st.Proto()); err == nil {
			if rpcErr, ok := a2a.ParseHTTPError(0, body); ok {
				return rpcErr
			}
		}
	}
	if retry || st.Code() == codes.ResourceExhausted {
		if !retry {
			data = json.RawMessage(`{"retryable":true}`)
		}
		return &a2a.RPCError{Code: a2a.CodeInternalError, Message: st.Message(), Data: data}
	}
	code := 0
	switch st.Code() {
	case codes.NotFound:
		code = a2a.CodeTaskNotFound
	case codes.InvalidArgument:
		code = a2a.CodeInvalidParams
	case codes.Unimplemented:
		code = a2a.CodeUnsupportedOperation
		if grpcNoSuchMethod(st.Message()) {
			code = a2a.CodeMethodNotFound
		}
	case codes.FailedPrecondition:
		code = a2a.CodeUnsupportedOperation
		if o == opCancel {
			code = a2a.CodeTaskNotCancelable
		}
	default:
		return nil
	}
	return &a2a.RPCError{Code: code, Message: st.Message(), Data: data}
}

// withoutBadRetryInfo returns st without its RetryInfo details whose delay
// is no valid Duration (seconds out of range, or seconds and nanos of
// other signs), which protobuf does not check and no JSON can carry: such
// a hint is no hint, and the status means what its code and its other
// details say.
func withoutBadRetryInfo(st *status.Status) *status.Status {
	p := st.Proto()
	keep := make([]*anypb.Any, 0, len(p.GetDetails()))
	for _, a := range p.GetDetails() {
		var ri errdetails.RetryInfo
		if a.MessageIs(&ri) && (a.UnmarshalTo(&ri) != nil || ri.GetRetryDelay() != nil && !ri.GetRetryDelay().IsValid()) {
			continue
		}
		keep = append(keep, a)
	}
	if len(keep) == len(p.GetDetails()) {
		return st
	}
	p.Details = keep
	return status.FromProto(p)
}

// grpcNoSuchMethod reports the messages with which gRPC servers answer a
// call of a service or method they do not have.
func grpcNoSuchMethod(msg string) bool {
	m := strings.ToLower(msg)
	return strings.HasPrefix(m, "unknown service") || strings.HasPrefix(m, "unknown method") ||
		strings.Contains(m, "does not implement the method")
}

// detailsJSON returns a status's details as the JSON array an A2A 1.0
// error's data is, or nil when it has none (or one that does not encode:
// its type is not linked in).
func detailsJSON(st *status.Status) json.RawMessage {
	ds := st.Proto().GetDetails()
	if len(ds) == 0 {
		return nil
	}
	out := make([]json.RawMessage, 0, len(ds))
	for _, d := range ds {
		b, err := protojson.Marshal(d)
		if err != nil {
			continue
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		return nil
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil
	}
	return b
}

// breakerStatus reports the codes a Breaker is told as failures when a
// call ends with them before its response headers: those of a server that
// is down, overloaded or failing, as stream's HTTP bindings tell it 408,
// 429 and 5xx. The others are the agent's answers.
func breakerStatus(c codes.Code) bool {
	switch c {
	case codes.Unavailable, codes.ResourceExhausted, codes.Internal, codes.Unknown,
		codes.DeadlineExceeded, codes.Aborted, codes.DataLoss:
		return true
	}
	return false
}
