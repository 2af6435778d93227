package ledger_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/ledger"
)

// Place moves an artifact to the index it is given, the others keeping
// their order, and each artifact keeps its record: a replay of the version
// it replaced is known as one, and an append is judged against its own
// parts, for every artifact after the move.
func TestPlaceMovesAnArtifactWithItsRecord(t *testing.T) {
	cases := []struct {
		name string
		id   string
		at   int
		want []string
		ok   bool
	}{
		{"the last to the front", "a4", 0, []string{"a4", "a1", "a2", "a3"}, true},
		{"the first to the end", "a1", 3, []string{"a2", "a3", "a4", "a1"}, true},
		{"one place back", "a3", 1, []string{"a1", "a3", "a2", "a4"}, true},
		{"one place on", "a2", 2, []string{"a1", "a3", "a2", "a4"}, true},
		{"where it is: nothing moves", "a2", 1, []string{"a1", "a2", "a3", "a4"}, true},
		{"past the last: last", "a2", 99, []string{"a1", "a3", "a4", "a2"}, true},
		{"below the first: first", "a3", -1, []string{"a3", "a1", "a2", "a4"}, true},
		{"an ID the ledger does not hold: nothing moves", "a9", 0, []string{"a1", "a2", "a3", "a4"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			working := a2a.TaskStatus{State: a2a.StateWorking}
			var arts []a2a.Artifact
			for _, id := range []string{"a1", "a2", "a3", "a4"} {
				arts = append(arts, a2a.Artifact{ID: id, Parts: []a2a.Part{{Text: id}}})
			}
			l := ledger.Resume(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: working, Artifacts: arts}, nil, nil)
			update := func(id, text string, appended bool) *a2a.ArtifactUpdate {
				return &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Append: appended,
					Artifact: a2a.Artifact{ID: id, Parts: []a2a.Part{{Text: text}}}}
			}
			for _, a := range arts {
				require.Len(t, l.Apply(nil, update(a.ID, a.ID+"'", false)), 1, "%s replaced", a.ID)
			}
			require.Equal(t, tc.ok, l.Place(tc.id, tc.at))
			var ids []string
			for _, a := range l.Task().Artifacts {
				ids = append(ids, a.ID)
			}
			require.Equal(t, tc.want, ids)
			l.OpenReplayWindow()
			for _, a := range arts {
				require.Empty(t, l.Apply(nil, update(a.ID, a.ID, false)), "the version %s replaced, replayed", a.ID)
			}
			l.CloseReplayWindow()
			for _, a := range arts {
				require.Len(t, l.Apply(nil, update(a.ID, "more", true)), 1, "an append to %s is news", a.ID)
				require.Equal(t, []a2a.Part{{Text: a.ID + "'"}, {Text: "more"}}, l.Task().Artifact(a.ID).Parts)
			}
		})
	}
	require.False(t, ledger.New().Place("a1", 0), "no task")
}
