package relay

import "slices"

// The bounds of the entries a Handler keeps in memory for the readers of
// its logs (see waiters.go): per log, the newest windowPages pages of
// entries (four of WithPageSize: 256 in all by default) and at most windowBytes
// of their names and data; over every log of a Handler, at most
// handlerWindowBytes.
const (
	windowPages        = 4
	windowBytes        = 1 << 20
	handlerWindowBytes = 64 << 20
)

// window is the newest entries of a log, as its waiter read them, for its
// readers to take without a store call. It holds the entries after base
// through its tail, in order: entries[i].Seq is base+1+i. Its entries are
// never changed once added, and a reader is handed copies of them (their
// Data shared, which nothing writes), so the window may drop entries while
// a reader still writes the ones it took.
type window struct {
	base    uint64
	entries []Entry
	bytes   int // the Name and Data of entries
}

// tail is the Seq of the window's last entry: base when it holds none.
func (w *window) tail() uint64 { return w.base + uint64(len(w.entries)) }

// entryBytes is what an entry counts against a window's bound.
func entryBytes(e Entry) int { return len(e.Name) + len(e.Data) }

// add appends es, the entries that follow the window's tail, then drops the
// oldest entries until the window holds at most maxEntries entries and
// maxBytes bytes, and has grown by at most room bytes. Entries that do not
// continue the tail (a store that broke its contract) are not kept: the
// window then starts after the last of them, and its readers read the
// store. It returns how many bytes the window grew by (less than 0 when it
// shrank).
func (w *window) add(es []Entry, maxEntries, maxBytes, room int) int {
	before := w.bytes
	if len(es) == 0 {
		return 0
	}
	if !continues(w.tail(), es) {
		w.reset(es[len(es)-1].Seq)
		return w.bytes - before
	}
	for _, e := range es {
		w.entries = append(w.entries, e)
		w.bytes += entryBytes(e)
	}
	k := 0
	for k < len(w.entries) && (len(w.entries)-k > maxEntries || w.bytes > maxBytes || w.bytes-before > room) {
		w.bytes -= entryBytes(w.entries[k])
		k++
	}
	clear(w.entries[:k]) // readers hold copies: let the dropped data go
	w.entries = w.entries[k:]
	w.base += uint64(k)
	return w.bytes - before
}

// continues reports whether es are the entries after tail, one Seq each.
func continues(tail uint64, es []Entry) bool {
	for i, e := range es {
		if e.Seq != tail+1+uint64(i) {
			return false
		}
	}
	return true
}

// reset empties the window, which then starts after Seq tail.
func (w *window) reset(tail uint64) {
	clear(w.entries)
	w.entries, w.base, w.bytes = nil, tail, 0
}

// page returns copies of up to max entries after Seq after, and true, when
// the window can say what follows after: it holds the entries after it,
// or after is at or past its tail (nothing yet, as far as the window
// knows). It returns false for a reader behind the window, which reads
// the store.
func (w *window) page(after uint64, max int) ([]Entry, bool) {
	if after < w.base {
		return nil, false
	}
	if after >= w.tail() || max <= 0 {
		return nil, true
	}
	i := after - w.base
	n := min(uint64(max), uint64(len(w.entries))-i)
	return slices.Clone(w.entries[i : i+n]), true
}
