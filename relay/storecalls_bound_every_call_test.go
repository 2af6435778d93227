package relay_test

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// Stranger BC: a crowd of browsers of every kind (first connections, resumes
// from far back, forged Last-Event-IDs of every sort, a second stream, answer
// and cancel posts) never has more than WithStoreCalls calls to the store in
// flight, Store.Open included: every call is a connection of a Redis pool.
func TestStoreCallsBoundHoldsForEveryKindOfBrowser(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := newMemoryStore(t)
		a, b := newWriter(t, mem, "a"), newWriter(t, mem, "b")
		a.many(300)
		a.end()
		b.many(300)
		b.end()

		g := &callGauge{Store: mem}
		const bound = 2
		l := pipeRelay(t, g, nil, relay.WithStoreCalls(bound), relay.WithPageSize(16))
		g.hold(true)

		gets := []struct{ target, lastID string }{
			{"/s/a/events", ""},
			{"/s/a/events", a.id(3)},
			{"/s/a/events", "garbage"},
			{"/s/a/events", "another-epoch-5"},
			{"/s/a/events", a.id(99999)},
			{"/s/a/events?lastEventId=" + a.id(10), ""},
			{"/s/b/events", b.id(1)},
			{"/s/fresh/events", "lost-epoch-3"},
		}
		posts := []string{
			"POST /s/a/answer HTTP/1.1\r\nHost: relay.test\r\nContent-Type: application/json\r\nIdempotency-Key: k\r\nContent-Length: 27\r\n\r\n{\"prompt\": 5, \"text\": \"hi\"}",
			"POST /s/b/cancel HTTP/1.1\r\nHost: relay.test\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
		}
		const rounds = 5
		total := rounds * (len(gets) + len(posts))
		var wg sync.WaitGroup
		var done atomic.Int64
		for range rounds {
			for _, get := range gets {
				wg.Go(func() {
					defer done.Add(1)
					c := getSSE(t, l, get.target, get.lastID)
					defer c.conn.Close()
					_, _ = io.Copy(io.Discard, c.resp.Body)
				})
			}
			for _, p := range posts {
				wg.Go(func() {
					defer done.Add(1)
					c := l.dial()
					defer c.Close()
					_, err := io.WriteString(c, p)
					require.NoError(t, err)
					_, _ = io.Copy(io.Discard, io.LimitReader(c, 1)) // the answer's first byte
				})
			}
		}
		most := 0
		for i := 0; done.Load() < int64(total); i++ {
			synctest.Wait()
			most = max(most, g.underWay())
			require.Less(t, i, 100000, "the browsers never finished")
			g.release()
		}
		wg.Wait()
		t.Logf("calls: %s", g.made())
		require.LessOrEqual(t, most, bound,
			"%d calls to the store were in flight at once with WithStoreCalls(%d) (calls made: %s)", most, bound, g.made())
		require.LessOrEqual(t, g.peak(), bound)
	})
}

// Stranger BC: the shared reads of many streams, each woken by a new entry at
// once, stay within WithStoreCalls too.
func TestStoreCallsBoundHoldsForManyStreamsWokenAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := newMemoryStore(t)
		const streams, bound = 60, 3
		ws := make([]*writer, streams)
		for i := range ws {
			ws[i] = newWriter(t, mem, fmt.Sprintf("k%d", i))
			ws[i].many(5)
		}
		g := &callGauge{Store: mem}
		l := pipeRelay(t, g, nil, relay.WithStoreCalls(bound))
		var wg sync.WaitGroup
		for i, w := range ws {
			for range 2 {
				c := getSSE(t, l, fmt.Sprintf("/s/k%d/events", i), w.id(5))
				wg.Go(func() {
					defer c.conn.Close()
					_, _ = io.Copy(io.Discard, c.resp.Body)
				})
			}
		}
		synctest.Wait()
		g.hold(true)
		for _, w := range ws {
			w.texts("new")
			w.end()
		}
		for i := 0; i < 10000; i++ {
			synctest.Wait()
			inflight := g.underWay()
			require.LessOrEqual(t, inflight, bound)
			if inflight == 0 {
				break
			}
			g.release()
		}
		g.hold(false)
		wg.Wait()
		require.LessOrEqual(t, g.peak(), bound)
	})
}
