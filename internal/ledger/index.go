package ledger

import "hash/maphash"

// idIndex finds a record by its ID: the artifacts' and the messages'. A
// Go map of string keys takes 24 to 33 bytes a slot for a string key and
// an int, hashes every key again each time it grows, and moves keys and
// values; a ledger keeps an entry per artifact and per message for the
// life of its stream. idIndex is an open-addressing table (linear probing,
// at most three quarters full: a miss, the lookup of every new artifact or
// message, reads a cache line or two) of 8-byte slots, each an ID's hash
// and the record's number: growing it moves the slots by the hashes they
// keep, and reads no ID. The IDs stay in the records: a slot whose hash
// matches is checked against the ID of the record it points to, which its
// owner's idOf returns. The hash is seeded per ledger (idHash), so a
// server cannot choose IDs that collide.
type idIndex struct {
	slots []idSlot // a power of two, or none
	n     int      // slots used
}

// idSlot is one entry of an idIndex.
type idSlot struct {
	hash uint32 // the ID's hash (idHash)
	at   uint32 // the record's number + 1; 0 marks an empty slot
}

// idHash returns the hash of an ID for an idIndex.
func idHash(seed maphash.Seed, id string) uint32 { return uint32(maphash.String(seed, id)) }

// find returns the number of the record with this ID, whose hash is h;
// idOf returns the ID of a record by its number.
func (x *idIndex) find(id string, h uint32, idOf func(int) string) (int, bool) {
	if p, ok := x.slotOf(id, h, idOf); ok {
		return int(x.slots[p].at - 1), true
	}
	return 0, false
}

// slotOf returns the slot of the record with this ID, whose hash is h.
func (x *idIndex) slotOf(id string, h uint32, idOf func(int) string) (int, bool) {
	if len(x.slots) == 0 {
		return 0, false
	}
	mask := len(x.slots) - 1
	for p := int(h) & mask; ; p = (p + 1) & mask {
		s := x.slots[p]
		if s.at == 0 {
			return 0, false
		}
		if s.hash == h && idOf(int(s.at-1)) == id {
			return p, true
		}
	}
}

// insert adds record number i, whose ID has hash h and is not in the
// index.
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
