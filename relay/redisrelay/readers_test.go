package redisrelay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/sse"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay/internal/redistest"
)

// Ten times more browsers of one stream than the client's pool has
// connections, while the driver commits: the Handler's readers of the
// stream hold one wait on Redis between them, so the driver's commits
// never wait for a connection, no wait times out on the pool, and every
// browser gets every event. (Each reader held a connection in its own
// XREAD BLOCK before: forty readers on a pool of four left every commit
// waiting for the pool, and failing after its timeout.)
func TestMoreBrowsersThanConnections(t *testing.T) {
	srv := redistest.Start(t)
	const pool, browsers, entries = 4, 40, 20
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), PoolSize: pool, PoolTimeout: 2 * time.Second, MaxRetries: -1})
	t.Cleanup(func() { _ = c.Close() })
	st := newStore(t, c, WithWake(time.Second)) // a wait holds its connection up to 1 s
	ctx := t.Context()
	l, err := st.Open(ctx, "k")
	require.NoError(t, err)
	f, err := l.Acquire(ctx, "driver", time.Minute)
	require.NoError(t, err)
	require.NoError(t, l.Commit(ctx, f, nil, relay.Entry{Seq: 1, Name: relay.EventStatus, Data: []byte(`{"state":"working"}`)}))
	client := a2atest.NewClient(newHandler(t, st, func(*http.Request) (string, bool) { return "k", true }))
	conns := watchConnections(t, srv)

	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	first := make(chan struct{}, browsers)
	got := make(chan []string, browsers)
	for range browsers {
		go func() {
			ids, err := readAllIDs(rctx, client, first)
			if err != nil {
				ids = append(ids, err.Error())
			}
			got <- ids
		}()
	}
	for range browsers {
		select {
		case <-first:
		case <-rctx.Done():
			t.Fatal("the browsers did not all get their first event")
		}
	}
	for seq := uint64(2); seq <= entries; seq++ {
		cctx, ccancel := context.WithTimeout(ctx, 500*time.Millisecond)
		err := l.Commit(cctx, f, nil, relay.Entry{Seq: seq, Name: relay.EventArtifact,
			Data: fmt.Appendf(nil, `{"pane":"artifact:x","id":"x","text":"%d","append":true}`, seq)})
		ccancel()
		require.NoError(t, err, "commit %d", seq)
	}
	require.NoError(t, l.Commit(ctx, f, nil, relay.Entry{Seq: entries + 1, Name: relay.EventEnd, Data: []byte(`{"state":"completed"}`)}))
	for range browsers {
		ids := <-got
		require.Len(t, ids, entries+1, "%v", ids)
		for i, id := range ids {
			require.Equal(t, fmt.Sprintf("%s-%d", l.Epoch(), i+1), id)
		}
	}
	require.Zero(t, c.PoolStats().Timeouts, "no wait for a connection timed out")
	peak, subscribed := conns()
	require.True(t, subscribed, "the waits' Pub/Sub connection was counted")
	require.LessOrEqual(t, peak, pool+1, "the pool's connections and the waits' Pub/Sub one, as the package doc says")
}

// watchConnections counts the server's connections (CLIENT LIST, its own
// left out) every 5 ms until the returned func is called, which returns
// the most seen at once and whether one was a subscriber's.
func watchConnections(t *testing.T, srv *redistest.Server) func() (int, bool) {
	admin := redis.NewClient(&redis.Options{Addr: srv.Addr(), PoolSize: 1, ClientName: "counting"})
	t.Cleanup(func() { _ = admin.Close() })
	stop, done := make(chan struct{}), make(chan struct{})
	peak, subscribed := 0, false
	go func() {
		defer close(done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			list, err := admin.ClientList(context.Background()).Result()
			if err == nil {
				n := 0
				for _, l := range strings.Split(strings.TrimSpace(list), "\n") {
					if l == "" || strings.Contains(l, " name=counting ") {
						continue
					}
					n++
					subscribed = subscribed || strings.Contains(l, " sub=1 ")
				}
				peak = max(peak, n)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return func() (int, bool) {
		close(stop)
		<-done
		return peak, subscribed
	}
}

// readAllIDs reads stream "k" to its end and returns its events' IDs,
// signalling first when the first event came.
func readAllIDs(ctx context.Context, client *http.Client, first chan<- struct{}) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://relay.test/s/k/events", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	dec := sse.NewDecoder(resp.Body, 1<<20)
	var ids []string
	for {
		ev, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return ids, nil
		}
		if err != nil {
			return ids, err
		}
		if len(ids) == 0 {
			first <- struct{}{}
		}
		ids = append(ids, string(ev.ID))
	}
}
