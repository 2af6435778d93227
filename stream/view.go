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
	// placeOf, when set, returns the index among arts that an artifact new
	// to the view takes (a resumed stream's artifact replaced while the
	// application was gone, which it holds in its old place); nil: last.
	placeOf func(id string, arts []a2a.Artifact) int
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
	at := len(v.arts)
	if v.placeOf != nil {
		at = min(v.placeOf(u.Artifact.ID, v.arts), at)
	}
	v.arts = slices.Insert(v.arts, at, u.Artifact.Clone())
	for i := at; i < len(v.arts); i++ {
		v.index[v.arts[i].ID] = i
	}
}
