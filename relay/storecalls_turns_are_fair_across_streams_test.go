package relay_test

import (
	"io"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// Stranger BC: with one store call at a time, a crowd of 30 browsers
// reading stream a from far back (190 reads each) does not starve stream
// b's live reader: its read waits behind at most one call of each browser
// queued before it, not behind the crowd's whole replay.
func TestStoreCallsTurnsAreFairAcrossStreams(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := newMemoryStore(t)
		a, b := newWriter(t, mem, "a"), newWriter(t, mem, "b")
		a.many(3000)
		a.end()
		b.texts("hello")
		g := &callGauge{Store: mem}
		l := pipeRelay(t, g, nil, relay.WithStoreCalls(1), relay.WithPageSize(16))

		cb := sendGet(t, l, "/s/b/events", "")
		rb := readLive(t, cb, 0, 0)
		synctest.Wait()
		g.hold(true)
		const crowd = 30
		var wg sync.WaitGroup
		for range crowd {
			wg.Go(func() {
				c := getSSE(t, l, "/s/a/events", a.id(1))
				defer c.conn.Close()
				_, _ = io.Copy(io.Discard, c.resp.Body)
			})
		}
		for range 3 * crowd { // the crowd under way
			synctest.Wait()
			g.release()
		}
		synctest.Wait()
		b.texts("live")
		released := 0
		for {
			synctest.Wait()
			if got, _ := rb.seen(); len(got) == 2 {
				break
			}
			require.LessOrEqual(t, released, 2*crowd+2,
				"stream b's live read waits behind stream a's crowd (%d calls let go before it)", released)
			g.release()
			released++
		}
		t.Logf("stream b's read went after %d calls", released)
		g.hold(false)
		g.release()
		wg.Wait()
		require.NoError(t, cb.Close())
		<-rb.done
	})
}
