package ledger_test

// Replays at the ledger level: a replayed version, current or retired, is
// old; past the cap of retired parts the oldest versions are new again.

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/ledger"
)

// A replaced version that is a prefix of the current one: x + | x y.
func TestReplayOfAReplacedPrefixOfTheCurrentVersionIsOld(t *testing.T) {
	parts := replayAll(t, func() []a2a.Event {
		return []a2a.Event{
			task(a2a.StateWorking, nil),
			chunk("d", false, false, "x"),
			chunk("d", true, false, "+"),
			chunk("d", false, false, "x"),
			chunk("d", true, false, "y"),
		}
	})
	require.Zero(t, parts, "a full replay delivers nothing")
}

// Two replaced versions with the same first part: a b | a c | z.
func TestReplayOfTwoRetiredVersionsStartingAlikeIsOld(t *testing.T) {
	parts := replayAll(t, func() []a2a.Event {
		return []a2a.Event{
			task(a2a.StateWorking, nil),
			chunk("d", false, false, "a"),
			chunk("d", true, false, "b"),
			chunk("d", false, false, "a"),
			chunk("d", true, false, "c"),
			chunk("d", false, false, "z"),
		}
	})
	require.Zero(t, parts, "a full replay delivers nothing")
}

// Past the 65,536 retired parts the oldest version is forgotten (documented),
// but its replay closes the window, so every later version is delivered again
// too: here three versions, of which only the first is forgotten.
func TestForgottenRetiredVersionMakesLaterVersionsNewAgain(t *testing.T) {
	t.Parallel()
	const n = 40_000
	big := func(tag string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%s%d", tag, i)
		}
		return out
	}
	v0, v1 := big("a"), big("b")
	parts := replayAll(t, func() []a2a.Event {
		return []a2a.Event{
			task(a2a.StateWorking, nil),
			chunk("d", false, false, v0...),
			chunk("d", false, false, v1...),
			chunk("d", false, false, "current"),
		}
	})
	require.LessOrEqual(t, parts, n, "only the forgotten version may come again")
}

// replayAll applies evs live, opens the replay window, applies evs again and
// returns the artifact parts the replay delivered.
func replayAll(t *testing.T, evs func() []a2a.Event) int {
	l := ledger.New()
	var a app
	for _, ev := range evs() {
		a.apply(t, l.Apply(nil, ev))
	}
	l.OpenReplayWindow()
	parts := 0
	for _, ev := range evs() {
		out := l.Apply(nil, ev)
		a.apply(t, out)
		for _, d := range out {
			if u, ok := d.(*a2a.ArtifactUpdate); ok {
				parts += len(u.Artifact.Parts)
			}
		}
	}
	a.check(t, l)
	return parts
}

// A full replay resends an artifact that was really replaced (v1,
// then v2) and one built by appends (x, then +). Nothing of it is new.
func TestFullReplayOfAReplacementAndOfAppendsIsOld(t *testing.T) {
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
	l := ledger.New()
	var a app
	for _, ev := range events() {
		a.apply(t, l.Apply(nil, ev))
	}
	require.Equal(t, "v2", a.Text("draft"))
	require.Equal(t, "x+", a.Text("notes"))

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
	require.Equal(t, "x+y", a.Text("notes"))
}

// A get-task shows one status of its instant; a status the agent set at
// that same instant before it, which the ledger never saw, is old when a
// replay brings it: its message was delivered from the history. Before,
// the instant decided alone, and the replayed status was delivered as
// news, moving the task back.
func TestReplayedStatusAtTheInstantOfAFetchedTaskIsOld(t *testing.T) {
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	say := func(id, text string) *a2a.Message {
		return &a2a.Message{ID: id, TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: text}}}
	}
	working := func(m *a2a.Message) *a2a.StatusUpdate {
		return &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking, Message: m, Timestamp: at}}
	}
	l := ledger.New()
	fetched := &a2a.Task{ID: "t-1", ContextID: "c-1", History: []a2a.Message{*say("m-8", "step 8"), *say("m-11", "step 11")},
		Status: a2a.TaskStatus{State: a2a.StateWorking, Message: say("m-11", "step 11"), Timestamp: at}}
	require.NotEmpty(t, l.Reconcile(nil, fetched, true))
	l.OpenReplayWindow()
	require.Empty(t, l.Apply(nil, working(say("m-8", "step 8"))), "a replay of the status before, at the same instant")
	require.Equal(t, "step 11", l.Task().Status.Message.Text(), "the task did not move back")
	require.Empty(t, l.Apply(nil, working(say("m-11", "step 11"))), "a replay of the status shown")
	got := l.Apply(nil, working(say("m-12", "step 12")))
	require.Len(t, got, 1, "a new status at that instant, with a new message, is news")
}
