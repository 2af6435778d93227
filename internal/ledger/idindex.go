package ledger

import "hash/maphash"

// idIndex finds a record by its ID. It is a table of record numbers, 4
// bytes a slot, searched by linear probing from the ID's hash, and kept at
// most three quarters full; the IDs themselves stay in the records. A map
// from the ID string to the number would take 24 bytes a slot, and a
// ledger keeps one entry per message for the whole life of its stream.
// Records are never removed. The hash is seeded per ledger, so a server
// cannot choose IDs that collide.
type idIndex struct {
	seed  maphash.Seed
	slots []uint32 // a record's number plus one; 0 for an empty slot
	n     int      // records indexed
}

// lookup returns the number of the record with this ID; idOf returns the
// ID of a record by its number.
func (x *idIndex) lookup(id string, idOf func(int) string) (int, bool) {
	if x.n == 0 {
		return 0, false
	}
	mask := uint64(len(x.slots) - 1)
	for i := maphash.String(x.seed, id) & mask; ; i = (i + 1) & mask {
		s := x.slots[i]
		if s == 0 {
			return 0, false
		}
		if idOf(int(s-1)) == id {
			return int(s - 1), true
		}
	}
}

// insert indexes record number rec under id, which no record indexed has.
func (x *idIndex) insert(id string, rec int, idOf func(int) string) {
	if 4*(x.n+1) > 3*len(x.slots) {
		x.grow(idOf)
	}
	x.place(maphash.String(x.seed, id), rec)
	x.n++
}

// place puts rec in the first empty slot from hash h on.
func (x *idIndex) place(h uint64, rec int) {
	mask := uint64(len(x.slots) - 1)
	i := h & mask
	for x.slots[i] != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = uint32(rec + 1)
}

// grow doubles the table and places every record again.
func (x *idIndex) grow(idOf func(int) string) {
	old := x.slots
	x.slots = make([]uint32, max(16, 2*len(old)))
	for _, s := range old {
		if s != 0 {
			x.place(maphash.String(x.seed, idOf(int(s-1))), int(s-1))
		}
	}
}
