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
	from, ok := l.arts.byID[id]
	if !ok {
		return false
	}
	arts, states := l.task.Artifacts, l.arts.states
	at = min(max(at, 0), len(arts)-1)
	moved, state := arts[from], states[from]
	lo, hi := from, at
	if at < from {
		copy(arts[at+1:from+1], arts[at:from])
		copy(states[at+1:from+1], states[at:from])
		lo, hi = at, from
	} else {
		copy(arts[from:at], arts[from+1:at+1])
		copy(states[from:at], states[from+1:at+1])
	}
	arts[at], states[at] = moved, state
	for i := lo; i <= hi; i++ {
		l.arts.byID[arts[i].ID] = i
	}
	return true
}
