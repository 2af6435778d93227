package ledger

import (
	"hash/maphash"
	"slices"
	"time"

	"github.com/a2astream/a2astream/a2a"
)

// statusCursor recognises replayed status updates. It is order-aware where
// the server gives timestamps: a status older than the newest one seen is a
// replay, whatever its state. Statuses seen at the newest instant, those
// without a timestamp, and those whose message has no ID, are remembered
// by state and message (its ID and its content): most on their message's
// record, the others here by hash (see status_seen.go); the ledger also
// asks its message record about the others (see Ledger.statusReplayed).
// Its memory is one timestamp, one hash per status remembered here, and
// the few states seen.
type statusCursor struct {
	seed     maphash.Seed
	latest   time.Time           // the newest status timestamp seen
	atLatest map[uint64]struct{} // statuses seen with that timestamp, remembered here
	seen     map[uint64]struct{} // statuses whose time cannot tell them, remembered here
	states   []a2a.TaskState     // the states seen, each once
	// partial: the statuses seen at the newest instant may lack some set
	// at that instant, because that instant was learnt from a whole task,
	// which shows only its last status, or the ledger was made by Resume;
	// a status at that instant not seen is then not news by its time
	// alone.
	partial bool
}

func newStatusCursor(seed maphash.Seed) statusCursor {
	return statusCursor{seed: seed, atLatest: map[uint64]struct{}{}, seen: map[uint64]struct{}{}}
}

// instant is where a status's timestamp places it against the newest one
// seen.
type instant uint8

const (
	instantUnknown instant = iota // st or the cursor has no timestamp
	instantOlder                  // before the newest seen
	instantNewer                  // after it
	instantLatest                 // at that same instant
)

// when places st in time against the newest status seen.
func (c *statusCursor) when(st *a2a.TaskStatus) instant {
	switch ts := st.Timestamp; {
	case ts.IsZero() || c.latest.IsZero():
		return instantUnknown
	case ts.Before(c.latest):
		return instantOlder
	case ts.After(c.latest):
		return instantNewer
	}
	return instantLatest
}

// seenAtLatest reports whether this state with this message was
// remembered here as seen at the newest instant.
func (c *statusCursor) seenAtLatest(st *a2a.TaskStatus) bool {
	_, ok := c.atLatest[c.key(st)]
	return ok
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

// note records st's state and its time as seen, and says where st stands:
// at a newer instant than every one seen before (the statuses of the old
// one are then forgotten), at the newest one, or neither. The ledger
// remembers the status itself (see Ledger.noteStatus).
func (c *statusCursor) note(st *a2a.TaskStatus) instant {
	if !c.sawState(st.State) {
		c.states = append(c.states, st.State)
	}
	ts := st.Timestamp
	switch {
	case ts.IsZero():
		return instantUnknown
	case ts.After(c.latest):
		c.latest = ts
		c.partial = false
		clear(c.atLatest)
		return instantNewer
	case ts.Equal(c.latest):
		return instantLatest
	}
	return instantOlder
}

// untimed reports whether st is a status whose time cannot tell it: one
// without a timestamp, or one whose message has no ID.
func untimed(st *a2a.TaskStatus) bool {
	return st.Timestamp.IsZero() || st.Message == nil || st.Message.ID == ""
}

// remember records this state with this message as seen: at the newest
// instant when atLatest, else as a status whose time cannot tell it.
func (c *statusCursor) remember(st *a2a.TaskStatus, atLatest bool) {
	if atLatest {
		c.atLatest[c.key(st)] = struct{}{}
	} else {
		c.seen[c.key(st)] = struct{}{}
	}
}

// rememberHeld records as seen, with the message of this ID whose content
// hashes (hashParts) to content, each state of untimed as seen without a
// timestamp and each of latest at the newest instant: a message record's,
// when its version held is replaced (see Ledger.revise).
func (c *statusCursor) rememberHeld(untimed, latest stateSet, id string, content uint64) {
	for s := range untimed.all() {
		c.seen[c.keyOf(s, true, id, content)] = struct{}{}
	}
	for s := range latest.all() {
		c.atLatest[c.keyOf(s, true, id, content)] = struct{}{}
	}
}

// key identifies a status by its state and its message: the message's ID
// and content, so that each version of a revised message is a status of
// its own.
func (c *statusCursor) key(st *a2a.TaskStatus) uint64 {
	if m := st.Message; m != nil {
		return c.keyOf(st.State, true, m.ID, hashParts(c.seed, m.Parts))
	}
	return c.keyOf(st.State, false, "", 0)
}

// keyOf is key of a status in this state, with a message of this ID and
// content hash when withMessage.
func (c *statusCursor) keyOf(state a2a.TaskState, withMessage bool, id string, content uint64) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	h.WriteString(string(state))
	h.WriteByte(0)
	if withMessage {
		h.WriteByte('m')
		h.WriteString(id)
		h.WriteByte(0)
		var b [8]byte
		putUint64(b[:], content)
		h.Write(b[:])
	}
	return h.Sum64()
}
