package ledger

import (
	"iter"

	"github.com/a2astream/a2astream/a2a"
)

// The statuses the ledger must recognise again are remembered by their
// state and their message (its ID and content): those seen at the newest
// instant, and those whose time cannot tell them (untimed). Most carry a
// message the history holds, as it holds it (an agent's status message,
// with an ID): they are remembered on that message's record, a bit per
// state (statusMarks), which costs nothing beside the record. The status
// cursor keeps the others by hash. When the version held of a message is
// replaced, its bits move to the cursor as hashes of the version replaced
// (Ledger.revise); when a newer instant comes, the bits of the old one are
// cleared (messages.clearLatest). So the records and the cursor together
// always say what the cursor alone would: whether this state with this
// message, in this content, was seen.

// stateSet is a set of the task states a2a names, one bit each.
type stateSet uint16

// stateCount is the number of states a2a names.
const stateCount = 9

// namedStates returns the states a stateSet holds, in bit order.
func namedStates() [stateCount]a2a.TaskState {
	return [...]a2a.TaskState{a2a.StateSubmitted, a2a.StateWorking, a2a.StateInputRequired, a2a.StateAuthRequired,
		a2a.StateCompleted, a2a.StateCanceled, a2a.StateFailed, a2a.StateRejected, a2a.StateUnknown}
}

// stateBit returns s's bit, or 0 for a state a2a does not name.
func stateBit(s a2a.TaskState) stateSet {
	for i, n := range namedStates() {
		if n == s {
			return 1 << i
		}
	}
	return 0
}

// has reports whether the set holds s.
func (ss stateSet) has(s a2a.TaskState) bool { return ss&stateBit(s) != 0 }

// all yields the states of the set.
func (ss stateSet) all() iter.Seq[a2a.TaskState] {
	return func(yield func(a2a.TaskState) bool) {
		for i, n := range namedStates() {
			if ss&(1<<i) != 0 && !yield(n) {
				return
			}
		}
	}
}

// statusMarks is what a message record knows of the statuses its message
// travelled in: whether it ever did (bit 31), the states it travelled in
// as the version held at the newest instant (bits 16 to 24) and in
// statuses whose time cannot tell them (bits 0 to 8).
type statusMarks uint32

const (
	marksStates      = 1<<stateCount - 1 // the bits of a stateSet
	marksLatestShift = 16
	marksInStatus    = 1 << 31
)

func (m statusMarks) inStatus() bool    { return m&marksInStatus != 0 }
func (m *statusMarks) setInStatus()     { *m |= marksInStatus }
func (m statusMarks) untimed() stateSet { return stateSet(m & marksStates) }
func (m statusMarks) latest() stateSet  { return stateSet(m >> marksLatestShift & marksStates) }

// addUntimed adds s to the untimed states, and reports whether it could:
// a state a2a does not name has no bit.
func (m *statusMarks) addUntimed(s a2a.TaskState) bool {
	b := stateBit(s)
	*m |= statusMarks(b)
	return b != 0
}

// addLatest is addUntimed for the states at the newest instant.
func (m *statusMarks) addLatest(s a2a.TaskState) bool {
	b := stateBit(s)
	*m |= statusMarks(b) << marksLatestShift
	return b != 0
}

// clearLatest forgets the states at the newest instant.
func (m *statusMarks) clearLatest() { *m &^= marksStates << marksLatestShift }

// clearStates forgets every state, keeping inStatus.
func (m *statusMarks) clearStates() { *m &= marksInStatus }

// heldAs returns the number of the record of m's ID when the history holds
// m as it is (its content hashing as the version held does).
func (l *Ledger) heldAs(m *a2a.Message) (int, bool) {
	if m == nil || m.ID == "" || l.task == nil {
		return 0, false
	}
	i, ok := l.msgs.number(m.ID)
	if !ok {
		return 0, false
	}
	held := l.msgs.heldAt(i, l.task.History)
	if held == nil || l.msgs.hash(held.Parts) != l.msgs.hash(m.Parts) {
		return 0, false
	}
	return i, true
}

// noteStatus records st, a status as it arrived, as seen: its state and
// its time in the cursor, the status itself when it stands at the newest
// instant or its time cannot tell it, and, when it is a status update's
// (update) inside the replay window, as news of this connection
// (status_news.go).
func (l *Ledger) noteStatus(st *a2a.TaskStatus, update bool) {
	at := l.statuses.note(st)
	if at == instantNewer {
		l.msgs.clearLatest()
	}
	if update && l.win.open {
		l.win.news.note(st, l.statuses.key(st))
	}
	atLatest := at == instantNewer || at == instantLatest
	if !atLatest && !untimed(st) {
		return
	}
	i, held := l.heldAs(st.Message)
	if atLatest && !(held && l.msgs.noteAtLatest(i, st.State)) {
		l.statuses.remember(st, true)
	}
	if untimed(st) && !(held && l.msgs.recs[i].statuses.addUntimed(st.State)) {
		l.statuses.remember(st, false)
	}
}

// statusSeen reports whether this state with this message was seen in a
// status whose time cannot tell it.
func (l *Ledger) statusSeen(st *a2a.TaskStatus) bool {
	if i, ok := l.heldAs(st.Message); ok && l.msgs.recs[i].statuses.untimed().has(st.State) {
		return true
	}
	return l.statuses.seenBefore(st)
}

// statusByTime reports whether the timestamps decide if st is a replay,
// and if so, whether it is: older than the newest status seen, or seen at
// that same instant.
func (l *Ledger) statusByTime(st *a2a.TaskStatus) (replayed, decided bool) {
	switch l.statuses.when(st) {
	case instantUnknown:
		return false, false
	case instantOlder:
		return true, true
	case instantNewer:
		return false, true
	}
	seen := l.statuses.seenAtLatest(st)
	if !seen {
		i, ok := l.heldAs(st.Message)
		seen = ok && l.msgs.recs[i].statuses.latest().has(st.State)
	}
	if !seen && l.statuses.partial {
		return false, false
	}
	return seen, true
}

// revise replaces the version held of m's message (held, in t's history)
// with m, and returns the delta to deliver (see messages.revise); the
// states its record holds become the status cursor's, for the version
// replaced.
func (l *Ledger) revise(t *a2a.Task, held, m *a2a.Message) *a2a.MessageRevision {
	if r := l.msgs.record(m.ID); r != nil && (r.statuses.untimed() != 0 || r.statuses.latest() != 0) {
		l.statuses.rememberHeld(r.statuses.untimed(), r.statuses.latest(), m.ID, l.msgs.hash(held.Parts))
		r.statuses.clearStates()
	}
	return l.msgs.revise(t, held, m)
}
