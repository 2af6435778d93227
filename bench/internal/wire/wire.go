// Package wire renders A2A streaming events in the byte shapes that real
// servers send, for the benchmark server and the in-memory transports.
//
// Version "0.3" follows the a2a-go v0.3.3 captures: an id line before every
// data line, objects carrying "kind", keys in Go struct order, append and
// lastChunk left out when false. Version "1.0" follows the @a2a-js/sdk 1.3.0
// captures: no id line, results wrapped in task / statusUpdate /
// artifactUpdate, "metadata":{} on every object and a mediaType on parts.
//
// With Writer.REST set, the events are framed as the HTTP+JSON (REST)
// binding sends them (the @a2a-js/sdk restHandler captures): a data line
// holds a bare StreamResponse, {"task"|"statusUpdate"|"artifactUpdate":…},
// with no JSON-RPC envelope and no id line. In 1.0 that object is the same
// as the JSON-RPC result. In 0.3 it is the proto-JSON of the v0.3 proto
// (js 0.3.14): a message's parts under "content", no metadata or mediaType,
// and "final":true on the last status update.
package wire

import (
	"encoding/json"
	"strconv"
)

// Versions are the wire versions the benchmarks render.
var Versions = []string{"0.3", "1.0"}

// Timestamp is the fixed status timestamp of every rendered status.
const Timestamp = "2026-11-22T02:52:44.128482303Z"

// UUID returns a deterministic UUID-shaped identifier for (kind, n). IDs of
// different n differ in their first bytes, as random UUIDs do.
func UUID(kind byte, n uint64) string {
	x := (n+1)*0x9E3779B97F4A7C15 ^ uint64(kind)<<56
	y := x*0xBF58476D1CE4E5B9 ^ x>>31
	b := make([]byte, 0, 36)
	b = appendHex(b, x>>32, 8)
	b = append(b, '-')
	b = appendHex(b, x>>16, 4)
	b = append(b, '-', '4')
	b = appendHex(b, x, 3)
	b = append(b, '-', '8')
	b = appendHex(b, y>>52, 3)
	b = append(b, '-')
	b = appendHex(b, y, 12)
	return string(b)
}

func appendHex(b []byte, v uint64, digits int) []byte {
	const hex = "0123456789abcdef"
	for i := digits - 1; i >= 0; i-- {
		b = append(b, hex[(v>>(4*uint(i)))&0xF])
	}
	return b
}

// Task identifies the task of one rendered stream.
type Task struct {
	ID, ContextID, UserMsgID string
}

// NewTask returns the identifiers of task number n.
func NewTask(n uint64) Task {
	return Task{ID: UUID('t', n), ContextID: UUID('c', n), UserMsgID: UUID('u', n)}
}

// Writer appends rendered SSE events to Buf. ReqID is the raw JSON value of
// the request's id member, echoed in every response; REST renders the
// HTTP+JSON binding's framing and shapes instead, and ignores ReqID.
type Writer struct {
	V     string
	REST  bool
	ReqID []byte
	Buf   []byte
	n     uint64
}

// kinded reports whether the objects are the flat 0.3 JSON-RPC ones with
// "kind"; otherwise they are StreamResponse wrappers.
func (w *Writer) kinded() bool { return w.V == "0.3" && !w.REST }

// proto03 reports whether the objects are the 0.3 proto-JSON of REST.
func (w *Writer) proto03() bool { return w.V == "0.3" && w.REST }

func (w *Writer) open() {
	w.n++
	if w.REST {
		w.Buf = append(w.Buf, "data: "...)
		return
	}
	if w.V == "0.3" {
		w.Buf = append(w.Buf, "id: "...)
		w.Buf = append(w.Buf, UUID('e', w.n-1)...)
		w.Buf = append(w.Buf, '\n')
	}
	w.Buf = append(w.Buf, `data: {"jsonrpc":"2.0","id":`...)
	w.Buf = append(w.Buf, w.ReqID...)
	w.Buf = append(w.Buf, `,"result":`...)
}

func (w *Writer) close() {
	if w.REST {
		w.Buf = append(w.Buf, "\n\n"...)
		return
	}
	w.Buf = append(w.Buf, "}\n\n"...)
}

// str appends s as a JSON string; s must need no escaping unless esc.
func (w *Writer) str(s string) {
	w.Buf = append(w.Buf, '"')
	w.Buf = append(w.Buf, s...)
	w.Buf = append(w.Buf, '"')
}

// TaskEvent appends the task's first event, state submitted, with the
// user's message in its history.
func (w *Writer) TaskEvent(t Task) {
	w.open()
	if w.kinded() {
		w.Buf = append(w.Buf, `{"kind":"task","id":`...)
		w.str(t.ID)
		w.Buf = append(w.Buf, `,"contextId":`...)
		w.str(t.ContextID)
		w.Buf = append(w.Buf, `,"history":[{"kind":"message","messageId":`...)
		w.str(t.UserMsgID)
		w.Buf = append(w.Buf, `,"parts":[{"kind":"text","text":"hello"}],"role":"user"}],"status":{"state":"submitted"}}`...)
	} else {
		w.Buf = append(w.Buf, `{"task":{"id":`...)
		w.str(t.ID)
		w.Buf = append(w.Buf, `,"contextId":`...)
		w.str(t.ContextID)
		w.Buf = append(w.Buf, `,"status":{"state":"TASK_STATE_SUBMITTED","timestamp":"`+Timestamp+`"},"history":[{"messageId":`...)
		w.str(t.UserMsgID)
		w.Buf = append(w.Buf, `,"contextId":`...)
		w.str(t.ContextID)
		w.Buf = append(w.Buf, `,"taskId":`...)
		w.str(t.ID)
		if w.proto03() {
			w.Buf = append(w.Buf, `,"role":"ROLE_USER","content":[{"text":"hello"}]}]}}`...)
		} else {
			w.Buf = append(w.Buf, `,"role":"ROLE_USER","parts":[{"text":"hello"}]}],"metadata":{}}}`...)
		}
	}
	w.close()
}

// Status appends a status update. state is the 0.3 spelling (working,
// completed, …); msgID, when not empty, adds an agent status message
// with that ID and text.
func (w *Writer) Status(t Task, state, msgID, text string, final bool) {
	w.open()
	if w.kinded() {
		w.Buf = append(w.Buf, `{"kind":"status-update","contextId":`...)
		w.str(t.ContextID)
		w.Buf = append(w.Buf, `,"final":`...)
		w.Buf = strconv.AppendBool(w.Buf, final)
		w.Buf = append(w.Buf, `,"status":{`...)
		if msgID != "" {
			w.Buf = append(w.Buf, `"message":{"kind":"message","messageId":`...)
			w.str(msgID)
			w.Buf = append(w.Buf, `,"contextId":`...)
			w.str(t.ContextID)
			w.Buf = append(w.Buf, `,"parts":[{"kind":"text","text":`...)
			w.str(text)
			w.Buf = append(w.Buf, `}],"role":"agent","taskId":`...)
			w.str(t.ID)
			w.Buf = append(w.Buf, `},`...)
		}
		w.Buf = append(w.Buf, `"state":"`...)
		w.Buf = append(w.Buf, state...)
		w.Buf = append(w.Buf, `","timestamp":"`+Timestamp+`"},"taskId":`...)
		w.str(t.ID)
		w.Buf = append(w.Buf, '}')
	} else {
		w.Buf = append(w.Buf, `{"statusUpdate":{"taskId":`...)
		w.str(t.ID)
		w.Buf = append(w.Buf, `,"contextId":`...)
		w.str(t.ContextID)
		w.Buf = append(w.Buf, `,"status":{"state":"`...)
		w.Buf = append(w.Buf, state10(state)...)
		w.Buf = append(w.Buf, '"')
		if msgID != "" {
			w.Buf = append(w.Buf, `,"message":{"messageId":`...)
			w.str(msgID)
			w.Buf = append(w.Buf, `,"contextId":`...)
			w.str(t.ContextID)
			w.Buf = append(w.Buf, `,"taskId":`...)
			w.str(t.ID)
			if w.proto03() {
				w.Buf = append(w.Buf, `,"role":"ROLE_AGENT","content":[{"text":`...)
				w.str(text)
				w.Buf = append(w.Buf, `}]}`...)
			} else {
				w.Buf = append(w.Buf, `,"role":"ROLE_AGENT","parts":[{"text":`...)
				w.str(text)
				w.Buf = append(w.Buf, `,"metadata":{},"mediaType":"text/plain"}],"metadata":{}}`...)
			}
		}
		w.Buf = append(w.Buf, `,"timestamp":"`+Timestamp+`"}`...)
		switch {
		case !w.proto03():
			w.Buf = append(w.Buf, `,"metadata":{}}}`...)
		case final:
			w.Buf = append(w.Buf, `,"final":true}}`...)
		default:
			w.Buf = append(w.Buf, `}}`...)
		}
	}
	w.close()
}

func state10(s string) string {
	switch s {
	case "working":
		return "TASK_STATE_WORKING"
	case "completed":
		return "TASK_STATE_COMPLETED"
	case "submitted":
		return "TASK_STATE_SUBMITTED"
	case "input-required":
		return "TASK_STATE_INPUT_REQUIRED"
	}
	return "TASK_STATE_UNSPECIFIED"
}

// Artifact appends an artifact update carrying one text part. text is
// written as is and must be a valid JSON string body (escapes allowed).
// The first chunk of an artifact (append false) carries its name.
func (w *Writer) Artifact(t Task, artifactID, text string, appendPart, last bool) {
	w.open()
	if w.kinded() {
		w.Buf = append(w.Buf, `{"kind":"artifact-update",`...)
		if appendPart {
			w.Buf = append(w.Buf, `"append":true,`...)
		}
		w.Buf = append(w.Buf, `"artifact":{"artifactId":`...)
		w.str(artifactID)
		if !appendPart {
			w.Buf = append(w.Buf, `,"name":"stream"`...)
		}
		w.Buf = append(w.Buf, `,"parts":[{"kind":"text","text":`...)
		w.str(text)
		w.Buf = append(w.Buf, `}]},"contextId":`...)
		w.str(t.ContextID)
		if last {
			w.Buf = append(w.Buf, `,"lastChunk":true`...)
		}
		w.Buf = append(w.Buf, `,"taskId":`...)
		w.str(t.ID)
		w.Buf = append(w.Buf, '}')
	} else {
		w.Buf = append(w.Buf, `{"artifactUpdate":{"taskId":`...)
		w.str(t.ID)
		w.Buf = append(w.Buf, `,"contextId":`...)
		w.str(t.ContextID)
		w.Buf = append(w.Buf, `,"artifact":{"artifactId":`...)
		w.str(artifactID)
		if !appendPart {
			w.Buf = append(w.Buf, `,"name":"stream"`...)
		}
		w.Buf = append(w.Buf, `,"parts":[{"text":`...)
		w.str(text)
		if w.proto03() {
			w.Buf = append(w.Buf, `}]}`...)
		} else {
			w.Buf = append(w.Buf, `,"metadata":{},"mediaType":"text/plain"}],"metadata":{}}`...)
		}
		if appendPart {
			w.Buf = append(w.Buf, `,"append":true`...)
		}
		if last {
			w.Buf = append(w.Buf, `,"lastChunk":true`...)
		}
		if w.proto03() {
			w.Buf = append(w.Buf, `}}`...)
		} else {
			w.Buf = append(w.Buf, `,"metadata":{}}}`...)
		}
	}
	w.close()
}

// ChunkText appends the text of chunk i of a throughput stream: a few words
// of model output, as LLM agents stream them.
func ChunkText(b []byte, i int) []byte {
	b = append(b, "token "...)
	b = strconv.AppendInt(b, int64(i), 10)
	return append(b, " of the streamed report "...)
}

// BigText returns n bytes of JSON string body: prose with an escaped
// newline every 80 bytes or so, as model output has.
func BigText(n int) string {
	const line = `The quick brown fox jumps over the lazy dog; lorem ipsum dolor sit amet.`
	b := make([]byte, 0, n)
	for len(b) < n {
		b = append(b, line...)
		b = append(b, `\n`...)
	}
	b = b[:n]
	if b[n-1] == '\\' {
		b[n-1] = '.' // never cut an escape in two
	}
	return string(b)
}

// Request is what the server needs from a JSON-RPC request.
type Request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ID string `json:"id"`
	} `json:"params"`
}

// IsV03Method reports whether the method is a 0.3 name.
func IsV03Method(m string) bool {
	switch m {
	case "message/stream", "tasks/resubscribe", "tasks/get", "tasks/cancel", "message/send":
		return true
	}
	return false
}

// TaskResponse appends a unary JSON-RPC response (no SSE framing) holding
// the whole task in the 0.3 shape: one artifact of nparts text parts whose
// text text(i) gives, and the given state.
func (w *Writer) TaskResponse(t Task, state, artifactID string, nparts int, text func([]byte, int) []byte) {
	w.Buf = append(w.Buf, `{"jsonrpc":"2.0","id":`...)
	w.Buf = append(w.Buf, w.ReqID...)
	w.Buf = append(w.Buf, `,"result":{"kind":"task","id":`...)
	w.str(t.ID)
	w.Buf = append(w.Buf, `,"contextId":`...)
	w.str(t.ContextID)
	if nparts > 0 {
		w.Buf = append(w.Buf, `,"artifacts":[{"artifactId":`...)
		w.str(artifactID)
		w.Buf = append(w.Buf, `,"name":"stream","parts":[`...)
		for i := range nparts {
			if i > 0 {
				w.Buf = append(w.Buf, ',')
			}
			w.Buf = append(w.Buf, `{"kind":"text","text":"`...)
			w.Buf = text(w.Buf, i)
			w.Buf = append(w.Buf, `"}`...)
		}
		w.Buf = append(w.Buf, `]}]`...)
	}
	w.Buf = append(w.Buf, `,"history":[{"kind":"message","messageId":`...)
	w.str(t.UserMsgID)
	w.Buf = append(w.Buf, `,"parts":[{"kind":"text","text":"hello"}],"role":"user"}],"status":{"state":"`...)
	w.Buf = append(w.Buf, state...)
	w.Buf = append(w.Buf, `","timestamp":"`+Timestamp+`"}}}`...)
}
