package relay

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

// sleeper is a follower awaiting an entry after Seq 0: when its await
// returns, it sends its index on woke, and reads once goOn is closed.
type sleeper struct {
	f      *follower
	goOn   chan struct{}
	cancel context.CancelFunc
	got    []Entry
	err    error
}

// startSleepers starts n sleepers of log on ws, each past its first read
// (from the store), asleep in order.
func startSleepers(t *testing.T, ws *waiters, log Log, n int, woke chan<- int, wg *sync.WaitGroup) []*sleeper {
	t.Helper()
	ss := make([]*sleeper, n)
	for i := range ss {
		ctx, cancel := context.WithCancel(t.Context())
		s := &sleeper{f: ws.follow(waitKey{key: "k", epoch: log.Epoch()}, log, 0), goOn: make(chan struct{}), cancel: cancel}
		_, err := s.f.read(ctx, 0, 64) // the first page, from the store
		require.NoError(t, err)
		ss[i] = s
		wg.Go(func() {
			defer s.f.leave()
			if s.err = s.f.await(ctx, 0); s.err != nil {
				woke <- i
				return
			}
			woke <- i
			select {
			case <-s.goOn:
			case <-ctx.Done():
				s.err = ctx.Err()
				return
			}
			s.got, s.err = s.f.read(ctx, 0, 64)
		})
		synctest.Wait() // asleep before the next: they sleep in order
	}
	return ss
}

func openDriven(t *testing.T) (Log, Fence) {
	t.Helper()
	st, err := NewMemoryStore()
	require.NoError(t, err)
	log, err := st.Open(t.Context(), "k")
	require.NoError(t, err)
	f, err := log.Acquire(t.Context(), "driver", time.Hour)
	require.NoError(t, err)
	return log, f
}

// drain takes what woke sent so far, once every goroutine of the bubble
// is blocked.
func drain(woke <-chan int) []int {
	synctest.Wait()
	var got []int
	for {
		select {
		case i := <-woke:
			got = append(got, i)
		default:
			return got
		}
	}
}

// A log's growth wakes its readers a few at a time, not all at once: at
// most the Handler's turns of them are runnable between their wake and
// their read of the window, and each read passes a turn on to the next
// reader asleep, in the order they went to sleep. So the goroutines of
// ten thousand readers never queue at once for the process's Ps, ahead of
// the driver's Commit. Every reader still gets the entry.
func TestAWakeRunsAFewReadersAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log, fence := openDriven(t)
		ws := newWaiters(64, 2)
		woke := make(chan int, 20)
		var wg sync.WaitGroup
		ss := startSleepers(t, ws, log, 20, woke, &wg)
		require.Empty(t, drain(woke))

		require.NoError(t, log.Commit(t.Context(), fence, nil, Entry{Seq: 1, Name: "e", Data: []byte("x")}))
		first := drain(woke)
		require.ElementsMatch(t, []int{0, 1}, first, "two turns: the first two asleep woke, the others wait")
		close(ss[0].goOn) // its read passes its turn to the third
		require.Equal(t, []int{2}, drain(woke))
		for _, s := range ss[1:] {
			close(s.goOn)
		}
		var rest []int
		for len(rest) < 17 {
			rest = append(rest, drain(woke)...)
		}
		require.Len(t, rest, 17)
		wg.Wait()
		for i, s := range ss {
			require.NoError(t, s.err, "reader %d", i)
			require.Len(t, s.got, 1, "reader %d", i)
			require.Equal(t, uint64(1), s.got[0].Seq)
		}
	})
}

// A reader whose request ends while it holds a turn, or while it waits
// for one, passes the turn on or gives its place up: the other readers are
// woken all the same.
func TestAReaderThatLeavesPassesItsTurnOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log, fence := openDriven(t)
		ws := newWaiters(64, 1)
		woke := make(chan int, 4)
		var wg sync.WaitGroup
		ss := startSleepers(t, ws, log, 4, woke, &wg)
		require.Empty(t, drain(woke))

		require.NoError(t, log.Commit(t.Context(), fence, nil, Entry{Seq: 1, Name: "e", Data: []byte("x")}))
		require.Equal(t, []int{0}, drain(woke), "one turn")
		ss[1].cancel() // queued: it leaves, its place is given up
		require.Equal(t, []int{1}, drain(woke), "its await ends with ctx's error")
		ss[0].cancel() // holds the turn: it leaves without reading, and passes it on
		require.Equal(t, []int{2}, drain(woke))
		close(ss[2].goOn)
		require.Equal(t, []int{3}, drain(woke))
		close(ss[3].goOn)
		wg.Wait()
		require.ErrorIs(t, ss[0].err, context.Canceled)
		require.ErrorIs(t, ss[1].err, context.Canceled)
		for _, s := range ss[2:] {
			require.NoError(t, s.err)
			require.Len(t, s.got, 1)
		}
		ws.mu.Lock()
		defer ws.mu.Unlock()
		require.Zero(t, ws.queue.busy, "no turn held once every reader left")
		require.Empty(t, ws.m, "the last reader stopped the waiter")
	})
}

// A reader that wakes at each keep-alive, with nothing new, sleeps again:
// the places it leaves behind are dropped, so an idle stream's sleepers
// stay as many as its readers, however long it idles.
func TestKeepAlivesLeaveTheSleepersBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		log, _ := openDriven(t)
		ws := newWaiters(64, 2)
		f := ws.follow(waitKey{key: "k", epoch: log.Epoch()}, log, 0)
		defer f.leave()
		_, err := f.read(t.Context(), 0, 64)
		require.NoError(t, err)
		for range 1000 {
			ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
			require.ErrorIs(t, f.await(ctx, 0), context.DeadlineExceeded)
			cancel()
		}
		ws.mu.Lock()
		defer ws.mu.Unlock()
		require.Zero(t, f.w.sleepers.live)
		require.LessOrEqual(t, len(f.w.sleepers.list), 64)
	})
}
