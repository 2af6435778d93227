package stream_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// sgSlow is an agent whose task asks a question, lists no user message in
// its history, and acts on the reply only slowly: working 5 s after the
// reply arrived, completed 10 s after. Its first streamed reply (or unary
// reply) is damaged as cut says; its subscribes follow style.
type sgSlow struct {
	mu      sync.Mutex
	replyAt time.Time // zero until a reply arrived
	replies int
}

const (
	sgSlowWorkAfter = 5 * time.Second
	sgSlowDoneAfter = 10 * time.Second
)

var sgPrompt = &a2a.Message{ID: "p-1", TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("Which city?")}}

func (a *sgSlow) state() (a2a.TaskState, time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.replyAt.IsZero() {
		return a2a.StateInputRequired, -1
	}
	since := time.Since(a.replyAt)
	switch {
	case since < sgSlowWorkAfter:
		return a2a.StateInputRequired, sgSlowWorkAfter - since
	case since < sgSlowDoneAfter:
		return a2a.StateWorking, sgSlowDoneAfter - since
	}
	return a2a.StateCompleted, -1
}

func (a *sgSlow) task() *a2a.Task {
	st, _ := a.state()
	t := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: st}, History: []a2a.Message{*sgPrompt}}
	if st == a2a.StateInputRequired {
		t.Status.Message = sgPrompt
	}
	if st == a2a.StateCompleted {
		t.Artifacts = []a2a.Artifact{{ID: "a1", Parts: []a2a.Part{a2a.TextPart("Lisbon plan")}}}
	}
	return t
}

func (a *sgSlow) status(st a2a.TaskState) *a2a.StatusUpdate {
	u := &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: st}, Final: st.Terminal() || st.Interrupted()}
	if st == a2a.StateInputRequired {
		u.Status.Message = sgPrompt
	}
	return u
}

// live streams what happens from now on until the task settles again.
func (a *sgSlow) live(w *wireWriter, c wireCall) {
	for {
		st, wait := a.state()
		if wait < 0 {
			if st == a2a.StateCompleted {
				w.event(&a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{a2a.TextPart("Lisbon plan")}}, LastChunk: true})
				w.event(a.status(st))
			}
			return
		}
		select {
		case <-time.After(wait):
		case <-c.ctx.Done():
			return
		}
		st, _ = a.state()
		if st == a2a.StateWorking {
			w.event(a.status(st))
		}
	}
}

func (a *sgSlow) handlers(damage string, style string) map[callKind]func(w *wireWriter, c wireCall) {
	first := func(w *wireWriter, c wireCall) {
		w.sse()
		w.event(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateSubmitted}})
		w.event(a.status(a2a.StateWorking))
		w.event(a.status(a2a.StateInputRequired))
	}
	takeReply := func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.replies++
		if a.replyAt.IsZero() {
			a.replyAt = time.Now()
		}
	}
	damaged := func(w *wireWriter, c wireCall, unary bool) {
		takeReply()
		switch damage {
		case "headers-then-cut":
			if unary {
				w.cutAfter(0, []byte("{}"))
			}
			w.sse()
			panic(http.ErrAbortHandler)
		case "no-event-eof":
			if unary { // a 200 JSON answer with an empty body
				w.w.Header().Set("Content-Type", "application/json")
				w.w.WriteHeader(http.StatusOK)
				return
			}
			w.sse()
		case "stale-snapshot-then-cut":
			if unary {
				raw, _ := a2a.Codec{Version: w.a.v, Binding: w.a.b}.EncodeEvent(a.task())
				w.cutAfter(len(raw)/2, raw)
			}
			w.sse()
			w.event(a.task())
			panic(http.ErrAbortHandler)
		case "503":
			w.w.Header().Set("Retry-After", "1")
			w.w.WriteHeader(http.StatusServiceUnavailable)
		}
	}
	return map[callKind]func(w *wireWriter, c wireCall){
		kindStream: func(w *wireWriter, c wireCall) {
			if c.msg != nil && c.msg.TaskID == "" {
				first(w, c)
				return
			}
			damaged(w, c, false)
		},
		kindSend: func(w *wireWriter, c wireCall) {
			if c.msg != nil && c.msg.TaskID == "" {
				w.result(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateInputRequired, Message: sgPrompt}, History: []a2a.Message{*sgPrompt}})
				return
			}
			damaged(w, c, true)
		},
		kindGet: func(w *wireWriter, c wireCall) { w.task(a.task()) },
		kindSubscribe: func(w *wireWriter, c wireCall) {
			st, _ := a.state()
			switch style {
			case "live-only":
				if st.Interrupted() || st.Terminal() {
					w.rpcError(a2a.CodeTaskNotFound, "task not found")
					return
				}
				w.sse()
				a.live(w, c)
			case "snapshot-first":
				if st.Terminal() {
					w.rpcError(a2a.CodeUnsupportedOperation, "task is terminal")
					return
				}
				w.sse()
				w.event(a.task())
				if st.Interrupted() {
					return
				}
				a.live(w, c)
			case "full-replay":
				w.sse()
				w.event(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateSubmitted}})
				w.event(a.status(a2a.StateWorking))
				w.event(a.status(a2a.StateInputRequired))
				if st == a2a.StateInputRequired {
					return
				}
				a.live(w, c)
			}
		},
	}
}

// TestSlowAgentReplyNotResent: the reply's send got a response
// (200 then a cut, a 200 with no event, a stale snapshot then a cut, a 503)
// from an agent that lists no user message in its history and is slow to
// act on the reply. The reply is never sent again and the human is never
// asked again, streamed or polled, whatever the server's subscribe style;
// the stream follows the task until it completes.
func TestSlowAgentReplyNotResent(t *testing.T) {
	for _, w := range wires() {
		for _, polled := range []bool{false, true} {
			for _, damage := range []string{"headers-then-cut", "no-event-eof", "stale-snapshot-then-cut", "503"} {
				for _, style := range []string{"live-only", "snapshot-first", "full-replay"} {
					t.Run(fmt.Sprintf("%s/polled=%v/%s/%s", w, polled, damage, style), func(t *testing.T) {
						synctest.Test(t, func(t *testing.T) {
							slow := &sgSlow{}
							h := slow.handlers(damage, style)
							if polled { // an agent that cannot stream, as @a2a-js/sdk refuses
								refuse := func(w *wireWriter, c wireCall) {
									w.rpcError(a2a.CodeUnsupportedOperation, "Streaming is not supported.")
								}
								h[kindStream], h[kindSubscribe] = refuse, refuse
							}
							agent := newWireAgent(w, h)
							asked := 0
							c := agent.client(t, stream.WithHumanInput(hitlFunc(func() { asked++ })),
								stream.WithReconnect(reconnect.Policy{MaxAttempts: 5, Backoff: time.Second}),
								stream.WithPollInterval(time.Second))
							ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
							defer cancel()
							col, err := drain(t, c.Send(ctx, hello()))
							require.Equal(t, 1, slow.replies, "the reply went out once (the stream ended in %v)", err)
							require.Equal(t, 1, asked, "the human was asked once")
							var pe *stream.ProtocolError
							if polled && damage == "no-event-eof" && errors.As(err, &pe) {
								return // an empty JSON body is malformed: a server bug, never retried
							}
							if damage != "503" {
								require.NoError(t, err)
								require.Equal(t, "Lisbon plan", col.text("a1"))
							}
						})
					})
				}
			}
		}
	}
}
