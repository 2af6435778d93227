package redisrelay

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// newStore is New, failing t when it fails.
func newStore(t testing.TB, c redis.UniversalClient, opts ...Option) relay.Store {
	t.Helper()
	st, err := New(c, opts...)
	require.NoError(t, err)
	return st
}

// newHandler is relay.NewHandler, failing t when it fails.
func newHandler(t testing.TB, store relay.Store, key relay.KeyFunc, opts ...relay.HandlerOption) *relay.Handler {
	t.Helper()
	h, err := relay.NewHandler(store, key, opts...)
	require.NoError(t, err)
	return h
}

// awaitLeaseEnd returns once Redis no longer holds l's lease key: its PX
// ran out in Redis's clock. It looks every millisecond, 10 s at most.
func awaitLeaseEnd(t *testing.T, c redis.UniversalClient, l *log) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		n, err := c.Exists(ctx, l.keys.lease).Result()
		require.NoError(t, err, "EXISTS %s", l.keys.lease)
		if n == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the lease %s did not expire within 10 s", l.keys.lease)
		case <-tick.C:
		}
	}
}

// replicas is a store whose Opens go to its stores in turn: two Opens of a
// key are two replicas, each with a client of its own.
type replicas struct {
	mu     sync.Mutex
	next   int
	stores []relay.Store
}

func (r *replicas) Open(ctx context.Context, key string) (relay.Log, error) {
	r.mu.Lock()
	st := r.stores[r.next%len(r.stores)]
	r.next++
	r.mu.Unlock()
	return st.Open(ctx, key)
}
