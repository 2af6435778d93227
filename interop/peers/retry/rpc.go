package main

import (
	"encoding/json"
	"io"
	"net/http"
)

// rpcReplier answers a JSON-RPC 2.0 call: every answer has HTTP status 200,
// a result or an error in an envelope that echoes the request's id, as a
// JSON body or (streams) one envelope per SSE event (A2A 0.3 §7.2.1, 1.0
// §9.4.2).
type rpcReplier struct {
	w  http.ResponseWriter
	id json.RawMessage
}

func (r rpcReplier) envelope(member, value string) string {
	id := string(r.id)
	if id == "" {
		id = "null"
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"` + member + `":` + value + `}`
}

func (r rpcReplier) body(s string) {
	r.w.Header().Set("Content-Type", "application/json")
	io.WriteString(r.w, s)
}

func (r rpcReplier) result(v string)        { r.body(r.envelope("result", v)) }
func (r rpcReplier) fail(e rpcError)        { r.body(r.envelope("error", e.object())) }
func (r rpcReplier) busy(e rpcError)        { r.fail(e) }
func (r rpcReplier) open()                  { sseHeaders(r.w) }
func (r rpcReplier) event(v string) error   { return sseData(r.w, r.envelope("result", v)) }
func (r rpcReplier) streamError(e rpcError) { _ = sseData(r.w, r.envelope("error", e.object())) }

// The JSON-RPC methods of each version (A2A 0.3 §7, 1.0 §9.4).
var methods = map[bool]map[string]string{
	false: {"message/send": "send", "message/stream": "stream", "tasks/get": "get", "tasks/resubscribe": "subscribe"},
	true:  {"SendMessage": "send", "SendStreamingMessage": "stream", "GetTask": "get", "SubscribeToTask": "subscribe"},
}

// serveRPC dispatches one JSON-RPC call. A method of the other version, or
// any other, is method-not-found.
func (a *agent) serveRPC(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	body, err := io.ReadAll(r.Body)
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	rp := rpcReplier{w: w, id: req.ID}
	if err != nil {
		rp.fail(rpcError{code: -32700, message: "parse error"})
		return
	}
	var task struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(req.Params, &task)
	switch methods[a.d.v10][req.Method] {
	case "send":
		a.send(r, rp, req.Params, false)
	case "stream":
		a.send(r, rp, req.Params, true)
	case "get":
		a.get(r, rp, task.ID)
	case "subscribe":
		a.subscribe(r, rp, task.ID)
	default:
		rp.fail(a.plainError(codeMethodNotFound, "method not found: "+req.Method))
	}
}
