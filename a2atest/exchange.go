package a2atest

import (
	"context"
	"io"
	"slices"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/google/uuid"
)

// call is one A2A operation as the agent serves it, decoded from its
// binding's envelope (see serveJSONRPC and serveREST).
type call struct {
	op      op
	v       a2a.Version
	binding a2a.Binding
	method  string       // the name the client used, for error messages
	taskID  string       // params.id, or the message's taskId for sends
	msg     *a2a.Message // a send's message; nil if absent or invalid
	// nonBlocking is set for a unary send that asks to be answered at once
	// (0.3 configuration.blocking: false, 1.0 returnImmediately: true).
	nonBlocking bool
	// history, if set, trims the history of a get's Task as the request
	// asks (its historyLength); nil leaves it whole.
	history func(*a2a.Task)
	// hook is the webhook a send's configuration or a push-config set
	// carries; configID the config a get or a delete names.
	hook     *webhook
	configID string
}

// exchange is one request being answered. It decides what to answer; its
// answers decide how that looks in the request's binding.
type exchange struct {
	a     *Agent
	sk    *sink
	w     answers
	v     a2a.Version
	op    op               // zero if the method is unknown
	style ResubscribeStyle // a subscribe request's, chosen on arrival
	retry retryHint        // the hint of a RetryableError fault it answers
}

// answers writes the answers of one binding (JSON-RPC: [rpcAnswers],
// HTTP+JSON: [restAnswers]) through the exchange's sink, in the exchange's
// version as it stands when called.
type answers interface {
	// fail answers with an error outside any stream.
	fail(code int, message string)
	// refuseStream answers a streaming request with an error before the
	// stream's first event, the way the binding's servers do.
	refuseStream(code int, message string)
	// errorStream answers with a stream whose only event is an error,
	// with an "event: error" field when errorField is set ([RPCError]
	// faults of the event shapes).
	errorStream(code int, message string, errorField bool)
	// beginStream starts an SSE response.
	beginStream()
	// event writes one stream event and reports whether the stream may go
	// on.
	event(ev a2a.Event) bool
	// sent answers a unary send with its result, a Task or a Message.
	sent(ev a2a.Event)
	// task answers a get-task or a cancel with the bare Task.
	task(t *a2a.Task)
}

func (x *exchange) ctx() context.Context { return x.sk.ctx }

// binding is the binding the exchange answers in.
func (x *exchange) binding() a2a.Binding {
	if _, ok := x.w.(*rpcAnswers); ok {
		return a2a.BindingJSONRPC
	}
	return a2a.BindingHTTPJSON
}

func (x *exchange) beginStream() { x.w.beginStream() }

// writeEvent sends one stream event and reports whether the stream may go
// on. In 0.3 a status update says final on a settling state.
func (x *exchange) writeEvent(ev a2a.Event) bool {
	if su, ok := ev.(*a2a.StatusUpdate); ok && x.v == a2a.V03 {
		c := *su
		c.Final = settling(su.Status.State)
		ev = &c
	}
	return x.w.event(ev)
}

func settling(s a2a.TaskState) bool { return s.Terminal() || s.Interrupted() }

func (x *exchange) applyPreResponse(f Fault) {
	switch f.kind {
	case faultHTTP:
		h := x.sk.w.Header()
		if f.header != nil {
			for k, vs := range *f.header {
				h[k] = slices.Clone(vs)
			}
		}
		ct := "text/plain; charset=utf-8"
		if len(f.text) > 0 && f.text[0] == '<' {
			ct = "text/html; charset=utf-8"
		}
		h.Set("Content-Type", ct)
		h.Set("X-Content-Type-Options", "nosniff")
		x.sk.w.WriteHeader(f.n)
		_, _ = io.WriteString(x.sk.w, f.text)
	case faultRPC:
		x.retry = f.retry
		switch f.shape {
		case ErrorAsEvent:
			x.w.errorStream(f.n, f.text, false)
		case ErrorAsErrorEvent:
			x.w.errorStream(f.n, f.text, true)
		default:
			x.w.fail(f.n, f.text)
		}
	case faultHang:
		if x.op == opStream || x.op == opSubscribe {
			x.beginStream()
		}
		<-x.ctx().Done()
	case faultDrop:
		x.sk.drop()
	case faultRefuse:
		if !refuseConn(x.ctx()) {
			x.sk.drop()
		}
	}
}

// dispatch performs a call whose envelope and dialect have been checked.
func (x *exchange) dispatch(c call) {
	if code, message, ok := x.a.refusal(c); ok {
		x.w.fail(code, message)
		return
	}
	switch c.op {
	case opSend, opStream:
		if c.msg == nil {
			x.w.fail(a2a.CodeInvalidParams, "invalid params: no valid message")
			return
		}
		x.send(c)
	case opSubscribe:
		x.subscribe(c.taskID)
	case opGet:
		x.get(c)
	case opCancel:
		x.cancel(c.taskID)
	case opPushSet, opPushGet, opPushList, opPushDelete:
		x.pushCall(c)
	}
}

// send handles message/send, message/stream, SendMessage and
// SendStreamingMessage.
func (x *exchange) send(c call) {
	msg, stream := c.msg, c.op == opStream
	if msg.TaskID != "" {
		x.followUp(c)
		return
	}
	a := x.a
	steps := a.cfg.script
	if a.cfg.scriptFunc != nil {
		steps = a.cfg.scriptFunc(msg.Clone())
	}
	if len(steps) == 1 && steps[0].kind == stepReply {
		reply := a2a.NewTextMessage(a2a.RoleAgent, steps[0].text)
		reply.ContextID = msg.ContextID
		reply.Metadata = steps[0].eventMetadata()
		if reply.ContextID == "" {
			reply.ContextID = uuid.NewString()
		}
		if stream {
			x.beginStream()
			x.writeEvent(reply)
			return
		}
		x.w.sent(reply)
		return
	}

	now := time.Now()
	t := newTask(msg, now)
	t.cumulative = a.cfg.habits.cumulative
	t.schedule(steps, now)
	a.mu.Lock()
	a.tasks[t.id] = t
	a.order = append(a.order, t.id)
	x.takeWebhook(t, c, 0)
	snap := t.state(now)
	a.mu.Unlock()
	switch {
	case !stream && c.nonBlocking:
		x.w.sent(snap)
	case !stream:
		x.unaryWhenSettled(t, 1)
	default:
		x.beginStream()
		x.pump(t, pumpOpts{cursor: 0, closeOnInterrupt: true})
	}
}

func (x *exchange) followUp(c call) {
	msg, stream := c.msg, c.op == opStream
	a := x.a
	a.mu.Lock()
	t := a.tasks[msg.TaskID]
	if t == nil {
		a.mu.Unlock()
		if stream && x.v == a2a.V03 {
			x.w.refuseStream(a2a.CodeTaskNotFound, "task not found: "+msg.TaskID)
			return
		}
		x.w.fail(a2a.CodeTaskNotFound, "task not found: "+msg.TaskID)
		return
	}
	now := time.Now()
	cur := t.state(now)
	switch st := cur.Status.State; {
	case st.Terminal():
		a.mu.Unlock()
		text := "task " + t.id + " is in a terminal state: " + string(st)
		switch {
		case x.v == a2a.V10:
			x.w.fail(a2a.CodeUnsupportedOperation, text)
		case stream:
			x.w.refuseStream(a2a.CodeInvalidParams, text)
		default:
			x.w.fail(a2a.CodeInvalidParams, text)
		}
		return
	case st != a2a.StateInputRequired:
		a.mu.Unlock()
		x.w.fail(a2a.CodeUnsupportedOperation, "task "+t.id+" is not waiting for input (state "+string(st)+")")
		return
	}
	idx := t.followUp(msg, cur, now)
	x.takeWebhook(t, c, idx)
	snap := t.state(now)
	a.mu.Unlock()

	switch {
	case !stream && c.nonBlocking:
		x.w.sent(snap)
		return
	case !stream:
		x.unaryWhenSettled(t, idx+1)
		return
	}
	x.beginStream()
	if x.v == a2a.V10 {
		x.pump(t, pumpOpts{cursor: idx, emitFollowUps: true, closeOnInterrupt: true})
		return
	}
	x.pump(t, pumpOpts{cursor: idx + 1, closeOnInterrupt: true})
}

// subscribe handles tasks/resubscribe and SubscribeToTask.
func (x *exchange) subscribe(id string) {
	a := x.a
	a.mu.Lock()
	t := a.tasks[id]
	if t == nil {
		a.mu.Unlock()
		if x.v == a2a.V03 {
			x.w.refuseStream(a2a.CodeTaskNotFound, "task not found: "+id)
			return
		}
		x.w.fail(a2a.CodeTaskNotFound, "task not found: "+id)
		return
	}
	now := time.Now()
	n := t.dueCount(now)
	cur := t.fold(n)
	a.mu.Unlock()
	st := cur.Status.State

	switch x.style {
	case LiveOnly:
		if settling(st) {
			x.w.refuseStream(a2a.CodeTaskNotFound, "task not found: "+id)
			return
		}
		x.beginStream()
		x.pump(t, pumpOpts{cursor: n, closeOnInterrupt: true})
	case FullReplay:
		x.beginStream()
		x.pump(t, pumpOpts{cursor: 0, closeOnInterrupt: true, replay: true})
	default: // SnapshotFirst
		if st.Terminal() && x.v == a2a.V10 {
			x.w.fail(a2a.CodeUnsupportedOperation, "task "+id+" is in a terminal state: "+string(st))
			return
		}
		x.beginStream()
		if !x.writeEvent(cur) || st.Terminal() {
			return
		}
		if st.Interrupted() {
			if a.cfg.stayOpen {
				x.pump(t, pumpOpts{cursor: n, emitFollowUps: true})
			}
			return
		}
		x.pump(t, pumpOpts{cursor: n, closeOnInterrupt: true})
	}
}

func (x *exchange) get(c call) {
	id, a := c.taskID, x.a
	a.mu.Lock()
	t := a.tasks[id]
	var snap *a2a.Task
	if t != nil {
		snap = t.state(time.Now())
	}
	a.mu.Unlock()
	if snap == nil {
		x.w.fail(a2a.CodeTaskNotFound, "task not found: "+id)
		return
	}
	if c.history != nil {
		c.history(snap)
	}
	x.w.task(snap)
}

func (x *exchange) cancel(id string) {
	a := x.a
	a.mu.Lock()
	t := a.tasks[id]
	if t == nil {
		a.mu.Unlock()
		x.w.fail(a2a.CodeTaskNotFound, "task not found: "+id)
		return
	}
	now := time.Now()
	if st := t.state(now).Status.State; st.Terminal() {
		a.mu.Unlock()
		x.w.fail(a2a.CodeTaskNotCancelable, "task "+id+" cannot be canceled: it is "+string(st))
		return
	}
	t.cancel(now)
	snap := t.state(now)
	a.mu.Unlock()
	x.w.task(snap)
}

// unaryWhenSettled answers a blocking unary send: it follows the task's
// entries from cursor on, each when it falls due, and answers with the task
// as of the first settling status (terminal, input-required or
// auth-required), or as of the last entry once the script has run out
// without one, as @a2a-js/sdk answers when its executor returns. A task
// canceled meanwhile settles on its canceled status. It answers nothing if
// the client goes away first.
func (x *exchange) unaryWhenSettled(t *task, cursor int) {
	a := x.a
	for {
		a.mu.Lock()
		var (
			now     = time.Now()
			snap    *a2a.Task
			wait    time.Duration = -1
			changed               = t.changed
		)
		for snap == nil && cursor < len(t.entries) {
			e := t.entries[cursor]
			if e.due.After(now) {
				wait = e.due.Sub(now)
				break
			}
			cursor++
			if su, ok := e.ev.(*a2a.StatusUpdate); ok && settling(su.Status.State) {
				snap = t.fold(cursor)
			}
		}
		if snap == nil && cursor == len(t.entries) {
			snap = t.fold(cursor) // the script has run out
		}
		a.mu.Unlock()

		if snap != nil {
			x.w.sent(snap)
			return
		}
		if !x.waitChange(wait, changed) {
			return
		}
	}
}

type pumpOpts struct {
	cursor           int  // index of the next entry to send
	emitFollowUps    bool // send a follow-up's stale Task snapshot
	closeOnInterrupt bool // close after an interrupted state, not only a terminal one
	replay           bool // do not close on a settling state that later due events supersede
}

// pump streams the task's entries from o.cursor on, each when it falls due,
// until a settling status, the client going away or a fault ends it.
func (x *exchange) pump(t *task, o pumpOpts) {
	a := x.a
	for {
		a.mu.Lock()
		now := time.Now()
		var (
			e       entry
			have    bool
			nextDue bool
			wait    time.Duration = -1
			changed               = t.changed
			out     a2a.Event
		)
		if o.cursor < len(t.entries) {
			if due := t.entries[o.cursor].due; !due.After(now) {
				e, have = t.entries[o.cursor], true
				o.cursor++
				nextDue = o.cursor < len(t.entries) && !t.entries[o.cursor].due.After(now)
				out = e.ev
				if a.cfg.habits.snapshots && x.binding() == a2a.BindingJSONRPC && e.kind == entryEvent {
					out = t.fold(o.cursor) // WithSnapshotResults
				}
			} else {
				wait = due.Sub(now)
			}
		}
		a.mu.Unlock()

		if have {
			if e.kind == entryFollowUp && !o.emitFollowUps {
				continue
			}
			if r, ok := x.w.(*rpcAnswers); ok && a.cfg.habits.inStreamFailure {
				if su, ok := e.ev.(*a2a.StatusUpdate); ok && su.Status.State == a2a.StateFailed {
					// WithInStreamFailure: the task is failed, the stream says
					// only that something went wrong.
					r.failStream(a2a.CodeInternalError, "internal error: "+su.Status.Message.Text())
					return
				}
			}
			if !x.writeEvent(out) {
				return
			}
			if su, ok := e.ev.(*a2a.StatusUpdate); ok {
				st := su.Status.State
				if (st.Terminal() || (o.closeOnInterrupt && st.Interrupted())) && !(o.replay && nextDue) {
					return
				}
			}
			continue
		}
		if !x.waitChange(wait, changed) {
			return
		}
	}
}

// waitChange waits until d has passed (d < 0: forever), the timeline
// changes, or the client goes away; it reports false in the last case.
func (x *exchange) waitChange(d time.Duration, changed <-chan struct{}) bool {
	var timeout <-chan time.Time
	if d >= 0 {
		tm := time.NewTimer(d)
		defer tm.Stop()
		timeout = tm.C
	}
	select {
	case <-timeout:
		return true
	case <-changed:
		return true
	case <-x.ctx().Done():
		return false
	}
}

// takeWebhook registers the webhook of send c for task t, from timeline
// entry from on, if the agent takes webhooks ([WithPush]); an agent
// without push ignores it, as the SDKs do. The agent's mutex is held.
func (x *exchange) takeWebhook(t *task, c call, from int) {
	if c.hook == nil || !x.a.cfg.push {
		return
	}
	w := *c.hook
	w.from = from
	if w.id == "" {
		if x.v == a2a.V03 {
			w.id = t.id
		} else {
			w.id = uuid.NewString()
		}
	}
	x.a.register(t, w)
}
