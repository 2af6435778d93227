package redisrelay_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay"
)

// TestStrangerNoLookIsSentForWaitsThatWentDuringAStall: 1,000 waits begun
// while Redis sleeps (DEBUG SLEEP 1), Redis having lost its scripts (SCRIPT
// FLUSH) just before, their looks queued behind the stuck batch, all canceled
// 300 ms later: once Redis answers again, at most the batch already under way
// was sent, and no look at all follows it ("a look whose wait has gone is not
// sent"; "a batch is dropped once every wait in it has gone"). Finding (low):
// the stuck batch's EVALSHA, answered NOSCRIPT after every wait in it had gone,
// is sent again as EVAL, the script's whole text, for nobody.
func TestStrangerNoLookIsSentForWaitsThatWentDuringAStall(t *testing.T) {
	const streams = 1000
	srv := startStrangerRedis(t)
	admin := srv.client(t, nil)
	hook := &inflight{}
	rc := srv.client(t, nil)
	rc.AddHook(hook)
	st, err := redisrelay.New(rc, redisrelay.WithPrefix("rt"), redisrelay.WithWake(200*time.Millisecond))
	require.NoError(t, err)
	logs := make([]relay.Log, streams)
	for i := range logs {
		logs[i], err = st.Open(t.Context(), fmt.Sprintf("s%d", i))
		require.NoError(t, err)
	}
	require.NoError(t, admin.ScriptFlush(t.Context()).Err()) // the stuck look's EVALSHA will get NOSCRIPT
	slept := make(chan error, 1)
	go func() { slept <- admin.Do(context.Background(), "DEBUG", "SLEEP", "1").Err() }()
	time.Sleep(100 * time.Millisecond)
	hook.armed.Store(true)

	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	errs := make([]error, streams)
	for i, l := range logs {
		wg.Go(func() { errs[i] = l.AwaitEntry(ctx, 0) })
	}
	time.Sleep(300 * time.Millisecond)
	t.Logf("%s: cancel", time.Now().Format("05.000"))
	cancel()
	wg.Wait()
	for i := range errs {
		require.True(t, errors.Is(errs[i], context.Canceled), "wait %d: %v", i, errs[i])
	}
	sentBefore := hook.piped.Load() + hook.single.Load()
	require.NoError(t, <-slept)
	time.Sleep(time.Second) // five wake intervals
	sentAfter := hook.piped.Load() + hook.single.Load()
	t.Logf("looks sent while the waits were under way: %d; after they had all gone: %d", sentBefore, sentAfter-sentBefore)
	hook.mu.Lock()
	sent := hook.sent
	hook.mu.Unlock()
	require.Equal(t, sentBefore, sentAfter, "looks were sent for waits that had gone: %q", sent)
}
