package ledger_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/ledger"
)

// The parts of an artifact's live appends, whenever the task is read and
// whatever the ledger is asked in between: every part, in order, whole.

const longTask = "task-long"

func appendOf(id string, parts ...a2a.Part) *a2a.ArtifactUpdate {
	return &a2a.ArtifactUpdate{TaskID: longTask, ContextID: "ctx", Append: true, Artifact: a2a.Artifact{ID: id, Parts: parts}}
}

func openOf(id string, parts ...a2a.Part) *a2a.ArtifactUpdate {
	return &a2a.ArtifactUpdate{TaskID: longTask, ContextID: "ctx", Artifact: a2a.Artifact{ID: id, Parts: parts}}
}

// partOf returns the i-th part of a stream that mixes plain text parts
// with the other kinds: data, bytes, a URL, and text with a media type,
// a file name or metadata.
func partOf(i int) a2a.Part {
	switch i % 7 {
	case 1:
		return a2a.Part{Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))}
	case 3:
		return a2a.Part{Raw: []byte{byte(i), byte(i >> 8)}, MediaType: "application/octet-stream"}
	case 4:
		return a2a.Part{URL: fmt.Sprintf("https://files.example/%d", i), Filename: "f.txt"}
	case 5:
		return a2a.Part{Text: fmt.Sprint(i), Metadata: map[string]any{"i": float64(i)}}
	case 6:
		return a2a.Part{Text: fmt.Sprint(i), MediaType: "text/markdown"}
	}
	return a2a.TextPart(fmt.Sprintf("token %d ", i))
}

func partsUpTo(n int) []a2a.Part {
	ps := make([]a2a.Part, n)
	for i := range ps {
		ps[i] = partOf(i)
	}
	return ps
}

func TestTheTaskHoldsEveryAppendedPartInOrderWheneverItIsRead(t *testing.T) {
	for _, reads := range [][]int{
		{5000},                       // read once, at the end
		{2, 3, 10, 1000, 5000},       // read now and then
		{2, 9, 17, 1040, 2064, 5000}, // across the tail's block sizes
	} {
		t.Run(fmt.Sprint(reads), func(t *testing.T) {
			l := ledger.New()
			l.Apply(nil, openOf("a", partOf(0)))
			next := 0
			for i := 1; i < 5000; i++ {
				deltas := l.Apply(nil, appendOf("a", partOf(i)))
				require.Len(t, deltas, 1, "append %d is delivered", i)
				if n := i + 1; next < len(reads) && n == reads[next] {
					require.Equal(t, partsUpTo(n), l.Task().Artifacts[0].Parts, "after %d parts", n)
					next++
				}
			}
			require.Equal(t, len(reads), next)
		})
	}
}

func TestAnAppendOfSeveralPartsKeepsThemInOrder(t *testing.T) {
	l := ledger.New()
	l.Apply(nil, openOf("a", partOf(0)))
	want := partsUpTo(1)
	for i := 1; i < 3000; i += 37 {
		batch := partsUpTo(i + 37)[i:]
		l.Apply(nil, appendOf("a", batch...))
		want = append(want, batch...)
	}
	require.Equal(t, want, l.Task().Artifacts[0].Parts)
}

func TestAppendsToSeveralArtifactsStayWithTheirArtifact(t *testing.T) {
	l := ledger.New()
	ids := []string{"a", "b", "c"}
	for _, id := range ids {
		l.Apply(nil, openOf(id, a2a.TextPart(id+"0")))
	}
	want := map[string][]a2a.Part{"a": {a2a.TextPart("a0")}, "b": {a2a.TextPart("b0")}, "c": {a2a.TextPart("c0")}}
	for i := 1; i < 2000; i++ {
		id := ids[(i*7)%3]
		p := a2a.TextPart(fmt.Sprint(id, i))
		l.Apply(nil, appendOf(id, p))
		want[id] = append(want[id], p)
		if i%500 == 0 {
			// A read of the task between appends to some artifacts.
			for j, id := range ids {
				require.Equal(t, want[id], l.Task().Artifacts[j].Parts, "artifact %s after %d appends", id, i)
			}
		}
	}
	for j, id := range ids {
		require.Equal(t, want[id], l.Task().Artifacts[j].Parts, "artifact %s", id)
	}
}

// After live appends the task has not been read since, a resubscribe's
// replay is judged against every part appended.
func TestAReplayIsJudgedAgainstAppendsNotReadYet(t *testing.T) {
	l := ledger.New()
	l.Apply(nil, openOf("a", partOf(0)))
	for i := 1; i < 100; i++ {
		l.Apply(nil, appendOf("a", partOf(i)))
	}
	l.OpenReplayWindow()
	// The server replays the artifact from the start as one version, then
	// appends a part never seen.
	require.Empty(t, l.Apply(nil, openOf("a", partsUpTo(100)...)), "a replay of the 100 parts held")
	deltas := l.Apply(nil, appendOf("a", partOf(100)))
	require.Len(t, deltas, 1)
	require.Equal(t, []a2a.Part{partOf(100)}, deltas[0].(*a2a.ArtifactUpdate).Artifact.Parts)
	require.Equal(t, partsUpTo(101), l.Task().Artifacts[0].Parts)
}

// A version replaced after appends not read yet is remembered with them:
// a later replay of it is recognised.
func TestAVersionReplacedAfterAppendsNotReadYetIsRecognisedWhenReplayed(t *testing.T) {
	l := ledger.New()
	l.Apply(nil, openOf("a", partOf(0)))
	for i := 1; i < 50; i++ {
		l.Apply(nil, appendOf("a", partOf(i)))
	}
	next := openOf("a", a2a.TextPart("the second version"))
	require.Len(t, l.Apply(nil, next), 1, "the replacement is delivered")
	l.OpenReplayWindow()
	require.Empty(t, l.Apply(nil, openOf("a", partsUpTo(50)...)), "a replay of the first version")
	require.Empty(t, l.Apply(nil, openOf("a", a2a.TextPart("the second version"))), "a replay of the second")
	require.Equal(t, []a2a.Part{a2a.TextPart("the second version")}, l.Task().Artifacts[0].Parts)
}

// A get-task result that holds what was appended, and not read yet, is
// no news; one with a part more delivers that part alone.
func TestAGetTaskIsJudgedAgainstAppendsNotReadYet(t *testing.T) {
	l := ledger.New()
	l.Apply(nil, openOf("a", partOf(0)))
	for i := 1; i < 300; i++ {
		l.Apply(nil, appendOf("a", partOf(i)))
	}
	task := &a2a.Task{ID: longTask, ContextID: "ctx", Status: a2a.TaskStatus{State: a2a.StateWorking},
		Artifacts: []a2a.Artifact{{ID: "a", Parts: partsUpTo(300)}}}
	require.True(t, l.Covers(task))
	deltas := l.Reconcile(nil, task, true)
	for _, d := range deltas {
		_, isArtifact := d.(*a2a.ArtifactUpdate)
		require.False(t, isArtifact, "an artifact delta for parts held: %#v", d)
	}
	for i := 300; i < 320; i++ {
		l.Apply(nil, appendOf("a", partOf(i)))
	}
	task = &a2a.Task{ID: longTask, ContextID: "ctx", Status: a2a.TaskStatus{State: a2a.StateWorking},
		Artifacts: []a2a.Artifact{{ID: "a", Parts: partsUpTo(321)}}}
	deltas = l.Reconcile(nil, task, true)
	require.Len(t, deltas, 1)
	require.Equal(t, []a2a.Part{partOf(320)}, deltas[0].(*a2a.ArtifactUpdate).Artifact.Parts)
	require.Equal(t, partsUpTo(321), l.Task().Artifacts[0].Parts)
}

// An artifact moved to another place keeps the appends not read yet.
func TestAnArtifactPlacedElsewhereKeepsItsAppends(t *testing.T) {
	l := ledger.New()
	l.Apply(nil, openOf("a", a2a.TextPart("a")))
	l.Apply(nil, openOf("b", a2a.TextPart("b")))
	for i := range 40 {
		l.Apply(nil, appendOf("a", a2a.TextPart(fmt.Sprint("a", i))))
		l.Apply(nil, appendOf("b", a2a.TextPart(fmt.Sprint("b", i))))
	}
	require.True(t, l.Place("b", 0))
	require.True(t, l.Hold(a2a.Artifact{ID: "c", Parts: []a2a.Part{a2a.TextPart("c")}}, 1))
	l.Apply(nil, appendOf("a", a2a.TextPart("a-last")))
	arts := l.Task().Artifacts
	require.Equal(t, []string{"b", "c", "a"}, []string{arts[0].ID, arts[1].ID, arts[2].ID})
	require.Len(t, arts[0].Parts, 41)
	require.Equal(t, a2a.TextPart("b39"), arts[0].Parts[40])
	require.Len(t, arts[2].Parts, 42)
	require.Equal(t, a2a.TextPart("a-last"), arts[2].Parts[41])
}

// A resume in the middle of a long artifact, part of whose parts were read
// (built) and part not: whether the server resends nothing or replays the
// artifact from its start, each part is delivered once and held once, in
// order.
func TestAResumeInTheMiddleOfALongArtifactDeliversEachPartOnce(t *testing.T) {
	type replay func(l *ledger.Ledger, held int) []a2a.Event
	replayAppends := func(per int) replay {
		return func(l *ledger.Ledger, held int) []a2a.Event {
			var deltas []a2a.Event
			all := partsUpTo(held)
			for i := 0; i < held; i += per {
				deltas = l.Apply(deltas, appendOf("a", all[i:min(i+per, held)]...))
			}
			return deltas
		}
	}
	for _, c := range []struct {
		name   string
		replay replay // what the server resends after the resubscribe
	}{
		{"resends nothing", func(*ledger.Ledger, int) []a2a.Event { return nil }},
		{"replays one part per event", replayAppends(1)},
		{"replays 7 parts per event", replayAppends(7)},
		{"replays the first part as a new version, then appends", func(l *ledger.Ledger, held int) []a2a.Event {
			deltas := l.Apply(nil, openOf("a", partOf(0)))
			all := partsUpTo(held)
			for i := 1; i < held; i++ {
				deltas = l.Apply(deltas, appendOf("a", all[i]))
			}
			return deltas
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := ledger.New()
			l.Apply(nil, openOf("a", partOf(0)))
			held := 1
			for resume := range 3 {
				for range 1500 + 100*resume {
					require.Len(t, l.Apply(nil, appendOf("a", partOf(held))), 1, "append %d is delivered", held)
					held++
					if held == 1000 {
						// Part of the artifact built, the rest in its tail.
						require.Equal(t, partsUpTo(held), l.Task().Artifacts[0].Parts)
					}
				}
				l.OpenReplayWindow()
				require.Empty(t, c.replay(l, held), "resume %d: a replay of the %d parts held", resume, held)
				// New parts: the first one several at a time, then one by one.
				deltas := l.Apply(nil, appendOf("a", partOf(held), partOf(held+1)))
				require.Len(t, deltas, 1, "resume %d", resume)
				require.Equal(t, []a2a.Part{partOf(held), partOf(held + 1)}, deltas[0].(*a2a.ArtifactUpdate).Artifact.Parts)
				held += 2
				for range 5 {
					deltas = l.Apply(nil, appendOf("a", partOf(held)))
					require.Len(t, deltas, 1, "resume %d, part %d", resume, held)
					require.Equal(t, []a2a.Part{partOf(held)}, deltas[0].(*a2a.ArtifactUpdate).Artifact.Parts)
					held++
				}
			}
			require.Equal(t, partsUpTo(held), l.Task().Artifacts[0].Parts)
		})
	}
}

// Many artifacts, opened live across the blocks that hold them, read now
// and then, moved and held: each keeps its ID, its place and its parts.
func TestManyArtifactsKeepTheirPlaceAndTheirParts(t *testing.T) {
	l := ledger.New()
	const n = 5000
	id := func(i int) string { return fmt.Sprintf("art-%d", i) }
	want := make([][]a2a.Part, n)
	for i := range n {
		want[i] = []a2a.Part{a2a.TextPart(fmt.Sprint("open ", i))}
		deltas := l.Apply(nil, openOf(id(i), want[i]...))
		require.Len(t, deltas, 1, "artifact %d is new", i)
		if i%3 == 0 {
			// An append to an artifact opened before.
			j := i / 3
			p := a2a.TextPart(fmt.Sprint("append ", i))
			require.Len(t, l.Apply(nil, appendOf(id(j), p)), 1, "append to artifact %d", j)
			want[j] = append(want[j], p)
		}
		if i == 100 || i == 2100 {
			require.Len(t, l.Task().Artifacts, i+1)
		}
	}
	arts := l.Task().Artifacts
	require.Len(t, arts, n)
	for i := range n {
		require.Equal(t, id(i), arts[i].ID)
		require.Equal(t, want[i], arts[i].Parts, "artifact %d", i)
	}
	// Moved and held: every artifact is still found by its ID.
	require.True(t, l.Place(id(n-1), 0))
	require.True(t, l.Place(id(1), n-1))
	require.True(t, l.Hold(a2a.Artifact{ID: "held", Parts: []a2a.Part{a2a.TextPart("held")}}, 2))
	require.False(t, l.Hold(a2a.Artifact{ID: id(7)}, 0), "an artifact held already")
	order := []string{id(n - 1), id(0), "held"}
	for i := 2; i < n-1; i++ {
		order = append(order, id(i))
	}
	order = append(order, id(1))
	for i := range n {
		p := a2a.TextPart(fmt.Sprint("last ", i))
		require.Len(t, l.Apply(nil, appendOf(id(i), p)), 1, "append to artifact %d", i)
		want[i] = append(want[i], p)
	}
	arts = l.Task().Artifacts
	require.Len(t, arts, n+1)
	for i, got := range arts {
		require.Equal(t, order[i], got.ID, "place %d", i)
	}
	for i := range n {
		at := i + 1
		switch i {
		case n - 1:
			at = 0
		case 0:
			at = 1
		case 1:
			at = n
		}
		require.Equal(t, want[i], arts[at].Parts, "artifact %d", i)
	}
	require.Equal(t, []a2a.Part{a2a.TextPart("held")}, arts[2].Parts)
}
