package redisrelay

import (
	"context"
	"fmt"
	"time"

	"github.com/a2astream/a2astream/relay"
)

// ttlMillis is ttl in whole milliseconds, rounded up, for PX.
func ttlMillis(ttl time.Duration) (int64, error) {
	if ttl <= 0 {
		return 0, fmt.Errorf("redisrelay: a lease's ttl must be positive, not %v", ttl)
	}
	return int64((ttl + time.Millisecond - 1) / time.Millisecond), nil
}

// Acquire sets the lease with SET PX, under a term INCR'd in the same
// script, when it is free or owner's; Redis's clock ends it. The owner
// holding it already gets the next term, which makes its old fence stale.
func (l *log) Acquire(ctx context.Context, owner string, ttl time.Duration) (relay.Fence, error) {
	ms, err := ttlMillis(ttl)
	if err != nil {
		return relay.Fence{}, err
	}
	reply, err := run(ctx, l.store.client, l.store.scripts.acquire, nil,
		[]string{l.keys.epoch, l.keys.lease, l.keys.term, l.keys.fence}, l.epoch, owner, ms)
	if err != nil {
		return relay.Fence{}, err
	}
	term, _ := reply[0].(int64)
	return relay.Fence{Owner: owner, Term: uint64(term)}, nil
}

// Renew sets the lease again for ttl from now, when fence is the newest
// handed out: also after the lease expired, as long as no other owner
// acquired it since.
func (l *log) Renew(ctx context.Context, fence relay.Fence, ttl time.Duration) error {
	ms, err := ttlMillis(ttl)
	if err != nil {
		return err
	}
	_, err = run(ctx, l.store.client, l.store.scripts.renew, relay.ErrStale,
		[]string{l.keys.epoch, l.keys.fence, l.keys.lease}, l.epoch, fenceValue(fence), ms)
	return err
}

// Release deletes the lease when fence holds it; ErrStale when another
// fence is newer. The fence stays the newest until the next Acquire.
func (l *log) Release(ctx context.Context, fence relay.Fence) error {
	_, err := run(ctx, l.store.client, l.store.scripts.release, relay.ErrStale,
		[]string{l.keys.epoch, l.keys.fence, l.keys.lease}, l.epoch, fenceValue(fence))
	return err
}
