package relay_test

import (
	"fmt"
	"io"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// liveReader is one browser's events as they come.
type liveReader struct {
	mu     sync.Mutex
	events []sseEvent
	after  uint64 // the Seq it resumed after
	left   bool   // it went away on its own
	done   bool
}

func (r *liveReader) seen() (n int, last string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.events) == 0 {
		return 0, ""
	}
	return len(r.events), r.events[len(r.events)-1].ID
}

// Stranger BC: readers that stop reading (more of them than GOMAXPROCS, so
// that they could hold every turn) and slow readers hold no fast reader back:
// after each commit, every fast reader has the new entries before the fake
// clock moves; and every reader, fast, slow, joining or leaving, gets each
// entry once and in order, to the stream's end.
func TestTurnsStoppedAndSlowReadersHoldNoOneBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem, err := relay.NewMemoryStore()
		require.NoError(t, err)
		w := newWriter(t, mem, "a")
		w.texts("first")
		h, err := relay.NewHandler(mem, pathKey, relay.WithWriteTimeout(30*time.Second), relay.WithPageSize(4))
		require.NoError(t, err)
		pn, stop := servePipes(h)
		defer stop()

		var wg sync.WaitGroup
		var mu sync.Mutex
		var fast, slow []*liveReader
		start := func(after uint64, leaveAfter int, pace int) *liveReader {
			r := &liveReader{after: after}
			var headers []string
			if after > 0 {
				headers = append(headers, "Last-Event-ID: "+w.id(after))
			}
			c := getSSE(t, pn, "/s/a/events", headers...)
			wg.Go(func() {
				defer c.conn.Close()
				var body io.Reader = c.resp.Body
				if pace > 0 {
					pr, pw := io.Pipe()
					go func() {
						b, err := readPaced(c.resp.Body, pace, time.Second)
						_, _ = pw.Write(b)
						pw.CloseWithError(err)
					}()
					body = pr
				}
				_, _ = parseSSEFunc(body, func(e sseEvent) {
					r.mu.Lock()
					r.events = append(r.events, e)
					leave := leaveAfter > 0 && len(r.events) == leaveAfter
					if leave {
						r.left = true
					}
					r.mu.Unlock()
					if leave {
						_ = c.conn.Close()
					}
				})
				r.mu.Lock()
				r.done = true
				r.mu.Unlock()
			})
			return r
		}
		for i := range 30 {
			leave := 0
			if i%5 == 4 {
				leave = 10 + i
			}
			fast = append(fast, start(0, leave, 0))
		}
		for range 3 {
			slow = append(slow, start(0, 0, 300))
		}
		var stopped []*sseConn
		for range 6 { // each reads the head, then nothing
			stopped = append(stopped, getSSE(t, pn, "/s/a/events"))
		}
		synctest.Wait()

		for i := range 200 {
			if i%3 == 0 {
				w.texts(fmt.Sprintf("a%d", i))
			} else {
				w.texts(fmt.Sprintf("b%d", i), fmt.Sprintf("c%d", i), fmt.Sprintf("d%d", i))
			}
			if i%20 == 10 {
				mu.Lock()
				fast = append(fast, start(w.tail-3, 0, 0))
				mu.Unlock()
			}
			synctest.Wait()
			for k, r := range fast {
				n, last := r.seen()
				r.mu.Lock()
				left := r.left
				r.mu.Unlock()
				if left {
					continue
				}
				require.Equal(t, w.id(w.tail), last,
					"commit %d, at %v: fast reader %d (%d events) is held back", i, time.Now(), k, n)
			}
			time.Sleep(100 * time.Millisecond)
		}
		w.end()
		time.Sleep(time.Hour)
		wg.Wait()
		for _, c := range stopped {
			require.NoError(t, c.conn.Close())
		}
		for k, r := range append(fast, slow...) {
			r.mu.Lock()
			require.NotEmpty(t, r.events, "reader %d", k)
			for j, e := range r.events {
				require.Equal(t, w.id(r.after+uint64(j)+1), e.ID, "reader %d, event %d", k, j)
			}
			if !r.left {
				require.Equal(t, relay.EventEnd, r.events[len(r.events)-1].Name, "reader %d got the end", k)
			}
			r.mu.Unlock()
		}
	})
}
