package ledger

import (
	"fmt"
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
