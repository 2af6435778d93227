package relay

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// ents returns entries from through to of 10 bytes each (name "e", 9 of
// data).
func ents(from, to uint64) []Entry {
	var es []Entry
	for s := from; s <= to; s++ {
		es = append(es, Entry{Seq: s, Name: "e", Data: []byte("123456789")})
	}
	return es
}

// A window keeps the newest entries within its bounds of entries, of bytes
// and of growth (the Handler's room), and starts afresh after entries that
// do not continue its tail.
func TestAWindowKeepsTheNewestEntriesWithinItsBounds(t *testing.T) {
	for _, tt := range []struct {
		name                       string
		base                       uint64
		held                       []Entry
		add                        []Entry
		maxEntries, maxBytes, room int
		wantBase, wantTail         uint64
		wantGrow                   int
	}{
		{"all fit", 0, nil, ents(1, 4), 8, 1000, 1000, 0, 4, 40},
		{"nothing added", 3, ents(4, 5), nil, 8, 1000, 1000, 3, 5, 0},
		{"entries bound", 0, ents(1, 6), ents(7, 10), 8, 1000, 1000, 2, 10, 20},
		{"bytes bound", 0, ents(1, 6), ents(7, 10), 100, 55, 1000, 5, 10, -10},
		{"room bound: old ones make room", 0, ents(1, 6), ents(7, 8), 100, 1000, 0, 2, 8, 0},
		{"no room at all", 10, nil, ents(11, 12), 100, 1000, 0, 12, 12, 0},
		{"an entry past the bytes bound", 0, ents(1, 2), ents(3, 3), 100, 5, 1000, 3, 3, -20},
		{"a gap starts afresh", 0, ents(1, 2), ents(5, 6), 100, 1000, 1000, 6, 6, -20},
		{"an overlap starts afresh", 0, ents(1, 2), ents(2, 3), 100, 1000, 1000, 3, 3, -20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := window{base: tt.base}
			w.add(tt.held, 1000, 1000, 1000)
			grow := w.add(tt.add, tt.maxEntries, tt.maxBytes, tt.room)
			require.Equal(t, tt.wantGrow, grow)
			require.Equal(t, tt.wantBase, w.base)
			require.Equal(t, tt.wantTail, w.tail())
			require.Equal(t, 10*len(w.entries), w.bytes)
			for i, e := range w.entries {
				require.Equal(t, w.base+1+uint64(i), e.Seq)
			}
		})
	}
}

// A window answers for the readers at or after its base: their entries,
// or none yet; a reader behind it reads the store. What it hands out is a
// copy, which the window's later changes leave alone.
func TestAWindowHandsOutCopiesOfWhatFollowsAReader(t *testing.T) {
	w := window{base: 4}
	w.add(ents(5, 9), 100, 1000, 1000)
	for _, tt := range []struct {
		after    uint64
		max      int
		want     []uint64
		answered bool
	}{
		{3, 10, nil, false},
		{0, 10, nil, false},
		{4, 10, []uint64{5, 6, 7, 8, 9}, true},
		{4, 2, []uint64{5, 6}, true},
		{7, 10, []uint64{8, 9}, true},
		{9, 10, nil, true},
		{12, 10, nil, true},
		{5, 0, nil, true},
	} {
		es, ok := w.page(tt.after, tt.max)
		require.Equal(t, tt.answered, ok, "after %d", tt.after)
		var got []uint64
		for _, e := range es {
			got = append(got, e.Seq)
		}
		require.Equal(t, tt.want, got, "after %d max %d", tt.after, tt.max)
	}
	es, _ := w.page(4, 2)
	w.add(ents(10, 20), 3, 1000, 1000)
	require.Equal(t, []Entry{ents(5, 5)[0], ents(6, 6)[0]}, es, "the copy is untouched by the window's drops")
}
