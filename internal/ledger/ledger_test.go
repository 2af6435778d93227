package ledger_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/foldcheck"
	"github.com/a2astream/a2astream/internal/ledger"
)

// app is what an application builds by applying the yielded deltas: a
// foldcheck.Fold in its Strict mode (the zero Mode), which checks each delta
// as it is applied.
type app struct{ foldcheck.Fold }

// apply hands one batch of deltas (what one Apply or Reconcile call
// yielded) to the application.
func (a *app) apply(t *testing.T, evs []a2a.Event) {
	t.Helper()
	for _, ev := range evs {
		a.Apply(t, ev)
	}
}

// check asserts the invariant: the application's artifacts equal the
// ledger's, order included, and no message was delivered twice.
func (a *app) check(t *testing.T, l *ledger.Ledger) {
	t.Helper()
	var want []a2a.Artifact
	if l.Task() != nil {
		want = l.Task().Artifacts
	}
	a.RequireArtifacts(t, want, "against the ledger's task")
	a.RequireMessagesOnce(t)
}

func textMsg(id, text string) *a2a.Message {
	return &a2a.Message{ID: id, Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: text}}}
}

func status(state a2a.TaskState, msgID, text string) *a2a.StatusUpdate {
	u := &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: state}}
	if msgID != "" {
		u.Status.Message = &a2a.Message{ID: msgID, Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: text}}}
	}
	return u
}

func chunk(id string, appendChunk, last bool, texts ...string) *a2a.ArtifactUpdate {
	u := &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Append: appendChunk, LastChunk: last, Artifact: a2a.Artifact{ID: id}}
	for _, s := range texts {
		u.Artifact.Parts = append(u.Artifact.Parts, a2a.Part{Text: s})
	}
	return u
}

func task(state a2a.TaskState, arts map[string][]string, order ...string) *a2a.Task {
	t := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: state}}
	for _, id := range order {
		a := a2a.Artifact{ID: id}
		for _, s := range arts[id] {
			a.Parts = append(a.Parts, a2a.Part{Text: s})
		}
		t.Artifacts = append(t.Artifacts, a)
	}
	return t
}

func TestLiveStream(t *testing.T) {
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, task(a2a.StateSubmitted, nil)))
	a.apply(t, l.Apply(nil, status(a2a.StateWorking, "m-1", "thinking")))
	a.apply(t, l.Apply(nil, chunk("a1", false, false, "hello ")))
	a.apply(t, l.Apply(nil, chunk("a1", true, true, "world")))
	a.apply(t, l.Apply(nil, status(a2a.StateCompleted, "", "")))
	a.check(t, l)
	require.Equal(t, "hello world", a.Text("a1"))
	require.Equal(t, []a2a.TaskState{a2a.StateSubmitted, a2a.StateWorking, a2a.StateCompleted}, a.States)
	require.Equal(t, a2a.StateCompleted, l.Task().Status.State)
	require.Equal(t, "thinking", l.Task().History[0].Text(), "status messages join the history")
}

// The delta that opens an artifact shares its parts with the ledger, but
// later events folded into the held artifact never show through it: an
// append (into an event whose parts array has room to spare) and an
// append's metadata leave the delta as it was yielded, and so does a
// replacement.
func TestYieldedArtifactIsNotChangedByLaterEvents(t *testing.T) {
	l := ledger.New()
	parts := make([]a2a.Part, 1, 8)
	parts[0] = a2a.TextPart("one ")
	opening := &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1",
		Artifact: a2a.Artifact{ID: "a1", Parts: parts, Metadata: map[string]any{"step": 1.0}}}
	out := l.Apply(nil, opening)
	require.Len(t, out, 1)
	first := out[0].(*a2a.ArtifactUpdate)
	want := first.Artifact.Clone()

	more := chunk("a1", true, false, "two ")
	more.Artifact.Metadata = map[string]any{"step": 2.0, "added": "yes"}
	require.Len(t, l.Apply(nil, more), 1)
	require.Len(t, l.Apply(nil, chunk("a1", true, false, "three")), 1)
	require.Equal(t, want, first.Artifact, "the opening delta after two appends")
	require.Equal(t, a2a.Part{}, parts[:2][1], "the event's array past its parts")
	require.Equal(t, a2a.TextPart("two "), l.Task().Artifact("a1").Parts[1])
	require.Equal(t, "one two three", l.Task().Artifact("a1").Text())
	require.Equal(t, map[string]any{"step": 2.0, "added": "yes"}, l.Task().Artifact("a1").Metadata)

	replaced := l.Apply(nil, chunk("a1", false, false, "new"))
	require.Len(t, replaced, 1)
	second := replaced[0].(*a2a.ArtifactUpdate)
	wantSecond := second.Artifact.Clone()
	require.Len(t, l.Apply(nil, chunk("a1", true, false, " tail")), 1)
	require.Equal(t, wantSecond, second.Artifact, "the replacement delta after an append")
	require.Equal(t, want, first.Artifact)
	require.Equal(t, "new tail", l.Task().Artifact("a1").Text())
}

// An append's name, description and metadata reach the ledger's task by the
// fold the application uses (a2a.Artifact.Apply), live and after a replay;
// a replayed append changes nothing, and a version held pending in the
// window keeps what the appends to it carried.
func TestAppendsCarryNamesAndMetadata(t *testing.T) {
	named := func(u *a2a.ArtifactUpdate, name string, md map[string]any) *a2a.ArtifactUpdate {
		u.Artifact.Name, u.Artifact.Description, u.Artifact.Metadata = name, name+" (described)", md
		return u
	}
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, chunk("a1", false, false, "one ")))
	a.apply(t, l.Apply(nil, named(chunk("a1", true, false, "two "), "draft", map[string]any{"step": 1.0, "kept": "yes"})))
	a.check(t, l)
	held := l.Task().Artifact("a1")
	require.Equal(t, "draft", held.Name)
	require.Equal(t, "draft (described)", held.Description)
	require.Equal(t, map[string]any{"step": 1.0, "kept": "yes"}, held.Metadata)

	// A replay of the same append, renamed, is a replay: nothing changes.
	l.OpenReplayWindow()
	a.apply(t, l.Apply(nil, chunk("a1", false, false, "one ")))
	a.apply(t, l.Apply(nil, named(chunk("a1", true, false, "two "), "renamed in replay", map[string]any{"step": 9.0})))
	a.apply(t, l.Apply(nil, named(chunk("a1", true, true, "three"), "final", map[string]any{"step": 2.0})))
	a.check(t, l)
	held = l.Task().Artifact("a1")
	require.Equal(t, "one two three", held.Text())
	require.Equal(t, "final", held.Name)
	require.Equal(t, map[string]any{"step": 2.0, "kept": "yes"}, held.Metadata)

	// A version never seen, in a replay that has not reached the current
	// version, is held pending; an append with a name extends it, and the
	// version the window lets out carries both.
	a.apply(t, l.Apply(nil, chunk("a2", false, false, "v1")))
	a.apply(t, l.Apply(nil, chunk("a2", false, false, "v3")))
	l.OpenReplayWindow()
	var out []a2a.Event
	for _, ev := range []a2a.Event{
		chunk("a2", false, false, "v1"),
		chunk("a2", false, false, "v4 "),
		named(chunk("a2", true, false, "more"), "second", map[string]any{"v": 2.0}),
	} {
		out = l.Apply(out, ev)
	}
	require.Empty(t, out, "the new version waits in the window")
	require.Equal(t, 1, l.Pending())
	done := status(a2a.StateCompleted, "", "")
	done.Status.Timestamp = time.Unix(100, 0).UTC()
	a.apply(t, l.Apply(nil, done))
	a.check(t, l)
	require.Equal(t, "second", l.Task().Artifact("a2").Name)
	require.Equal(t, map[string]any{"v": 2.0}, l.Task().Artifact("a2").Metadata)
	require.Equal(t, "v4 more", l.Task().Artifact("a2").Text())
}

// Labels (name, description, metadata) that change without parts: a live
// replacement with the same parts, an append of labels alone after the
// parts held in a replay window (new) or before them (a replay), and a
// get-task whose artifact has fewer labels than held (the agent replaced
// it: the present wins whole).
func TestLabelsWithoutParts(t *testing.T) {
	labels := func(u *a2a.ArtifactUpdate, name string, md map[string]any) *a2a.ArtifactUpdate {
		u.Artifact.Name, u.Artifact.Metadata = name, md
		return u
	}
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, labels(chunk("a2", false, false, "p"), "v1", nil)))
	evs := l.Apply(nil, labels(chunk("a2", false, false, "p"), "v2", map[string]any{"k": 1.0}))
	require.Len(t, evs, 1, "a replacement that changes the labels alone is delivered")
	a.apply(t, evs)
	a.apply(t, l.Apply(nil, labels(chunk("a1", false, false, "x"), "v2", map[string]any{"k": 1.0})))
	a.apply(t, l.Apply(nil, chunk("a1", true, false, "y")))
	a.check(t, l)

	l.OpenReplayWindow()
	require.Empty(t, l.Apply(nil, labels(chunk("a1", false, false, "x"), "v2", map[string]any{"k": 1.0})))
	require.Empty(t, l.Apply(nil, labels(chunk("a1", true, false), "", map[string]any{"k": 0.5})),
		"labels alone before the parts held end: a replay")
	require.Empty(t, l.Apply(nil, chunk("a1", true, false, "y")))
	evs = l.Apply(nil, labels(chunk("a1", true, false), "", map[string]any{"done": true}))
	require.Len(t, evs, 1, "labels alone after every part held: new")
	a.apply(t, evs)
	a.check(t, l)
	require.Equal(t, map[string]any{"k": 1.0, "done": true}, l.Task().Artifact("a1").Metadata)

	// The agent replaced the artifact with the same parts and no labels.
	now := l.Task().Clone()
	stripped := now.Artifact("a1")
	stripped.Name, stripped.Metadata = "", nil
	a.apply(t, l.Reconcile(nil, now, true))
	a.check(t, l)
	require.Equal(t, *stripped, *l.Task().Artifact("a1"))
}

func TestRepeatedTextsAtDifferentPositionsSurvive(t *testing.T) {
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, chunk("a1", false, false, "x")))
	a.apply(t, l.Apply(nil, chunk("a1", true, false, "\n")))
	a.apply(t, l.Apply(nil, chunk("a1", true, false, "\n")))
	a.apply(t, l.Apply(nil, chunk("a1", true, true, "x")))
	a.check(t, l)
	require.Equal(t, "x\n\nx", a.Text("a1"), "identical parts at different positions are not replays")
}

func TestFullReplayAfterResubscribe(t *testing.T) {
	l := ledger.New()
	var a app
	events := []a2a.Event{
		task(a2a.StateSubmitted, nil),
		status(a2a.StateWorking, "m-1", "working"),
		chunk("a1", false, false, "one "),
		chunk("a1", true, false, "two "),
		chunk("a1", true, false, "three "),
		&a2a.Message{ID: "m-2", TaskID: "t-1", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: "aside"}}},
		chunk("a1", true, true, "four"),
		status(a2a.StateCompleted, "m-3", "done"),
	}
	// The first connection drops after five events.
	for _, ev := range events[:5] {
		a.apply(t, l.Apply(nil, ev))
	}
	// The server replays everything from the start.
	l.OpenReplayWindow()
	var replayed []a2a.Event
	for _, ev := range events {
		replayed = l.Apply(replayed, ev)
	}
	a.apply(t, replayed)
	a.check(t, l)
	require.Equal(t, "one two three four", a.Text("a1"))
	require.Equal(t, []a2a.TaskState{a2a.StateSubmitted, a2a.StateWorking, a2a.StateCompleted}, a.States,
		"replayed statuses are not delivered again")
	require.Equal(t, []string{"m-1", "m-2", "m-3"}, a.Messages)
	require.True(t, l.InReplayWindow(), "a replaying server keeps the window open: new content may be old")
}

func TestFirstNewPartClosesTheWindowWithoutReplays(t *testing.T) {
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, chunk("a1", false, false, "one ")))
	l.OpenReplayWindow()
	evs := l.Apply(nil, chunk("a1", true, false, "two "))
	require.Len(t, evs, 1)
	a.apply(t, evs)
	require.False(t, l.InReplayWindow(), "no replay seen: the first new part closes the window")
	evs = l.Apply(nil, chunk("a1", true, false, "one "))
	require.Len(t, evs, 1, "outside the window a part equal to a held one is new")
	a.apply(t, evs)
	a.check(t, l)
}

func TestReplayOfAVersionMissedInAGap(t *testing.T) {
	// The client saw v1 "one", missed v2 in a gap (live-only), then holds v3.
	// A full replay sends v1, v2, v3: v2 is held pending, and dropped once v3
	// (held) follows; nothing is delivered again, nothing goes back.
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, status(a2a.StateWorking, "m-1", "working")))
	a.apply(t, l.Apply(nil, chunk("a1", false, false, "one")))
	l.OpenReplayWindow() // live-only: nothing replayed
	a.apply(t, l.Apply(nil, chunk("a1", false, false, "v3")))
	l.OpenReplayWindow() // a full replay
	for _, ev := range []a2a.Event{status(a2a.StateWorking, "m-1", "working"), chunk("a1", false, false, "one"),
		chunk("a1", false, false, "v2"), chunk("a1", true, false, "+"), chunk("a1", false, false, "v3")} {
		require.Empty(t, l.Apply(nil, ev), "replayed %v", ev)
	}
	evs := l.Apply(nil, chunk("a1", true, false, "!"))
	a.apply(t, evs)
	a.check(t, l)
	require.Equal(t, "v3!", a.Text("a1"))
}

func TestVersionHeldPendingIsDeliveredWhenTheTaskMovesOn(t *testing.T) {
	at := func(state a2a.TaskState, id string, sec int) *a2a.StatusUpdate {
		u := status(state, id, "s")
		u.Status.Timestamp = time.Unix(int64(sec), 0).UTC()
		return u
	}
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, at(a2a.StateWorking, "m-1", 1)))
	a.apply(t, l.Apply(nil, chunk("a1", false, false, "v1")))
	a.apply(t, l.Apply(nil, chunk("a1", false, false, "v3")))
	// A server that replays v1, then a version never seen, but never the
	// v3 the client holds: the replay cannot tell, so the version is held
	// until the task moves on in time.
	l.OpenReplayWindow()
	require.Empty(t, l.Apply(nil, at(a2a.StateWorking, "m-1", 1)), "a replay")
	require.Empty(t, l.Apply(nil, chunk("a1", false, false, "v1")), "a replay")
	require.Empty(t, l.Apply(nil, chunk("a1", false, false, "v2")), "never seen, before the current version: held")
	require.Empty(t, l.Apply(nil, chunk("a1", true, false, "+")), "appended to the version held")
	require.Equal(t, 1, l.Pending())
	evs := l.Apply(nil, at(a2a.StateWorking, "m-2", 2))
	require.Len(t, evs, 2, "a status newer in time: the version held was new, and comes first")
	a.apply(t, evs)
	a.check(t, l)
	require.Equal(t, "v2+", a.Text("a1"))
	require.Equal(t, 0, l.Pending())
}

func TestVersionAfterTheCurrentOneIsNew(t *testing.T) {
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, status(a2a.StateWorking, "m-1", "s")))
	a.apply(t, l.Apply(nil, chunk("a1", false, false, "v1")))
	l.OpenReplayWindow()
	require.Empty(t, l.Apply(nil, status(a2a.StateWorking, "m-1", "s")), "a replay")
	require.Empty(t, l.Apply(nil, chunk("a1", false, false, "v1")), "the current version, replayed")
	evs := l.Apply(nil, chunk("a1", false, false, "v2"))
	require.Len(t, evs, 1, "a version after the current one is new: delivered at once")
	a.apply(t, evs)
	evs = l.Apply(nil, chunk("a1", false, false, "v1"))
	require.Len(t, evs, 1, "and so is going back to v1 after it")
	a.apply(t, evs)
	a.check(t, l)
	require.Equal(t, "v1", a.Text("a1"))
}

func TestReplayOfAppendStraddlingHeldParts(t *testing.T) {
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, chunk("a1", false, false, "p1")))
	a.apply(t, l.Apply(nil, chunk("a1", true, false, "p2", "p3")))
	l.OpenReplayWindow()
	a.apply(t, l.Apply(nil, chunk("a1", false, false, "p1")))
	evs := l.Apply(nil, chunk("a1", true, false, "p2", "p3", "p4"))
	require.Len(t, evs, 1)
	u := evs[0].(*a2a.ArtifactUpdate)
	require.True(t, u.Append)
	require.Equal(t, []a2a.Part{{Text: "p4"}}, u.Artifact.Parts, "only the unseen tail is delivered")
	a.apply(t, evs)
	a.check(t, l)
}

func TestAppendFalseOutsideWindowReplaces(t *testing.T) {
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, chunk("a1", false, false, "draft", " one")))
	evs := l.Apply(nil, chunk("a1", false, true, "draft"))
	require.Len(t, evs, 1, "a replacement outside the replay window is delivered")
	require.False(t, evs[0].(*a2a.ArtifactUpdate).Append)
	a.apply(t, evs)
	a.check(t, l)
	require.Equal(t, "draft", a.Text("a1"))

	require.Empty(t, l.Apply(nil, chunk("a1", false, true, "draft")), "an identical replacement changes nothing")
}

func TestSnapshotFirstResubscribe(t *testing.T) {
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, task(a2a.StateSubmitted, nil)))
	a.apply(t, l.Apply(nil, status(a2a.StateWorking, "", "")))
	a.apply(t, l.Apply(nil, chunk("a1", false, false, "one ")))
	// Missed while disconnected: "two " on a1, and all of a2.
	l.OpenReplayWindow()
	snap := task(a2a.StateWorking, map[string][]string{"a1": {"one ", "two "}, "a2": {"x"}}, "a1", "a2")
	require.True(t, l.Covers(snap))
	evs := l.Apply(nil, snap)
	require.Len(t, evs, 2, "the tail of a1 and the new a2; the status is unchanged")
	require.True(t, evs[0].(*a2a.ArtifactUpdate).Append)
	require.False(t, evs[1].(*a2a.ArtifactUpdate).Append)
	a.apply(t, evs)
	a.apply(t, l.Apply(nil, chunk("a1", true, true, "three")))
	a.check(t, l)
	require.Equal(t, "one two three", a.Text("a1"))
	require.Equal(t, "x", a.Text("a2"))
}

func TestLiveOnlyGapIsHealedByAuthoritativeTask(t *testing.T) {
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, chunk("a1", false, false, "p1")))
	// p2 was produced while disconnected; the live-only server sends p3 next.
	l.OpenReplayWindow()
	a.apply(t, l.Apply(nil, chunk("a1", true, false, "p3")))
	require.Equal(t, "p1p3", a.Text("a1"))
	server := task(a2a.StateCompleted, map[string][]string{"a1": {"p1", "p2", "p3"}}, "a1")
	require.False(t, l.Covers(server), "parts held are not a prefix of the server's")
	evs := l.Reconcile(nil, server, true)
	require.Len(t, evs, 2, "one replacement and the final status")
	u := evs[0].(*a2a.ArtifactUpdate)
	require.False(t, u.Append)
	require.Len(t, u.Artifact.Parts, 3)
	a.apply(t, evs)
	a.check(t, l)
	require.Equal(t, "p1p2p3", a.Text("a1"))
	require.Equal(t, server.Artifacts, l.Task().Artifacts)
}

func TestStaleSnapshotIsIgnored(t *testing.T) {
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, task(a2a.StateSubmitted, nil)))
	a.apply(t, l.Apply(nil, status(a2a.StateWorking, "m-1", "w")))
	a.apply(t, l.Apply(nil, chunk("a1", false, false, "p1", "p2")))
	l.OpenReplayWindow()
	stale := task(a2a.StateSubmitted, map[string][]string{"a1": {"p1"}}, "a1")
	require.False(t, l.Covers(stale), "a snapshot with fewer parts than held does not close a gap")
	require.Empty(t, l.Apply(nil, stale), "a stale snapshot yields nothing")
	require.Equal(t, a2a.StateWorking, l.Task().Status.State)
	a.check(t, l)
}

func TestMessagesOnceAcrossEventsStatusesAndHistory(t *testing.T) {
	l := ledger.New()
	var a app
	user := &a2a.Message{ID: "u-1", Role: a2a.RoleUser, Parts: []a2a.Part{{Text: "hi"}}}
	l.RecordSent(user)
	a.apply(t, l.Apply(nil, task(a2a.StateSubmitted, nil)))
	a.apply(t, l.Apply(nil, status(a2a.StateWorking, "m-1", "working")))
	a.apply(t, l.Apply(nil, &a2a.Message{ID: "m-2", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: "aside"}}}))
	snap := task(a2a.StateInputRequired, nil)
	snap.History = []a2a.Message{*user, *textMsg("m-1", "working"), *textMsg("m-2", "aside"), *textMsg("m-3", "new")}
	snap.Status.Message = textMsg("m-2", "aside")
	evs := l.Apply(nil, snap)
	require.Len(t, evs, 2, "the unseen history message, then the status")
	require.Equal(t, "m-3", evs[0].(*a2a.Message).ID)
	su := evs[1].(*a2a.StatusUpdate)
	require.Equal(t, a2a.StateInputRequired, su.Status.State)
	require.Nil(t, su.Status.Message, "a status message already delivered is stripped")
	a.apply(t, evs)
	a.check(t, l)
	require.Equal(t, []string{"m-1", "m-2", "m-3"}, a.Messages)
	require.Equal(t, "m-2", l.Task().Status.Message.ID, "the assembled status keeps its message")
}

func TestMessageAnswerCreatesNoTask(t *testing.T) {
	l := ledger.New()
	m := &a2a.Message{ID: "m-1", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: "hi"}}}
	require.Len(t, l.Apply(nil, m), 1)
	require.Empty(t, l.Apply(nil, m))
	require.Nil(t, l.Task())
}

func TestEveryMessageIDIsKept(t *testing.T) {
	t.Parallel()
	// The ledger holds every message in the task's history anyway, so the
	// ID set is not capped: a snapshot listing 12,288 messages after a cut
	// delivers none of them again (a capped set once redelivered them all).
	const n = 12288
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, task(a2a.StateWorking, nil)))
	snap := task(a2a.StateWorking, nil)
	for i := range n {
		m := &a2a.Message{ID: fmt.Sprint("m-", i), Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: "x"}}}
		a.apply(t, l.Apply(nil, m))
		snap.History = append(snap.History, *m)
	}
	require.True(t, l.Seen("m-0"))
	l.OpenReplayWindow()
	require.Empty(t, l.Reconcile(nil, snap, false))
	a.check(t, l)
	require.Len(t, l.Task().History, n)
}

func TestFullReplayAcrossARealReplacement(t *testing.T) {
	// draft v1, then a real replacement v2, then notes; a full replay from
	// the start must move cursors only, through the retired version too.
	l := ledger.New()
	var a app
	live := []a2a.Event{
		chunk("draft", false, false, "v1"), chunk("draft", true, false, "a"),
		chunk("draft", false, false, "v2"), chunk("notes", false, false, "x"), chunk("notes", true, false, "+"),
	}
	for _, ev := range live {
		a.apply(t, l.Apply(nil, ev))
	}
	require.Equal(t, "v2", a.Text("draft"))
	l.OpenReplayWindow()
	replay := []a2a.Event{
		chunk("draft", false, false, "v1"), chunk("draft", true, false, "a"),
		chunk("draft", false, false, "v2"), chunk("notes", false, false, "x"), chunk("notes", true, false, "+"),
	}
	for _, ev := range replay {
		require.Empty(t, l.Apply(nil, ev), "replayed %v", ev)
	}
	evs := l.Apply(nil, chunk("notes", true, true, "!"))
	require.Len(t, evs, 1, "the first new part is delivered")
	a.apply(t, evs)
	a.check(t, l)
	require.Equal(t, "x+!", a.Text("notes"))
	require.True(t, l.InReplayWindow(), "a replaying server keeps the window open")

	// A connection that replays nothing: its first new part closes the
	// window, and outside it going back to v1 is a real replacement again.
	l.OpenReplayWindow()
	evs = l.Apply(nil, chunk("notes", true, false, "?"))
	require.Len(t, evs, 1)
	a.apply(t, evs)
	require.False(t, l.InReplayWindow())
	evs = l.Apply(nil, chunk("draft", false, false, "v1"))
	require.Len(t, evs, 1)
	a.apply(t, evs)
	a.check(t, l)
}

func TestStaleSnapshotWithAReplacedVersionIsLeftAlone(t *testing.T) {
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, chunk("draft", false, false, "v1")))
	a.apply(t, l.Apply(nil, chunk("draft", false, false, "v2")))
	l.OpenReplayWindow()
	stale := task(a2a.StateWorking, map[string][]string{"draft": {"v1"}}, "draft")
	for _, ev := range l.Reconcile(nil, stale, false) {
		_, isArtifact := ev.(*a2a.ArtifactUpdate)
		require.False(t, isArtifact, "a snapshot holding a replaced version is stale")
	}
	require.Equal(t, "v2", l.Task().Artifact("draft").Text())
	// An authoritative task still wins.
	evs := l.Reconcile(nil, task(a2a.StateWorking, map[string][]string{"draft": {"v1"}}, "draft"), true)
	a.apply(t, evs)
	a.check(t, l)
	require.Equal(t, "v1", a.Text("draft"))
}

func TestStatusesWithoutMessageIDs(t *testing.T) {
	idless := func(state a2a.TaskState, text string) *a2a.StatusUpdate {
		u := status(state, "", "")
		u.Status.Message = &a2a.Message{Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: text}}}
		return u
	}
	l := ledger.New()
	var texts []string
	for _, ev := range []a2a.Event{idless(a2a.StateWorking, "step 1"), idless(a2a.StateWorking, "step 2"), idless(a2a.StateWorking, "step 2")} {
		for _, d := range l.Apply(nil, ev) {
			texts = append(texts, d.(*a2a.StatusUpdate).Status.Message.Text())
		}
	}
	require.Equal(t, []string{"step 1", "step 2"}, texts, "a new text is a new status; the same one again is not")
	l.OpenReplayWindow()
	require.Empty(t, l.Apply(nil, idless(a2a.StateWorking, "step 1")), "a replayed ID-less status")
}

func TestStatusTimestampsOrderReplays(t *testing.T) {
	at := func(state a2a.TaskState, sec int) *a2a.StatusUpdate {
		u := status(state, "", "")
		u.Status.Timestamp = time.Unix(int64(sec), 0).UTC()
		return u
	}
	l := ledger.New()
	require.Len(t, l.Apply(nil, at(a2a.StateWorking, 1)), 1)
	require.Len(t, l.Apply(nil, at(a2a.StateInputRequired, 2)), 1)
	l.OpenReplayWindow()
	require.Empty(t, l.Apply(nil, at(a2a.StateWorking, 1)), "older than the newest status seen: a replay")
	require.Empty(t, l.Apply(nil, at(a2a.StateInputRequired, 2)), "the newest, seen: a replay")
	evs := l.Apply(nil, at(a2a.StateWorking, 3))
	require.Len(t, evs, 1, "newer: a real change, even in the window and with a state seen before")
	require.Equal(t, a2a.StateWorking, l.Task().Status.State)
}

func TestSnapshotStatusMessageTravelsWithTheStatus(t *testing.T) {
	// a2a-js snapshots list the current status message in the history too.
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, task(a2a.StateWorking, nil)))
	l.OpenReplayWindow()
	snap := task(a2a.StateFailed, nil)
	reason := a2a.Message{ID: "m-9", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: "upstream API timed out"}}}
	snap.History = []a2a.Message{reason}
	snap.Status.Message = &reason
	evs := l.Reconcile(nil, snap, true)
	require.Len(t, evs, 1, "one status update, no separate message")
	su := evs[0].(*a2a.StatusUpdate)
	require.Equal(t, "upstream API timed out", su.Status.Message.Text())
	a.apply(t, evs)
	a.check(t, l)
	require.Len(t, l.Task().History, 1)
}

func TestArtifactMissedInAGapIsAddedLast(t *testing.T) {
	// An artifact created entirely while disconnected can only be announced
	// after those the application already has: deltas cannot move artifacts,
	// and the assembled task must stay what the deltas build.
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, chunk("summary", false, true, "s")))
	server := task(a2a.StateCompleted, map[string][]string{"story": {"once"}, "summary": {"s"}}, "story", "summary")
	a.apply(t, l.Reconcile(nil, server, true))
	a.check(t, l)
	require.Equal(t, "summary", l.Task().Artifacts[0].ID)
	require.Equal(t, "story", l.Task().Artifacts[1].ID)
	require.Equal(t, server.Artifact("story").Parts, l.Task().Artifact("story").Parts)
}

// deltas describes deltas for failure messages.
func deltas(evs []a2a.Event) []string {
	var out []string
	for _, ev := range evs {
		switch e := ev.(type) {
		case *a2a.ArtifactUpdate:
			out = append(out, fmt.Sprintf("%s append=%v %q", e.Artifact.ID, e.Append, partTexts(e.Artifact.Parts)))
		case *a2a.StatusUpdate:
			out = append(out, fmt.Sprintf("status %s %q", e.Status.State, e.Status.Message.Text()))
		case *a2a.Message:
			out = append(out, fmt.Sprintf("message %q %q", e.ID, e.Text()))
		case *a2a.MessageRevision:
			out = append(out, fmt.Sprintf("revision %q %q", e.Message.ID, e.Message.Text()))
		}
	}
	return out
}

// grows applies evs to a and requires that no artifact of the application
// shrinks: a snapshot that lags what was delivered must not take parts back
// to give them again.
func (a *app) grows(t *testing.T, evs []a2a.Event) {
	t.Helper()
	before := map[string]int{}
	for _, art := range a.Task.Artifacts {
		before[art.ID] = len(art.Parts)
	}
	a.apply(t, evs)
	for _, art := range a.Task.Artifacts {
		require.GreaterOrEqual(t, len(art.Parts), before[art.ID], "artifact %s shrank", art.ID)
	}
}

// The first Task of a subscription may lag what was delivered: a store
// behind its event bus (a2a-js 1.3.0's follow-up snapshot) shows a prefix of
// the parts, or a version the agent has since replaced, and the events from
// that point follow. What the snapshot shows is not news, the events that
// replay what was delivered yield nothing, and the parts after them are
// delivered once.
func TestLaggingSnapshotIsNotNews(t *testing.T) {
	tests := []struct {
		name string
		// live is what the first connections delivered, with a replay
		// window opened at each nil.
		live []a2a.Event
		snap *a2a.Task
		// tail is the events after the snapshot: those up to replayed
		// are a replay; the rest are new.
		tail     []a2a.Event
		replayed int
		want     string
	}{
		{
			name: "prefix",
			live: []a2a.Event{task(a2a.StateWorking, nil), chunk("a1", false, false, "a"), chunk("a1", true, false, "b"), chunk("a1", true, false, "c")},
			snap: task(a2a.StateWorking, map[string][]string{"a1": {"a"}}, "a1"),
			tail: []a2a.Event{chunk("a1", true, false, "b"), chunk("a1", true, false, "c"), chunk("a1", true, false, "d"),
				chunk("a1", true, true, "e")},
			replayed: 2, want: "abcde",
		},
		{
			// The seeded run: cut; full replay; cut; lagging snapshot.
			name: "after a full replay",
			live: []a2a.Event{task(a2a.StateWorking, nil), chunk("a1", false, false, "a"), chunk("a1", true, false, "b"),
				nil, task(a2a.StateWorking, nil), chunk("a1", false, false, "a"), chunk("a1", true, false, "b"),
				chunk("a1", true, false, "c"), chunk("a1", true, false, "d")},
			snap:     task(a2a.StateWorking, map[string][]string{"a1": {"a", "b"}}, "a1"),
			tail:     []a2a.Event{chunk("a1", true, false, "c"), chunk("a1", true, false, "d"), chunk("a1", true, true, "e")},
			replayed: 2, want: "abcde",
		},
		{
			name: "whole replacement after it",
			live: []a2a.Event{task(a2a.StateWorking, nil), chunk("a1", false, false, "a"), chunk("a1", true, false, "b"), chunk("a1", true, false, "c")},
			snap: task(a2a.StateWorking, map[string][]string{"a1": {"a", "b"}}, "a1"),
			// A server whose events carry the whole artifact each time.
			tail:     []a2a.Event{chunk("a1", false, false, "a", "b", "c"), chunk("a1", true, false, "d")},
			replayed: 1, want: "abcd",
		},
		{
			name: "a replaced version",
			live: []a2a.Event{task(a2a.StateWorking, nil), chunk("a1", false, false, "x"), chunk("a1", true, false, "y"),
				chunk("a1", false, false, "v2"), chunk("a1", true, false, "w")},
			snap:     task(a2a.StateWorking, map[string][]string{"a1": {"x", "y"}}, "a1"),
			tail:     []a2a.Event{chunk("a1", false, false, "v2"), chunk("a1", true, false, "w"), chunk("a1", true, false, "!")},
			replayed: 2, want: "v2w!",
		},
	}
	labelled := chunk("a1", true, false)
	labelled.Artifact.Name, labelled.Artifact.Metadata = "trip", map[string]any{"days": 3.0}
	tests = append(tests, struct {
		name     string
		live     []a2a.Event
		snap     *a2a.Task
		tail     []a2a.Event
		replayed int
		want     string
	}{
		// An append of labels alone, which the store has not taken yet.
		name:     "a label held",
		live:     []a2a.Event{task(a2a.StateWorking, nil), chunk("a1", false, false, "a"), labelled},
		snap:     task(a2a.StateWorking, map[string][]string{"a1": {"a"}}, "a1"),
		tail:     []a2a.Event{labelled, chunk("a1", true, false, "b")},
		replayed: 1, want: "ab",
	})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := ledger.New()
			var a app
			for _, ev := range tc.live {
				if ev == nil {
					l.OpenReplayWindow()
					continue
				}
				a.apply(t, l.Apply(nil, ev))
			}
			l.OpenReplayWindow()
			require.False(t, l.Covers(tc.snap), "a lagging snapshot does not close the gap")
			evs := l.ReconcileSnapshot(nil, tc.snap)
			require.Empty(t, deltas(evs), "what was delivered is not news")
			for i, ev := range tc.tail {
				evs := l.Apply(nil, fresh(ev))
				if i < tc.replayed {
					require.Empty(t, deltas(evs), "event %d replays what was delivered", i)
				} else {
					require.NotEmpty(t, evs, "event %d is new", i)
				}
				a.grows(t, evs)
			}
			a.check(t, l)
			require.Equal(t, tc.want, a.Text("a1"))
		})
	}
}

// The first Task of a subscription that shows a status seen before, not
// the current one, is the start of a replay or a store that lags: what
// follows on that connection may be old even after a part that looks new,
// so the replay window stays open and a replayed status is not delivered
// again.
func TestFirstTaskThatShowsThePastKeepsTheWindowOpen(t *testing.T) {
	l := ledger.New()
	var a app
	stepped := status(a2a.StateWorking, "", "")
	stepped.Status.Message = &a2a.Message{Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: "step 1"}}} // no ID
	for _, ev := range []a2a.Event{task(a2a.StateSubmitted, nil), status(a2a.StateWorking, "", ""), stepped,
		chunk("a1", false, false, "a"), status(a2a.StateInputRequired, "m-1", "which day?")} {
		a.apply(t, l.Apply(nil, ev))
	}
	l.OpenReplayWindow()
	past := task(a2a.StateWorking, map[string][]string{"a1": {"a", "b"}}, "a1")
	evs := l.ReconcileSnapshot(nil, past)
	require.Equal(t, []string{`a1 append=true ["b"]`}, deltas(evs), "the part missed in the gap; the status is a past one")
	a.apply(t, evs)
	require.True(t, l.InReplayWindow(), "a connection that shows the past may replay more")
	require.Empty(t, deltas(l.Apply(nil, fresh(stepped))), "a replayed status")
	a.check(t, l)
	require.Equal(t, a2a.StateInputRequired, l.Task().Status.State)
	require.Len(t, l.Task().History, 2, "step 1 and the prompt, once each")
}

// A truncation the agent made while the client was away does not come with
// the snapshot, which cannot be told from one that lags: the get-task that
// closes the gap delivers it, as a replacement carrying the server's whole
// artifact.
func TestTruncationInAGapArrivesWithTheGetTask(t *testing.T) {
	l := ledger.New()
	var a app
	for _, ev := range []a2a.Event{task(a2a.StateWorking, nil), chunk("a1", false, false, "a"), chunk("a1", true, false, "b", "c")} {
		a.apply(t, l.Apply(nil, ev))
	}
	l.OpenReplayWindow()
	now := task(a2a.StateWorking, map[string][]string{"a1": {"a"}}, "a1")
	require.Empty(t, deltas(l.ReconcileSnapshot(nil, now)))
	require.Equal(t, "abc", l.Task().Artifact("a1").Text(), "held until the gap is closed")
	evs := l.Reconcile(nil, task(a2a.StateCompleted, map[string][]string{"a1": {"a"}}, "a1"), true)
	require.Len(t, evs, 2, "the replacement, then the status")
	require.False(t, evs[0].(*a2a.ArtifactUpdate).Append)
	a.apply(t, evs)
	a.check(t, l)
	require.Equal(t, "a", a.Text("a1"))
}

// withoutID returns an agent message without an ID.
func withoutID(parts ...a2a.Part) *a2a.Message {
	return &a2a.Message{Role: a2a.RoleAgent, Parts: parts}
}

// polled returns the task a get-task returns: in state st, with status
// message sm (nil for none) and the history the user's message then hs.
func polled(st a2a.TaskState, sm *a2a.Message, hs ...*a2a.Message) *a2a.Task {
	t := task(st, nil)
	t.Status.Message = sm.Clone()
	t.History = []a2a.Message{{ID: "u-1", Role: a2a.RoleUser, Parts: []a2a.Part{{Text: "hi"}}}}
	for _, m := range hs {
		t.History = append(t.History, *m.Clone())
	}
	return t
}

// A message without an ID is told apart by its content and, among messages
// of the same content, by its place. Polled again and again (each get-task
// folded as authoritative), a message without an ID that was delivered is
// not delivered again, nor held again in the history, whether the task shows
// it in its status, in its history or in both; the same text twice in the
// history is two messages; a new text is news.
func TestMessagesWithoutIDAcrossPolls(t *testing.T) {
	step1, step2, note := withoutID(a2a.TextPart("step 1")), withoutID(a2a.TextPart("step 2")), withoutID(a2a.TextPart("ok"))
	tests := []struct {
		name    string
		polls   []*a2a.Task // each polled 11 times
		want    []string    // the deltas of all polls
		history []string    // the texts of Task().History at the end
	}{
		{"in the status and the history", []*a2a.Task{polled(a2a.StateWorking, step1, step1)},
			[]string{`status working "step 1"`}, []string{"hi", "step 1"}},
		{"in the status only", []*a2a.Task{polled(a2a.StateWorking, step1)},
			[]string{`status working "step 1"`}, []string{"hi", "step 1"}},
		{"in the history only", []*a2a.Task{polled(a2a.StateWorking, nil, note)},
			[]string{`message "" "ok"`, `status working ""`}, []string{"hi", "ok"}},
		{"the same text twice in the history", []*a2a.Task{polled(a2a.StateWorking, nil, note, note), polled(a2a.StateWorking, nil, note, note, note)},
			[]string{`message "" "ok"`, `message "" "ok"`, `status working ""`, `message "" "ok"`}, []string{"hi", "ok", "ok", "ok"}},
		{"step 1 then step 2 in the same state", []*a2a.Task{polled(a2a.StateWorking, step1, step1), polled(a2a.StateWorking, step2, step1, step2)},
			[]string{`status working "step 1"`, `status working "step 2"`}, []string{"hi", "step 1", "step 2"}},
		{"step 1 again after step 2", []*a2a.Task{polled(a2a.StateWorking, step1, step1), polled(a2a.StateWorking, step2, step1, step2),
			polled(a2a.StateWorking, step1, step1, step2, step1)},
			[]string{`status working "step 1"`, `status working "step 2"`, `status working "step 1"`}, []string{"hi", "step 1", "step 2", "step 1"}},
		{"a new state with the same message", []*a2a.Task{polled(a2a.StateWorking, step1, step1), polled(a2a.StateCompleted, step1, step1)},
			[]string{`status working "step 1"`, `status completed ""`}, []string{"hi", "step 1"}},
		{"back to the message held", []*a2a.Task{polled(a2a.StateWorking, step1, step1), polled(a2a.StateWorking, nil, step1),
			polled(a2a.StateWorking, step1, step1)},
			[]string{`status working "step 1"`, `status working ""`, `status working ""`}, []string{"hi", "step 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := ledger.New()
			l.RecordSent(&a2a.Message{ID: "u-1", Role: a2a.RoleUser, Parts: []a2a.Part{{Text: "hi"}}})
			var a app
			a.apply(t, l.Reconcile(nil, polled(a2a.StateSubmitted, nil), true))
			var got []string
			for _, p := range tc.polls {
				for range 11 {
					evs := l.Reconcile(nil, p.Clone(), true)
					got = append(got, deltas(evs)...)
					a.apply(t, evs)
				}
			}
			require.Equal(t, tc.want, got)
			var history []string
			for _, m := range l.Task().History {
				history = append(history, m.Text())
			}
			require.Equal(t, tc.history, history)
			require.Equal(t, tc.polls[len(tc.polls)-1].Status.Message.Text(), l.Task().Status.Message.Text())
		})
	}
}

// A message without an ID delivered from a task's history (its status had
// moved on), then met again in a status inside the replay window: a replay
// of the status that brought it, not a new message.
func TestMessageWithoutIDFromTheHistoryThenInAReplayedStatus(t *testing.T) {
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, task(a2a.StateSubmitted, nil)))
	evs := l.Reconcile(nil, polled(a2a.StateWorking, nil, withoutID(a2a.TextPart("step 1"))), true)
	require.Equal(t, []string{`message "" "step 1"`, `status working ""`}, deltas(evs))
	a.apply(t, evs)
	l.OpenReplayWindow()
	replayed := status(a2a.StateWorking, "", "")
	replayed.Status.Message = withoutID(a2a.TextPart("step 1"))
	require.Empty(t, deltas(l.Apply(nil, replayed)))
	require.Len(t, l.Task().History, 2, "the user's message and step 1")
}

func dataPart(raw string) a2a.Part { return a2a.Part{Data: json.RawMessage(raw)} }

// Data parts compare by JSON value: a server that keeps the task as JSON in
// a database (jsonb) returns an object's keys in another order, and white
// space and numbers in another form, on each get-task. That is not news,
// in an artifact, a status message without an ID or a message revision;
// a changed value is.
func TestDataPartsCompareByValue(t *testing.T) {
	forms := []string{
		`{"city":"Lisbon","days":3,"tags":["sun","sea"],"at":{"lat":38.72,"lon":-9.14}}`,
		`{"tags":["sun","sea"],"at":{"lon":-9.14,"lat":38.72},"days":3,"city":"Lisbon"}`,
		`{ "at" : { "lat" : 38.720, "lon" : -9.14 }, "city" : "Lisbon", "days" : 3.0, "tags" : [ "sun", "sea" ] }`,
		`{"days":3e0,"city":"Lisb\u006fn","at":{"lon":-914e-2,"lat":3872E-2},"tags":["sun","sea"]}`,
	}
	at := func(i int, st a2a.TaskState) *a2a.Task {
		d := dataPart(forms[i%len(forms)])
		tk := polled(st, withoutID(d), withoutID(d))
		tk.Artifacts = []a2a.Artifact{{ID: "a1", Parts: []a2a.Part{a2a.TextPart("trip"), d}}}
		tk.History = append(tk.History, a2a.Message{ID: "m-1", Role: a2a.RoleAgent, Parts: []a2a.Part{d}})
		return tk
	}
	l := ledger.New()
	var a app
	a.apply(t, l.Reconcile(nil, at(0, a2a.StateWorking), true))
	for i := 1; i <= 10; i++ {
		require.Empty(t, deltas(l.Reconcile(nil, at(i, a2a.StateWorking), true)), "poll %d: the same values", i)
	}
	changed := at(0, a2a.StateWorking)
	other := `{"city":"Lisbon","days":4,"tags":["sun","sea"],"at":{"lat":38.72,"lon":-9.14}}`
	changed.Artifacts[0].Parts[1] = dataPart(other)
	evs := l.Reconcile(nil, changed, true)
	require.Equal(t, []string{fmt.Sprintf("a1 append=false %q", []string{"trip", other})}, deltas(evs), "another value is news")
	a.apply(t, evs)
	a.check(t, l)

	// Inside a replay window: a replaced version, and a status, whose data
	// come back in another order are replays.
	l = ledger.New()
	a = app{}
	d1 := withoutID(dataPart(`{"step":1,"of":3}`))
	for _, ev := range []a2a.Event{
		task(a2a.StateWorking, nil),
		&a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking, Message: d1}},
		&a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{dataPart(`{"v":1,"draft":true}`)}}},
		chunk("a1", false, false, "v2"),
	} {
		a.apply(t, l.Apply(nil, ev))
	}
	l.OpenReplayWindow()
	for _, ev := range []a2a.Event{
		&a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking,
			Message: withoutID(dataPart(`{"of":3,"step":1}`))}},
		&a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{dataPart(`{"draft":true,"v":1}`)}}},
		chunk("a1", false, false, "v2"),
	} {
		require.Empty(t, deltas(l.Apply(nil, ev)), "a replay")
	}
	evs = l.Apply(nil, chunk("a1", true, false, "!"))
	require.Equal(t, []string{`a1 append=true ["!"]`}, deltas(evs))
	a.apply(t, evs)
	a.check(t, l)
	require.Equal(t, "v2!", a.Text("a1"))
}

// A get-task result that lags what was delivered (a state seen before,
// under a timestamp older than the newest seen: a replica behind) wins
// nothing: it takes back no part, delivers no status, and the next result
// that is current delivers only what is new. A state never seen, however
// old its timestamp (a server clock that went back), is news.
func TestGetTaskThatLagsIsNotNews(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(tk *a2a.Task, sec int) *a2a.Task {
		tk.Status.Timestamp = t0.Add(time.Duration(sec) * time.Second)
		return tk
	}
	l := ledger.New()
	var a app
	a.apply(t, l.Reconcile(nil, at(task(a2a.StateSubmitted, nil), 0), true))
	a.apply(t, l.Reconcile(nil, at(task(a2a.StateWorking, map[string][]string{"a1": {"p1", "p2"}}, "a1"), 2), true))
	require.Equal(t, []a2a.TaskState{a2a.StateSubmitted, a2a.StateWorking}, a.States)

	for _, lagging := range []*a2a.Task{
		at(task(a2a.StateWorking, map[string][]string{"a1": {"p1"}}, "a1"), 1),
		at(task(a2a.StateSubmitted, nil), 0),
	} {
		require.Empty(t, l.Reconcile(nil, lagging, true), "a lagging result is not news")
		a.check(t, l)
	}
	require.Equal(t, "p1p2", a.Text("a1"))
	require.Equal(t, a2a.StateWorking, l.Task().Status.State)

	evs := l.Reconcile(nil, at(task(a2a.StateCompleted, map[string][]string{"a1": {"p1", "p2", "p3"}}, "a1"), 1), true)
	a.apply(t, evs)
	a.check(t, l)
	require.Len(t, evs, 2, "the new part and the new state, though stamped before the newest status")
	require.Equal(t, "p1p2p3", a.Text("a1"))
	require.Equal(t, []a2a.TaskState{a2a.StateSubmitted, a2a.StateWorking, a2a.StateCompleted}, a.States)
}

// The metadata of status updates folds into the task's, key by key, a later
// value winning and no key taken away, whether or not the status changes.
// The ledger keeps a map of its own: the events it was given, and the
// deltas it yielded, are left as they were.
func TestStatusMetadataFoldsIntoTheTask(t *testing.T) {
	l := ledger.New()
	first := task(a2a.StateWorking, nil)
	first.Metadata = map[string]any{"session": "s-1", "step": "1"}
	l.Apply(nil, first)
	same := status(a2a.StateWorking, "", "")
	same.Metadata = map[string]any{"step": "2", "trace": "x"}
	require.Empty(t, l.Apply(nil, same), "the same status is not news")
	require.Equal(t, map[string]any{"session": "s-1", "step": "2", "trace": "x"}, l.Task().Metadata)
	failed := status(a2a.StateFailed, "resp-1", "validation failed")
	failed.Metadata = map[string]any{"step": "3", "error_code": "REMOTE_VALIDATION_FAILED"}
	evs := l.Apply(nil, failed)
	require.Len(t, evs, 1)
	require.Equal(t, map[string]any{"step": "3", "error_code": "REMOTE_VALIDATION_FAILED"}, evs[0].(*a2a.StatusUpdate).Metadata,
		"the delta carries the event's metadata, not the task's")
	require.Equal(t, map[string]any{"session": "s-1", "step": "3", "trace": "x", "error_code": "REMOTE_VALIDATION_FAILED"}, l.Task().Metadata)
	require.Equal(t, map[string]any{"session": "s-1", "step": "1"}, first.Metadata, "the first task's map is not the ledger's")
	require.Equal(t, map[string]any{"step": "2", "trace": "x"}, same.Metadata)

	// Folding the same update again changes nothing: the merge is
	// idempotent, as exactly-once needs.
	again := status(a2a.StateFailed, "resp-1", "validation failed")
	again.Metadata = map[string]any{"step": "3", "error_code": "REMOTE_VALIDATION_FAILED"}
	require.Empty(t, l.Apply(nil, again))
	require.Equal(t, map[string]any{"session": "s-1", "step": "3", "trace": "x", "error_code": "REMOTE_VALIDATION_FAILED"}, l.Task().Metadata)
}

// A status update recognised as a replay (after a resubscribe) folds none of
// its metadata: an older value does not come back.
func TestReplayedStatusLeavesMetadataAlone(t *testing.T) {
	l := ledger.New()
	step := func(id, n string) *a2a.StatusUpdate {
		u := status(a2a.StateWorking, id, "step "+n)
		u.Metadata = map[string]any{"step": n}
		return u
	}
	require.Len(t, l.Apply(nil, step("m-1", "1")), 1)
	require.Len(t, l.Apply(nil, step("m-2", "2")), 1)
	l.OpenReplayWindow()
	require.Empty(t, l.Apply(nil, step("m-1", "1")), "a replay")
	require.Equal(t, map[string]any{"step": "2"}, l.Task().Metadata)
	require.Empty(t, l.Apply(nil, step("m-2", "2")), "a replay")
	evs := l.Apply(nil, step("m-3", "3"))
	require.Len(t, evs, 1, "news")
	require.Equal(t, map[string]any{"step": "3"}, l.Task().Metadata)
}

// A Task's metadata folds in key by key too. Its values win when it is the
// task as it is now: a get-task result, the first Task of a subscription
// that is current, a Task on a live connection. When it may be the past (a
// Task inside the replay window that is not current, or a get-task result
// that lags), it only adds the keys the ledger lacks.
func TestTaskMetadataFoldsIntoTheTask(t *testing.T) {
	withMD := func(tk *a2a.Task, kv ...string) *a2a.Task {
		tk.Metadata = map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			tk.Metadata[kv[i]] = kv[i+1]
		}
		return tk
	}
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(tk *a2a.Task, sec int) *a2a.Task {
		tk.Status.Timestamp = t0.Add(time.Duration(sec) * time.Second)
		return tk
	}
	l := ledger.New()
	l.Apply(nil, withMD(at(task(a2a.StateSubmitted, nil), 0), "a", "1"))
	l.Apply(nil, withMD(at(task(a2a.StateWorking, nil), 1), "a", "2", "b", "2"))
	require.Equal(t, map[string]any{"a": "2", "b": "2"}, l.Task().Metadata, "a live Task: its values win")

	require.Empty(t, l.Reconcile(nil, withMD(at(task(a2a.StateSubmitted, nil), 0), "a", "0", "c", "0"), true))
	require.Equal(t, map[string]any{"a": "2", "b": "2", "c": "0"}, l.Task().Metadata, "a get-task that lags only adds")

	l.OpenReplayWindow()
	l.ReconcileSnapshot(nil, withMD(at(task(a2a.StateSubmitted, nil), 0), "b", "0", "d", "0"))
	require.Equal(t, map[string]any{"a": "2", "b": "2", "c": "0", "d": "0"}, l.Task().Metadata, "the start of a replay only adds")

	l.OpenReplayWindow()
	l.ReconcileSnapshot(nil, withMD(at(task(a2a.StateWorking, nil), 1), "b", "3"))
	require.Equal(t, map[string]any{"a": "2", "b": "3", "c": "0", "d": "0"}, l.Task().Metadata, "a current snapshot wins")

	l.Reconcile(nil, withMD(at(task(a2a.StateWorking, nil), 2), "a", "4"), true)
	require.Equal(t, map[string]any{"a": "4", "b": "3", "c": "0", "d": "0"}, l.Task().Metadata, "a get-task result wins")
}

// More messages than the message-ID set holds, then a snapshot
// with the whole history.
func TestHistoryBeyondTheMessageIDSetIsDeliveredOnce(t *testing.T) {
	t.Parallel()
	const n = 5000
	l := ledger.New()
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

// More statuses than the status set holds, then a full replay
// from the start. The state never goes back.
func TestStatusesBeyondTheStatusSetNeverGoBack(t *testing.T) {
	const n = 300
	events := func() []a2a.Event {
		evs := []a2a.Event{task(a2a.StateSubmitted, nil)}
		for i := range n {
			evs = append(evs, status(a2a.StateWorking, fmt.Sprintf("m-%d", i), fmt.Sprintf("step %d", i)))
		}
		return evs
	}
	l := ledger.New()
	var a app
	for _, ev := range events() {
		a.apply(t, l.Apply(nil, ev))
	}
	require.Len(t, a.States, n+1)

	l.OpenReplayWindow()
	for i, ev := range events() {
		out := l.Apply(nil, ev)
		require.Zero(t, len(out), "replayed event %d is not new", i)
		a.apply(t, out)
		require.Equal(t, a2a.StateWorking, l.Task().Status.State, "the state never goes back (event %d)", i)
	}
	a.apply(t, l.Apply(nil, status(a2a.StateCompleted, "", "")))
	require.Len(t, a.States, n+2)
	a.check(t, l)
}

// Two status messages without a message ID, in the same state.
func TestTwoStatusMessagesWithoutIDInTheSameStateAreBothNew(t *testing.T) {
	l := ledger.New()
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

func agentSays(id, text string) *a2a.Message {
	return &a2a.Message{ID: id, TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: text}}}
}

// An artifact the application holds that the ledger was not seeded with
// (Hold) is judged as a held one: a task that lists it with more parts
// hands over only those, as an append.
func TestHeldArtifactHandsOverOnlyThePartsAfterIt(t *testing.T) {
	text := func(ts ...string) []a2a.Part {
		var ps []a2a.Part
		for _, s := range ts {
			ps = append(ps, a2a.Part{Text: s})
		}
		return ps
	}
	require.False(t, ledger.New().Hold(a2a.Artifact{ID: "a1", Parts: text("kept")}, 0), "no task to hold it in")
	working := a2a.TaskStatus{State: a2a.StateWorking}
	l := ledger.Resume(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: working}, nil, nil)
	require.True(t, l.Hold(a2a.Artifact{ID: "a1", Parts: text("kept")}, 0))
	require.False(t, l.Hold(a2a.Artifact{ID: "a1", Parts: text("other")}, 0), "held already")
	got := l.Reconcile(nil, &a2a.Task{ID: "t-1", ContextID: "c-1", Status: working,
		Artifacts: []a2a.Artifact{{ID: "a1", Parts: text("kept", "more")}}}, false)
	require.Len(t, got, 1)
	u, ok := got[0].(*a2a.ArtifactUpdate)
	require.True(t, ok, "%T", got[0])
	require.True(t, u.Append)
	require.Equal(t, text("more"), u.Artifact.Parts)
	require.Equal(t, text("kept", "more"), l.Task().Artifact("a1").Parts)
}

// A held artifact takes the index Hold is given among the task's
// artifacts, and every artifact is still found by its ID after the move.
func TestHeldArtifactTakesItsPlace(t *testing.T) {
	text := func(s string) []a2a.Part { return []a2a.Part{{Text: s}} }
	working := a2a.TaskStatus{State: a2a.StateWorking}
	l := ledger.Resume(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: working,
		Artifacts: []a2a.Artifact{{ID: "a2", Parts: text("x")}, {ID: "a3", Parts: text("y")}}}, nil, nil)
	require.True(t, l.Hold(a2a.Artifact{ID: "a1", Parts: text("kept")}, 0))
	require.True(t, l.Hold(a2a.Artifact{ID: "a4", Parts: text("z")}, 99), "past the last: last")
	var ids []string
	for _, a := range l.Task().Artifacts {
		ids = append(ids, a.ID)
	}
	require.Equal(t, []string{"a1", "a2", "a3", "a4"}, ids)
	got := l.Apply(nil, &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Append: true, Artifact: a2a.Artifact{ID: "a3", Parts: text("more")}})
	require.Len(t, got, 1)
	require.Equal(t, []a2a.Part{{Text: "y"}, {Text: "more"}}, l.Task().Artifact("a3").Parts)
	require.Equal(t, text("kept"), l.Task().Artifacts[0].Parts)
}

// A server that replays from the start, its statuses without timestamps,
// sends after a drop a version the client never held (the agent replaced
// the draft during the gap) and a part appended to it. The window holds
// them, since a replay may bring an old version missed in an earlier gap:
// a status that is news but carries no time leaves them held. The task's
// terminal status lets them out, first: a replay from the start reaches the
// task's end only after every version the server holds, so a version held
// that were old would have been dropped by the held one following it.
func TestAVersionHeldPendingIsDeliveredAtTheTasksEnd(t *testing.T) {
	l := ledger.New()
	var a app
	a.apply(t, l.Apply(nil, &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking}}))
	a.apply(t, l.Apply(nil, chunk("a1", false, false, "draft")))
	l.OpenReplayWindow()
	a.apply(t, l.ReconcileSnapshot(nil, &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking}}))
	out := l.Apply(nil, chunk("a1", false, false, "final answer"))
	out = l.Apply(out, chunk("a1", true, false, " and more"))
	require.Empty(t, out, "the version never seen waits in the window")
	require.Equal(t, 1, l.Pending())
	out = l.Apply(nil, status(a2a.StateWorking, "", "still at it"))
	a.apply(t, out)
	require.Equal(t, 1, l.Pending(), "a status that is news but carries no time leaves it held")
	done := l.Apply(nil, status(a2a.StateCompleted, "", ""))
	require.NotEmpty(t, done)
	_, first := done[0].(*a2a.ArtifactUpdate)
	require.True(t, first, "the held version comes before the end")
	a.apply(t, done)
	a.check(t, l)
	require.Zero(t, l.Pending())
	require.Equal(t, "final answer and more", l.Task().Artifact("a1").Text())
}
