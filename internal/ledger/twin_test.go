package ledger_test

import (
	"reflect"
	"testing"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/ledger"
)

// twin drives two ledgers with the same calls: the eager one, whose task
// the fuzz client reads after every call, and the lazy one, whose task is
// read only by agree. The parts a live append folds in stay unbuilt until
// the task is read (see tail.go), so in the lazy ledger the decisions of
// a replay window, a snapshot or a get-task read parts that were never
// built, while in the eager one they read parts built one call at a time.
// Every call must hand over the same deltas from both.
type twin struct {
	t           *testing.T
	eager, lazy *ledger.Ledger
}

func newTwin(t *testing.T) *twin { return &twin{t: t, eager: ledger.New(), lazy: ledger.New()} }

// Task returns the eager ledger's task.
func (w *twin) Task() *a2a.Task { return w.eager.Task() }

func (w *twin) RecordSent(m *a2a.Message) {
	w.lazy.RecordSent(m.Clone())
	w.eager.RecordSent(m)
}

func (w *twin) OpenReplayWindow() {
	w.lazy.OpenReplayWindow()
	w.eager.OpenReplayWindow()
}

func (w *twin) Apply(dst []a2a.Event, ev a2a.Event) []a2a.Event {
	lazy := w.lazy.Apply(nil, fresh(ev))
	out := w.eager.Apply(dst, ev)
	w.same("Apply", out[len(dst):], lazy)
	return out
}

func (w *twin) Reconcile(dst []a2a.Event, t *a2a.Task, authoritative bool) []a2a.Event {
	lazy := w.lazy.Reconcile(nil, t.Clone(), authoritative)
	out := w.eager.Reconcile(dst, t, authoritative)
	w.same("Reconcile", out[len(dst):], lazy)
	return out
}

func (w *twin) ReconcileSnapshot(dst []a2a.Event, t *a2a.Task) []a2a.Event {
	lazy := w.lazy.ReconcileSnapshot(nil, t.Clone())
	out := w.eager.ReconcileSnapshot(dst, t)
	w.same("ReconcileSnapshot", out[len(dst):], lazy)
	return out
}

func (w *twin) same(call string, eager, lazy []a2a.Event) {
	w.t.Helper()
	if !reflect.DeepEqual(eager, lazy) {
		w.t.Fatalf("%s: the ledger read after every call handed over %d deltas, the one read at the end %d:\n%#v\n%#v",
			call, len(eager), len(lazy), eager, lazy)
	}
}

// agree checks that both ledgers assembled the same artifacts.
func (w *twin) agree() {
	w.t.Helper()
	e, l := w.eager.Task(), w.lazy.Task()
	if (e == nil) != (l == nil) {
		w.t.Fatalf("one ledger knows a task, the other not")
	}
	if e != nil && !reflect.DeepEqual(e.Artifacts, l.Artifacts) {
		w.t.Fatalf("the ledger read after every call holds artifacts\n%#v\nthe one read at the end\n%#v", e.Artifacts, l.Artifacts)
	}
}
