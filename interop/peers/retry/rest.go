package main

import (
	"io"
	"net/http"
	"strconv"
	"strings"
)

// restReplier answers an HTTP+JSON call: a bare JSON result with status
// 200, an SSE stream of bare StreamResponse objects, or an A2A error body
// with the status of its code (A2A 1.0 §11; the v0.3 proto's HTTP rules).
type restReplier struct {
	a *agent
	w http.ResponseWriter
}

func (r restReplier) contentType() string {
	if r.a.d.v10 {
		return "application/a2a+json"
	}
	return "application/json"
}

func (r restReplier) result(v string) {
	r.w.Header().Set("Content-Type", r.contentType())
	io.WriteString(r.w, v)
}

func (r restReplier) fail(e rpcError) {
	status, name := restStatus(e.code)
	r.w.Header().Set("Content-Type", r.contentType())
	r.w.WriteHeader(status)
	io.WriteString(r.w, r.a.restBody(e, status, name))
}

// busy answers 503 Service Unavailable with a Retry-After header (RFC 9110
// §10.2.3, whole seconds) and a body that says the same: in 1.0 a
// google.rpc.Status UNAVAILABLE whose only detail is the RetryInfo (no A2A
// error: the agent did not take the message), in 0.3 the retryable error
// object.
func (r restReplier) busy(e rpcError) {
	after := r.a.faults.retryAfter
	r.w.Header().Set("Retry-After", strconv.Itoa(wholeSeconds(after)))
	r.w.Header().Set("Content-Type", r.contentType())
	r.w.WriteHeader(http.StatusServiceUnavailable)
	if r.a.d.v10 {
		io.WriteString(r.w, `{"error":{"code":503,"status":"UNAVAILABLE","message":`+str(e.message)+`,"details":[`+retryInfo(after)+`]}}`)
		return
	}
	io.WriteString(r.w, e.object())
}

func (r restReplier) open()                { sseHeaders(r.w) }
func (r restReplier) event(v string) error { return sseData(r.w, v) }

// streamError writes the error as a stream's data: the body the same error
// would have as a response.
func (r restReplier) streamError(e rpcError) {
	status, name := restStatus(e.code)
	_ = sseData(r.w, r.a.restBody(e, status, name))
}

// serveREST routes an HTTP+JSON call under /rest (/rest/v1 in 0.3):
// POST message:send and message:stream, GET tasks/{id}, and GET or POST
// tasks/{id}:subscribe.
func (a *agent) serveREST(w http.ResponseWriter, r *http.Request) {
	prefix := "/rest/"
	if !a.d.v10 {
		prefix = "/rest/v1/"
	}
	path, ok := strings.CutPrefix(r.URL.Path, prefix)
	if !ok {
		http.NotFound(w, r)
		return
	}
	rp := restReplier{a: a, w: w}
	id, action, _ := strings.Cut(strings.TrimPrefix(path, "tasks/"), ":")
	switch {
	case r.Method == http.MethodPost && (path == "message:send" || path == "message:stream"):
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		a.send(r, rp, body, path == "message:stream")
	case strings.HasPrefix(path, "tasks/") && action == "" && r.Method == http.MethodGet:
		a.get(r, rp, id)
	case strings.HasPrefix(path, "tasks/") && action == "subscribe" && (r.Method == http.MethodGet || r.Method == http.MethodPost):
		a.subscribe(r, rp, id)
	default:
		http.NotFound(w, r)
	}
}
