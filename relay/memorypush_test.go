package relay_test

import (
	"context"
	"crypto/sha256"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/push"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/storetest"
)

// TestMemoryStoreIsAShare runs the push.Share conformance suite on a
// MemoryStore, both views the same store.
func TestMemoryStoreIsAShare(t *testing.T) {
	storetest.RunShare(t, func(t *testing.T) (push.Share, push.Share) {
		st, err := relay.NewMemoryStore()
		require.NoError(t, err)
		return st, st
	})
}

// TestAHolderRefreshesItsRecords: a registration's record outlives many
// TTLs while its holder keeps it open (the holder refreshes it every third
// of the TTL), and is gone at its Close.
func TestAHolderRefreshesItsRecords(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newMemoryStore(t)
		recv, err := push.NewReceiver("http://127.0.0.1/hooks", push.WithShare(st), push.WithShareTTL(time.Second))
		require.NoError(t, err)
		g, err := recv.Register(t.Context())
		require.NoError(t, err)
		require.NoError(t, g.Bind(t.Context(), "t1"))
		time.Sleep(10 * time.Second)
		rec, ok, err := st.GetRegistration(t.Context(), g.ID())
		require.NoError(t, err)
		require.True(t, ok, "the record expired while its holder held it")
		require.Equal(t, "t1", rec.TaskID)
		require.Equal(t, sha256.Sum256([]byte(g.Token())), rec.TokenDigest)
		g.Close()
		_, ok, err = st.GetRegistration(t.Context(), g.ID())
		require.NoError(t, err)
		require.False(t, ok, "the record outlived Close")
	})
}

// refreshOutage is a push.Share whose refreshes fail while down is set.
type refreshOutage struct {
	push.Share
	down atomic.Bool
}

func (s *refreshOutage) RefreshRegistrations(ctx context.Context, holder string, ttl time.Duration, ids ...string) ([]string, error) {
	if s.down.Load() {
		return nil, errKilled
	}
	return s.Share.RefreshRegistrations(ctx, holder, ttl, ids...)
}

// A record the share lost while its holder still held the registration (a
// store restarted, or an outage longer than the TTL) is put again by the
// holder's next refresh, as it was, task included (a stranger round on
// push across replicas, finding 1).
func TestAHolderSharesALostRecordAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newMemoryStore(t)
		share := &refreshOutage{Share: st}
		recv, err := push.NewReceiver("http://127.0.0.1/hooks", push.WithShare(share), push.WithShareTTL(3*time.Second))
		require.NoError(t, err)
		g, err := recv.Register(t.Context())
		require.NoError(t, err)
		defer g.Close()
		require.NoError(t, g.Bind(t.Context(), "t1"))
		share.down.Store(true) // the holder's refreshes fail past the TTL: the record expires
		time.Sleep(4 * time.Second)
		synctest.Wait()
		_, ok, err := st.GetRegistration(t.Context(), g.ID())
		require.NoError(t, err)
		require.False(t, ok, "the record outlived its TTL")
		share.down.Store(false)
		time.Sleep(time.Second) // one refresh period: TTL/3
		synctest.Wait()
		rec, ok, err := st.GetRegistration(t.Context(), g.ID())
		require.NoError(t, err)
		require.True(t, ok, "the holder shared the record again")
		require.Equal(t, "t1", rec.TaskID)
		require.Equal(t, sha256.Sum256([]byte(g.Token())), rec.TokenDigest)
	})
}
