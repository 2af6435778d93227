package redisrelay_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStrangerAStuckBatchWhoseWaitsWentIsDropped: the pooled connection
// carrying a batch of looks stops answering (a stalled TCP path; connections
// dialed after it work); every wait in the batch is canceled. "A batch is
// dropped once every wait in it has gone": new waits on other logs, begun
// after that, get their entries within 1 s of their commits (they end on
// their commits' notes while the looker waits out the stuck pipeline, as
// sendBatch's doc says), while the stuck connection stays silent for 6 s
// (the client's ReadTimeout is 10 s).
func TestStrangerAStuckBatchWhoseWaitsWentIsDropped(t *testing.T) {
	const streams = 10
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	rig := newStallRig(t, ctx, 2*streams, 200*time.Millisecond)
	proxy, drivers, logs := rig.proxy, rig.drivers, rig.logs
	first, firstCancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	errs := make([]error, 2*streams)
	woke := make([]time.Time, 2*streams)
	for i := range streams {
		wg.Go(func() { errs[i] = logs[i].AwaitEntry(first, 0) })
	}
	rig.subscribedAndLooked(t, ctx, names(0, streams)...)
	proxy.freezeOpen()
	thaw := time.AfterFunc(6*time.Second, proxy.unfreeze)
	defer thaw.Stop()
	proxy.sig.waitFor(t, ctx, "a batch of looks stuck on a connection open before the freeze", func() bool {
		return proxy.heldReplies() > 0
	})
	firstCancel()
	wg.Wait()
	for i := range streams {
		require.True(t, errors.Is(errs[i], context.Canceled), "wait %d: %v", i, errs[i])
	}

	for i := streams; i < 2*streams; i++ {
		wg.Go(func() {
			errs[i] = logs[i].AwaitEntry(ctx, 0)
			woke[i] = time.Now()
		})
	}
	// Subscribed, so that their notes come to them.
	proxy.sig.waitFor(t, ctx, "the subscriptions of the waits begun after the stuck batch's had gone", func() bool {
		return proxy.confirmed(channelsOf(names(streams, 2*streams)...)...)
	})
	committed := time.Now()
	for i := streams; i < 2*streams; i++ {
		require.NoError(t, drivers[i].commit(ctx))
	}
	wg.Wait()
	late := 0
	for i := streams; i < 2*streams; i++ {
		require.NoError(t, errs[i], "wait %d", i)
		if d := woke[i].Sub(committed); d > time.Second {
			late++
			t.Logf("wait %d returned %v after its commit", i, d.Round(time.Millisecond))
		}
	}
	require.Zero(t, late, "waits begun after the stuck batch's waits had all gone were held by it")
}
