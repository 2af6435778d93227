package redisrelay_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay"
)

// TestStrangerAStuckBatchWhoseWaitsWentIsDropped: the pooled connection
// carrying a batch of looks stops answering (a stalled TCP path; connections
// dialed after it work); every wait in the batch is canceled. "A batch is
// dropped once every wait in it has gone": new waits on other logs, begun
// after that, look on another connection and get their entries within 1 s of
// their commits, while the stuck connection stays silent for 6 s (the client's
// ReadTimeout is 10 s).
func TestStrangerAStuckBatchWhoseWaitsWentIsDropped(t *testing.T) {
	const streams = 10
	srv := startStrangerRedis(t)
	proxy := startFreezingProxy(t, srv.addr())
	writer, err := redisrelay.New(srv.client(t, nil), redisrelay.WithPrefix("rt"))
	require.NoError(t, err)
	rc := redis.NewClient(&redis.Options{Addr: proxy.addr(), ReadTimeout: 10 * time.Second, PoolSize: 10})
	t.Cleanup(func() { _ = rc.Close() })
	waiter, err := redisrelay.New(rc, redisrelay.WithPrefix("rt"), redisrelay.WithWake(200*time.Millisecond))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	drivers := make([]*strangerDriver, 2*streams)
	logs := make([]relay.Log, 2*streams)
	for i := range logs {
		drivers[i] = newStrangerDriver(t, ctx, writer, fmt.Sprintf("s%d", i))
		logs[i], err = waiter.Open(ctx, fmt.Sprintf("s%d", i))
		require.NoError(t, err)
	}
	first, firstCancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	errs := make([]error, 2*streams)
	woke := make([]time.Time, 2*streams)
	for i := range streams {
		wg.Go(func() { errs[i] = logs[i].AwaitEntry(first, 0) })
	}
	time.Sleep(500 * time.Millisecond)
	proxy.freezeOpen()
	thaw := time.AfterFunc(6*time.Second, proxy.unfreeze)
	defer thaw.Stop()
	time.Sleep(300 * time.Millisecond) // a wake interval's batch is stuck now
	firstCancel()
	wg.Wait()
	for i := range streams {
		require.True(t, errors.Is(errs[i], context.Canceled), "wait %d: %v", i, errs[i])
	}
	t.Logf("pool: %+v", *rc.PoolStats())

	for i := streams; i < 2*streams; i++ {
		wg.Go(func() {
			errs[i] = logs[i].AwaitEntry(ctx, 0)
			woke[i] = time.Now()
		})
	}
	time.Sleep(100 * time.Millisecond)
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
