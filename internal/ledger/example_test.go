package ledger_test

import (
	"fmt"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/ledger"
)

// ExampleLedger_ReconcileSnapshot shows the first Task of a subscription,
// the server's task as its store has it, with the questions the driver
// asks of it on the way (ChangesStatus, Covers, Pending). A store that lags
// what was delivered shows a prefix of the parts: that is not news. One
// that shows a version the client never held is the present: the agent
// rewrote its artifact while the client was away, and the application gets
// the new version whole.
func ExampleLedger_ReconcileSnapshot() {
	l := ledger.New()
	task := &a2a.Task{ID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.StateWorking},
		Artifacts: []a2a.Artifact{{ID: "a", Parts: []a2a.Part{a2a.TextPart("draft, "), a2a.TextPart("long")}}}}
	l.Reconcile(nil, task, false)

	l.OpenReplayWindow()
	lagging := task.Clone()
	lagging.Artifacts[0].Parts = lagging.Artifacts[0].Parts[:1]
	fmt.Println("lagging snapshot, deltas:", len(l.ReconcileSnapshot(nil, lagging)))

	l.OpenReplayWindow()
	now := task.Clone()
	now.Artifacts[0].Parts = []a2a.Part{a2a.TextPart("final")}
	fmt.Println("status changes:", l.ChangesStatus(now), "holds all the ledger holds:", l.Covers(now))
	for _, d := range l.ReconcileSnapshot(nil, now) {
		u := d.(*a2a.ArtifactUpdate)
		fmt.Printf("append=%v %q\n", u.Append, u.Artifact.Text())
	}
	fmt.Println("versions held back:", l.Pending())
	// A reply's stream replays nothing: its first event is news.
	l.CloseReplayWindow()
	// Output:
	// lagging snapshot, deltas: 0
	// status changes: false holds all the ledger holds: false
	// append=false "final"
	// versions held back: 0
}
