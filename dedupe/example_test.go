package dedupe_test

import (
	"fmt"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/dedupe"
)

// ExampleLedger drives a ledger as a client of its own would (stream does
// this for you): live events, a drop, a resubscribe to a server that
// replays everything, and the get-task that closes the gap. The
// application folds each delta into its copy of the task with
// a2a.Task.Apply and sees every part once.
func ExampleLedger() {
	chunk := func(appendPart bool, text string) *a2a.ArtifactUpdate {
		return &a2a.ArtifactUpdate{TaskID: "t1", ContextID: "c1", Append: appendPart,
			Artifact: a2a.Artifact{ID: "plan", Parts: []a2a.Part{a2a.TextPart(text)}}}
	}
	working := &a2a.StatusUpdate{TaskID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: a2a.StateWorking}}

	var l *dedupe.Ledger = dedupe.New()
	var shown a2a.Task
	deliver := func(deltas []a2a.Event) {
		for _, d := range deltas {
			shown.Apply(d)
		}
		fmt.Printf("%d deltas, the application shows %q\n", len(deltas), shown.Artifact("plan").Text())
	}

	l.RecordSent(&a2a.Message{ID: "m1", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("plan a trip")}})
	// The first connection: three events, then it drops.
	var deltas []a2a.Event
	for _, ev := range []a2a.Event{working, chunk(false, "Day one: "), chunk(true, "the old town. ")} {
		deltas = l.Apply(deltas, ev)
	}
	deliver(deltas)

	// The resubscribe succeeds, and this server replays from the start.
	l.OpenReplayWindow()
	deltas = nil
	for _, ev := range []a2a.Event{working, chunk(false, "Day one: "), chunk(true, "the old town. "), chunk(true, "Day two: ")} {
		deltas = l.Apply(deltas, ev)
	}
	deliver(deltas)

	// A get-task result is the agent's word: it wins every disagreement.
	final := l.Task().Clone()
	final.Status = a2a.TaskStatus{State: a2a.StateCompleted}
	final.Artifacts[0].Parts = append(final.Artifacts[0].Parts, a2a.TextPart("museums."))
	deliver(l.Reconcile(nil, final, true))
	fmt.Println(shown.Status.State, len(l.Task().History), "message in the history")
	// Output:
	// 3 deltas, the application shows "Day one: the old town. "
	// 1 deltas, the application shows "Day one: the old town. Day two: "
	// 2 deltas, the application shows "Day one: the old town. Day two: museums."
	// completed 1 message in the history
}

// ExampleLedger_ReconcileSnapshot shows the first Task of a subscription,
// the server's task as its store has it. A store that lags what was
// delivered shows a prefix of the parts: that is not news. One that shows a
// version the client never held is the present: the agent rewrote its
// artifact while the client was away, and the application gets the new
// version whole.
func ExampleLedger_ReconcileSnapshot() {
	l := dedupe.New()
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
	for _, d := range l.ReconcileSnapshot(nil, now) {
		u := d.(*a2a.ArtifactUpdate)
		fmt.Printf("append=%v %q\n", u.Append, u.Artifact.Text())
	}
	// A reply's stream replays nothing: its first event is news.
	l.CloseReplayWindow()
	// Output:
	// lagging snapshot, deltas: 0
	// append=false "final"
}
