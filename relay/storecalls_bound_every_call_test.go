package relay_test

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// Stranger BC: WithStoreCalls refuses 0 and less with ErrInvalidOption.
func TestStoreCallsRefusesZeroAndLess(t *testing.T) {
	store, err := relay.NewMemoryStore()
	require.NoError(t, err)
	for _, n := range []int{0, -1, -1 << 31} {
		h, err := relay.NewHandler(store, pathKey, relay.WithStoreCalls(n))
		require.ErrorIs(t, err, relay.ErrInvalidOption, "n=%d", n)
		require.Nil(t, h)
	}
}

// Stranger BC: a crowd of browsers of every kind (first connections, resumes
// from far back, forged Last-Event-IDs of every sort, a second stream, answer
// and cancel posts) never has more than WithStoreCalls calls to the store in
// flight, Store.Open included: every call is a connection of a Redis pool.
func TestStoreCallsBoundHoldsForEveryKindOfBrowser(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem, err := relay.NewMemoryStore()
		require.NoError(t, err)
		a, b := newWriter(t, mem, "a"), newWriter(t, mem, "b")
		a.many(300)
		a.end()
		b.many(300)
		b.end()

		g := newGatedStore(mem)
		const bound = 2
		h, err := relay.NewHandler(g, pathKey, relay.WithStoreCalls(bound), relay.WithPageSize(16))
		require.NoError(t, err)
		pn, stop := servePipes(h)
		defer stop()
		g.setHold(true)

		gets := [][]string{
			{"/s/a/events"},
			{"/s/a/events", "Last-Event-ID: " + a.id(3)},
			{"/s/a/events", "Last-Event-ID: garbage"},
			{"/s/a/events", "Last-Event-ID: another-epoch-5"},
			{"/s/a/events", "Last-Event-ID: " + a.id(99999)},
			{"/s/a/events?lastEventId=" + a.id(10)},
			{"/s/b/events", "Last-Event-ID: " + b.id(1)},
			{"/s/fresh/events", "Last-Event-ID: lost-epoch-3"},
		}
		posts := []string{
			"POST /s/a/answer HTTP/1.1\r\nHost: relay.test\r\nContent-Type: application/json\r\nIdempotency-Key: k\r\nContent-Length: 27\r\n\r\n{\"prompt\": 5, \"text\": \"hi\"}",
			"POST /s/b/cancel HTTP/1.1\r\nHost: relay.test\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
		}
		const rounds = 5
		total := rounds * (len(gets) + len(posts))
		var wg sync.WaitGroup
		var mu sync.Mutex
		done := 0
		finish := func() { mu.Lock(); done++; mu.Unlock() }
		for range rounds {
			for _, gq := range gets {
				wg.Go(func() {
					defer finish()
					c := getSSE(t, pn, gq[0], gq[1:]...)
					defer c.conn.Close()
					_, _ = io.Copy(io.Discard, c.resp.Body)
				})
			}
			for _, p := range posts {
				wg.Go(func() {
					defer finish()
					c := pn.dial(t)
					defer c.Close()
					_, err := io.WriteString(c, p)
					require.NoError(t, err)
					_, _ = io.Copy(io.Discard, io.LimitReader(c, 1)) // the answer's first byte
				})
			}
		}
		most := 0
		for i := 0; ; i++ {
			synctest.Wait()
			inflight, _ := g.stats()
			most = max(most, inflight)
			mu.Lock()
			all := done == total
			mu.Unlock()
			if all {
				break
			}
			require.Less(t, i, 100000, "the browsers never finished")
			g.release()
		}
		wg.Wait()
		g.mu.Lock()
		calls := fmt.Sprint(g.calls)
		g.mu.Unlock()
		t.Logf("calls: %s", calls)
		require.LessOrEqual(t, most, bound,
			"%d calls to the store were in flight at once with WithStoreCalls(%d) (calls made: %s)", most, bound, strings.TrimSpace(calls))
	})
}

// Stranger BC: the shared reads of many streams, each woken by a new entry at
// once, stay within WithStoreCalls too.
func TestStoreCallsBoundHoldsForManyStreamsWokenAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem, err := relay.NewMemoryStore()
		require.NoError(t, err)
		const streams, bound = 60, 3
		ws := make([]*writer, streams)
		for i := range ws {
			ws[i] = newWriter(t, mem, fmt.Sprintf("k%d", i))
			ws[i].many(5)
		}
		g := newGatedStore(mem)
		h, err := relay.NewHandler(g, pathKey, relay.WithStoreCalls(bound))
		require.NoError(t, err)
		pn, stop := servePipes(h)
		defer stop()
		var wg sync.WaitGroup
		for i, w := range ws {
			for range 2 {
				c := getSSE(t, pn, fmt.Sprintf("/s/k%d/events", i), "Last-Event-ID: "+w.id(5))
				wg.Go(func() {
					defer c.conn.Close()
					_, _ = io.Copy(io.Discard, c.resp.Body)
				})
			}
		}
		synctest.Wait()
		g.setHold(true)
		for _, w := range ws {
			w.texts("new")
			w.end()
		}
		for i := 0; i < 10000; i++ {
			synctest.Wait()
			inflight, _ := g.stats()
			require.LessOrEqual(t, inflight, bound)
			if inflight == 0 {
				break
			}
			g.release()
		}
		g.setHold(false)
		wg.Wait()
		_, most := g.stats()
		require.LessOrEqual(t, most, bound)
	})
}
