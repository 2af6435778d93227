package stream_test

import (
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

// failureMetadata is the metadata of a structured failure in the
// tRPC-Agent-Go convention, as its agents send it on the status update and
// mirror it on the status message.
const failureMetadata = `{"object_type":"error","error_type":"flow_error","error_code":"REMOTE_VALIDATION_FAILED","error_message":"validation failed","task_state":"failed","llm_response_id":"resp-1"}`

// failureStatus returns the failed status of a structured failure in w's
// shape: its message carries the metadata too, and the text.
func failureStatus(w wire) string {
	if w.v == a2a.V03 && w.b == a2a.BindingJSONRPC {
		return `{"state":"failed","message":{"messageId":"resp-1","role":"agent","metadata":` + failureMetadata + `,"parts":[{"kind":"text","text":"validation failed"}]}}`
	}
	parts := "parts" // 1.0's name; 0.3's HTTP+JSON (proto) calls them content
	if w.v == a2a.V03 {
		parts = "content"
	}
	return `{"state":"TASK_STATE_FAILED","message":{"messageId":"resp-1","role":"ROLE_AGENT","metadata":` + failureMetadata + `,"` + parts + `":[{"text":"validation failed"}]}}`
}

// failureUpdate returns the status update that ends a stream with a
// structured failure, in w's shape. In 0.3 JSON-RPC it is the event an
// agent of the tRPC-Agent-Go convention sends, with the IDs and final flag
// that 0.3 requires.
func failureUpdate(w wire) string {
	if w.v == a2a.V03 && w.b == a2a.BindingJSONRPC {
		return `{"kind":"status-update","taskId":"t-1","contextId":"c-1","final":true,"metadata":` + failureMetadata + `,"status":` + failureStatus(w) + `}`
	}
	return `{"statusUpdate":{"taskId":"t-1","contextId":"c-1","metadata":` + failureMetadata + `,"status":` + failureStatus(w) + `}}`
}

// failedTask returns the failed Task of a structured failure, carrying the
// metadata, in w's shape: as a get-task answers it.
func failedTask(w wire) string {
	kind := ""
	if w.v == a2a.V03 && w.b == a2a.BindingJSONRPC {
		kind = `"kind":"task",`
	}
	return `{` + kind + `"id":"t-1","contextId":"c-1","metadata":` + failureMetadata + `,"status":` + failureStatus(w) + `}`
}

// sendResult returns a unary send's answer of task, a Task as a get-task
// answers it: 0.3's JSON-RPC result is the task itself, the others wrap it.
func sendResult(w wire, task string) string {
	if w.v == a2a.V03 && w.b == a2a.BindingJSONRPC {
		return task
	}
	return `{"task":` + task + `}`
}

// failureMetadataMap returns failureMetadata decoded.
func failureMetadataMap(t *testing.T) map[string]any {
	t.Helper()
	var md map[string]any
	require.NoError(t, json.Unmarshal([]byte(failureMetadata), &md))
	return md
}

// A task that ends with a structured failure, on every wire, streamed,
// answered at once or polled, is read as the program needs it:
//   - the failed error's task carries the status update's (or the failed
//     Task's) metadata merged into the first Task's, the later value
//     winning, and the status message keeps its own;
//   - terminal.FailureOf gives its fields, and the error's text names its
//     code.
func TestStructuredFailureIsReadFromTheFinalTask(t *testing.T) {
	want := terminal.Failure{ObjectType: "error", Type: "flow_error", Code: "REMOTE_VALIDATION_FAILED",
		Message: "validation failed", TaskState: "failed"}
	for _, w := range wires() {
		for name, agent := range failingAgents(w) {
			t.Run(w.String()+"/"+name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					_, err := drain(t, agent.client(t).Send(bounded(t), hello()))
					var failed *terminal.FailedError
					require.ErrorAs(t, err, &failed)
					md := failureMetadataMap(t)
					require.Equal(t, md, failed.Task.Status.Message.Metadata)
					if name != "send" {
						md["session"] = "s-1"
					}
					require.Equal(t, md, failed.Task.Metadata)

					got, ok := wirematrix.TerminalFailure(err)
					require.True(t, ok, "%v", err)
					require.Equal(t, want, got)
					require.EqualError(t, err, "terminal: task t-1 ended in state failed: REMOTE_VALIDATION_FAILED: validation failed")
				})
			})
		}
	}
}

// An agent of another convention (the reason in a data part of the status
// message): a Reader given with WithFailureReader reads it, on the Client or
// per call, and is called once, with the final task. The default reader
// finds no structured failure there.
func TestFailureReaderReadsAnotherConvention(t *testing.T) {
	fromDataPart := func(calls *int) terminal.Reader {
		return func(tk *a2a.Task) (terminal.Failure, bool) {
			*calls++
			if tk.Status.Message == nil {
				return terminal.Failure{}, false
			}
			for _, p := range tk.Status.Message.Parts {
				var d struct {
					Code   string `json:"code"`
					Reason string `json:"reason"`
				}
				if p.Data != nil && json.Unmarshal(p.Data, &d) == nil && d.Code != "" {
					return terminal.Failure{Code: d.Code, Message: d.Reason}, true
				}
			}
			return terminal.Failure{}, false
		}
	}
	failed := &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Final: true, Status: a2a.TaskStatus{State: a2a.StateFailed,
		Message: &a2a.Message{ID: "m-1", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: "no seats left"},
			{Data: json.RawMessage(`{"code":"SOLD_OUT","reason":"no seats on flight 12"}`)}}}}}
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						ww.sse()
						ww.event(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking}})
						ww.event(failed)
					},
				})
				want := terminal.Failure{Code: "SOLD_OUT", Message: "no seats on flight 12"}

				_, err := drain(t, agent.client(t).Send(bounded(t), hello()))
				_, ok := wirematrix.TerminalFailure(err)
				require.False(t, ok, "the default reader finds no tRPC-Agent-Go keys")
				require.EqualError(t, err, "terminal: task t-1 ended in state failed: no seats left")

				var calls int
				_, err = drain(t, agent.client(t, stream.WithFailureReader(fromDataPart(&calls))).Send(bounded(t), hello()))
				got, ok := wirematrix.TerminalFailure(err)
				require.True(t, ok)
				require.Equal(t, want, got)
				require.EqualError(t, err, "terminal: task t-1 ended in state failed: SOLD_OUT: no seats on flight 12")
				require.Equal(t, 1, calls)

				calls = 0
				_, err = drain(t, agent.client(t).Send(bounded(t), hello(), stream.WithFailureReader(fromDataPart(&calls))))
				got, ok = wirematrix.TerminalFailure(err)
				require.True(t, ok, "per call")
				require.Equal(t, want, got)
				require.Equal(t, 1, calls)
			})
		})
	}
}

// A task canceled through Stream.Cancel ends the stream with an error read
// by the stream's failure reader too.
func TestCanceledTaskIsReadByTheFailureReader(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				working := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking}}
				agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, c wireCall) {
						ww.sse()
						ww.event(working)
						<-c.ctx.Done()
					},
					kindCancel: func(ww *wireWriter, _ wireCall) {
						ww.task(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateCanceled},
							Metadata: map[string]any{"cancel_code": "USER_ABORT"}})
					},
				})
				byCancelCode := func(tk *a2a.Task) (terminal.Failure, bool) {
					code, ok := tk.Metadata["cancel_code"].(string)
					return terminal.Failure{Code: code}, ok
				}
				s := agent.client(t, stream.WithFailureReader(byCancelCode)).Send(bounded(t), hello())
				defer s.Close()
				require.True(t, s.Next())
				require.NoError(t, s.Cancel(bounded(t)))
				for s.Next() {
				}
				var canceled *terminal.CanceledError
				require.ErrorAs(t, s.Err(), &canceled)
				got, ok := wirematrix.TerminalFailure(s.Err())
				require.True(t, ok)
				require.Equal(t, terminal.Failure{Code: "USER_ABORT"}, got)
				require.EqualError(t, s.Err(), "terminal: task t-1 ended in state canceled: USER_ABORT")
			})
		})
	}
}

// A structured failure whose metadata arrives over several status updates
// and is replayed after a cut. README, "Structured failures": each status
// update's metadata is folded into the task's key by key, "a later value
// winning (a replay never brings an older value back)"; and "Statuses are
// replays when they are older than the newest status seen (by the
// server's timestamps), or, without timestamps, when the same state and
// message were seen before."

// failingOverUpdates is an agent whose send streams the task's failure
// code in two status updates, OLD then NEW (the second with a status
// message), and is cut; the resubscribe answers with replay, then the
// failed status, which carries no failure key of its own; a get-task
// answers the task as a store behind the stream holds it, with OLD. Every
// status carries a timestamp.
func failingOverUpdates(w wire, replay func(ww *wireWriter, old, new *a2a.StatusUpdate)) *wireAgent {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }
	status := func(state a2a.TaskState, i int, md map[string]any, msg *a2a.Message) *a2a.StatusUpdate {
		return &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Metadata: md, Final: state.Terminal(),
			Status: a2a.TaskStatus{State: state, Timestamp: at(i), Message: msg}}
	}
	old := status(a2a.StateWorking, 1, map[string]any{"error_type": "flow_error", "error_code": "OLD"}, nil)
	newer := status(a2a.StateWorking, 2, map[string]any{"error_code": "NEW"}, agentMsg("m-2", "retrying the model"))
	failed := status(a2a.StateFailed, 3, nil, agentMsg("m-3", "gave up"))
	// A get-task, the one that closes the gap, is served by a store behind
	// the stream: the task as it was with OLD.
	behind := snap(a2a.StateWorking)
	behind.Status.Timestamp = at(1)
	behind.Metadata = map[string]any{"error_type": "flow_error", "error_code": "OLD"}
	return newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
		kindStream: func(ww *wireWriter, _ wireCall) {
			ww.sse()
			ww.event(snap(a2a.StateSubmitted))
			ww.event(old)
			ww.event(newer)
		},
		kindSubscribe: func(ww *wireWriter, _ wireCall) {
			ww.sse()
			replay(ww, old, newer)
			ww.event(failed)
		},
		kindGet: func(ww *wireWriter, _ wireCall) { ww.task(behind) },
	})
}

// Under timestamps: without them, the get-task that closes the gap (a
// store behind) does bring OLD back, and the status back to one without a
// message; the README promises that such a get-task "takes back nothing"
// only when the statuses carry timestamps.
func TestReplayedStatusNeverBringsAnOlderFailureKeyBack(t *testing.T) {
	replays := map[string]func(ww *wireWriter, old, new *a2a.StatusUpdate){
		// The server replays every event from the start.
		"full replay": func(ww *wireWriter, old, new *a2a.StatusUpdate) {
			ww.event(old)
			ww.event(new)
		},
		// The server replays the first update only (a replica behind).
		"stale replay": func(ww *wireWriter, old, _ *a2a.StatusUpdate) {
			ww.event(old)
		},
	}
	for _, w := range wires() {
		for name, replay := range replays {
			t.Run(w.String()+"/"+name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					a := failingOverUpdates(w, replay)
					got, err := drain(t, a.client(t).Send(background(), hello()))
					var states []a2a.TaskState
					for _, ev := range got.events {
						if u, ok := ev.(*a2a.StatusUpdate); ok {
							states = append(states, u.Status.State)
						}
					}
					require.Equal(t, []a2a.TaskState{a2a.StateSubmitted, a2a.StateWorking, a2a.StateWorking, a2a.StateFailed}, states,
						"the replayed statuses are not delivered again")
					f, ok := wirematrix.TerminalFailure(err)
					require.True(t, ok, "%v", err)
					require.Equal(t, "NEW", f.Code, "the later value wins; the replay does not bring OLD back: %v", err)
					require.Equal(t, "flow_error", f.Type)
					require.Equal(t, "gave up", f.Message)
					require.Equal(t, "terminal: task t-1 ended in state failed: NEW: gave up", err.Error())
					require.Equal(t, 1, a.count(kindGet), "the gap was closed with the store's task")
				})
			})
		}
	}
}
