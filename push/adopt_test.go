package push_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/push"
	"github.com/a2astream/a2astream/relay"
)

// Adopt refuses, with its sentinel and nothing held: a Receiver without a
// Share, the zero and the nil Receiver, an ID the share holds no record
// of (never shared, not of Register's form, closed by its holder, or
// expired), a registration the Receiver holds already, and one bound to
// another task (which its holder keeps). The Share's
// own failure is returned as it is.
func TestAdoptRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st, err := relay.NewMemoryStore()
		require.NoError(t, err)
		a := newReceiver(t, push.WithShare(st), push.WithShareTTL(time.Second))
		b := newReceiver(t, push.WithShare(st))
		held := register(t, a)
		require.NoError(t, held.Bind(t.Context(), "t1"))
		other := register(t, a)
		require.NoError(t, other.Bind(t.Context(), "t2"))
		before, _, err := st.GetRegistration(t.Context(), other.ID())
		require.NoError(t, err)
		closed, err := a.Register(t.Context())
		require.NoError(t, err)
		closed.Close()
		for _, c := range []struct {
			name string
			recv *push.Receiver
			id   string
			want error
		}{
			{"no share", newReceiver(t), held.ID(), push.ErrNoShare},
			{"the zero Receiver", &push.Receiver{}, held.ID(), push.ErrNoShare},
			{"a nil Receiver", nil, held.ID(), push.ErrNoShare},
			{"an unknown ID", b, "6f1c9a54-3f2e-4c59-9a55-0d1b7d0c2f11", push.ErrUnknownRegistration},
			{"not an ID", b, "hooks", push.ErrUnknownRegistration},
			{"an ID in capitals", b, "6F1C9A54-3F2E-4C59-9A55-0D1B7D0C2F11", push.ErrUnknownRegistration},
			{"a closed registration", b, closed.ID(), push.ErrUnknownRegistration},
			{"held already", a, held.ID(), push.ErrHeld},
			{"bound to another task", b, other.ID(), push.ErrBound},
		} {
			g, err := c.recv.Adopt(t.Context(), c.id, "t1")
			require.ErrorIs(t, err, c.want, c.name)
			require.Nil(t, g, c.name)
		}
		// A record whose holder died (it no longer refreshes it) expires
		// after its TTL, and cannot be adopted then.
		const orphan = "6f1c9a54-3f2e-4c59-9a55-0d1b7d0c2f12"
		_, err = st.PutRegistration(t.Context(), orphan, push.SharedRegistration{Holder: "dead"}, time.Second)
		require.NoError(t, err)
		time.Sleep(time.Second)
		_, err = b.Adopt(t.Context(), orphan, "t1")
		require.ErrorIs(t, err, push.ErrUnknownRegistration, "an expired record")

		after, _, err := st.GetRegistration(t.Context(), other.ID())
		require.NoError(t, err)
		require.Equal(t, before, after, "the record bound to another task, left to its holder")

		_, err = newReceiver(t, push.WithShare(&downShare{get: true})).Adopt(t.Context(), held.ID(), "t1")
		require.ErrorIs(t, err, errShareDown)
	})
}
