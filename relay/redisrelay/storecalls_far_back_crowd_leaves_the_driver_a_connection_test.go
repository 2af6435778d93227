package redisrelay

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay/internal/redistest"
)

// Stranger BC: on one stream, 200 browsers that resume from its first
// entry (5,000 entries, read from the store a page at a time) and a Handler
// of WithStoreCalls(2) on a pool of 4 leave the driver of the same process a
// connection: its renewals and commits never wait for one.
func TestRedisFarBackCrowdLeavesTheDriverAConnection(t *testing.T) {
	srv := redistest.Start(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), PoolSize: 4})
	t.Cleanup(func() { _ = c.Close() })
	st := newStore(t, c)
	ctx := t.Context()
	l, f := driven(t, st, "k")
	seq := uint64(0)
	for range 100 {
		require.NoError(t, l.Commit(ctx, f, nil, entriesFrom(seq+1, seq+50)...))
		seq += 50
	}
	h := newHandler(t, st, func(*http.Request) (string, bool) { return "k", true }, relay.WithStoreCalls(2))
	hs := httptest.NewServer(h)
	defer hs.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 500}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	before := *c.PoolStats()

	const browsers = 200
	var wg sync.WaitGroup
	ids := make([][]string, browsers)
	errs := make([]error, browsers)
	first := make(chan struct{}, browsers)
	url := fmt.Sprintf("%s/s/k?lastEventId=%s", hs.URL, relay.ID{Epoch: l.Epoch(), Seq: 1})
	for i := range browsers {
		wg.Go(func() { ids[i], errs[i] = readIDs(ctx, hc, url, first) })
	}
	var worst time.Duration
	renews := 0
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for ended := false; !ended; {
		select {
		case <-done:
			ended = true
			continue
		case <-tick.C:
		}
		start := time.Now()
		if renews%10 == 9 && renews < 200 {
			seq++
			require.NoError(t, l.Commit(ctx, f, nil, entriesFrom(seq, seq)...))
		} else {
			require.NoError(t, l.Renew(ctx, f, time.Minute))
		}
		renews++
		worst = max(worst, time.Since(start))
		if renews == 200 {
			seq++
			require.NoError(t, l.Commit(ctx, f, nil, relay.Entry{Seq: seq, Name: relay.EventEnd, Data: []byte(`{"state":"completed"}`)}))
		}
	}
	after := *c.PoolStats()
	t.Logf("%d renewals and commits, the slowest %v; pool waits %d (%v), conns %d",
		renews, worst, after.WaitCount-before.WaitCount,
		time.Duration(after.WaitDurationNs-before.WaitDurationNs), after.TotalConns)
	for i := range browsers {
		require.NoError(t, errs[i], "browser %d", i)
		require.Len(t, ids[i], int(seq-1), "browser %d", i)
	}
	require.Zero(t, after.WaitCount-before.WaitCount, "the driver waited for a connection")
}
