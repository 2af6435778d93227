package redisrelay

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// Stranger BC: on one stream, 200 browsers that resume from its first
// entry (5,000 entries, read from the store a page at a time) and a Handler
// of WithStoreCalls(2) on a pool of 4 leave the driver of the same process a
// connection: its renewals and commits never wait for one.
func TestRedisFarBackCrowdLeavesTheDriverAConnection(t *testing.T) {
	srv := startRedis(t)
	c := redis.NewClient(&redis.Options{Addr: srv.addr(), PoolSize: 4})
	t.Cleanup(func() { _ = c.Close() })
	st := newStore(t, c)
	ctx := t.Context()
	l, err := st.Open(ctx, "k")
	require.NoError(t, err)
	f, err := l.Acquire(ctx, "driver", time.Minute)
	require.NoError(t, err)
	seq := uint64(0)
	for range 100 {
		es := make([]relay.Entry, 50)
		for i := range es {
			seq++
			es[i] = relay.Entry{Seq: seq, Name: relay.EventArtifact,
				Data: fmt.Appendf(nil, `{"pane":"artifact:x","id":"x","text":"%d","append":true}`, seq)}
		}
		require.NoError(t, l.Commit(ctx, f, nil, es...))
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
	counts := make([]int, browsers)
	for i := range browsers {
		wg.Go(func() {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, hs.URL+"/s/k", nil)
			if err != nil {
				return
			}
			req.Header.Set("Last-Event-ID", relay.ID{Epoch: l.Epoch(), Seq: 1}.String())
			resp, err := hc.Do(req)
			if err != nil {
				return
			}
			defer resp.Body.Close()
			s, _ := parseSSEBody(resp.Body)
			counts[i] = s
		})
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
			require.NoError(t, l.Commit(ctx, f, nil, relay.Entry{Seq: seq, Name: relay.EventArtifact,
				Data: []byte(`{"pane":"artifact:x","id":"x","text":"live","append":true}`)}))
		} else {
			require.NoError(t, l.Renew(ctx, f, time.Minute))
		}
		renews++
		worst = max(worst, time.Since(start))
		if renews == 200 {
			seq++
			require.NoError(t, l.Commit(context.Background(), f, nil, relay.Entry{Seq: seq, Name: relay.EventEnd, Data: []byte(`{"state":"completed"}`)}))
		}
	}
	after := *c.PoolStats()
	t.Logf("%d renewals and commits, the slowest %v; pool waits %d (%v), conns %d",
		renews, worst, after.WaitCount-before.WaitCount,
		time.Duration(after.WaitDurationNs-before.WaitDurationNs), after.TotalConns)
	for i, n := range counts {
		require.EqualValues(t, seq-1, n, "browser %d", i)
	}
	require.Zero(t, after.WaitCount-before.WaitCount, "the driver waited for a connection")
}

// parseSSEBody counts the events (their id lines) of an event stream, to
// its end.
func parseSSEBody(r io.Reader) (int, error) {
	b, err := io.ReadAll(r)
	n := 0
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, "id:") {
			n++
		}
	}
	return n, err
}
