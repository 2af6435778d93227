package redisrelay_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay"
)

// TestStrangerNoLookIsSentForWaitsThatWentDuringAStall: 1,000 waits begun
// while Redis sleeps (DEBUG SLEEP 1), Redis having lost its scripts (SCRIPT
// FLUSH) just before, their looks queued behind the stuck batch, all canceled
// once a batch of them is under way: once Redis answers again, at most the
// batch already under way was sent, and no look at all follows it ("a look
// whose wait has gone is not sent"; "a batch is dropped once every wait in it
// has gone"). Finding (low): the stuck batch's EVALSHA, answered NOSCRIPT
// after every wait in it had gone, is sent again as EVAL, the script's whole
// text, for nobody.
func TestStrangerNoLookIsSentForWaitsThatWentDuringAStall(t *testing.T) {
	const streams = 1000
	srv := startStrangerRedis(t)
	proxy := startFreezingProxy(t, srv.Addr()) // never frozen: it tells when DEBUG SLEEP went to Redis
	admin := redis.NewClient(&redis.Options{Addr: proxy.addr()})
	t.Cleanup(func() { _ = admin.Close() })
	sig := proxy.sig
	looks := newScriptWatch(sig)
	rc := srv.Client(t, nil)
	rc.AddHook(looks)
	st, err := redisrelay.New(rc, redisrelay.WithPrefix("rt"), redisrelay.WithWake(200*time.Millisecond))
	require.NoError(t, err)
	logs := make([]relay.Log, streams)
	for i := range logs {
		logs[i], err = st.Open(t.Context(), fmt.Sprintf("s%d", i))
		require.NoError(t, err)
	}
	probe, err := st.Open(t.Context(), "probe")
	require.NoError(t, err)
	gone := func(log string) bool { return log != "probe" }  // the scripts of every call but the probe's
	require.NoError(t, admin.ScriptFlush(t.Context()).Err()) // the stuck look's EVALSHA will get NOSCRIPT
	slept := make(chan error, 1)
	go func() { slept <- admin.Do(context.Background(), "DEBUG", "SLEEP", "1").Err() }()
	sig.waitFor(t, t.Context(), "DEBUG SLEEP sent to Redis", func() bool { return proxy.forwarded("SLEEP") })
	sentAtStart := looks.sentFor(gone)

	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	var started atomic.Int64
	errs := make([]error, streams)
	for i, l := range logs {
		wg.Go(func() {
			started.Add(1)
			sig.fire()
			errs[i] = l.AwaitEntry(ctx, 0)
		})
	}
	// Every wait called AwaitEntry, and a batch of looks is under way:
	// Redis, asleep, answers it only after the cancel. (That every wait
	// has queued its look by then, behind the batch, is not something a
	// test outside the package can see; one not queued yet sends none.)
	sig.waitFor(t, ctx, "every wait started, and a batch of looks under way", func() bool {
		return started.Load() == streams && len(looks.underWay()) > 0
	})
	t.Logf("%s: cancel", time.Now().Format("05.000"))
	cancel()
	stuck := looks.underWay()
	require.NotEmpty(t, stuck, "the batch of looks was answered before the waits had gone: Redis did not sleep through it")
	wg.Wait()
	for i := range errs {
		require.True(t, errors.Is(errs[i], context.Canceled), "wait %d: %v", i, errs[i])
	}
	sentBefore, callsBefore := looks.sentFor(gone), looks.callCount()
	require.NoError(t, <-slept)

	// Whatever the store has left to send for the gone waits goes before
	// the looks of a wait begun now: it sends its looks in order, one batch
	// at a time. The wait's 13th answered look comes over five wake
	// intervals after its first (after each look, the next comes at its
	// channel's confirmation, once at most, or half a wake interval to a
	// whole one later).
	pctx, pcancel := context.WithCancel(t.Context())
	var probed sync.WaitGroup
	probed.Go(func() { _ = probe.AwaitEntry(pctx, 0) })
	sig.waitFor(t, t.Context(), "13 looks of a wait begun after the sleep", func() bool { return looks.lookedAll(13, "probe") })
	pcancel()
	probed.Wait()
	done, noscript := looks.batchState(stuck[0])
	require.True(t, done && noscript, "the batch under way at the cancel was not answered NOSCRIPT: the test missed its state")
	sentAfter := looks.sentFor(gone)
	t.Logf("looks sent while the waits were under way: %d; after they had all gone: %d", sentBefore-sentAtStart, sentAfter-sentBefore)
	require.Equal(t, sentBefore, sentAfter, "looks were sent for waits that had gone: %q", looks.callsFrom(callsBefore, gone))
}
