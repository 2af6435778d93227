package stream

import (
	"slices"

	"github.com/a2astream/a2astream/a2a"
)

// view is the artifacts as the application has built them while the deltas
// of one reconcile are being yielded. Applying a delta is O(1) amortised,
// so a task with many artifacts costs linear time, not quadratic.
type view struct {
	arts  []a2a.Artifact
	index map[string]int
}

// newView starts a view from the artifacts the application holds. It owns
// its slices: every artifact's parts are clipped, so that the first append
// to one copies it instead of writing into the ledger's array. No artifacts
// held stay nil, as in a task the application folded (a status may be
// yielded before the first artifact).
func newView(held []a2a.Artifact) *view {
	v := &view{arts: slices.Clone(held), index: make(map[string]int, len(held))}
	for i := range held {
		v.arts[i].Parts = slices.Clip(held[i].Parts)
		v.index[held[i].ID] = i
	}
	return v
}

// apply applies one yielded delta by the fold an application uses,
// [a2a.Artifact.Apply], finding the artifact through the index.
func (v *view) apply(ev a2a.Event) {
	u, ok := ev.(*a2a.ArtifactUpdate)
	if !ok {
		return
	}
	if i, ok := v.index[u.Artifact.ID]; ok {
		v.arts[i].Apply(u)
		return
	}
	v.index[u.Artifact.ID] = len(v.arts)
	v.arts = append(v.arts, u.Artifact.Clone())
}
