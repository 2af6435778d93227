package ledger

import "github.com/a2astream/a2astream/a2a"

// idIndex finds an artifact's index by its ID. A Go map of string keys
// hashes every key again each time it grows, and moves keys and values;
// opening an artifact then cost about three appends. idIndex is an open
// addressing table (linear probing, at most three quarters full: a miss,
// the lookup of every new artifact, reads a cache line or two) of
// 8-byte slots, each an ID's hash and the artifact's index: growing it
// moves the slots by the hashes they keep, and reads no ID. The IDs are
// the artifacts': a slot whose hash matches is checked against the ID of
// the artifact it points to.
type idIndex struct {
	slots []idSlot // a power of two, or none
	n     int      // slots used
}

// idSlot is one entry of an idIndex.
type idSlot struct {
	hash uint32 // the ID's hash (artifacts.hash)
	at   uint32 // the artifact's index + 1; 0 marks an empty slot
}

// find returns the index of the artifact of t with this ID, whose hash is
// h.
func (x *idIndex) find(as *artifacts, t *a2a.Task, id string, h uint32) (int, bool) {
	if p, ok := x.slotOf(as, t, id, h); ok {
		return int(x.slots[p].at - 1), true
	}
	return 0, false
}

// slotOf returns the slot of the artifact of t with this ID, whose hash is
// h.
func (x *idIndex) slotOf(as *artifacts, t *a2a.Task, id string, h uint32) (int, bool) {
	if len(x.slots) == 0 {
		return 0, false
	}
	mask := len(x.slots) - 1
	for p := int(h) & mask; ; p = (p + 1) & mask {
		s := x.slots[p]
		if s.at == 0 {
			return 0, false
		}
		if s.hash == h && as.at(t, int(s.at-1)).ID == id {
			return p, true
		}
	}
}

// insert adds the artifact at index i, whose ID has hash h and is not in
// the index.
func (x *idIndex) insert(h uint32, i int) {
	if 4*(x.n+1) > 3*len(x.slots) {
		x.grow()
	}
	x.put(idSlot{hash: h, at: uint32(i + 1)})
	x.n++
}

// put puts s in the first empty slot from its hash's.
func (x *idIndex) put(s idSlot) {
	mask := len(x.slots) - 1
	p := int(s.hash) & mask
	for x.slots[p].at != 0 {
		p = (p + 1) & mask
	}
	x.slots[p] = s
}

// grow doubles the table (the first has 8 slots).
func (x *idIndex) grow() {
	old := x.slots
	x.slots = make([]idSlot, max(8, 2*len(old)))
	for _, s := range old {
		if s.at != 0 {
			x.put(s)
		}
	}
}
