package stream_test

// A structured failure whose metadata arrives over several status updates
// and is replayed after a cut. README, "Structured failures": each status
// update's metadata is folded into the task's key by key, "a later value
// winning (a replay never brings an older value back)"; and "Statuses are
// replays when they are older than the newest status seen (by the
// server's timestamps), or, without timestamps, when the same state and
// message were seen before."

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

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
					f, ok := terminalFailure(err)
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
