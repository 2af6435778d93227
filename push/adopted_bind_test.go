package push_test

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/push"
	"github.com/a2astream/a2astream/relay"
)

// A Receiver whose registration another Receiver adopted is told so when
// it binds it: Bind returns ErrAdopted, at the first Bind that finds the
// record adopted and at every one after (to another task too), and the
// adopter's record is left as the adopter made it.
func TestBindAfterAnAdoptionSaysAdopted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st, err := relay.NewMemoryStore()
		require.NoError(t, err)
		a := newReceiver(t, push.WithShare(st))
		b := newReceiver(t, push.WithShare(st))
		g := register(t, a) // shared, bound to no task yet
		adopted, err := b.Adopt(t.Context(), g.ID(), "t1")
		require.NoError(t, err)
		t.Cleanup(adopted.Close)
		before, _, err := st.GetRegistration(t.Context(), g.ID())
		require.NoError(t, err)

		for _, task := range []string{"t1", "t1", "t2"} {
			require.ErrorIs(t, g.Bind(t.Context(), task), push.ErrAdopted, "Bind(%q)", task)
		}
		after, _, err := st.GetRegistration(t.Context(), g.ID())
		require.NoError(t, err)
		require.Equal(t, before, after, "the adopter's record")
		require.Equal(t, "t1", after.TaskID)
	})
}
