package relay_test

import (
	"fmt"
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
				mem := newMemoryStore(t)
				a, b := newWriter(t, mem, "a"), newWriter(t, mem, "b")
				a.many(2000)
				b.texts("hello")
				const bound = 2
				l := pipeRelay(t, mem, nil, relay.WithStoreCalls(bound), relay.WithPageSize(16),
					relay.WithWriteTimeout(30*time.Second))

				lastID := tc.forged
				if tc.resumeSeq > 0 {
					lastID = a.id(tc.resumeSeq)
				}
				var stopped []*sseConn
				for range 3 * bound {
					stopped = append(stopped, getSSE(t, l, "/s/a/events", lastID))
				}
				synctest.Wait()

				cb := sendGet(t, l, "/s/b/events", "")
				rb := readLive(t, cb, 0, 0)
				synctest.Wait()
				start := time.Now()
				for i := range 3 {
					b.texts(fmt.Sprintf("live %d", i))
					synctest.Wait()
					got, _ := rb.seen()
					require.Len(t, got, 2+i,
						"stream b's reader waits (at %v) while stopped readers of stream a hold the store calls",
						time.Since(start))
				}
				for _, c := range stopped {
					require.NoError(t, c.conn.Close())
				}
				require.NoError(t, cb.Close())
				<-rb.done
			})
		})
	}
}
