package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// dialect is the JSON one (binding, version) pair speaks, written by hand
// after the A2A specifications:
//
//   - 0.3 JSON-RPC: flat objects told apart by "kind" ("task",
//     "status-update", "artifact-update"), states "working", parts
//     {"kind":"text","text":…}, roles "user" and "agent", "final" on status
//     updates (A2A 0.3 §6, types.ts).
//   - 0.3 HTTP+JSON: proto-JSON of the v0.3 proto: the StreamResponse
//     wrapper {"task"|"statusUpdate"|"artifactUpdate": …}, states
//     TASK_STATE_*, roles ROLE_*, a message's parts under "content", parts
//     without "kind", "final" kept.
//   - 1.0, both bindings: the StreamResponse wrapper, states TASK_STATE_*,
//     roles ROLE_*, parts {"text":…}, no "kind" and no "final" (A2A 1.0 §5.5,
//     a2a.proto).
type dialect struct{ rest, v10 bool }

// flat reports the 0.3 JSON-RPC dialect.
func (d dialect) flat() bool { return !d.rest && !d.v10 }

// str is s as a JSON string.
func str(s string) string {
	b, err := json.Marshal(s)
	if err != nil { // a Go string always marshals
		return `""`
	}
	return string(b)
}

// state writes a task state ("working", "completed", …) in the dialect.
func (d dialect) state(s string) string {
	if d.flat() {
		return str(s)
	}
	return str("TASK_STATE_" + strings.ToUpper(strings.ReplaceAll(s, "-", "_")))
}

// part writes a text part.
func (d dialect) part(text string) string {
	if d.flat() {
		return `{"kind":"text","text":` + str(text) + `}`
	}
	return `{"text":` + str(text) + `}`
}

// parts writes a list of text parts.
func (d dialect) parts(texts []string) string {
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = d.part(t)
	}
	return "[" + strings.Join(out, ",") + "]"
}

// message writes a message of one text part: the user's, as the task's
// history holds it, or the agent's, as a status holds it. role is "user"
// or "agent".
func (d dialect) message(role, id, text, taskID, contextID string) string {
	ids := `"messageId":` + str(id) + `,"taskId":` + str(taskID) + `,"contextId":` + str(contextID)
	switch {
	case d.flat():
		return `{"kind":"message","role":` + str(role) + `,` + ids + `,"parts":` + d.parts([]string{text}) + `}`
	case !d.v10: // 0.3 proto-JSON: the parts are the message's "content"
		return `{"role":` + str("ROLE_"+strings.ToUpper(role)) + `,` + ids + `,"content":` + d.parts([]string{text}) + `}`
	}
	return `{"role":` + str("ROLE_"+strings.ToUpper(role)) + `,` + ids + `,"parts":` + d.parts([]string{text}) + `}`
}

// status writes a task status: its state, and the agent's message when
// there is one.
func (d dialect) status(t taskView) string {
	s := `{"state":` + d.state(t.state)
	if t.message != "" {
		s += `,"message":` + d.message("agent", t.messageID, t.message, t.id, t.contextID)
	}
	return s + "}"
}

// artifact writes an artifact (or one chunk of it).
func (d dialect) artifact(a artifact) string {
	s := `{"artifactId":` + str(a.id)
	if a.name != "" {
		s += `,"name":` + str(a.name)
	}
	return s + `,"parts":` + d.parts(a.parts) + `}`
}

// task writes a task: its status, history and artifacts.
func (d dialect) task(t taskView) string {
	s := "{"
	if d.flat() {
		s += `"kind":"task",`
	}
	s += `"id":` + str(t.id) + `,"contextId":` + str(t.contextID) + `,"status":` + d.status(t)
	s += `,"history":[` + d.message("user", t.user.id, t.user.text, t.id, t.contextID) + `]`
	if len(t.artifacts) > 0 {
		arts := make([]string, len(t.artifacts))
		for i, a := range t.artifacts {
			arts[i] = d.artifact(a)
		}
		s += `,"artifacts":[` + strings.Join(arts, ",") + `]`
	}
	return s + "}"
}

// event writes one stream event as a stream result: the flat object in 0.3
// JSON-RPC, else the StreamResponse wrapper. The task snapshot is view.
func (d dialect) event(e event, view taskView) string {
	ids := `"taskId":` + str(view.id) + `,"contextId":` + str(view.contextID)
	switch e.kind {
	case evTask:
		if d.flat() {
			return d.task(view)
		}
		return `{"task":` + d.task(view) + `}`
	case evStatus:
		s := ids + `,"status":` + d.status(view)
		if d.flat() {
			return `{"kind":"status-update",` + s + `,"final":` + strconv.FormatBool(e.final) + `}`
		}
		if !d.v10 { // 0.3 proto-JSON keeps "final"
			s += `,"final":` + strconv.FormatBool(e.final)
		}
		return `{"statusUpdate":{` + s + `}}`
	}
	s := ids + `,"artifact":` + d.artifact(e.artifact) + `,"append":` + strconv.FormatBool(e.append) + `,"lastChunk":` + strconv.FormatBool(e.lastChunk)
	if d.flat() {
		return `{"kind":"artifact-update",` + s + `}`
	}
	return `{"artifactUpdate":{` + s + `}}`
}

// sendResult writes the result of a unary send that started a task: the
// bare Task in 0.3 JSON-RPC, {"task": …} elsewhere (1.0's
// SendMessageResponse, and the v0.3 proto's).
func (d dialect) sendResult(view taskView) string {
	if d.flat() {
		return d.task(view)
	}
	return `{"task":` + d.task(view) + `}`
}

// rpcError is an A2A error as the wire carries it: code, message, and the
// JSON of its data (0.3: an object; 1.0: an array of details), or "".
type rpcError struct {
	code    int
	message string
	data    string
}

// object writes the JSON-RPC error object {"code","message","data"}.
func (e rpcError) object() string {
	s := `{"code":` + strconv.Itoa(e.code) + `,"message":` + str(e.message)
	if e.data != "" {
		s += `,"data":` + e.data
	}
	return s + "}"
}

// The error codes the agent answers with (A2A 0.3 §8, 1.0 §5.4).
const (
	codeInternal       = -32603
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeTaskNotFound   = -32001
	codeUnsupported    = -32004
)

// errorInfo writes a google.rpc.ErrorInfo detail of the A2A domain.
func errorInfo(reason string) string {
	return `{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":` + str(reason) + `,"domain":"a2a-protocol.org"}`
}

// retryInfo writes a google.rpc.RetryInfo detail: its retryDelay is a
// google.protobuf.Duration, in JSON a decimal count of seconds with the
// suffix "s" ("1s", "0.2s").
func retryInfo(d time.Duration) string {
	return `{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":` + str(strconv.FormatFloat(d.Seconds(), 'f', -1, 64)+"s") + `}`
}

// wholeSeconds is d in whole seconds, rounded up: A2A 0.3's retryAfter and
// the HTTP Retry-After header are integral.
func wholeSeconds(d time.Duration) int {
	return int(math.Ceil(d.Seconds()))
}

// retryError is an internal error the server marks as retryable, in the
// shapes of A2A's error-handling guides:
//
//   - 0.3: the JSON-RPC error's data is {"retryable":true,"retryAfter":N},
//     N in whole seconds, as the guide writes it;
//   - 1.0: the data is an array of details (google.protobuf.Any objects,
//     A2A 1.0 §9.5), a google.rpc.ErrorInfo with reason INTERNAL_ERROR in
//     the a2a-protocol.org domain (§5.4) and a google.rpc.RetryInfo with its
//     retryDelay.
func (a *agent) retryError(message string) rpcError {
	e := rpcError{code: codeInternal, message: message}
	if a.d.v10 {
		e.data = "[" + errorInfo("INTERNAL_ERROR") + "," + retryInfo(a.faults.retryAfter) + "]"
	} else {
		e.data = `{"retryable":true,"retryAfter":` + strconv.Itoa(wholeSeconds(a.faults.retryAfter)) + `}`
	}
	return e
}

// plainError is an A2A error without retry hints: in 1.0 its data is the
// ErrorInfo of its reason.
func (a *agent) plainError(code int, message string) rpcError {
	e := rpcError{code: code, message: message}
	if a.d.v10 {
		e.data = "[" + errorInfo(reasons[code]) + "]"
	}
	return e
}

// reasons are the ErrorInfo reasons of the codes (A2A 1.0 §5.4).
var reasons = map[int]string{
	codeInternal:       "INTERNAL_ERROR",
	codeMethodNotFound: "METHOD_NOT_FOUND",
	codeInvalidParams:  "INVALID_PARAMS",
	codeTaskNotFound:   "TASK_NOT_FOUND",
	codeUnsupported:    "UNSUPPORTED_OPERATION",
}

// restStatus is the HTTP status and google.rpc.Code name of an A2A error
// over HTTP+JSON (A2A 1.0 §11.6; @a2a-js/sdk 0.3's restHandler uses the
// same statuses for these codes).
func restStatus(code int) (int, string) {
	switch code {
	case codeTaskNotFound, codeMethodNotFound:
		return 404, "NOT_FOUND"
	case codeInvalidParams:
		return 400, "INVALID_ARGUMENT"
	case codeUnsupported:
		return 400, "FAILED_PRECONDITION"
	}
	return 500, "INTERNAL"
}

// restBody writes an A2A error as an HTTP+JSON error body: in 1.0 a
// google.rpc.Status in an "error" member, its details the error's data; in
// 0.3 the bare JSON-RPC error object, as @a2a-js/sdk 0.3 writes it.
func (a *agent) restBody(e rpcError, status int, name string) string {
	if !a.d.v10 {
		return e.object()
	}
	details := e.data
	if details == "" {
		details = "[]"
	}
	return fmt.Sprintf(`{"error":{"code":%d,"status":%s,"message":%s,"details":%s}}`, status, str(name), str(e.message), details)
}
