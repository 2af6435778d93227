package ledger

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// Where a whole task's artifacts go against its status, state by state: after
// a status that still works, before a prompt or an ending.
func TestArtifactsGoBeforeAPromptOrAnEndingAndAfterAStatusThatWorks(t *testing.T) {
	for _, tc := range []struct {
		state  a2a.TaskState
		before bool
	}{
		{a2a.StateSubmitted, false},
		{a2a.StateWorking, false},
		{a2a.StateUnknown, false},
		{a2a.StateInputRequired, true},
		{a2a.StateAuthRequired, true},
		{a2a.StateCompleted, true},
		{a2a.StateCanceled, true},
		{a2a.StateFailed, true},
		{a2a.StateRejected, true},
	} {
		require.Equal(t, tc.before, artifactsBeforeStatus(tc.state), "%s", tc.state)
	}
}

// inStreamOrder puts the history's messages first, then the artifacts and the
// status (with the revision of its message) in the order of the state,
// keeping the order within each; with any section empty.
func TestInStreamOrderMovesTheArtifactsOnly(t *testing.T) {
	ev := func(name string) a2a.Event { return &a2a.Message{ID: name} }
	names := func(d []a2a.Event) []string {
		out := make([]string, len(d))
		for i, e := range d {
			out[i] = e.(*a2a.Message).ID
		}
		return out
	}
	for _, tc := range []struct {
		state              a2a.TaskState
		arts, msgs, status []string
		want               []string
	}{
		{a2a.StateWorking, []string{"a1", "a2"}, []string{"m1"}, []string{"s"}, []string{"m1", "s", "a1", "a2"}},
		{a2a.StateWorking, []string{"a1"}, nil, []string{"rev", "s"}, []string{"rev", "s", "a1"}},
		{a2a.StateWorking, []string{"a1"}, []string{"m1", "m2"}, nil, []string{"m1", "m2", "a1"}},
		{a2a.StateSubmitted, []string{"a1"}, nil, []string{"s"}, []string{"s", "a1"}},
		{a2a.StateCompleted, []string{"a1", "a2"}, []string{"m1"}, []string{"s"}, []string{"m1", "a1", "a2", "s"}},
		{a2a.StateInputRequired, []string{"a1"}, []string{"m1", "m2"}, []string{"rev", "s"}, []string{"m1", "m2", "a1", "rev", "s"}},
		{a2a.StateAuthRequired, []string{"a1"}, nil, []string{"s"}, []string{"a1", "s"}},
		{a2a.StateFailed, []string{"a1"}, []string{"m1"}, nil, []string{"m1", "a1"}},
		{a2a.StateWorking, nil, []string{"m1"}, []string{"s"}, []string{"m1", "s"}},
		{a2a.StateCompleted, []string{"a1"}, nil, nil, []string{"a1"}},
		{a2a.StateWorking, nil, nil, nil, nil},
	} {
		t.Run(fmt.Sprintf("%s/%v/%v/%v", tc.state, tc.arts, tc.msgs, tc.status), func(t *testing.T) {
			var d []a2a.Event
			for _, part := range [][]string{tc.arts, tc.msgs, tc.status} {
				for _, n := range part {
					d = append(d, ev(n))
				}
			}
			inStreamOrder(d, len(tc.arts), len(tc.msgs), tc.state)
			if tc.want == nil {
				require.Empty(t, d)
				return
			}
			require.Equal(t, tc.want, names(d))
		})
	}
}
