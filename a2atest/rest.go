package a2atest

import (
	"bytes"
	"encoding/json"
	"errors"
	"html"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/a2astream/a2astream/a2a"
)

// The HTTP+JSON (REST) binding, as the restHandler of @a2a-js/sdk serves it:
// 0.3.14 for A2A 0.3 (dist/server/express/index.js, restHandler and
// RestTransportHandler) and 1.3.0 for A2A 1.0 (the same file of 1.3.0, whose
// legacyRestRouter serves 0.3 beside 1.0 when its legacyCompat is on). The
// shapes are those of the captures in a2a/testdata/rest.

// restRoute is what a REST request's method and path ask for.
type restRoute struct {
	op     op
	v      a2a.Version
	tenant string // the path's tenant (1.0 only), "" if none
	taskID string // the path's task ID, for get, cancel, subscribe and the push configs
	// configID is the path's push config ID (get and delete of one).
	configID string
}

// restBasePath returns the path the REST routes are served under, "/" or
// "/a/b" with no trailing slash.
func restBasePath(p string) string {
	return "/" + strings.Trim(p, "/")
}

// matchREST finds the REST route a request asks for. Paths outside the
// REST base, and methods and paths of no route, match none.
//
// A path under {base}/v1/ is a 0.3 route when the agent speaks 0.3, unless
// it also speaks 1.0 and the A2A-Version header asks for 1.0 or later: the
// rule of @a2a-js/sdk 1.3.0's legacyRestRouter. Otherwise, and when no 0.3
// route matches, the path is matched against the 1.0 routes, with and
// without a leading tenant segment; so for a 1.0 agent {base}/v1/tasks/x
// is task x of the tenant "v1", as in @a2a-js/sdk 1.3.0.
func (a *Agent) matchREST(r *http.Request) (restRoute, bool) {
	segs, ok := restSegments(a.cfg.restBase, r.URL)
	if !ok {
		return restRoute{}, false
	}
	if a.cfg.v03 && len(segs) > 1 && segs[0] == "v1" && (!a.cfg.v10 || isLegacy(r.Header.Get("A2A-Version"))) {
		if rt, ok := matchOps(r.Method, segs[1:]); ok && !rt.op.pushOp() { // no 0.3 push-config routes
			rt.v = a2a.V03
			return rt, true
		}
	}
	if !a.cfg.v10 {
		return restRoute{}, false
	}
	rt, ok := matchOps(r.Method, segs)
	if !ok && len(segs) > 1 && segs[0] != "" {
		rt, ok = matchOps(r.Method, segs[1:])
		rt.tenant = segs[0]
	}
	rt.v = a2a.V10
	return rt, ok
}

// restSegments splits the part of u's path under base into unescaped
// segments; ok is false if the path is not under base.
func restSegments(base string, u *url.URL) ([]string, bool) {
	p := u.EscapedPath()
	if base != "/" {
		rest, found := strings.CutPrefix(p, base)
		if !found || !strings.HasPrefix(rest, "/") {
			return nil, false
		}
		p = rest
	}
	raw := strings.Split(strings.TrimPrefix(p, "/"), "/")
	segs := make([]string, len(raw))
	for i, s := range raw {
		var err error
		if segs[i], err = url.PathUnescape(s); err != nil {
			return nil, false
		}
	}
	return segs, true
}

// matchOps matches the operations' paths, the same in both versions once
// 0.3's "v1" and 1.0's tenant are taken off: message:send,
// message:stream, tasks/{id}, tasks/{id}:cancel and tasks/{id}:subscribe
// (the last by GET or POST, as both SDK versions route it).
func matchOps(method string, segs []string) (restRoute, bool) {
	switch {
	case len(segs) == 1 && method == http.MethodPost && segs[0] == "message:send":
		return restRoute{op: opSend}, true
	case len(segs) == 1 && method == http.MethodPost && segs[0] == "message:stream":
		return restRoute{op: opStream}, true
	case len(segs) >= 3 && segs[0] == "tasks" && segs[2] == "pushNotificationConfigs":
		return matchPushConfigs(method, segs[1], segs[3:])
	case len(segs) != 2 || segs[0] != "tasks":
		return restRoute{}, false
	}
	id := segs[1]
	if tid, ok := strings.CutSuffix(id, ":subscribe"); ok && tid != "" && (method == http.MethodGet || method == http.MethodPost) {
		return restRoute{op: opSubscribe, taskID: tid}, true
	}
	if tid, ok := strings.CutSuffix(id, ":cancel"); ok && tid != "" && method == http.MethodPost {
		return restRoute{op: opCancel, taskID: tid}, true
	}
	if id != "" && method == http.MethodGet {
		return restRoute{op: opGet, taskID: id}, true
	}
	return restRoute{}, false
}

// matchPushConfigs matches the push-config routes of 1.0 under
// tasks/{id}/pushNotificationConfigs: POST and GET of the collection, GET
// and DELETE of one config.
func matchPushConfigs(method, taskID string, rest []string) (restRoute, bool) {
	if taskID == "" {
		return restRoute{}, false
	}
	switch {
	case len(rest) == 0 && method == http.MethodPost:
		return restRoute{op: opPushSet, taskID: taskID}, true
	case len(rest) == 0 && method == http.MethodGet:
		return restRoute{op: opPushList, taskID: taskID}, true
	case len(rest) == 1 && rest[0] != "" && method == http.MethodGet:
		return restRoute{op: opPushGet, taskID: taskID, configID: rest[0]}, true
	case len(rest) == 1 && rest[0] != "" && method == http.MethodDelete:
		return restRoute{op: opPushDelete, taskID: taskID, configID: rest[0]}, true
	}
	return restRoute{}, false
}

// isLegacy reports whether an A2A-Version header asks for a version before
// 1.0: none at all, or 0.3 up to (not including) 1.0, as @a2a-js/sdk
// 1.3.0's isLegacyVersion reads it.
func isLegacy(h string) bool {
	h = strings.TrimSpace(h)
	if h == "" {
		return true
	}
	majorS, minorS, _ := strings.Cut(h, ".")
	minorS, _, _ = strings.Cut(minorS, ".")
	major, err := strconv.Atoi(majorS)
	if err != nil || major < 0 {
		return false
	}
	minor := 0
	if minorS != "" {
		if minor, err = strconv.Atoi(minorS); err != nil || minor < 0 {
			return false
		}
	}
	return major == 0 && minor >= 3
}

// restSendBody is a send's body: a SendMessageRequest. Its members are raw
// so that one of an unexpected type does not fail the others.
type restSendBody struct {
	Message json.RawMessage `json:"message"`
	// Request is the v0.3 proto's name for the message, which @a2a-js/sdk
	// 0.3.14 also reads (SendMessageRequest.fromJSON).
	Request       json.RawMessage `json:"request"`
	Configuration json.RawMessage `json:"configuration"`
	Tenant        json.RawMessage `json:"tenant"`
}

// restSendConfig is the part of a send's configuration the agent reads.
type restSendConfig struct {
	Blocking          json.RawMessage `json:"blocking"`
	ReturnImmediately json.RawMessage `json:"returnImmediately"`
	// The webhook of the send ([WithPush]): 1.0's name, and the v0.3
	// proto's (SendMessageConfiguration.push_notification).
	TaskPushNotificationConfig json.RawMessage `json:"taskPushNotificationConfig"`
	PushNotification           json.RawMessage `json:"pushNotification"`
}

// webhook returns the webhook a send's configuration carries in version
// v, if any.
func (b *restSendBody) webhook(v a2a.Version) *webhook {
	var c restSendConfig
	if isNull(b.Configuration) || json.Unmarshal(b.Configuration, &c) != nil {
		return nil
	}
	return sendHook(v, c.TaskPushNotificationConfig, c.PushNotification)
}

// nonBlocking reports whether a unary send's configuration asks to be
// answered at once.
//
// In 0.3 the configuration is the proto's SendMessageConfiguration, whose
// blocking is a proto3 bool: absent means false. So a send with a
// configuration but without "blocking": true is not blocking, and only a
// send without any configuration blocks, as @a2a-js/sdk 0.3.14 reads it
// (SendMessageConfiguration.fromJSON gives blocking false, and
// DefaultRequestHandler.sendMessage blocks unless blocking === false). In
// 1.0, returnImmediately: true, as over JSON-RPC.
func (b *restSendBody) nonBlocking(v a2a.Version) bool {
	if isNull(b.Configuration) {
		return false
	}
	var c restSendConfig
	if json.Unmarshal(b.Configuration, &c) != nil {
		return v == a2a.V03
	}
	if v == a2a.V03 {
		return !truthy(c.Blocking)
	}
	return truthy(c.ReturnImmediately)
}

// truthy reads a raw JSON value as JavaScript's Boolean() does, which is
// how @a2a-js/sdk's proto decoders read a bool: absent, null, false, 0 and
// "" are false.
func truthy(raw json.RawMessage) bool {
	var val any
	if len(raw) == 0 || json.Unmarshal(raw, &val) != nil {
		return false
	}
	switch x := val.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x != ""
	}
	return true
}

// message returns the raw message of the send, "" if there is none.
func (b *restSendBody) message(v a2a.Version) json.RawMessage {
	if !isNull(b.Message) {
		return b.Message
	}
	if v == a2a.V03 && !isNull(b.Request) {
		return b.Request
	}
	return nil
}

// checkMessage returns the complaint @a2a-js/sdk has about a send's
// message, "" if none: none at all, a 0.3 role that is not ROLE_USER or
// ROLE_AGENT (FromProto.role: "Invalid role: -1" for a JSON-RPC role such
// as "user", as js-0.3.14-rest-send-parts-shape shows, "Invalid role: 0"
// for none), or no messageId (RestTransportHandler's
// validateMessageSendParams in 0.3.14, validateSendMessageRequest in 1.3.0).
func checkMessage(v a2a.Version, raw json.RawMessage) string {
	if raw == nil {
		return "message is required"
	}
	var m struct {
		MessageID json.RawMessage `json:"messageId"`
		Role      json.RawMessage `json:"role"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return "message is not a Message"
	}
	if v == a2a.V03 {
		switch role := string(bytes.TrimSpace(m.Role)); role {
		case `"ROLE_USER"`, `"ROLE_AGENT"`, "1", "2":
		case "", "null", `"ROLE_UNSPECIFIED"`, "0":
			return "Invalid role: 0"
		default:
			return "Invalid role: -1"
		}
	}
	var id string
	if json.Unmarshal(m.MessageID, &id) != nil || id == "" {
		return "message.messageId is required"
	}
	return ""
}

// historyLength reads the historyLength query parameter of a get and
// returns how to trim the Task's history, as @a2a-js/sdk does:
//
//   - 0.3.14 (DefaultRequestHandler.getTask) sends no history at all unless
//     historyLength (or history_length) is given, as js-0.3.14-rest-get.json
//     shows, and then the last historyLength messages, but all of them for
//     0 (JavaScript's slice(-0));
//   - 1.3.0 (_applyHistoryLengthSemantics) sends the whole history unless
//     historyLength is given, then the last historyLength messages, none
//     for 0.
//
// A value that does not start with an integer, or a negative one, is
// refused (parseHistoryLength); complaint says why.
func historyLength(v a2a.Version, q url.Values) (trim func(*a2a.Task), complaint string) {
	vals, ok := q["historyLength"]
	if !ok && v == a2a.V03 {
		vals, ok = q["history_length"]
	}
	if !ok {
		if v == a2a.V03 {
			return func(t *a2a.Task) { t.History = nil }, ""
		}
		return nil, ""
	}
	n, ok := parseInt(vals[0])
	switch {
	case !ok:
		return nil, "historyLength must be a valid integer"
	case n < 0:
		return nil, "historyLength must be non-negative"
	}
	return func(t *a2a.Task) {
		switch {
		case n == 0 && v == a2a.V10:
			t.History = nil
		case n > 0 && n < len(t.History):
			t.History = t.History[len(t.History)-n:]
		}
	}, ""
}

// parseInt reads s as JavaScript's parseInt(s, 10) does: an optional sign
// and the digits at its start, after white space; ok is false when there
// are none.
func parseInt(s string) (int, bool) {
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	end := 0
	if end < len(s) && (s[end] == '+' || s[end] == '-') {
		end++
	}
	digits := end
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	if end == digits {
		return 0, false
	}
	n, err := strconv.Atoi(s[:end])
	if err != nil {
		// Too many digits for an int: far more than any history.
		if s[0] == '-' {
			return -1, true
		}
		return int(^uint(0) >> 1), true
	}
	return n, true
}

// withoutParts drops a 0.3 message's "parts": the v0.3 proto's Message
// has its parts under "content", and @a2a-js/sdk 0.3.14 (Message.fromJSON)
// reads nothing else, so a message with its parts in the JSON-RPC place
// arrives without any (see [Request.Message]).
func withoutParts(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	if _, ok := m["parts"]; !ok {
		return raw
	}
	delete(m, "parts")
	out, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return out
}

// serveREST answers one request to a REST route: it decodes the request
// into a [call], has the agent admit it, checks what the binding checks
// (in the order @a2a-js/sdk does) and hands the call to
// [exchange.dispatch].
func (a *Agent) serveREST(w http.ResponseWriter, r *http.Request, rt restRoute) {
	var body []byte
	if r.Body != nil {
		var err error
		if body, err = io.ReadAll(r.Body); err != nil {
			return // the client went away
		}
	}
	v := rt.v
	c := call{op: rt.op, v: v, binding: a2a.BindingHTTPJSON, method: methodName(rt.op, v), taskID: rt.taskID, configID: rt.configID}
	isJSON, ctOK := restMediaType(v, r.Header.Get("Content-Type"))
	var (
		send      restSendBody
		parseErr  error
		complaint string
	)
	if len(bytes.TrimSpace(body)) > 0 && isJSON {
		parseErr = parseRESTBody(v, body)
	}
	tenant := rt.tenant
	if rt.op == opSend || rt.op == opStream {
		if isJSON && parseErr == nil {
			_ = json.Unmarshal(body, &send) // a body that is not an object has no message
		}
		raw := send.message(v)
		if complaint = checkMessage(v, raw); complaint == "" {
			if v == a2a.V03 {
				raw = withoutParts(raw)
			}
			if m, err := (a2a.Codec{Version: v, Binding: a2a.BindingHTTPJSON}).DecodeMessage(raw); err == nil {
				c.msg, c.taskID = m, m.TaskID
			}
		}
		if rt.op == opSend {
			c.nonBlocking = send.nonBlocking(v)
		}
		c.hook = send.webhook(v)
		if tenant == "" && v == a2a.V10 {
			_ = json.Unmarshal(send.Tenant, &tenant)
		}
	} else if tenant == "" && v == a2a.V10 {
		tenant = r.URL.Query().Get("tenant")
	}
	if rt.op == opGet {
		c.history, complaint = historyLength(v, r.URL.Query())
	}
	if rt.op == opPushSet {
		if w, ok := readHook(v, body); ok && isJSON && parseErr == nil {
			c.hook = &w
		} else {
			complaint = "a push notification config needs a url"
		}
	}
	rec := a.admit(Request{
		Method:      c.method,
		Version:     r.Header.Get("A2A-Version"),
		Header:      r.Header.Clone(),
		TaskID:      c.taskID,
		Tenant:      tenant,
		Message:     c.msg.Clone(),
		NonBlocking: c.nonBlocking,
		Binding:     a2a.BindingHTTPJSON,
		HTTPMethod:  r.Method,
		Path:        r.URL.Path,
	}, rt.op, true)

	x := &exchange{a: a, sk: &sink{w: w, ctx: r.Context(), fault: rec.Fault}, v: v, op: rt.op, style: rec.Style}
	x.w = &restAnswers{x: x}
	switch {
	case rec.Fault.preResponse():
		x.applyPreResponse(rec.Fault)
	case !a.serves(rt.op):
		// The route does not exist on such a server: express's 404.
		routeNotFound(x.sk, r)
	case !ctOK:
		x.w.fail(a2a.CodeContentTypeNotSupported, "Unsupported Content-Type "+strconv.Quote(r.Header.Get("Content-Type"))+
			"; expected application/json or application/a2a+json.")
	case parseErr != nil && v == a2a.V03:
		x.w.fail(a2a.CodeParseError, "Invalid JSON payload.")
	case parseErr != nil:
		x.w.fail(a2a.CodeInvalidParams, "Invalid JSON payload.")
	case v == a2a.V10 && !isV10(r.Header.Get("A2A-Version")):
		got := r.Header.Get("A2A-Version")
		if got == "" {
			got = "0.3"
		}
		x.w.fail(a2a.CodeVersionNotSupported, "The requested A2A protocol version '"+got+"' is not supported. Supported versions: 1.0")
	case complaint != "":
		x.w.fail(a2a.CodeInvalidParams, complaint)
	default:
		x.dispatch(c)
	}
}

// restMediaType reads a request's Content-Type as the REST servers do.
// json says whether the body is read as JSON at all: @a2a-js/sdk parses
// only application/json (and in 1.0 application/a2a+json) and reads any
// other body as empty. ok is false when a 1.0 server refuses the type
// outright (its restContentTypeGuard): any type but those two; a request
// without one passes.
func restMediaType(v a2a.Version, ct string) (isJSON, ok bool) {
	if ct == "" {
		return false, true
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0]))
	}
	switch {
	case mt == "application/json":
		return true, true
	case v == a2a.V10 && mt == "application/a2a+json":
		return true, true
	}
	return false, v == a2a.V03
}

// parseRESTBody checks that body is JSON as the version's body parser
// wants it: in 0.3 an object or an array (express.json's strict mode), in
// 1.0 any JSON value (strict: false).
func parseRESTBody(v a2a.Version, body []byte) error {
	var val any
	if err := json.Unmarshal(body, &val); err != nil {
		return err
	}
	if v == a2a.V03 {
		switch val.(type) {
		case map[string]any, []any:
		default:
			return errNotObject
		}
	}
	return nil
}

var errNotObject = errors.New("a2atest: the body is neither an object nor an array")

// routeNotFound answers through sk as express does when no route matches:
// 404 with its HTML page.
func routeNotFound(sk *sink, r *http.Request) {
	h := sk.w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	sk.begin(http.StatusNotFound, "text/html; charset=utf-8", false)
	sk.event([]byte("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Error</title>\n" +
		"</head>\n<body>\n<pre>Cannot " + html.EscapeString(r.Method+" "+r.URL.EscapedPath()) + "</pre>\n</body>\n</html>\n"))
}

// restAnswers writes the answers of the HTTP+JSON binding: bare results
// with the HTTP status @a2a-js/sdk gives them, errors as an HTTP status and
// an error body ([a2a.MarshalHTTPError]), and SSE events whose data is a
// bare StreamResponse.
type restAnswers struct{ x *exchange }

// contentType is the media type of unary answers, with the charset that
// express's res.json adds: application/a2a+json in 1.0 (set on every
// response of 1.3.0's restHandler), application/json in 0.3.
func (r *restAnswers) contentType() string {
	if r.x.v == a2a.V03 {
		return "application/json; charset=utf-8"
	}
	return "application/a2a+json; charset=utf-8"
}

func (r *restAnswers) unary(status int, body []byte) {
	r.x.sk.begin(status, r.contentType(), false)
	r.x.sk.event(body)
}

func (r *restAnswers) errorBody(code int, message string) (int, []byte) {
	e := &a2a.RPCError{Code: code, Message: message}
	if r.x.retry.on {
		e.Data = r.x.retry.data(r.x.v, code)
	}
	status, _, body := a2a.MarshalHTTPError(r.x.v, e)
	return status, body
}

func (r *restAnswers) fail(code int, message string) {
	r.unary(r.errorBody(code, message))
}

// refuseStream answers with an HTTP error: both SDK versions look at the
// first event before they send the stream's header, and answer an error
// there as they answer a unary one (sendStreamResponse).
func (r *restAnswers) refuseStream(code int, message string) { r.fail(code, message) }

func (r *restAnswers) errorStream(code int, message string, errorField bool) {
	_, body := r.errorBody(code, message)
	r.beginStream()
	r.x.sk.event(sseFrame(body, errorField))
}

func (r *restAnswers) beginStream() { r.x.sk.begin(http.StatusOK, "text/event-stream", true) }

// event writes one event; an event that cannot be encoded ends the stream
// with the error as an "event: error", as sendStreamResponse does with an
// error in the middle of a stream.
func (r *restAnswers) event(ev a2a.Event) bool {
	raw, err := a2a.Codec{Version: r.x.v, Binding: a2a.BindingHTTPJSON}.EncodeEvent(ev)
	if err != nil {
		_, body := r.errorBody(a2a.CodeInternalError, "a2atest: "+err.Error())
		r.x.sk.event(sseFrame(body, true))
		return false
	}
	return r.x.sk.event(sseFrame(raw, false))
}

// sent answers a unary send with a SendMessageResponse, {"task": …} or
// {"message": …}: 201 Created in 0.3 (0.3.14's message:send route), 200 OK
// in 1.0.
func (r *restAnswers) sent(ev a2a.Event) {
	raw, err := a2a.Codec{Version: r.x.v, Binding: a2a.BindingHTTPJSON}.EncodeEvent(ev)
	if err != nil {
		r.fail(a2a.CodeInternalError, "a2atest: "+err.Error())
		return
	}
	status := http.StatusOK
	if r.x.v == a2a.V03 {
		status = http.StatusCreated
	}
	r.unary(status, raw)
}

// task answers with the bare Task: 200 OK, but 202 Accepted for a 0.3
// cancel (0.3.14's tasks/{id}:cancel route).
func (r *restAnswers) task(t *a2a.Task) {
	raw, err := a2a.Codec{Version: r.x.v, Binding: a2a.BindingHTTPJSON}.EncodeTask(t)
	if err != nil {
		r.fail(a2a.CodeInternalError, "a2atest: "+err.Error())
		return
	}
	status := http.StatusOK
	if r.x.v == a2a.V03 && r.x.op == opCancel {
		status = http.StatusAccepted
	}
	r.unary(status, raw)
}
