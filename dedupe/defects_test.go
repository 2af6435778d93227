package dedupe_test

// Ledger-level regression tests for defects 3, 4 and 7 of issue 10; the
// stream-level ones are in stream/defects_test.go. Each fails on 267d71a.

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/dedupe"
)

func agentSays(id, text string) *a2a.Message {
	return &a2a.Message{ID: id, TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: text}}}
}

// Defect 3: a full replay resends an artifact that was really replaced (v1,
// then v2) and one built by appends (x, then +). Nothing of it is new.
func TestDefect3_ReplayOfARealReplacement(t *testing.T) {
	events := func() []a2a.Event {
		return []a2a.Event{
			task(a2a.StateSubmitted, nil),
			status(a2a.StateWorking, "", ""),
			chunk("draft", false, false, "v1"),
			chunk("draft", false, false, "v2"),
			chunk("notes", false, false, "x"),
			chunk("notes", true, false, "+"),
		}
	}
	l := dedupe.New()
	var a app
	for _, ev := range events() {
		a.apply(t, l.Apply(nil, ev))
	}
	require.Equal(t, "v2", a.text("draft"))
	require.Equal(t, "x+", a.text("notes"))

	l.OpenReplayWindow()
	for i, ev := range events() {
		out := l.Apply(nil, ev)
		require.Zero(t, len(out), "replayed event %d (%T) is not new", i, ev)
		a.apply(t, out)
	}
	a.check(t, l)
	require.Equal(t, "v2", l.Task().Artifact("draft").Text())
	require.Equal(t, "x+", l.Task().Artifact("notes").Text())

	out := l.Apply(nil, chunk("notes", true, true, "y"))
	require.Len(t, out, 1, "the first new part after the replay")
	a.apply(t, out)
	a.check(t, l)
	require.Equal(t, "x+y", a.text("notes"))
}

// Defect 4: more messages than the message-ID set holds, then a snapshot
// with the whole history.
func TestDefect4_HistoryBeyondTheIDSet(t *testing.T) {
	const n = 5000
	l := dedupe.New()
	var a app
	user := &a2a.Message{ID: "m-user", Role: a2a.RoleUser, Parts: []a2a.Part{{Text: "hello"}}}
	l.RecordSent(user)
	first := task(a2a.StateSubmitted, nil)
	first.History = []a2a.Message{*user.Clone()}
	a.apply(t, l.Apply(nil, first))
	a.apply(t, l.Apply(nil, status(a2a.StateWorking, "", "")))
	snapshot := task(a2a.StateWorking, nil)
	snapshot.History = []a2a.Message{*user.Clone()}
	for i := range n {
		m := agentSays(fmt.Sprintf("m-%d", i), fmt.Sprintf("message %d", i))
		snapshot.History = append(snapshot.History, *m.Clone())
		a.apply(t, l.Apply(nil, m))
	}
	require.Len(t, l.Task().History, n+1)

	l.OpenReplayWindow()
	out := l.Reconcile(nil, snapshot, false)
	require.Zero(t, len(out), "nothing in the snapshot is new")
	a.apply(t, out)
	a.check(t, l)
	require.Len(t, l.Task().History, n+1, "each message once in the history")
}

// Defect 4: more statuses than the status set holds, then a full replay
// from the start. The state never goes back.
func TestDefect4_StatusesBeyondTheStatusSet(t *testing.T) {
	const n = 300
	events := func() []a2a.Event {
		evs := []a2a.Event{task(a2a.StateSubmitted, nil)}
		for i := range n {
			evs = append(evs, status(a2a.StateWorking, fmt.Sprintf("m-%d", i), fmt.Sprintf("step %d", i)))
		}
		return evs
	}
	l := dedupe.New()
	var a app
	for _, ev := range events() {
		a.apply(t, l.Apply(nil, ev))
	}
	require.Len(t, a.statuses, n+1)

	l.OpenReplayWindow()
	for i, ev := range events() {
		out := l.Apply(nil, ev)
		require.Zero(t, len(out), "replayed event %d is not new", i)
		a.apply(t, out)
		require.Equal(t, a2a.StateWorking, l.Task().Status.State, "the state never goes back (event %d)", i)
	}
	a.apply(t, l.Apply(nil, status(a2a.StateCompleted, "", "")))
	require.Len(t, a.statuses, n+2)
	a.check(t, l)
}

// Defect 7: two status messages without a message ID, in the same state.
func TestDefect7_StatusMessagesWithoutID(t *testing.T) {
	l := dedupe.New()
	l.Apply(nil, task(a2a.StateSubmitted, nil))
	var texts []string
	for _, text := range []string{"step 1", "step 2"} {
		u := &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1",
			Status: a2a.TaskStatus{State: a2a.StateWorking, Message: agentSays("", text)}}
		out := l.Apply(nil, u)
		require.Len(t, out, 1, "%q is a new status message", text)
		su, ok := out[0].(*a2a.StatusUpdate)
		require.True(t, ok)
		require.NotNil(t, su.Status.Message)
		texts = append(texts, su.Status.Message.Text())
	}
	require.Equal(t, []string{"step 1", "step 2"}, texts)
	require.Equal(t, "step 2", l.Task().Status.Message.Text())
}
