package relay_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// A Log is its five concerns together, and nothing else: its entries,
// its snapshots, its lease, its checkpoint and its mailbox. No method is
// in two of them.
func TestLogIsItsFiveConcernsAndNothingElse(t *testing.T) {
	concerns := []reflect.Type{
		reflect.TypeFor[relay.Entries](),
		reflect.TypeFor[relay.Snapshots](),
		reflect.TypeFor[relay.Lease](),
		reflect.TypeFor[relay.Checkpoints](),
		reflect.TypeFor[relay.Mailbox](),
	}
	var union []string
	for _, c := range concerns {
		require.Positive(t, c.NumMethod(), "%s has no method", c)
		for i := range c.NumMethod() {
			m := c.Method(i)
			require.NotContains(t, union, m.Name, "%s is in two concerns", m.Name)
			union = append(union, m.Name)
		}
	}
	var log []string
	lt := reflect.TypeFor[relay.Log]()
	for i := range lt.NumMethod() {
		log = append(log, lt.Method(i).Name)
	}
	slices.Sort(union)
	require.Equal(t, log, union)
	var st relay.Store = newMemoryStore(t)
	l, err := st.Open(t.Context(), "k")
	require.NoError(t, err)
	require.Implements(t, (*relay.Mailbox)(nil), l)
}
