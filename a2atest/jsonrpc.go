package a2atest

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"slices"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/clip"
)

// op is what a JSON-RPC method asks for, whatever its version's name for it.
type op int

const (
	opSend op = iota + 1
	opStream
	opGet
	opCancel
	opSubscribe
	opPushSet    // a push-config call: set (0.3), create (1.0)
	opPushGet    // get a push config
	opPushList   // list a task's push configs
	opPushDelete // delete a push config
)

// pushOp reports the push-config calls.
func (o op) pushOp() bool { return o >= opPushSet && o <= opPushDelete }

// lookupMethod maps a JSON-RPC method name to its operation and version.
func lookupMethod(m string) (op, a2a.Version, bool) {
	switch m {
	case "message/send":
		return opSend, a2a.V03, true
	case "message/stream":
		return opStream, a2a.V03, true
	case "tasks/get":
		return opGet, a2a.V03, true
	case "tasks/cancel":
		return opCancel, a2a.V03, true
	case "tasks/resubscribe":
		return opSubscribe, a2a.V03, true
	case "SendMessage":
		return opSend, a2a.V10, true
	case "SendStreamingMessage":
		return opStream, a2a.V10, true
	case "GetTask":
		return opGet, a2a.V10, true
	case "CancelTask":
		return opCancel, a2a.V10, true
	case "SubscribeToTask":
		return opSubscribe, a2a.V10, true
	case "tasks/pushNotificationConfig/set":
		return opPushSet, a2a.V03, true
	case "tasks/pushNotificationConfig/get":
		return opPushGet, a2a.V03, true
	case "tasks/pushNotificationConfig/list":
		return opPushList, a2a.V03, true
	case "tasks/pushNotificationConfig/delete":
		return opPushDelete, a2a.V03, true
	case "CreateTaskPushNotificationConfig":
		return opPushSet, a2a.V10, true
	case "GetTaskPushNotificationConfig":
		return opPushGet, a2a.V10, true
	case "ListTaskPushNotificationConfigs":
		return opPushList, a2a.V10, true
	case "DeleteTaskPushNotificationConfig":
		return opPushDelete, a2a.V10, true
	}
	return 0, "", false
}

// methodName is the JSON-RPC method of operation o in version v, the
// inverse of lookupMethod.
func methodName(o op, v a2a.Version) string {
	var v03, v10 string
	switch o {
	case opSend:
		v03, v10 = "message/send", "SendMessage"
	case opStream:
		v03, v10 = "message/stream", "SendStreamingMessage"
	case opGet:
		v03, v10 = "tasks/get", "GetTask"
	case opCancel:
		v03, v10 = "tasks/cancel", "CancelTask"
	case opSubscribe:
		v03, v10 = "tasks/resubscribe", "SubscribeToTask"
	case opPushSet:
		v03, v10 = "tasks/pushNotificationConfig/set", "CreateTaskPushNotificationConfig"
	case opPushGet:
		v03, v10 = "tasks/pushNotificationConfig/get", "GetTaskPushNotificationConfig"
	case opPushList:
		v03, v10 = "tasks/pushNotificationConfig/list", "ListTaskPushNotificationConfigs"
	case opPushDelete:
		v03, v10 = "tasks/pushNotificationConfig/delete", "DeleteTaskPushNotificationConfig"
	}
	if v == a2a.V03 {
		return v03
	}
	return v10
}

// rpcRequest is a JSON-RPC 2.0 request as the agent reads it.
type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// rpcParams is the union of the parameters of the methods the agent serves.
type rpcParams struct {
	ID            string          `json:"id"`
	Tenant        string          `json:"tenant"`
	Message       json.RawMessage `json:"message"`
	Configuration *sendConfig     `json:"configuration"`
}

// sendConfig is the part of a send's configuration the agent reads.
type sendConfig struct {
	// Blocking is 0.3's: absent means blocking, as in @a2a-js/sdk 0.3
	// ("configuration?.blocking !== false") and a2a-go.
	Blocking *bool `json:"blocking"`
	// ReturnImmediately is 1.0's: it replaces blocking, inverted, and
	// defaults to false (blocking).
	ReturnImmediately bool `json:"returnImmediately"`
	// The webhook of the send, each version's name ([WithPush]).
	TaskPushNotificationConfig json.RawMessage `json:"taskPushNotificationConfig"`
	PushNotificationConfig     json.RawMessage `json:"pushNotificationConfig"`
}

// webhook returns the webhook a send's configuration carries in version
// v, if any.
func (p *rpcParams) webhook(v a2a.Version) *webhook {
	c := p.Configuration
	if c == nil {
		return nil
	}
	return sendHook(v, c.TaskPushNotificationConfig, c.PushNotificationConfig)
}

// nonBlocking reports whether a unary send in version v asks to be answered
// at once. Each version reads only its own field.
func (p *rpcParams) nonBlocking(v a2a.Version) bool {
	c := p.Configuration
	if c == nil {
		return false
	}
	if v == a2a.V03 {
		return c.Blocking != nil && !*c.Blocking
	}
	return c.ReturnImmediately
}

// serveJSONRPC answers one JSON-RPC request: it decodes the envelope into a
// [call], has the agent admit it (record it and pick its fault), checks the
// envelope and the dialect, and hands the call to [exchange.dispatch], which
// does not depend on the envelope.
func (a *Agent) serveJSONRPC(w http.ResponseWriter, r *http.Request, body []byte) {
	var (
		req      rpcRequest
		params   rpcParams
		parseErr = json.Unmarshal(body, &req)
	)
	o, v, known := lookupMethod(req.Method)
	if parseErr == nil && !isNull(req.Params) {
		_ = json.Unmarshal(req.Params, &params) // checked again below
	}
	c := call{op: o, v: v, binding: a2a.BindingJSONRPC, method: req.Method, taskID: params.ID}
	if (o == opSend || o == opStream) && !isNull(params.Message) {
		if m, err := (a2a.Codec{}).DecodeMessage(params.Message); err == nil {
			c.msg, c.taskID = m, m.TaskID
		}
	}
	if o == opSend {
		c.nonBlocking = params.nonBlocking(v)
	}
	if o == opSend || o == opStream {
		c.hook = params.webhook(v)
	}
	var complaint string
	if o.pushOp() && parseErr == nil && !isNull(req.Params) {
		complaint = readPushCall(&c, req.Params)
	}
	rec := a.admit(Request{
		Method:      req.Method,
		Version:     r.Header.Get("A2A-Version"),
		Header:      r.Header.Clone(),
		TaskID:      c.taskID,
		Tenant:      params.Tenant,
		Message:     c.msg.Clone(),
		NonBlocking: c.nonBlocking,
		Binding:     a2a.BindingJSONRPC,
		HTTPMethod:  r.Method,
		Path:        r.URL.Path,
	}, o, known && parseErr == nil)

	x := &exchange{a: a, sk: &sink{w: w, ctx: r.Context(), fault: rec.Fault}, v: v, op: o, style: rec.Style}
	x.w = &rpcAnswers{x: x, id: req.ID}
	if !known || !a.speaks(v) {
		x.v = a.errVersion()
	}
	switch {
	case rec.Fault.preResponse():
		x.applyPreResponse(rec.Fault)
	case parseErr != nil:
		x.w.fail(a2a.CodeParseError, "parse error: "+parseErr.Error())
	case req.Method == "":
		x.w.fail(a2a.CodeInvalidRequest, "invalid request: no method")
	case !known || !a.speaks(v) || !a.serves(o):
		x.w.fail(a2a.CodeMethodNotFound, "method not found: "+clip.Text(req.Method, clip.Field))
	case v == a2a.V10 && !isV10(r.Header.Get("A2A-Version")):
		x.w.fail(a2a.CodeVersionNotSupported, "A2A protocol version "+quoteVersion(r.Header.Get("A2A-Version"))+" is not supported")
	case isNull(req.Params):
		x.w.fail(a2a.CodeInvalidParams, "invalid params: missing")
	case json.Unmarshal(req.Params, &params) != nil:
		x.w.fail(a2a.CodeInvalidParams, "invalid params")
	case complaint != "":
		x.w.fail(a2a.CodeInvalidParams, complaint)
	default:
		x.dispatch(c)
	}
}

// rpcAnswers writes the answers of the JSON-RPC binding: JSON-RPC responses
// echoing the request's id, as plain JSON with HTTP 200 or as the data of
// SSE events.
type rpcAnswers struct {
	x  *exchange
	id json.RawMessage
}

// unary sends a JSON body as a plain (non-SSE) response, in the agent's
// unary Content-Type ([WithUnaryContentType]).
func (r *rpcAnswers) unary(body []byte) {
	r.x.sk.begin(http.StatusOK, r.x.a.cfg.unaryCT, false)
	r.x.sk.event(body)
}

func (r *rpcAnswers) fail(code int, message string) {
	status := http.StatusOK
	if s := r.x.a.cfg.habits.errorStatus; s != 0 {
		status = s
	}
	r.x.sk.begin(status, r.x.a.cfg.unaryCT, false)
	r.x.sk.event(r.errorJSON(code, message))
}

// errorJSON encodes the exchange's error response, with the retry hint of
// a RetryableError fault when it answers one.
func (r *rpcAnswers) errorJSON(code int, message string) []byte {
	if r.x.retry.on {
		return errorJSONData(r.id, rpcErrorObject{Code: code, Message: message, Data: r.x.retry.data(r.x.v, code)})
	}
	return errorJSON(r.x.v, r.id, code, message)
}

// frame wraps a payload as an SSE event, after a record separator when the
// agent has that habit ([WithRecordSeparator]).
func (r *rpcAnswers) frame(payload []byte, errorEvent bool) []byte {
	if r.x.a.cfg.habits.recordSeparator {
		payload = append([]byte{0x1e}, payload...)
	}
	return sseFrame(payload, errorEvent)
}

// failStream ends a stream that has begun with a JSON-RPC error event.
func (r *rpcAnswers) failStream(code int, message string) {
	r.x.sk.event(r.frame(r.errorJSON(code, message), false))
}

// refuseStream sends a 0.3 refusal as the only event of a stream, as a2a-go
// does; callers send 1.0 refusals with fail.
func (r *rpcAnswers) refuseStream(code int, message string) { r.errorStream(code, message, false) }

func (r *rpcAnswers) errorStream(code int, message string, errorField bool) {
	r.beginStream()
	r.x.sk.event(r.frame(r.errorJSON(code, message), errorField))
}

func (r *rpcAnswers) beginStream() { r.x.sk.begin(http.StatusOK, "text/event-stream", true) }

func (r *rpcAnswers) event(ev a2a.Event) bool {
	var (
		raw []byte
		err error
	)
	if t, ok := ev.(*a2a.Task); ok && r.x.v == a2a.V03 && r.x.a.cfg.habits.snapshots {
		raw, err = untypedTask(t)
	} else {
		raw, err = a2a.Codec{Version: r.x.v}.EncodeEvent(ev)
	}
	if err != nil {
		r.x.sk.event(r.frame(errorJSON(r.x.v, r.id, a2a.CodeInternalError, "a2atest: "+err.Error()), false))
		return false
	}
	return r.x.sk.event(r.frame(resultJSON(r.id, raw), false))
}

func (r *rpcAnswers) sent(ev a2a.Event) {
	raw, err := a2a.Codec{Version: r.x.v}.EncodeEvent(ev)
	if err != nil {
		r.fail(a2a.CodeInternalError, "a2atest: "+err.Error())
		return
	}
	r.unary(resultJSON(r.id, raw))
}

func (r *rpcAnswers) task(t *a2a.Task) {
	raw, err := a2a.Codec{Version: r.x.v}.EncodeTask(t)
	if err != nil {
		r.fail(a2a.CodeInternalError, "a2atest: "+err.Error())
		return
	}
	r.unary(resultJSON(r.id, raw))
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

// resultJSON encodes a JSON-RPC success response.
func resultJSON(id, result json.RawMessage) []byte {
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
	}{"2.0", rawID(id), result})
	if err != nil {
		// Only an invalid result could fail, and every result is built by
		// the a2a codecs; answer with an internal error all the same.
		return errorJSON(a2a.V03, id, a2a.CodeInternalError, "a2atest: cannot encode result: "+err.Error())
	}
	return b
}

type errorInfo struct {
	Type   string `json:"@type"`
	Reason string `json:"reason"`
	Domain string `json:"domain"`
}

type rpcErrorObject struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// errorJSON encodes a JSON-RPC error response. In 1.0 the A2A-specific
// codes carry a google.rpc.ErrorInfo with their reason, as 1.0 asks.
func errorJSON(v a2a.Version, id json.RawMessage, code int, message string) []byte {
	obj := rpcErrorObject{Code: code, Message: message}
	if v == a2a.V10 {
		if r := reason(code); r != "" {
			obj.Data = []errorInfo{{Type: "type.googleapis.com/google.rpc.ErrorInfo", Reason: r, Domain: "a2a-protocol.org"}}
		}
	}
	return errorJSONData(id, obj)
}

// errorJSONData encodes a JSON-RPC error response carrying obj.
func errorJSONData(id json.RawMessage, obj rpcErrorObject) []byte {
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcErrorObject  `json:"error"`
	}{"2.0", rawID(id), obj})
	return b
}

// rawID returns the request ID to echo: null when the request had none or an
// invalid one.
func rawID(id json.RawMessage) json.RawMessage {
	if isNull(id) || !json.Valid(id) {
		return nil
	}
	return id
}

func reason(code int) string {
	switch code {
	case a2a.CodeTaskNotFound:
		return "TASK_NOT_FOUND"
	case a2a.CodeTaskNotCancelable:
		return "TASK_NOT_CANCELABLE"
	case a2a.CodePushNotificationNotSupported:
		return "PUSH_NOTIFICATION_NOT_SUPPORTED"
	case a2a.CodeUnsupportedOperation:
		return "UNSUPPORTED_OPERATION"
	case a2a.CodeContentTypeNotSupported:
		return "CONTENT_TYPE_NOT_SUPPORTED"
	case a2a.CodeInvalidAgentResponse:
		return "INVALID_AGENT_RESPONSE"
	case a2a.CodeExtendedAgentCardNotConfigured:
		return "EXTENDED_AGENT_CARD_NOT_CONFIGURED"
	case a2a.CodeExtensionSupportRequired:
		return "EXTENSION_SUPPORT_REQUIRED"
	case a2a.CodeVersionNotSupported:
		return "VERSION_NOT_SUPPORTED"
	}
	return ""
}

// sseFrame wraps one JSON payload as an SSE event: a data line and a blank
// line, preceded by "event: error" when errorEvent is set.
func sseFrame(payload []byte, errorEvent bool) []byte {
	var b bytes.Buffer
	b.Grow(len(payload) + 24)
	if errorEvent {
		b.WriteString("event: error\n")
	}
	b.WriteString("data: ")
	b.Write(payload)
	b.WriteString("\n\n")
	return b.Bytes()
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
