package stream_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

func sgText(id, text string) a2a.Artifact {
	return a2a.Artifact{ID: id, Parts: []a2a.Part{a2a.TextPart(text)}}
}

// sgRequireFold asserts that Task().Artifacts is the fold of the events
// yielded so far.
func sgRequireFold(t *testing.T, fold *a2a.Task, got *a2a.Task, when string) {
	t.Helper()
	if got == nil {
		require.Empty(t, fold.Artifacts, when)
		return
	}
	require.Equal(t, len(fold.Artifacts), len(got.Artifacts), "%s: artifact count of Task() against the fold of the events yielded", when)
	for i := range fold.Artifacts {
		require.Equal(t, fold.Artifacts[i], got.Artifacts[i], "%s: artifact %d", when, i)
	}
}

// TestCancelBetweenDeltasKeepsTheFold: Stream.Cancel called
// between two deltas of one server event (a Task that brings two
// artifacts and a status message) leaves Task() the fold of the events
// yielded so far, before the next Next and after each one; the cancel's
// task (with one more artifact) is delivered as deltas, and the stream
// ends canceled.
func TestCancelBetweenDeltasKeepsTheFold(t *testing.T) {
	for _, w := range wires() {
		for _, after := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/after-%d", w, after), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					msg := &a2a.Message{ID: "m-1", TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("working on it")}}
					snapshot := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking, Message: msg},
						Artifacts: []a2a.Artifact{sgText("a1", "one"), sgText("a2", "two")}, History: []a2a.Message{*msg}}
					agent := newWireAgent(w, map[callKind]func(w *wireWriter, c wireCall){
						kindStream: func(w *wireWriter, c wireCall) {
							w.sse()
							w.event(snapshot)
							<-c.ctx.Done()
						},
						kindCancel: func(w *wireWriter, c wireCall) {
							done := snapshot.Clone()
							done.Status = a2a.TaskStatus{State: a2a.StateCanceled}
							done.Artifacts = append(done.Artifacts, sgText("a3", "three"))
							w.task(done)
						},
						kindGet: func(w *wireWriter, c wireCall) { w.task(snapshot) },
					})
					c := agent.client(t)
					s := c.Send(context.Background(), hello())
					defer s.Close()
					fold := &a2a.Task{}
					for i := 0; i < after; i++ {
						require.True(t, s.Next(), "delta %d (ended in %v)", i, s.Err())
						fold.Apply(s.Event())
						sgRequireFold(t, fold, s.Task(), fmt.Sprintf("after delta %d", i))
					}
					require.NoError(t, s.Cancel(context.Background()))
					sgRequireFold(t, fold, s.Task(), "right after Cancel, before Next")
					for s.Next() {
						fold.Apply(s.Event())
						sgRequireFold(t, fold, s.Task(), "after a delta that followed Cancel")
					}
					state, ok := terminalState(s.Err())
					require.True(t, ok, "ended in %v", s.Err())
					require.Equal(t, a2a.StateCanceled, state)
					require.Len(t, fold.Artifacts, 3, "the cancel's task was delivered whole")
					require.NotNil(t, fold.Artifact("a3"))
				})
			})
		}
	}
}

// TestCancelStillRunningKeepsTheFold: a cancel whose answer shows
// the task still running (with an artifact the stream has not delivered
// yet) leaves Task() the fold of the events yielded so far; the live
// stream goes on and ends canceled.
func TestCancelStillRunningKeepsTheFold(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				canceled := make(chan struct{})
				snapshot := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking},
					Artifacts: []a2a.Artifact{sgText("a1", "one"), sgText("a2", "two")}}
				agent := newWireAgent(w, map[callKind]func(w *wireWriter, c wireCall){
					kindStream: func(ww *wireWriter, c wireCall) {
						ww.sse()
						ww.event(snapshot)
						select {
						case <-canceled:
						case <-c.ctx.Done():
							return
						}
						ww.event(&a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Artifact: sgText("a3", "three")})
						ww.event(&a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateCanceled}, Final: true})
					},
					kindCancel: func(ww *wireWriter, c wireCall) {
						running := snapshot.Clone()
						running.Artifacts = append(running.Artifacts, sgText("a3", "three"))
						ww.task(running)
						close(canceled)
					},
				})
				s := agent.client(t).Send(context.Background(), hello())
				defer s.Close()
				fold := &a2a.Task{}
				require.True(t, s.Next())
				fold.Apply(s.Event())
				require.NoError(t, s.Cancel(context.Background()))
				sgRequireFold(t, fold, s.Task(), "right after Cancel, before Next")
				for s.Next() {
					fold.Apply(s.Event())
					sgRequireFold(t, fold, s.Task(), "after a delta that followed Cancel")
				}
				state, ok := terminalState(s.Err())
				require.True(t, ok, "ended in %v", s.Err())
				require.Equal(t, a2a.StateCanceled, state)
				require.Len(t, fold.Artifacts, 3)
				require.Equal(t, "three", fold.Artifact("a3").Text(), "a3 once, whole")
			})
		})
	}
}
