package ledger

import (
	"fmt"
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// A live append never copies the parts held: once the artifact's []Part is
// full, its array stays where it is until the task is read, however many
// parts follow.
func TestLiveAppendsLeaveThePartsHeldInPlace(t *testing.T) {
	l := New()
	l.Apply(nil, &a2a.ArtifactUpdate{TaskID: "t", Artifact: a2a.Artifact{ID: "a", Parts: []a2a.Part{a2a.TextPart("0")}}})
	appendOne := func(i int) {
		l.Apply(nil, &a2a.ArtifactUpdate{TaskID: "t", Append: true, Artifact: a2a.Artifact{ID: "a", Parts: []a2a.Part{a2a.TextPart(fmt.Sprint(i))}}})
	}
	for i := 1; i < 1000; i++ {
		appendOne(i)
	}
	held := &l.Task().Artifacts[0]
	// Fill the spare capacity the read left.
	for i := len(held.Parts); len(held.Parts) < cap(held.Parts); i++ {
		appendOne(i)
	}
	array, n := unsafe.SliceData(held.Parts), len(held.Parts)
	for i := n; i < n+100_000; i++ {
		appendOne(i)
	}
	a, st := l.arts.lookupUnbuilt(l.task, "a")
	require.Same(t, array, unsafe.SliceData(a.Parts), "the parts held moved")
	require.Len(t, a.Parts, n)
	require.Equal(t, 100_000, st.more.n)
	for i, b := range st.more.blocks {
		require.LessOrEqual(t, cap(b), maxBlock, "block %d", i)
	}
	parts := l.Task().Artifacts[0].Parts
	require.Len(t, parts, n+100_000)
	for i := range parts {
		require.Equal(t, fmt.Sprint(i), parts[i].Text)
	}
}

// The first appends after a resubscribe, whether the server resends
// nothing or replays the artifact's parts, read the parts held where they
// are: the artifact's Parts are not built, and nothing held moves.
func TestAResumeLeavesThePartsHeldInPlace(t *testing.T) {
	text := func(i int) a2a.Part { return a2a.TextPart(fmt.Sprint(i)) }
	appendOne := func(l *Ledger, parts ...a2a.Part) []a2a.Event {
		return l.Apply(nil, &a2a.ArtifactUpdate{TaskID: "t", Append: true, Artifact: a2a.Artifact{ID: "a", Parts: parts}})
	}
	for _, replays := range []bool{false, true} {
		t.Run(fmt.Sprint("replays=", replays), func(t *testing.T) {
			l := New()
			l.Apply(nil, &a2a.ArtifactUpdate{TaskID: "t", Artifact: a2a.Artifact{ID: "a", Parts: []a2a.Part{text(0)}}})
			for i := 1; i < 3000; i++ {
				appendOne(l, text(i))
			}
			a, st := l.arts.lookupUnbuilt(l.task, "a")
			array, built, unbuilt := unsafe.SliceData(a.Parts), len(a.Parts), st.more.n
			require.Equal(t, 3000, built+unbuilt)
			require.Positive(t, unbuilt)
			l.OpenReplayWindow()
			if replays {
				for i := 0; i < 3000; i += 2 {
					require.Empty(t, appendOne(l, text(i), text(i+1)), "parts %d and %d are a replay", i, i+1)
				}
			}
			require.Len(t, appendOne(l, text(3000)), 1)
			require.Len(t, appendOne(l, text(3001)), 1)
			a, st = l.arts.lookupUnbuilt(l.task, "a")
			require.Same(t, array, unsafe.SliceData(a.Parts), "the parts held moved")
			require.Len(t, a.Parts, built)
			require.Equal(t, unbuilt+2, st.more.n)
			parts := l.Task().Artifacts[0].Parts
			require.Len(t, parts, 3002)
			for i := range parts {
				require.Equal(t, text(i), parts[i])
			}
		})
	}
}

// A tail gives back every part added, whole, by index and when moved into
// a []Part, whatever runs the parts fall into: text parts that share a
// media type and have no metadata, text parts with metadata (each its own
// map, never shared), and parts held whole.
func TestATailGivesBackEveryPartAdded(t *testing.T) {
	kinds := []func(i int) a2a.Part{
		func(i int) a2a.Part { return a2a.TextPart(fmt.Sprint("token ", i)) },
		func(i int) a2a.Part { return a2a.Part{Text: fmt.Sprint(i), MediaType: "text/markdown"} },
		func(i int) a2a.Part { return a2a.Part{Text: fmt.Sprint(i), Metadata: map[string]any{"k": "same"}} },
		func(i int) a2a.Part { return a2a.Part{Text: fmt.Sprint(i), Filename: "f.txt"} },
		func(i int) a2a.Part { return a2a.Part{Data: []byte(fmt.Sprintf(`{"n":%d}`, i))} },
		func(i int) a2a.Part { return a2a.Part{} },
		// Long texts of one length: each held as it came, each ending
		// where the one before it did.
		func(i int) a2a.Part { return a2a.TextPart(fmt.Sprintf("%0*d", bigText+1, i)) },
		// Texts that fill text blocks exactly.
		func(i int) a2a.Part { return a2a.TextPart(fmt.Sprintf("%0*d", firstTextBlock/2, i)) },
	}
	var want []a2a.Part
	var tl tail
	for i := 0; len(want) < 3*maxBlock; i++ {
		// Runs of 1 to 40 parts of one kind, the kinds in turn.
		for range 1 + (i*17)%40 {
			p := kinds[i%len(kinds)](len(want))
			want = append(want, p)
			c := p.Clone()
			tl.add(&c)
		}
	}
	require.Equal(t, len(want), tl.n)
	var buf a2a.Part
	for i := len(want) - 1; i >= 0; i-- {
		require.Equal(t, want[i], *tl.at(i, &buf), "part %d", i)
	}
	for i := range want { // in order, as a replay reads them
		require.Equal(t, want[i], *tl.at(i, &buf), "part %d", i)
	}
	for i := range want { // every seventh, then from the start again
		j := i * 7 % len(want)
		require.Equal(t, want[j], *tl.at(j, &buf), "part %d", j)
	}
	// Moved after two parts held, into room that holds stale parts.
	dst := make([]a2a.Part, 2, 2+len(want))
	stale := dst[:cap(dst)]
	for i := range stale {
		stale[i] = a2a.Part{Text: "stale", Filename: "stale", URL: "stale", Data: []byte(`1`), Raw: []byte{1}, Metadata: map[string]any{"stale": true}}
	}
	got := tl.moveTo(dst[:0:0])
	require.Equal(t, want, got)
	got = (&tail{}).moveTo(got)
	require.Equal(t, want, got)
	for i := range want {
		c := want[i].Clone()
		tl.add(&c)
	}
	got = tl.moveTo(dst)
	require.Equal(t, append(dst[:2:2], want...), got)
	require.Zero(t, tl.n)
	// No two parts share a metadata map.
	moved := got[2:]
	m := slices.IndexFunc(moved, func(p a2a.Part) bool { return p.Metadata != nil })
	require.Positive(t, m)
	moved[m].Metadata["k"] = "changed"
	for i := range moved {
		if i != m && moved[i].Metadata != nil {
			require.Equal(t, "same", moved[i].Metadata["k"], "part %d", i)
		}
	}
}
