package redisrelay_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay"
)

// TestStrangerBrowsersOfEveryStreamWaitBehindOneStalledConnection (finding,
// medium): a Handler on a store whose client has go-redis's defaults
// (ReadTimeout 3 s, MaxRetries 3) and the store's (wake 1 s); 40 browsers of 20
// streams wait for the next entry. The pooled connection that carries the next
// batch of the waits' looks stops answering for 6 s (a stalled TCP path); the
// pool's other connections, and new ones, work. Every stream then gets an
// entry: each browser should have it within 1 s of its commit, since its note
// came on the Pub/Sub connection and the page's read can go on another
// connection. Every browser of every stream gets it about 3 s late, when
// go-redis gives up on the stalled connection.
func TestStrangerBrowsersOfEveryStreamWaitBehindOneStalledConnection(t *testing.T) {
	const streams, browsers = 20, 2
	srv := startStrangerRedis(t)
	proxy := startFreezingProxy(t, srv.Addr())
	writer, err := redisrelay.New(srv.Client(t, nil), redisrelay.WithPrefix("rt"))
	require.NoError(t, err)
	rc := redis.NewClient(&redis.Options{Addr: proxy.addr()})
	t.Cleanup(func() { _ = rc.Close() })
	looks := newScriptWatch(proxy.sig)
	rc.AddHook(looks)
	st, err := redisrelay.New(rc, redisrelay.WithPrefix("rt"))
	require.NoError(t, err)
	h, err := relay.NewHandler(st, func(r *http.Request) (string, bool) { return r.PathValue("id"), true })
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/s/{id}/events", h)
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 100}}
	t.Cleanup(client.CloseIdleConnections)

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	drivers := make([]*strangerDriver, streams)
	for i := range drivers {
		drivers[i] = newStrangerDriver(t, ctx, writer, fmt.Sprintf("s%d", i))
		require.NoError(t, drivers[i].commit(ctx))
	}
	got := make([]time.Time, streams*browsers)
	var attached atomic.Int64 // browsers whose stream began (the Handler waits for their next entry)
	var wg sync.WaitGroup
	for s := range streams {
		for b := range browsers {
			wg.Go(func() {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/s/s%d/events", hs.URL, s), nil)
				req.Header.Set("Last-Event-ID", drivers[s].log.Epoch()+"-1")
				resp, err := client.Do(req)
				if err != nil {
					return
				}
				defer resp.Body.Close()
				attached.Add(1)
				proxy.sig.fire()
				sc := bufio.NewScanner(resp.Body)
				for sc.Scan() {
					if strings.HasPrefix(sc.Text(), "id:") && strings.HasSuffix(sc.Text(), "-2") {
						got[s*browsers+b] = time.Now()
						return
					}
				}
			})
		}
	}
	all := names(0, streams)
	proxy.sig.waitFor(t, ctx, "every browser attached, and every stream's wait subscribed and looked", func() bool {
		return attached.Load() == streams*browsers && proxy.confirmed(channelsOf(all...)...) && looks.lookedAll(1, all...)
	})
	sha := looks.firstSHA()
	require.NotEmpty(t, sha, "no batch of looks seen")
	proxy.freezeNext([]byte(sha))
	thaw := time.AfterFunc(6*time.Second, proxy.unfreeze)
	defer thaw.Stop()
	// At the next wake interval's looks at the latest.
	proxy.sig.waitFor(t, ctx, "a batch of looks stuck", func() bool { return proxy.heldReplies() > 0 })
	committed := time.Now()
	for _, d := range drivers {
		require.NoError(t, d.commit(ctx))
	}
	wg.Wait()
	late := 0
	var worst time.Duration
	for i, g := range got {
		require.False(t, g.IsZero(), "browser %d never got entry 2", i)
		worst = max(worst, g.Sub(committed))
		if g.Sub(committed) > time.Second {
			late++
		}
	}
	require.Zero(t, late, "of %d browsers, %d got their entry more than 1 s after its commit (the slowest %v)", len(got), late, worst.Round(time.Millisecond))
}
