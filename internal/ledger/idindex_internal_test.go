package ledger

import (
	"fmt"
	"hash/maphash"
	"testing"

	"github.com/stretchr/testify/require"
)

// The index finds every record inserted, by its ID, through every growth
// of its table, and no ID it was not given; its table stays at most three
// quarters full.
func TestIDIndexFindsEveryRecord(t *testing.T) {
	var ids []string
	idOf := func(i int) string { return ids[i] }
	x := idIndex{seed: maphash.MakeSeed()}
	_, ok := x.lookup("m-0", idOf)
	require.False(t, ok, "empty")
	for i := range 5000 {
		ids = append(ids, fmt.Sprintf("m-%d", i))
		x.insert(ids[i], i, idOf)
		require.LessOrEqual(t, 4*x.n, 3*len(x.slots))
	}
	for i, id := range ids {
		got, ok := x.lookup(id, idOf)
		require.True(t, ok, id)
		require.Equal(t, i, got)
	}
	for _, id := range []string{"", "m-5000", "m-00", "M-1"} {
		_, ok := x.lookup(id, idOf)
		require.False(t, ok, id)
	}
}
