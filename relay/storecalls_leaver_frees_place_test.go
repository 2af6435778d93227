package relay_test

import (
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// leaversRelay is stream "a" of 40 texts and its end, served on pipes by a
// Handler of one store call at a time and pages of 8, through a callGauge,
// with a traceRec.
func leaversRelay(t *testing.T, h func(http.Handler) http.Handler) (*writer, *callGauge, *traceRec, *pipeListener) {
	mem := newMemoryStore(t)
	w := newWriter(t, mem, "a")
	w.many(40)
	w.end()
	g := &callGauge{Store: mem}
	rec := &traceRec{}
	l, stop := servePipes(h(newHandler(t, g, pathKey, relay.WithStoreCalls(1), relay.WithPageSize(8), relay.WithTrace(rec.trace()))), nil)
	t.Cleanup(stop)
	return w, g, rec, l
}

// requireLeftOrEnded checks that every response rec was told of ended, or
// its browser left: none is told as a store failure.
func requireLeftOrEnded(t *testing.T, rec *traceRec) {
	ends, _ := rec.readerEnds()
	t.Logf("reader ends: %v", ends)
	for _, e := range ends {
		require.Contains(t, []string{"ended", "left"}, e, "a browser that left is told as left, not as a store failure")
	}
}

// Stranger BC: browsers that go while they wait for a store call (one
// holds the only one) end at once, their goroutines with them, and take no
// place: once the holder is done, a new browser is served.
func TestStoreCallsBrowserLeavingWhileWaitingFreesItsPlace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var active atomic.Int64
		w, g, rec, l := leaversRelay(t, func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				active.Add(1)
				defer active.Add(-1)
				h.ServeHTTP(rw, r)
			})
		})
		g.hold(true)

		holder := readLive(t, sendGet(t, l, "/s/a/events", ""), 0, 0) // the browser whose call is in flight
		synctest.Wait()
		require.Equal(t, 1, g.underWay())

		const leavers = 10
		conns := make([]net.Conn, leavers)
		for i := range conns {
			conns[i] = sendGet(t, l, "/s/a/events", w.id(2))
		}
		synctest.Wait()
		require.EqualValues(t, 1+leavers, active.Load(), "every browser is being served or waits its turn")
		require.Equal(t, 1, g.underWay(), "the browsers beyond the bound wait in the process, not in the store")
		for _, c := range conns {
			require.NoError(t, c.Close())
		}
		synctest.Wait()
		require.EqualValues(t, 1, active.Load(),
			"the browsers that left while they waited for a store call are still served, waiting for a place")

		g.hold(false)
		g.release()
		<-holder.done
		evs, _ := holder.seen()
		require.NoError(t, holder.err)
		require.Len(t, evs, 41)

		c := getSSE(t, l, "/s/a/events", w.id(30))
		after := newRawReader(t, c.resp.Body).whole()
		require.NoError(t, c.conn.Close())
		require.Len(t, after, 11, "a browser after the leavers is served")
		synctest.Wait()
		requireLeftOrEnded(t, rec)
	})
}

// Stranger BC: a browser that goes while its own store call is in flight is
// told to a Trace as left, and frees the call's place.
func TestStoreCallsBrowserLeavingDuringItsCallIsLeft(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w, g, rec, l := leaversRelay(t, func(h http.Handler) http.Handler { return h })
		for _, lastID := range []string{"", w.id(3)} {
			g.hold(true)
			c := sendGet(t, l, "/s/a/events", lastID)
			synctest.Wait()
			require.Equal(t, 1, g.underWay())
			require.NoError(t, c.Close())
			synctest.Wait()
			require.Equal(t, 0, g.underWay())
			g.hold(false)
		}
		c := getSSE(t, l, "/s/a/events", w.id(38))
		evs := newRawReader(t, c.resp.Body).whole()
		require.NoError(t, c.conn.Close())
		require.Len(t, evs, 3)
		synctest.Wait()
		requireLeftOrEnded(t, rec)
	})
}
