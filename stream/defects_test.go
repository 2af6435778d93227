package stream_test

// Regression tests for the nine defects of issue 10. Each test fails on
// commit 267d71a. Defect 5 (quadratic artifact work) is a matter of cost, not
// of behaviour, and is covered by a benchmark instead.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

// defectReq is one JSON-RPC request a hand-written server received.
type defectReq struct {
	ctx    context.Context // the request's
	n      int             // 1 for the first request
	id     json.RawMessage
	method string
	taskID string       // params.id
	msg    *a2a.Message // params.message of a send
}

func (r defectReq) isSend() bool {
	return r.method == "message/stream" || r.method == "SendStreamingMessage"
}

func (r defectReq) isSubscribe() bool {
	return r.method == "tasks/resubscribe" || r.method == "SubscribeToTask"
}

func (r defectReq) isGet() bool { return r.method == "tasks/get" || r.method == "GetTask" }

// defectServer is a hand-written server that sees each request's method and
// message, and records every request.
type defectServer struct {
	mu     sync.Mutex
	reqs   []defectReq
	answer func(w http.ResponseWriter, r defectReq)
}

func newDefectServer(answer func(w http.ResponseWriter, r defectReq)) *defectServer {
	return &defectServer{answer: answer}
}

func (s *defectServer) ServeHTTP(w http.ResponseWriter, hr *http.Request) {
	body, _ := io.ReadAll(hr.Body)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ID      string          `json:"id"`
			Message json.RawMessage `json:"message"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &req)
	r := defectReq{ctx: hr.Context(), id: req.ID, method: req.Method, taskID: req.Params.ID}
	if len(req.Params.Message) > 0 {
		if m, err := (a2a.Codec{}).DecodeMessage(req.Params.Message); err == nil {
			r.msg = m
		}
	}
	s.mu.Lock()
	r.n = len(s.reqs) + 1
	s.reqs = append(s.reqs, r)
	s.mu.Unlock()
	s.answer(w, r)
}

func (s *defectServer) requests() []defectReq {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]defectReq(nil), s.reqs...)
}

func (s *defectServer) count(pred func(defectReq) bool) int {
	n := 0
	for _, r := range s.requests() {
		if pred(r) {
			n++
		}
	}
	return n
}

// sseRawResult writes one stream result given as raw JSON.
func sseRawResult(w http.ResponseWriter, id json.RawMessage, raw []byte) {
	fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", id, raw)
	w.(http.Flusher).Flush()
}

// statusEvent is a status update of task t-1, final on the 0.3 wire when the
// state settles the task.
func statusEvent(v a2a.Version, state a2a.TaskState, msg *a2a.Message) *a2a.StatusUpdate {
	return &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: state, Message: msg},
		Final: v == a2a.V03 && (state.Terminal() || state == a2a.StateInputRequired)}
}

// bounded returns a context that ends after an hour of (fake) time, so that a
// stream that would wait forever ends with an error instead of deadlocking
// the bubble.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(background(), time.Hour)
	t.Cleanup(cancel)
	return ctx
}

func agentMessage(id, text string) *a2a.Message {
	return &a2a.Message{ID: id, TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: text}}}
}

// ---------------------------------------------------------------------------
// Defect 1: a task stopped at input-required without a hook is answered later
// with Client.Send. The follow-up stream opens with the task as it was (still
// input-required with the same prompt): that prompt is the one being answered,
// not a new question.

type followUpCapture struct {
	name                               string
	file                               string
	v                                  a2a.Version
	capturedID                         string // the JSON-RPC id in the capture
	taskID, contextID, replyID, result string // result: the ID of the follow-up's artifact
}

var followUpCaptures = []followUpCapture{
	{"js-1.3.0", "testdata/js-1.3.0-stream-followup.txt", a2a.V10, "6c42fe50-deb3-46c9-90ac-04ce975fd67d",
		"45cca664-8eb5-41df-a5b8-4751ba90c17b", "dc471aba-e1b1-45fa-9368-8f43db5dcc27",
		"a2f02210-9a7e-4b07-bd02-4aa2f4d222e9", "c6ab2f9e-f6c8-43da-916f-34f125ad2c03"},
	{"js-1.3.0-compat03", "testdata/js-1.3.0-compat03-stream-followup.txt", a2a.V03, "ec5718fb-b94a-4a02-b527-567e761b15eb",
		"6a799648-30b9-4e70-87fa-d9d210d16cc3", "b31c51cb-5a60-40be-ae0c-dbbee0aaf5a3",
		"241d5a60-674a-4ac5-ac8b-8bd761e1f617", "e6693bc3-4cf5-4ca2-9948-fb0999632c2c"},
}

// replayServer answers the first send with the captured follow-up stream
// (its JSON-RPC id rewritten to the request's) and anything else with a
// JSON-RPC error.
func replayServer(t *testing.T, c followUpCapture) *defectServer {
	t.Helper()
	captured, err := os.ReadFile(c.file)
	require.NoError(t, err)
	quoted := []byte(`"` + c.capturedID + `"`)
	require.Equal(t, 4, bytes.Count(captured, quoted), "four events in the capture")
	return newDefectServer(func(w http.ResponseWriter, r defectReq) {
		if r.n != 1 || !r.isSend() {
			jsonRPCError(w, r.id, a2a.CodeInternalError, "only one follow-up was expected")
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		_, _ = w.Write(bytes.ReplaceAll(captured, quoted, r.id))
	})
}

func TestDefect1_AnswerLaterWithSend(t *testing.T) {
	for _, c := range followUpCaptures {
		reply := func() *a2a.Message {
			return &a2a.Message{ID: c.replyID, TaskID: c.taskID, ContextID: c.contextID, Role: a2a.RoleUser,
				Parts: []a2a.Part{{Text: "more input"}}}
		}
		t.Run(c.name+"/no hook", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := replayServer(t, c)
				s := hostileClient(t, srv, c.v).Send(bounded(t), reply())
				got, err := drain(t, s)
				require.NoError(t, err, "the prompt shown first is the one this message answers")
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
				require.Equal(t, "result for follow-up: more input", got.text(c.result), "the follow-up's artifact is delivered")
				require.Contains(t, got.states, a2a.StateWorking)
				require.Len(t, srv.requests(), 1)
			})
		})
		t.Run(c.name+"/hook", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := replayServer(t, c)
				hook := &recorder{answers: []string{"asked again"}}
				s := hostileClient(t, srv, c.v, stream.WithHumanInput(hook)).Send(bounded(t), reply())
				got, err := drain(t, s)
				require.Empty(t, hook.requests, "the hook is not asked the question the caller just answered")
				require.Len(t, srv.requests(), 1, "one follow-up message, no second reply")
				require.NoError(t, err)
				require.Equal(t, "result for follow-up: more input", got.text(c.result))
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
			})
		})
	}

	// a2atest in 1.0 also repeats the task as it was before the follow-up.
	for _, withHook := range []bool{false, true} {
		t.Run(fmt.Sprintf("a2atest 1.0/hook %v", withHook), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V10), a2atest.WithStyle(a2atest.SnapshotFirst),
					a2atest.WithStayOpenOnInterrupt(), a2atest.WithScript(asking()...))
				_, err := drain(t, newClient(t, agent, a2a.V10).Send(bounded(t), hello()))
				var he *hitl.Error
				require.ErrorAs(t, err, &he)
				require.ErrorIs(t, err, hitl.ErrNoHook)

				later := a2a.NewTextMessage(a2a.RoleUser, "Oct 10-17")
				later.TaskID, later.ContextID = he.Task.ID, he.Task.ContextID
				hook := &recorder{answers: []string{"asked again"}}
				var opts []stream.Option
				if withHook {
					opts = append(opts, stream.WithHumanInput(hook))
				}
				s := newClient(t, agent, a2a.V10, opts...).Send(bounded(t), later)
				got, err := drain(t, s)
				require.Empty(t, hook.requests, "the hook is not asked the question the caller just answered")
				fu := followUps(agent)
				require.Len(t, fu, 1, "only the caller's follow-up was sent")
				require.Equal(t, later.ID, fu[0].Message.ID)
				require.NoError(t, err)
				requireSameAsServer(t, agent, s, got)
				require.Equal(t, "draft final", got.text("a1"))
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
			})
		})
	}
}

// ---------------------------------------------------------------------------
// Defect 2: a live-only server cuts the send stream, the resubscribe brings
// the final status, and the get-task meant to close the gap fails. The final
// status the server did send must not be lost.

func TestDefect2_FinalEventKeptWhenGapGetTaskFails(t *testing.T) {
	finals := []struct {
		name  string
		state a2a.TaskState
		text  string
	}{
		{"completed", a2a.StateCompleted, "all done"},
		{"failed", a2a.StateFailed, "upstream API timed out"},
	}
	getErrors := []struct {
		name   string
		answer func(w http.ResponseWriter, id json.RawMessage)
	}{
		{"-32603", func(w http.ResponseWriter, id json.RawMessage) {
			jsonRPCError(w, id, a2a.CodeInternalError, "internal error")
		}},
		{"-32601", func(w http.ResponseWriter, id json.RawMessage) {
			jsonRPCError(w, id, a2a.CodeMethodNotFound, "method not found")
		}},
		{"-32001", func(w http.ResponseWriter, id json.RawMessage) {
			jsonRPCError(w, id, a2a.CodeTaskNotFound, "task not found")
		}},
		{"HTTP 400", func(w http.ResponseWriter, id json.RawMessage) {
			http.Error(w, "bad request", http.StatusBadRequest)
		}},
	}
	for _, v := range versions {
		for _, f := range finals {
			for _, g := range getErrors {
				t.Run(string(v)+"/"+f.name+"/"+g.name, func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						srv := newDefectServer(func(w http.ResponseWriter, r defectReq) {
							switch {
							case r.n == 1:
								sseHeaders(w)
								sseEvent(w, r.id, v, firstTask)
								sseEvent(w, r.id, v, statusEvent(v, a2a.StateWorking, agentMessage("m-working", "on it")))
								cutHere()
							case r.isSubscribe():
								sseHeaders(w)
								sseEvent(w, r.id, v, statusEvent(v, f.state, agentMessage("m-final", f.text)))
							case r.isGet():
								g.answer(w, r.id)
							default:
								jsonRPCError(w, r.id, a2a.CodeInternalError, "unexpected request")
							}
						})
						s := hostileClient(t, srv, v).Send(bounded(t), hello())
						got, err := drain(t, s)
						require.Equal(t, 1, srv.count(defectReq.isSubscribe))
						require.NotEmpty(t, got.states)
						require.Equal(t, f.state, got.states[len(got.states)-1], "the final status is delivered as an event")
						require.Contains(t, got.messages, "m-final")
						if f.state == a2a.StateCompleted {
							require.NoError(t, err)
							require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
							return
						}
						var failed *terminal.FailedError
						require.ErrorAs(t, err, &failed, "got %T: %v", err, err)
						require.Equal(t, a2a.StateFailed, failed.Task.Status.State)
						require.Equal(t, f.text, failed.Task.Status.Message.Text())
					})
				})
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Defect 3: a full-replay server resends an artifact that was really
// replaced (draft: v1, then v2) and one built by appends (notes: x, +).
// Neither may be delivered again.

func TestDefect3_FullReplayAcrossArtifactReplacement(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// The send carries the task, working, v1, v2, x and + (six
				// events) and is cut after "+".
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.FullReplay), a2atest.WithScript(
					a2atest.Working(""),
					a2atest.Chunk("draft", "v1", false, false),
					a2atest.Chunk("draft", "v2", false, false),
					a2atest.Chunk("notes", "x", false, false),
					a2atest.Chunk("notes", "+", true, false),
					a2atest.Pause(tick), a2atest.Chunk("notes", "y", true, true),
					a2atest.Pause(tick), a2atest.Finish(a2a.StateCompleted, "")),
					a2atest.WithFaults(a2atest.CutAfterEvents(6)))
				s := newClient(t, agent, v).Send(bounded(t), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				requireSameAsServer(t, agent, s, got)
				require.Equal(t, 1, resubscribes(agent))

				delivered := map[string][]string{}
				for _, ev := range got.events {
					if u, ok := ev.(*a2a.ArtifactUpdate); ok {
						for _, p := range u.Artifact.Parts {
							delivered[u.Artifact.ID] = append(delivered[u.Artifact.ID], p.Text)
						}
					}
				}
				require.Equal(t, []string{"v1", "v2"}, delivered["draft"], "v1 and v2 once each, v1 never after v2")
				require.Equal(t, []string{"x", "+", "y"}, delivered["notes"], "each part of notes once")
				require.Equal(t, 5, partsDelivered(got))
			})
		})
	}
}

// ---------------------------------------------------------------------------
// Defect 4: more message IDs or statuses than the ledger's capped sets hold.

func TestDefect4_ManyMessagesAndASnapshot(t *testing.T) {
	const n = 5000
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				script := []a2atest.Step{a2atest.Working("")}
				for i := range n {
					script = append(script, a2atest.Say(fmt.Sprintf("message %d", i)))
				}
				script = append(script, a2atest.Pause(2*time.Second), a2atest.Finish(a2a.StateCompleted, ""))
				// Cut after the task, working and the 5,000 messages; the
				// resubscribe opens with a snapshot holding the whole history.
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.SnapshotFirst),
					a2atest.WithScript(script...), a2atest.WithFaults(a2atest.CutAfterEvents(n+2)))
				s := newClient(t, agent, v).Send(bounded(t), hello())
				got, err := drain(t, s) // drain fails on a message delivered twice
				require.NoError(t, err)
				requireSameAsServer(t, agent, s, got)
				require.Equal(t, 1, resubscribes(agent))
				messages := 0
				for _, ev := range got.events {
					if _, ok := ev.(*a2a.Message); ok {
						messages++
					}
				}
				require.Equal(t, n, messages, "each agent message delivered once")
				require.Len(t, s.Task().History, n+1, "the user's message and the agent's, once each")
			})
		})
	}
}

func TestDefect4_ManyStatusesAndAFullReplay(t *testing.T) {
	const n = 300
	script := func() []a2atest.Step {
		var steps []a2atest.Step
		for i := range n {
			steps = append(steps, a2atest.Working(fmt.Sprintf("step %d", i)))
		}
		return append(steps, a2atest.Pause(tick), a2atest.Finish(a2a.StateCompleted, ""))
	}
	run := func(t *testing.T, v a2a.Version, faults ...a2atest.Fault) []a2a.TaskState {
		agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.FullReplay),
			a2atest.WithScript(script()...), a2atest.WithFaults(faults...))
		s := newClient(t, agent, v).Send(bounded(t), hello())
		got, err := drain(t, s)
		require.NoError(t, err)
		requireSameAsServer(t, agent, s, got)
		return got.states
	}
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				uncut := run(t, v)
				require.Len(t, uncut, n+2, "submitted, 300 working, completed")
				// Cut after the task and the 300 statuses; the resubscribe
				// replays everything from the start.
				cut := run(t, v, a2atest.CutAfterEvents(n+1))
				require.Equal(t, len(uncut), len(cut), "as many status updates as without the cut")
				require.Equal(t, uncut, cut)
				working := false
				for i, st := range cut {
					working = working || st == a2a.StateWorking
					require.False(t, working && st == a2a.StateSubmitted, "status %d goes back to submitted", i)
				}
			})
		})
	}
}

// ---------------------------------------------------------------------------
// Defect 6: the reply's stream is cut right after its headers; the task has
// moved on from input-required to working when the stream resubscribes. That
// working status is new although a working status with the same key was seen
// before the prompt.

func TestDefect6_StatusChangeInTheReplayWindow(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.SnapshotFirst), a2atest.WithScript(
					a2atest.Working(""),
					a2atest.Pause(tick), a2atest.Chunk("a1", "draft ", false, false),
					a2atest.Pause(tick), a2atest.AskInput("Which dates?"),
					a2atest.Working(""),
					a2atest.Pause(time.Second), a2atest.Chunk("a1", "final", true, false),
					a2atest.Pause(tick), a2atest.Chunk("a2", "notes", false, true),
					a2atest.Pause(tick), a2atest.Finish(a2a.StateCompleted, "done")),
					a2atest.WithFaults(a2a0(), a2atest.CutAfterEvents(0)))
				hook := &recorder{answers: []string{"Oct 10-17"}}
				s := newClient(t, agent, v, stream.WithHumanInput(hook)).Send(bounded(t), hello())
				defer s.Close()
				var states []a2a.TaskState
				asked := false
				artifactsAfterPrompt := 0
				for s.Next() {
					switch e := s.Event().(type) {
					case *a2a.StatusUpdate:
						states = append(states, e.Status.State)
						asked = asked || e.Status.State == a2a.StateInputRequired
					case *a2a.ArtifactUpdate:
						if asked {
							artifactsAfterPrompt++
							require.Equal(t, a2a.StateWorking, s.Task().Status.State,
								"artifact %s arrives while the task works, not while it waits for input", e.Artifact.ID)
						}
					}
				}
				require.NoError(t, s.Err())
				require.Len(t, hook.requests, 1)
				require.Len(t, followUps(agent), 1)
				require.Equal(t, 1, resubscribes(agent), "the reply's stream was cut once")
				require.Equal(t, 2, artifactsAfterPrompt)
				i := indexOfState(states, a2a.StateInputRequired)
				require.GreaterOrEqual(t, i, 0)
				require.Contains(t, states[i+1:], a2a.StateWorking, "working is delivered after input-required: %v", states)
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
			})
		})
	}
}

func indexOfState(states []a2a.TaskState, st a2a.TaskState) int {
	for i := range states {
		if states[i] == st {
			return i
		}
	}
	return -1
}

// ---------------------------------------------------------------------------
// Defect 7: two status messages without messageId, in the same state.

// withoutMessageID marshals ev and removes every empty messageId.
func withoutMessageID(t *testing.T, v a2a.Version, ev a2a.Event) []byte {
	t.Helper()
	raw, err := a2a.Codec{Version: v}.EncodeEvent(ev)
	require.NoError(t, err)
	raw = bytes.ReplaceAll(raw, []byte(`"messageId":"",`), nil)
	require.NotContains(t, string(raw), "messageId")
	return raw
}

func TestDefect7_StatusMessagesWithoutID(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				task := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateSubmitted}}
				step1 := withoutMessageID(t, v, statusEvent(v, a2a.StateWorking, agentMessage("", "step 1")))
				step2 := withoutMessageID(t, v, statusEvent(v, a2a.StateWorking, agentMessage("", "step 2")))
				srv := newDefectServer(func(w http.ResponseWriter, r defectReq) {
					if r.n != 1 {
						jsonRPCError(w, r.id, a2a.CodeInternalError, "unexpected request")
						return
					}
					sseHeaders(w)
					sseEvent(w, r.id, v, task)
					sseRawResult(w, r.id, step1)
					sseRawResult(w, r.id, step2)
					sseEvent(w, r.id, v, statusEvent(v, a2a.StateCompleted, nil))
				})
				// Not drain: it takes message IDs for identities, and these
				// messages have none.
				s := hostileClient(t, srv, v).Send(bounded(t), hello())
				defer s.Close()
				var texts []string
				for s.Next() {
					if u, ok := s.Event().(*a2a.StatusUpdate); ok && u.Status.Message != nil {
						texts = append(texts, u.Status.Message.Text())
					}
				}
				require.NoError(t, s.Err())
				require.Equal(t, []string{"step 1", "step 2"}, texts, "both status messages are delivered")
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
				require.Len(t, srv.requests(), 1)
			})
		})
	}
}

// ---------------------------------------------------------------------------
// Defect 8: a second input-required with no status message and no timestamp
// is a new question, not the one already answered.

func TestDefect8_SecondPromptWithoutMessageOrTimestamp(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				inputRequired := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateInputRequired}}
				var mu sync.Mutex
				replies := 0
				srv := newDefectServer(func(w http.ResponseWriter, r defectReq) {
					switch {
					case r.isSend() && (r.msg == nil || r.msg.TaskID == ""):
						sseHeaders(w)
						sseEvent(w, r.id, v, &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking}})
						sseEvent(w, r.id, v, statusEvent(v, a2a.StateInputRequired, nil))
					case r.isSend():
						mu.Lock()
						replies++
						k := replies
						mu.Unlock()
						sseHeaders(w)
						sseEvent(w, r.id, v, statusEvent(v, a2a.StateWorking, nil))
						switch k {
						case 1:
							sseEvent(w, r.id, v, statusEvent(v, a2a.StateInputRequired, nil))
						case 2:
							sseEvent(w, r.id, v, statusEvent(v, a2a.StateCompleted, nil))
						}
					case r.isSubscribe():
						// The task waits for input, as after the first reply.
						sseHeaders(w)
						sseEvent(w, r.id, v, inputRequired)
					case r.isGet():
						unaryTask(w, r.id, v, inputRequired)
					default:
						jsonRPCError(w, r.id, a2a.CodeInternalError, "unexpected request")
					}
				})
				hook := &recorder{answers: []string{"first answer", "second answer"}}
				s := hostileClient(t, srv, v, stream.WithHumanInput(hook)).Send(bounded(t), hello())
				_, err := drain(t, s)
				require.NoError(t, err)
				require.Len(t, hook.requests, 2, "the hook is asked twice")
				var sent []*a2a.Message
				for _, r := range srv.requests() {
					if r.isSend() && r.msg != nil && r.msg.TaskID != "" {
						sent = append(sent, r.msg)
					}
				}
				require.Len(t, sent, 2, "each reply sent once")
				require.Equal(t, "first answer", sent[0].Text())
				require.Equal(t, "second answer", sent[1].Text())
				require.NotEqual(t, sent[0].ID, sent[1].ID)
				require.Equal(t, 0, srv.count(defectReq.isSubscribe))
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
			})
		})
	}
}

// ---------------------------------------------------------------------------
// Defect 9: local errors are not network faults, and a resubscribe for the
// right task in another context is a protocol error.

// badParts are message contents that cannot be encoded.
var badParts = []struct {
	name  string
	parts []a2a.Part
}{
	{"invalid data", []a2a.Part{{Data: json.RawMessage("{not json")}}},
	{"NaN metadata", []a2a.Part{{Text: "x", Metadata: map[string]any{"score": math.NaN()}}}},
}

func TestDefect9_HookReplyThatCannotBeEncoded(t *testing.T) {
	for _, v := range versions {
		for _, b := range badParts {
			t.Run(string(v)+"/"+b.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(asking()...))
					asked := 0
					hook := hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
						asked++
						return b.parts, nil
					})
					var rec reconnects
					s := newClient(t, agent, v, stream.WithHumanInput(hook), rec.option()).Send(bounded(t), hello())
					_, err := drain(t, s)
					var he *hitl.Error
					require.ErrorAs(t, err, &he, "got %T: %v", err, err)
					require.ErrorIs(t, err, stream.ErrInvalidMessage)
					var re *reconnect.Error
					require.False(t, errors.As(err, &re), "a local encoding error is not a network fault")
					require.NotNil(t, he.Task)
					require.Equal(t, 1, asked)
					require.Empty(t, rec.causes, "no reconnect")
					require.Equal(t, 0, resubscribes(agent))
					require.Empty(t, followUps(agent))
					require.Len(t, agent.Requests(), 1, "only the first message reached the server")
				})
			})
		}
	}
}

func TestDefect9_SendThatCannotBeEncoded(t *testing.T) {
	for _, v := range versions {
		for _, b := range badParts {
			t.Run(string(v)+"/"+b.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v))
					msg := &a2a.Message{Role: a2a.RoleUser, Parts: b.parts}
					s := newClient(t, agent, v).Send(bounded(t), msg)
					_, err := drain(t, s)
					require.ErrorIs(t, err, stream.ErrInvalidMessage, "got %T: %v", err, err)
					var re *reconnect.Error
					require.False(t, errors.As(err, &re), "nothing was lost on the network")
					require.Empty(t, agent.Requests(), "no request reached the server")
					require.Nil(t, s.Task())
				})
			})
		}
	}
}

func TestDefect9_HookReturnsNoParts(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(asking()...))
				empty := hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) { return nil, nil })
				s := newClient(t, agent, v, stream.WithHumanInput(empty)).Send(bounded(t), hello())
				_, err := drain(t, s)
				var he *hitl.Error
				require.ErrorAs(t, err, &he, "got %T: %v", err, err)
				require.ErrorIs(t, err, stream.ErrInvalidMessage)
				require.Equal(t, a2a.StateInputRequired, he.Task.Status.State)
				require.Len(t, agent.Requests(), 1, "no follow-up was sent")
				require.Empty(t, followUps(agent))
			})
		})
	}
}

func TestDefect9_SnapshotFromAnotherContext(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				elsewhere := &a2a.Task{ID: "t-1", ContextID: "c-other", Status: a2a.TaskStatus{State: a2a.StateWorking},
					Artifacts: []a2a.Artifact{{ID: "a1", Parts: []a2a.Part{{Text: "kept"}}}}}
				srv := newDefectServer(func(w http.ResponseWriter, r defectReq) {
					if r.n == 1 {
						firstLegThenCut(w, r.id, v)
					}
					sseHeaders(w)
					sseEvent(w, r.id, v, elsewhere)
				})
				s := hostileClient(t, srv, v).Send(bounded(t), hello())
				got, err := drain(t, s)
				pe := requireProtocolError(t, err, "")
				requireKept(t, pe)
				require.Equal(t, "c-1", pe.Task.ContextID)
				require.Equal(t, "kept", got.text("a1"))
				require.Len(t, srv.requests(), 2, "not retried")
				require.Equal(t, 1, srv.count(defectReq.isSubscribe))
			})
		})
	}
}

func TestDefect9_SleepError(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				boom := errors.New("sleep broke")
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(paced()...),
					a2atest.WithFaults(a2atest.CutAfterEvents(3)))
				slept := 0
				sleep := func(context.Context, time.Duration) error {
					slept++
					return boom
				}
				s := newClient(t, agent, v, stream.WithSleep(sleep)).Send(bounded(t), hello())
				_, err := drain(t, s)
				require.Error(t, err, "the stream did not complete")
				require.ErrorIs(t, err, boom)
				require.Equal(t, 1, slept)
				require.Equal(t, 0, resubscribes(agent))
			})
		})
	}
}
