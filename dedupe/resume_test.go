package dedupe_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/dedupe"
)

// A ledger resumed from the task the application holds delivers none of
// it again: a replay of what it holds yields nothing, and only what is new
// comes out.
func TestResumedLedgerDeliversOnlyWhatTheApplicationLacks(t *testing.T) {
	held := &a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.StateWorking},
		History:   []a2a.Message{{ID: "m1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("on it")}}},
		Artifacts: []a2a.Artifact{{ID: "a", Parts: []a2a.Part{a2a.TextPart("one, ")}}}}
	l := dedupe.Resume(held.Clone(), nil, nil)
	require.Equal(t, held, l.Task())

	l.OpenReplayWindow()
	replay := &a2a.ArtifactUpdate{TaskID: "t1", ContextID: "c1", Artifact: a2a.Artifact{ID: "a", Parts: []a2a.Part{a2a.TextPart("one, ")}}}
	require.Empty(t, l.Apply(nil, replay), "a replay of what the application holds")
	echo := held.History[0]
	require.Empty(t, l.Apply(nil, &echo), "a message the application holds")

	tail := &a2a.ArtifactUpdate{TaskID: "t1", ContextID: "c1", Append: true, Artifact: a2a.Artifact{ID: "a", Parts: []a2a.Part{a2a.TextPart("two")}}}
	deltas := l.Apply(nil, tail)
	require.Len(t, deltas, 1)
	require.Equal(t, "two", deltas[0].(*a2a.ArtifactUpdate).Artifact.Text())
	require.Equal(t, "one, two", l.Task().Artifacts[0].Text())
}
