package redisrelay_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStrangerWaitsWakeOnTheirNotesWhileALookIsStuck: the waits of a store whose
// pooled connection stops answering (a TCP path that stalls; its Pub/Sub
// connection still hears the notes) still return when their entry's note
// comes: "a wait for an entry does not [look again]: a Commit's note names the
// log's epoch and the last Seq it appended". Waits begun before the stall, and
// waits begun during it (their first look stuck), get their entry within 1 s of
// its commit, while the stall lasts 6 s (the client's ReadTimeout is 10 s).
func TestStrangerWaitsWakeOnTheirNotesWhileALookIsStuck(t *testing.T) {
	const streams = 20
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	rig := newStallRig(t, ctx, 2*streams, 300*time.Millisecond)
	proxy, drivers, logs := rig.proxy, rig.drivers, rig.logs
	woke := make([]time.Time, len(logs))
	errs := make([]error, len(logs))
	var wg sync.WaitGroup
	await := func(i int) {
		wg.Go(func() {
			errs[i] = logs[i].AwaitEntry(ctx, 0)
			woke[i] = time.Now()
		})
	}
	for i := range streams { // the first half waits before the stall
		await(i)
	}
	rig.subscribedAndLooked(t, ctx, names(0, streams)...)
	proxy.freeze()
	stalled := time.Now()
	// A look of the first half is stuck: the proxy holds its batch's reply.
	proxy.sig.waitFor(t, ctx, "a look of a wait begun before the stall held", func() bool {
		return proxy.heldReplies() > 0
	})
	for i := streams; i < 2*streams; i++ { // the second half during it
		await(i)
	}
	// The second half subscribed, so that their notes come to them; their
	// first looks wait behind the stuck one.
	proxy.sig.waitFor(t, ctx, "the subscriptions of the waits begun during the stall", func() bool {
		return proxy.confirmed(channelsOf(names(streams, 2*streams)...)...)
	})
	committed := time.Now()
	for _, d := range drivers {
		require.NoError(t, d.commit(ctx))
	}
	thaw := time.AfterFunc(6*time.Second-time.Since(stalled), proxy.unfreeze)
	defer thaw.Stop()
	wg.Wait()
	late := 0
	for i := range logs {
		require.NoError(t, errs[i], "wait %d", i)
		if woke[i].Sub(committed) > time.Second {
			late++
			t.Logf("wait %d (begun %s the stall) returned %v after its entry's commit", i,
				map[bool]string{true: "before", false: "during"}[i < streams], woke[i].Sub(committed).Round(time.Millisecond))
		}
	}
	require.Zero(t, late, "of %d waits, %d returned only when the stuck look was answered", len(logs), late)
}
