package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// agent serves the card, the A2A calls of its binding, and /counts.
type agent struct {
	d         dialect
	delay     time.Duration
	streaming bool
	card      string
	// token, when set, is the bearer token the -auth mode asks for.
	token string

	mu          sync.Mutex
	faults      faults // the counts left of each fault
	streamError bool   // the stream-error-at fault has fired
	seq         int
	tasks       map[string]*task
	counts      counts
}

// counts is what the agent received, served as JSON on GET /counts:
// {"sends":["m-1","m-1"],"subscribes":2,"gets":1,"calls":[…]}. A send is
// counted with its message ID whatever the answer (busy too); so are
// subscribes and get-tasks, refused or not. calls lists the three kinds in
// the order they arrived, each with the Authorization header it carried
// and the W3C trace it continued (traceOf: the trace ID and the caller's
// span ID of its traceparent header, "" without a valid one):
// {"call":"send","authorization":"","trace":"4bf9…","parent":"00f0…"}.
type counts struct {
	sends      []string
	subscribes int
	gets       int
	calls      []call
}

// call is one send, subscribe or get-task the agent received.
type call struct {
	kind          string // "send", "subscribe" or "get"
	authorization string // its Authorization header, or ""
	trace, parent string // its traceparent's trace ID and span ID, or ""
}

func (c counts) json() string {
	ids := make([]string, len(c.sends))
	for i, id := range c.sends {
		ids[i] = str(id)
	}
	calls := make([]string, len(c.calls))
	for i, cl := range c.calls {
		calls[i] = `{"call":` + str(cl.kind) + `,"authorization":` + str(cl.authorization) +
			`,"trace":` + str(cl.trace) + `,"parent":` + str(cl.parent) + `}`
	}
	return `{"sends":[` + strings.Join(ids, ",") + `],"subscribes":` + strconv.Itoa(c.subscribes) + `,"gets":` + strconv.Itoa(c.gets) +
		`,"calls":[` + strings.Join(calls, ",") + `]}`
}

// record counts one call of that kind, the Authorization header it
// carried, and the trace it continued.
func (a *agent) record(r *http.Request, kind string, f func(*counts)) {
	trace, parent, _ := traceOf(r.Header)
	a.count(func(c *counts) {
		f(c)
		c.calls = append(c.calls, call{kind: kind, authorization: r.Header.Get("Authorization"), trace: trace, parent: parent})
	})
}

// signedIn reports whether r carries the token the -auth mode asks for, as
// "Authorization: Bearer TOKEN" (RFC 6750 §2.1).
func (a *agent) signedIn(r *http.Request) bool {
	return a.token != "" && r.Header.Get("Authorization") == "Bearer "+a.token
}

// errInterrupted ends a stream after a final event of a task that has not
// ended.
var errInterrupted = errors.New("the task is interrupted")

// writer writes the task's events on a stream. An event marked final of a
// task that has not ended ends the stream, as a 0.3 server ends it after
// "final": true, and sets *interrupted: in the -auth mode of 0.3,
// auth-required does, while 1.0 keeps the stream open through it, as the
// 1.0 specification asks (§7.6) and @a2a-js/sdk 1.3.0 does.
func (a *agent) writer(rp replier, interrupted *bool) func(event, taskView) error {
	return func(e event, v taskView) error {
		if err := rp.event(a.d.event(e, v)); err != nil {
			return err
		}
		if e.final && !v.terminal() {
			*interrupted = true
			return errInterrupted
		}
		return nil
	}
}

// take uses one of the n faults left, and reports whether there was one.
func (a *agent) take(n *int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if *n <= 0 {
		return false
	}
	*n--
	return true
}

// count records a call under the lock.
func (a *agent) count(f func(*counts)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f(&a.counts)
}

func (a *agent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && (r.URL.Path == "/.well-known/agent-card.json" || r.URL.Path == "/.well-known/agent.json"):
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, a.card)
	case r.Method == http.MethodGet && r.URL.Path == "/counts":
		a.mu.Lock()
		body := a.counts.json()
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	case !a.d.rest && r.Method == http.MethodPost && r.URL.Path == "/":
		a.serveRPC(w, r)
	case a.d.rest:
		a.serveREST(w, r)
	default:
		http.NotFound(w, r)
	}
}

// replier answers one call in its binding.
type replier interface {
	// result answers a unary call.
	result(json string)
	// fail answers a call with an A2A error, before any event.
	fail(e rpcError)
	// busy answers a send the agent cannot take now.
	busy(e rpcError)
	// open starts an SSE stream; event writes one result on it.
	open()
	event(json string) error
	// streamError writes an error event on an open stream.
	streamError(e rpcError)
}

// message reads the message of a send's params (JSON-RPC) or body
// (HTTP+JSON): its ID, and the text of its first text part, from "parts" or
// (0.3 proto-JSON) "content".
func message(raw []byte) (userMessage, bool) {
	var p struct {
		Message struct {
			MessageID string `json:"messageId"`
			Parts     []struct {
				Text *string `json:"text"`
			} `json:"parts"`
			Content []struct {
				Text *string `json:"text"`
			} `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(raw, &p) != nil || p.Message.MessageID == "" {
		return userMessage{}, false
	}
	m := userMessage{id: p.Message.MessageID}
	for _, part := range append(p.Message.Parts, p.Message.Content...) {
		if part.Text != nil {
			m.text = *part.Text
			break
		}
	}
	return m, true
}

// send answers a send: busy while the busy fault lasts, else a new task,
// streamed or (unary) its first snapshot at once, as a non-blocking send
// asks.
func (a *agent) send(r *http.Request, rp replier, body []byte, stream bool) {
	m, ok := message(body)
	if !ok {
		rp.fail(a.plainError(codeInvalidParams, "a send needs a message with a messageId"))
		return
	}
	a.record(r, "send", func(c *counts) { c.sends = append(c.sends, m.id) })
	if a.take(&a.faults.busy) {
		rp.busy(a.retryError("the agent is busy; try again later"))
		return
	}
	if stream && !a.streaming {
		rp.fail(a.plainError(codeUnsupported, "streaming is not supported"))
		return
	}
	t := a.start(m)
	if !stream {
		rp.result(a.d.sendResult(t.view(1)))
		return
	}
	stop := -1
	a.mu.Lock()
	if a.faults.streamErrorAt >= 0 && !a.streamError {
		stop, a.streamError = a.faults.streamErrorAt, true
	}
	a.mu.Unlock()
	rp.open()
	interrupted := false
	ended := t.follow(r.Context(), 0, stop, a.writer(rp, &interrupted))
	if !ended && !interrupted && stop >= 0 && r.Context().Err() == nil {
		rp.streamError(a.retryError("the model stream broke; subscribe again"))
	}
}

// subscribe answers a subscribe: the task's snapshot, then its events as
// they come (A2A 1.0 §3.1.6; 0.3 leaves the first event open). A task that
// has ended is refused in 1.0 (-32004, §3.1.6) and is its snapshot alone in
// 0.3 (the v0.3 proto's TaskSubscription).
//
// In the -auth mode, a subscribe that carries the token lets a task waiting
// in auth-required go on after the snapshot, so the rest of the task comes
// on it. Without the token, the snapshot shows auth-required again; 1.0
// keeps the stream open (nothing more comes until the token does), 0.3
// ends it after the snapshot, as @a2a-js/sdk 0.3 ends a resubscribe to a
// task whose turn has ended.
func (a *agent) subscribe(r *http.Request, rp replier, id string) {
	a.record(r, "subscribe", func(c *counts) { c.subscribes++ })
	t := a.lookup(id)
	switch {
	case t == nil:
		rp.fail(a.plainError(codeTaskNotFound, "no task "+id))
		return
	case !a.streaming:
		rp.fail(a.plainError(codeUnsupported, "streaming is not supported"))
		return
	case a.take(&a.faults.subscribeErrors):
		e := a.retryError("the event store is unavailable; subscribe again")
		if a.faults.errorsInStream {
			rp.open()
			rp.streamError(e)
			return
		}
		rp.fail(e)
		return
	case a.faults.subscribeRefuse:
		rp.fail(a.plainError(codeTaskNotFound, "no live stream for task "+id))
		return
	}
	n, _ := t.progress()
	v := t.view(n)
	if v.terminal() && a.d.v10 {
		rp.fail(a.plainError(codeUnsupported, "task "+id+" is in a terminal state"))
		return
	}
	rp.open()
	if rp.event(a.d.event(event{kind: evTask}, v)) != nil || v.terminal() {
		return
	}
	if a.signedIn(r) {
		t.authorize()
	}
	if !a.d.v10 && t.waiting(n) {
		return
	}
	t.follow(r.Context(), n, -1, a.writer(rp, new(bool)))
}

// get answers a get-task with the task as it is now. In the -auth mode, a
// get-task that carries the token lets a task waiting in auth-required go
// on first, so it answers working.
func (a *agent) get(r *http.Request, rp replier, id string) {
	a.record(r, "get", func(c *counts) { c.gets++ })
	if a.take(&a.faults.getErrors) {
		rp.fail(a.retryError("the task store is unavailable; try again"))
		return
	}
	t := a.lookup(id)
	if t == nil {
		rp.fail(a.plainError(codeTaskNotFound, "no task "+id))
		return
	}
	if a.signedIn(r) {
		t.authorize()
	}
	n, _ := t.progress()
	rp.result(a.d.task(t.view(n)))
}

// sseHeaders starts an SSE response.
func sseHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// sseData writes one SSE event whose data is payload, and flushes it.
func sseData(w http.ResponseWriter, payload string) error {
	if _, err := io.WriteString(w, "data: "+payload+"\n\n"); err != nil {
		return err
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}
