package ledger

import (
	"hash/maphash"
	"slices"
	"time"

	"github.com/a2astream/a2astream/a2a"
)

// statusCursor recognises replayed status updates. It is order-aware where
// the server gives timestamps: a status older than the newest one seen is a
// replay, whatever its state. Statuses without a timestamp, and statuses
// whose message has no ID, are remembered by state and message (its ID and
// its content); the ledger also asks its message record about the others
// (see Ledger.statusReplayed). Its memory is one timestamp, the few
// statuses seen at that instant, one hash per distinct status of the other
// kinds, and the few states seen.
type statusCursor struct {
	seed     maphash.Seed
	latest   time.Time           // the newest status timestamp seen
	atLatest map[uint64]struct{} // statuses seen with that timestamp
	seen     map[uint64]struct{} // statuses seen without a timestamp or a message ID
	states   []a2a.TaskState     // the states seen, each once
	// partial: atLatest may lack statuses set at that instant, because
	// that instant was learnt from a whole task, which shows only its last
	// status, or the ledger was made by Resume; a status at that instant
	// not in atLatest is then not news by its time alone.
	partial bool
}

func newStatusCursor(seed maphash.Seed) statusCursor {
	return statusCursor{seed: seed, atLatest: map[uint64]struct{}{}, seen: map[uint64]struct{}{}}
}

// byTime reports whether the timestamps decide if st is a replay, and if
// so, whether it is: older than the newest status seen, or seen at that
// same instant.
func (c *statusCursor) byTime(st *a2a.TaskStatus) (replayed, decided bool) {
	if st.Timestamp.IsZero() || c.latest.IsZero() {
		return false, false
	}
	switch {
	case st.Timestamp.Before(c.latest):
		return true, true
	case st.Timestamp.After(c.latest):
		return false, true
	}
	_, ok := c.atLatest[c.key(st)]
	if !ok && c.partial {
		return false, false
	}
	return ok, true
}

// seenBefore reports whether this state with this message was noted.
func (c *statusCursor) seenBefore(st *a2a.TaskStatus) bool {
	_, ok := c.seen[c.key(st)]
	return ok
}

// older reports whether st carries a timestamp before the newest one seen.
func (c *statusCursor) older(st *a2a.TaskStatus) bool {
	return !st.Timestamp.IsZero() && st.Timestamp.Before(c.latest)
}

// newer reports whether st carries a timestamp after every one seen.
func (c *statusCursor) newer(st *a2a.TaskStatus) bool {
	return !st.Timestamp.IsZero() && st.Timestamp.After(c.latest)
}

// sawState reports whether a status in state s was seen.
func (c *statusCursor) sawState(s a2a.TaskState) bool { return slices.Contains(c.states, s) }

// note records st as seen.
func (c *statusCursor) note(st *a2a.TaskStatus) {
	if !c.sawState(st.State) {
		c.states = append(c.states, st.State)
	}
	k := c.key(st)
	if ts := st.Timestamp; !ts.IsZero() {
		switch {
		case ts.After(c.latest):
			c.latest = ts
			c.partial = false
			clear(c.atLatest)
			c.atLatest[k] = struct{}{}
		case ts.Equal(c.latest):
			c.atLatest[k] = struct{}{}
		}
	}
	if st.Timestamp.IsZero() || st.Message == nil || st.Message.ID == "" {
		c.seen[k] = struct{}{}
	}
}

// key identifies a status by its state and its message: the message's ID
// and content, so that each version of a revised message is a status of
// its own.
func (c *statusCursor) key(st *a2a.TaskStatus) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	h.WriteString(string(st.State))
	h.WriteByte(0)
	if m := st.Message; m != nil {
		h.WriteByte('m')
		h.WriteString(m.ID)
		h.WriteByte(0)
		var b [8]byte
		putUint64(b[:], hashParts(c.seed, m.Parts))
		h.Write(b[:])
	}
	return h.Sum64()
}
