package relay_test

import (
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// Stranger BC: browsers that go while they wait for a store call (one
// holds the only one) end at once, their goroutines with them, and take no
// place: once the holder is done, a new browser is served.
func TestStoreCallsBrowserLeavingWhileWaitingFreesItsPlace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem, err := relay.NewMemoryStore()
		require.NoError(t, err)
		w := newWriter(t, mem, "a")
		w.many(40)
		w.end()

		g := newGatedStore(mem)
		var mu sync.Mutex
		var ends []string
		trace := &relay.Trace{Reader: func(ri relay.ReaderInfo) {
			if ri.Kind == relay.ReaderDone {
				mu.Lock()
				ends = append(ends, ri.End)
				mu.Unlock()
			}
		}}
		h, err := relay.NewHandler(g, pathKey, relay.WithStoreCalls(1), relay.WithPageSize(8), relay.WithTrace(trace))
		require.NoError(t, err)
		var active atomic.Int64
		pn, stop := servePipes(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			active.Add(1)
			defer active.Add(-1)
			h.ServeHTTP(rw, r)
		}))
		defer stop()
		g.setHold(true)

		var wg sync.WaitGroup
		holder := make(chan sseStream, 1)
		wg.Go(func() { // the browser whose call is in flight
			c := getSSE(t, pn, "/s/a/events")
			defer c.conn.Close()
			s, err := parseSSE(c.resp.Body)
			require.NoError(t, err)
			holder <- s
		})
		synctest.Wait()
		inflight, _ := g.stats()
		require.Equal(t, 1, inflight)

		const leavers = 10
		conns := make(chan interface{ Close() error }, leavers)
		for range leavers {
			wg.Go(func() {
				c := pn.dial(t)
				conns <- c
				_, _ = io.WriteString(c, "GET /s/a/events HTTP/1.1\r\nHost: relay.test\r\nLast-Event-ID: "+w.id(2)+"\r\n\r\n")
				_, _ = io.Copy(io.Discard, c)
			})
		}
		synctest.Wait()
		require.EqualValues(t, 1+leavers, active.Load(), "every browser is being served or waits its turn")
		inflight, _ = g.stats()
		require.Equal(t, 1, inflight, "the browsers beyond the bound wait in the process, not in the store")
		for range leavers {
			require.NoError(t, (<-conns).Close())
		}
		synctest.Wait()
		require.EqualValues(t, 1, active.Load(),
			"the browsers that left while they waited for a store call are still served, waiting for a place")

		g.setHold(false)
		g.release()
		s := <-holder
		require.Len(t, s.Events, 41)

		c := getSSE(t, pn, "/s/a/events", "Last-Event-ID: "+w.id(30))
		after, err := parseSSE(c.resp.Body)
		require.NoError(t, err)
		require.NoError(t, c.conn.Close())
		require.Len(t, after.Events, 11, "a browser after the leavers is served")
		wg.Wait()
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		t.Logf("reader ends: %v", ends)
		for _, e := range ends {
			require.Contains(t, []string{"ended", "left"}, e, "a browser that left is told as left, not as a store failure")
		}
	})
}

// Stranger BC: a browser that goes while its own store call is in flight is
// told to a Trace as left, and frees the call's place.
func TestStoreCallsBrowserLeavingDuringItsCallIsLeft(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem, err := relay.NewMemoryStore()
		require.NoError(t, err)
		w := newWriter(t, mem, "a")
		w.many(40)
		w.end()
		g := newGatedStore(mem)
		var mu sync.Mutex
		var ends []string
		trace := &relay.Trace{Reader: func(ri relay.ReaderInfo) {
			if ri.Kind == relay.ReaderDone {
				mu.Lock()
				ends = append(ends, ri.End)
				mu.Unlock()
			}
		}}
		h, err := relay.NewHandler(g, pathKey, relay.WithStoreCalls(1), relay.WithPageSize(8), relay.WithTrace(trace))
		require.NoError(t, err)
		pn, stop := servePipes(h)
		defer stop()

		for _, lastID := range []string{"", w.id(3)} {
			g.setHold(true)
			c := pn.dial(t)
			req := "GET /s/a/events HTTP/1.1\r\nHost: relay.test\r\n"
			if lastID != "" {
				req += "Last-Event-ID: " + lastID + "\r\n"
			}
			_, err := io.WriteString(c, req+"\r\n")
			require.NoError(t, err)
			synctest.Wait()
			inflight, _ := g.stats()
			require.Equal(t, 1, inflight)
			require.NoError(t, c.Close())
			synctest.Wait()
			inflight, _ = g.stats()
			require.Equal(t, 0, inflight)
			g.setHold(false)
		}
		c := getSSE(t, pn, "/s/a/events", "Last-Event-ID: "+w.id(38))
		s, err := parseSSE(c.resp.Body)
		require.NoError(t, err)
		require.NoError(t, c.conn.Close())
		require.Len(t, s.Events, 3)
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		t.Logf("reader ends: %v", ends)
		for _, e := range ends {
			require.Contains(t, []string{"ended", "left"}, e)
		}
	})
}
