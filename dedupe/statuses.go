package dedupe

import (
	"hash/maphash"
	"time"

	"github.com/a2astream/a2astream/a2a"
)

// statusCursor recognises replayed status updates. It is order-aware where
// the server gives timestamps: a status older than the newest one seen is a
// replay, whatever its state. Statuses without a timestamp are recognised by
// their message ID (the ledger's message set), or, when their message has
// none, by state and content. Its memory is one timestamp, the few statuses
// seen at that instant, and one hash per distinct ID-less status.
type statusCursor struct {
	seed     maphash.Seed
	latest   time.Time           // the newest status timestamp seen
	atLatest map[uint64]struct{} // statuses seen with that timestamp
	idless   map[uint64]struct{} // statuses seen whose message has no ID
}

func newStatusCursor(seed maphash.Seed) statusCursor {
	return statusCursor{seed: seed, atLatest: map[uint64]struct{}{}, idless: map[uint64]struct{}{}}
}

// replayed reports whether st was seen before, or is older than what was.
func (c *statusCursor) replayed(st *a2a.TaskStatus, ids map[string]struct{}) bool {
	if !st.Timestamp.IsZero() && !c.latest.IsZero() {
		switch {
		case st.Timestamp.Before(c.latest):
			return true
		case st.Timestamp.After(c.latest):
			return false
		}
		_, ok := c.atLatest[c.key(st)]
		return ok
	}
	if m := st.Message; m != nil && m.ID != "" {
		_, ok := ids[m.ID]
		return ok
	}
	_, ok := c.idless[c.key(st)]
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

// note records st as seen.
func (c *statusCursor) note(st *a2a.TaskStatus) {
	k := c.key(st)
	if ts := st.Timestamp; !ts.IsZero() {
		switch {
		case ts.After(c.latest):
			c.latest = ts
			clear(c.atLatest)
			c.atLatest[k] = struct{}{}
		case ts.Equal(c.latest):
			c.atLatest[k] = struct{}{}
		}
	}
	if st.Message == nil || st.Message.ID == "" {
		c.idless[k] = struct{}{}
	}
}

// key identifies a status by its state and its message: the message's ID,
// or its content when it has none.
func (c *statusCursor) key(st *a2a.TaskStatus) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	h.WriteString(string(st.State))
	h.WriteByte(0)
	if m := st.Message; m != nil {
		if m.ID != "" {
			h.WriteByte('i')
			h.WriteString(m.ID)
		} else {
			h.WriteByte('c')
			for i := range m.Parts {
				var b [8]byte
				putUint64(b[:], hashPart(c.seed, &m.Parts[i]))
				h.Write(b[:])
			}
		}
	}
	return h.Sum64()
}
