package relay_test

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// Stranger BC: readers that stop reading (more of them than GOMAXPROCS, so
// that they could hold every turn) and slow readers hold no fast reader back:
// after each commit, every fast reader has the new entries before the fake
// clock moves; and every reader, fast, slow, joining or leaving, gets each
// entry once and in order, to the stream's end.
func TestTurnsStoppedAndSlowReadersHoldNoOneBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := newMemoryStore(t)
		w := newWriter(t, mem, "a")
		w.texts("first")
		l := pipeRelay(t, mem, nil, relay.WithWriteTimeout(30*time.Second), relay.WithPageSize(4))

		type follower struct {
			*liveReader
			after uint64 // the Seq it resumed after
		}
		start := func(after uint64, chunk, leaveAfter int) follower {
			lastID := ""
			if after > 0 {
				lastID = w.id(after)
			}
			return follower{readLive(t, sendGet(t, l, "/s/a/events", lastID), chunk, leaveAfter), after}
		}
		var fast, slow []follower
		for i := range 30 {
			leave := 0
			if i%5 == 4 {
				leave = 10 + i
			}
			fast = append(fast, start(0, 0, leave))
		}
		for range 3 {
			slow = append(slow, start(0, 300, 0))
		}
		var stopped []*sseConn
		for range 6 { // each reads the head, then nothing
			stopped = append(stopped, getSSE(t, l, "/s/a/events", ""))
		}
		synctest.Wait()

		tick := time.NewTicker(100 * time.Millisecond) // the driver's pace
		defer tick.Stop()
		for i := range 200 {
			if i%3 == 0 {
				w.texts(fmt.Sprintf("a%d", i))
			} else {
				w.texts(fmt.Sprintf("b%d", i), fmt.Sprintf("c%d", i), fmt.Sprintf("d%d", i))
			}
			if i%20 == 10 {
				fast = append(fast, start(w.tail-3, 0, 0))
			}
			synctest.Wait()
			for k, r := range fast {
				evs, left := r.seen()
				if left {
					continue
				}
				require.NotEmpty(t, evs, "commit %d, at %v: fast reader %d has nothing", i, time.Now(), k)
				require.Equal(t, w.id(w.tail), evs[len(evs)-1].ID,
					"commit %d, at %v: fast reader %d (%d events) is held back", i, time.Now(), k, len(evs))
			}
			<-tick.C
		}
		w.end()
		for _, r := range append(fast, slow...) {
			<-r.done
		}
		for _, c := range stopped {
			require.NoError(t, c.conn.Close())
		}
		for k, r := range append(fast, slow...) {
			evs, left := r.seen()
			require.NotEmpty(t, evs, "reader %d", k)
			for j, e := range evs {
				require.Equal(t, w.id(r.after+uint64(j)+1), e.ID, "reader %d, event %d", k, j)
			}
			if !left {
				require.NoError(t, r.err, "reader %d", k)
				require.Equal(t, relay.EventEnd, evs[len(evs)-1].Name, "reader %d got the end", k)
			}
		}
	})
}
