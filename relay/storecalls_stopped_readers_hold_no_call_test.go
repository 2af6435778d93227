package relay_test

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// Stranger BC: browsers that resume one stream from far back (their pages
// come from the store) and then stop reading, more of them than
// WithStoreCalls, hold no call's place while their writes wait: another
// stream's reader, and a new reader of the same stream, get their entries at
// once, not once the stopped ones are cut.
func TestStoreCallsStoppedReadersFromFarBackHoldNoPlace(t *testing.T) {
	for _, tc := range []struct {
		name      string
		resumeSeq uint64 // the stopped readers' Last-Event-ID; 0 for none
		forged    string
	}{
		{name: "far back", resumeSeq: 1},
		{name: "first connection"},
		{name: "forged epoch", forged: "forged-epoch-7"},
		{name: "ahead", resumeSeq: 1 << 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mem, err := relay.NewMemoryStore()
				require.NoError(t, err)
				a, b := newWriter(t, mem, "a"), newWriter(t, mem, "b")
				a.many(2000)
				b.texts("hello")
				const bound = 2
				h, err := relay.NewHandler(mem, pathKey, relay.WithStoreCalls(bound), relay.WithPageSize(16),
					relay.WithWriteTimeout(30*time.Second))
				require.NoError(t, err)
				pn, stop := servePipes(h)
				defer stop()

				var stopped []*sseConn
				for range 3 * bound {
					var headers []string
					switch {
					case tc.forged != "":
						headers = append(headers, "Last-Event-ID: "+tc.forged)
					case tc.resumeSeq > 0:
						headers = append(headers, "Last-Event-ID: "+a.id(tc.resumeSeq))
					}
					stopped = append(stopped, getSSE(t, pn, "/s/a/events", headers...))
				}
				synctest.Wait()

				var mu sync.Mutex
				var gotB []sseEvent
				cb := getSSE(t, pn, "/s/b/events")
				go func() {
					_, _ = parseSSEFunc(cb.resp.Body, func(e sseEvent) {
						mu.Lock()
						gotB = append(gotB, e)
						mu.Unlock()
					})
				}()
				synctest.Wait()
				start := time.Now()
				for i := range 3 {
					b.texts(fmt.Sprintf("live %d", i))
					synctest.Wait()
					mu.Lock()
					n := len(gotB)
					mu.Unlock()
					require.Equal(t, 2+i, n,
						"stream b's reader waits (at %v) while stopped readers of stream a hold the store calls",
						time.Since(start))
				}
				require.NoError(t, cb.conn.Close())
				for _, c := range stopped {
					require.NoError(t, c.conn.Close())
				}
			})
		})
	}
}
