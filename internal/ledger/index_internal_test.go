package ledger

import (
	"fmt"
	"hash/maphash"
	"testing"

	"github.com/stretchr/testify/require"
)

// The index finds every record inserted, by its ID, through every growth
// of its table, and no ID it was not given, even one whose hash collides;
// its table stays at most three quarters full.
func TestIDIndexFindsEveryRecord(t *testing.T) {
	seed := maphash.MakeSeed()
	var ids []string
	idOf := func(i int) string { return ids[i] }
	var x idIndex
	_, ok := x.find("m-0", idHash(seed, "m-0"), idOf)
	require.False(t, ok, "empty")
	for i := range 5000 {
		ids = append(ids, fmt.Sprintf("m-%d", i))
		x.insert(idHash(seed, ids[i]), i)
		require.LessOrEqual(t, 4*x.n, 3*len(x.slots))
	}
	for i, id := range ids {
		got, ok := x.find(id, idHash(seed, id), idOf)
		require.True(t, ok, id)
		require.Equal(t, i, got)
	}
	for _, id := range []string{"", "m-5000", "m-00", "M-1"} {
		_, ok := x.find(id, idHash(seed, id), idOf)
		require.False(t, ok, id)
	}
	_, ok = x.find("m-5000", idHash(seed, "m-7"), idOf)
	require.False(t, ok, "a hash that matches a record's, and another ID")
}
