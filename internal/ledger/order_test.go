package ledger_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/ledger"
)

// A whole task hands its changes over in the order a stream would have: the
// history's messages, then a status that still works before the artifacts,
// a prompt or an ending after them; whether it is a get-task result, a
// snapshot or the first event of a send.
func TestWholeTaskYieldsInTheOrderOfAStream(t *testing.T) {
	withArtifact := func(tk *a2a.Task) *a2a.Task {
		tk.Artifacts = []a2a.Artifact{{ID: "a1", Parts: []a2a.Part{{Text: "chunk-1"}}}}
		return tk
	}
	folds := map[string]func(l *ledger.Ledger, tk *a2a.Task) []a2a.Event{
		"get-task":   func(l *ledger.Ledger, tk *a2a.Task) []a2a.Event { return l.Reconcile(nil, tk, true) },
		"first task": func(l *ledger.Ledger, tk *a2a.Task) []a2a.Event { return l.Reconcile(nil, tk, false) },
		"snapshot": func(l *ledger.Ledger, tk *a2a.Task) []a2a.Event {
			l.OpenReplayWindow()
			return l.ReconcileSnapshot(nil, tk)
		},
	}
	for _, tc := range []struct {
		name string
		task *a2a.Task
		want []string
	}{
		{"working", withArtifact(polled(a2a.StateWorking, textMsg("s-1", "working"), textMsg("s-1", "working"))),
			[]string{`status working "working"`, `a1 append=false ["chunk-1"]`}},
		{"working after a message", withArtifact(polled(a2a.StateWorking, textMsg("s-2", "writing"), textMsg("s-1", "thinking"), textMsg("s-2", "writing"))),
			[]string{`message "s-1" "thinking"`, `status working "writing"`, `a1 append=false ["chunk-1"]`}},
		{"working without a message", withArtifact(polled(a2a.StateWorking, nil)),
			[]string{`status working ""`, `a1 append=false ["chunk-1"]`}},
		{"prompt", withArtifact(polled(a2a.StateInputRequired, textMsg("q-1", "Which dates?"), textMsg("s-1", "working"), textMsg("q-1", "Which dates?"))),
			[]string{`message "s-1" "working"`, `a1 append=false ["chunk-1"]`, `status input-required "Which dates?"`}},
		{"auth", withArtifact(polled(a2a.StateAuthRequired, nil, textMsg("s-1", "working"))),
			[]string{`message "s-1" "working"`, `a1 append=false ["chunk-1"]`, `status auth-required ""`}},
		{"ending", withArtifact(polled(a2a.StateCompleted, textMsg("d-1", "done"), textMsg("s-1", "working"), textMsg("d-1", "done"))),
			[]string{`message "s-1" "working"`, `a1 append=false ["chunk-1"]`, `status completed "done"`}},
		{"failed", withArtifact(polled(a2a.StateFailed, nil, textMsg("s-1", "working"))),
			[]string{`message "s-1" "working"`, `a1 append=false ["chunk-1"]`, `status failed ""`}},
	} {
		for name, fold := range folds {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				l := ledger.New()
				var a app
				a.apply(t, l.Apply(nil, polled(a2a.StateSubmitted, nil)))
				got := fold(l, tc.task)
				require.Equal(t, tc.want, deltas(got))
				a.apply(t, got)
				require.Equal(t, l.Task().Artifacts, a.Task.Artifacts, "the deltas still fold to the ledger's task")
				require.Equal(t, l.Task().Status, a.Task.Status)
			})
		}
	}
}
