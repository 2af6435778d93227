package ledger

// Place moves the artifact with this ID to index at of the task's
// artifacts, with the ledger's record of it (its replaced versions and its
// replay cursor): the artifacts between its place and at move one place
// over, in their order, and every artifact is still found by its ID. An at
// past the last puts it last; one below 0, first. A resumed stream calls
// it to give an artifact the place it has in the application's task, when
// a fold added it last. Place reports false, and does nothing, when the
// ledger knows no task or no artifact with this ID.
func (l *Ledger) Place(id string, at int) bool {
	if l.task == nil {
		return false
	}
	as := &l.arts
	as.buildAll(l.task)
	idOf := func(i int) string { return as.at(l.task, i).ID }
	from, ok := as.byID.find(id, as.hash(id), idOf)
	if !ok {
		return false
	}
	arts := l.task.Artifacts
	at = min(max(at, 0), len(arts)-1)
	lo, hi, step := from, at, 1 // artifact i+step moves to i
	if at < from {
		lo, hi, step = at, from, -1
	}
	// The index's slots of the artifacts that move, found while each is
	// still at the place its slot says.
	slots := make([]int, hi-lo+1)
	for i := lo; i <= hi; i++ {
		slots[i-lo], _ = as.byID.slotOf(arts[i].ID, as.hash(arts[i].ID), idOf)
	}
	moved, state := arts[from], *as.states.at(from)
	for i := from; i != at; i += step {
		arts[i], *as.states.at(i) = arts[i+step], *as.states.at(i + step)
	}
	arts[at], *as.states.at(at) = moved, state
	for i := lo; i <= hi; i++ {
		to := i - step // where the artifact at i went
		if i == from {
			to = at
		}
		as.byID.slots[slots[i-lo]].at = uint32(to + 1)
	}
	return true
}
