package relay_test

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/relay"
)

// callGauge is a store that counts the calls under way at once: Open, and
// every call of its logs but AwaitEntry, AwaitAnswer and AwaitCancel (which
// the Handler's bound leaves aside). Each call takes roundTrip (fake time in
// a synctest bubble); while held, each waits until the test releases the
// calls in flight, or its context ends.
type callGauge struct {
	relay.Store
	roundTrip time.Duration

	mu    sync.Mutex
	now   int
	most  int
	kinds map[string]int
	gate  chan struct{} // nil unless held
}

// call runs f as the call named kind, counted while it waits and runs.
func (g *callGauge) call(ctx context.Context, kind string, f func() error) error {
	g.mu.Lock()
	g.now++
	g.most = max(g.most, g.now)
	if g.kinds == nil {
		g.kinds = map[string]int{}
	}
	g.kinds[kind]++
	gate := g.gate
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.now--
		g.mu.Unlock()
	}()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if g.roundTrip > 0 {
		time.Sleep(g.roundTrip) // the store's round trip
	}
	return f()
}

// peak is the most calls that were under way at once.
func (g *callGauge) peak() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.most
}

// underWay is the number of calls under way now.
func (g *callGauge) underWay() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.now
}

// made is how many calls of each kind were made.
func (g *callGauge) made() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return fmt.Sprint(g.kinds)
}

// hold makes the calls from now on wait for release (true), or run at once
// (false: the calls that wait go too).
func (g *callGauge) hold(on bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case on && g.gate == nil:
		g.gate = make(chan struct{})
	case !on && g.gate != nil:
		close(g.gate)
		g.gate = nil
	}
}

// release lets every call that waits now go; the calls after it wait
// while the gauge is held.
func (g *callGauge) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gate != nil {
		close(g.gate)
		g.gate = make(chan struct{})
	}
}

func (g *callGauge) Open(ctx context.Context, key string) (l relay.Log, err error) {
	err = g.call(ctx, "Open", func() (err error) { l, err = g.Store.Open(ctx, key); return err })
	if err != nil {
		return nil, err
	}
	return gaugedLog{Log: l, g: g}, nil
}

// gaugedLog is a callGauge's Log.
type gaugedLog struct {
	relay.Log
	g *callGauge
}

func (l gaugedLog) Commit(ctx context.Context, f relay.Fence, cp []byte, es ...relay.Entry) error {
	return l.g.call(ctx, "Commit", func() error { return l.Log.Commit(ctx, f, cp, es...) })
}

func (l gaugedLog) Read(ctx context.Context, after uint64, max int) (es []relay.Entry, err error) {
	err = l.g.call(ctx, "Read", func() (err error) { es, err = l.Log.Read(ctx, after, max); return err })
	return es, err
}

func (l gaugedLog) Tail(ctx context.Context) (tail uint64, err error) {
	err = l.g.call(ctx, "Tail", func() (err error) { tail, err = l.Log.Tail(ctx); return err })
	return tail, err
}

func (l gaugedLog) Trim(ctx context.Context, through uint64) error {
	return l.g.call(ctx, "Trim", func() error { return l.Log.Trim(ctx, through) })
}

func (l gaugedLog) SaveSnapshot(ctx context.Context, f relay.Fence, s relay.Snapshot) error {
	return l.g.call(ctx, "SaveSnapshot", func() error { return l.Log.SaveSnapshot(ctx, f, s) })
}

func (l gaugedLog) LoadSnapshot(ctx context.Context) (s relay.Snapshot, err error) {
	err = l.g.call(ctx, "LoadSnapshot", func() (err error) { s, err = l.Log.LoadSnapshot(ctx); return err })
	return s, err
}

func (l gaugedLog) Attach(ctx context.Context, max int) (s relay.Snapshot, es []relay.Entry, err error) {
	err = l.g.call(ctx, "Attach", func() (err error) { s, es, err = l.Log.Attach(ctx, max); return err })
	return s, es, err
}

func (l gaugedLog) Acquire(ctx context.Context, owner string, ttl time.Duration) (f relay.Fence, err error) {
	err = l.g.call(ctx, "Acquire", func() (err error) { f, err = l.Log.Acquire(ctx, owner, ttl); return err })
	return f, err
}

func (l gaugedLog) Renew(ctx context.Context, f relay.Fence, ttl time.Duration) error {
	return l.g.call(ctx, "Renew", func() error { return l.Log.Renew(ctx, f, ttl) })
}

func (l gaugedLog) Release(ctx context.Context, f relay.Fence) error {
	return l.g.call(ctx, "Release", func() error { return l.Log.Release(ctx, f) })
}

func (l gaugedLog) LoadCheckpoint(ctx context.Context) (cp []byte, err error) {
	err = l.g.call(ctx, "LoadCheckpoint", func() (err error) { cp, err = l.Log.LoadCheckpoint(ctx); return err })
	return cp, err
}

func (l gaugedLog) PostAnswer(ctx context.Context, a relay.Answer) (got relay.Answer, err error) {
	err = l.g.call(ctx, "PostAnswer", func() (err error) { got, err = l.Log.PostAnswer(ctx, a); return err })
	return got, err
}

func (l gaugedLog) LoadAnswer(ctx context.Context, prompt uint64) (a relay.Answer, ok bool, err error) {
	err = l.g.call(ctx, "LoadAnswer", func() (err error) { a, ok, err = l.Log.LoadAnswer(ctx, prompt); return err })
	return a, ok, err
}

func (l gaugedLog) RequestCancel(ctx context.Context) error {
	return l.g.call(ctx, "RequestCancel", func() error { return l.Log.RequestCancel(ctx) })
}

// However many browsers read a long stream from far back at once, a
// Handler makes at most WithStoreCalls calls to its store at once, so that
// the drivers sharing the store's client find a connection; the browsers
// wait their turn and each gets every entry once, in order.
func TestBrowsersReadingFromBehindTakeAtMostTheHandlersStoreCalls(t *testing.T) {
	for _, calls := range []int{1, 3} {
		synctest.Test(t, func(t *testing.T) {
			ctx := t.Context()
			mem := newMemoryStore(t)
			l, f := drivenLog(ctx, t, mem)
			const last = 40
			es := []relay.Entry{{Seq: 1, Name: relay.EventStatus, Data: []byte(`{"state":"working"}`)}}
			for seq := uint64(2); seq < last; seq++ {
				es = append(es, chunkEntry(seq, ""))
			}
			es = append(es, relay.Entry{Seq: last, Name: relay.EventEnd, Data: []byte(`{"state":"completed"}`)})
			require.NoError(t, l.Commit(ctx, f, nil, es...))

			st := &callGauge{Store: mem, roundTrip: time.Millisecond}
			mux := http.NewServeMux()
			mux.Handle("/s/{key}/", newHandler(t, st, func(*http.Request) (string, bool) { return "k", true },
				relay.WithPageSize(4), relay.WithStoreCalls(calls)))
			client := a2atest.NewClient(mux)

			const browsers = 30
			got := make(chan []event, browsers)
			for range browsers {
				go readEvents(ctx, client, relay.ID{Epoch: l.Epoch(), Seq: 1}.String(), got)
			}
			for range browsers {
				requireRun(t, <-got, l.Epoch(), 2, last)
			}
			require.LessOrEqual(t, st.peak(), calls, "store calls under way at once")
		})
	}
}

// WithStoreCalls refuses a number of 0 or less, and NewHandler makes no
// Handler then (stranger BC's cases, the lowest int32 among them).
func TestWithStoreCallsRefusesNone(t *testing.T) {
	for _, n := range []int{0, -1, -1 << 31} {
		h, err := relay.NewHandler(newMemoryStore(t), pathKey, relay.WithStoreCalls(n))
		require.ErrorIs(t, err, relay.ErrInvalidOption, "WithStoreCalls(%d)", n)
		require.Nil(t, h)
	}
}

// stackSeer is a store whose Read notes whether the Handler's ServeHTTP
// is on the stack that calls it.
type stackSeer struct {
	relay.Store
	mu        sync.Mutex
	reads     int
	underHTTP int
}

func (s *stackSeer) Open(ctx context.Context, key string) (relay.Log, error) {
	l, err := s.Store.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	return stackSeenLog{Log: l, s: s}, nil
}

type stackSeenLog struct {
	relay.Log
	s *stackSeer
}

func (l stackSeenLog) Read(ctx context.Context, after uint64, max int) ([]relay.Entry, error) {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	under := false
	for {
		f, more := frames.Next()
		under = under || strings.HasSuffix(f.Function, "(*Handler).ServeHTTP")
		if !more {
			break
		}
	}
	l.s.mu.Lock()
	l.s.reads++
	if under {
		l.s.underHTTP++
	}
	l.s.mu.Unlock()
	return l.Log.Read(ctx, after, max)
}

// A Handler calls its store on a goroutine of its own, not on the
// browser's: a store's client goes deep, and the stack it grows would stay
// with the browser while it waits (about 4 KiB an idle browser on Redis).
func TestStoreCallsRunOffTheBrowsersGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		mem := newMemoryStore(t)
		l, f := drivenLog(ctx, t, mem)
		require.NoError(t, l.Commit(ctx, f, nil, relay.Entry{Seq: 1, Name: relay.EventStatus, Data: []byte(`{"state":"working"}`)},
			relay.Entry{Seq: 2, Name: relay.EventEnd, Data: []byte(`{"state":"completed"}`)}))
		st := &stackSeer{Store: mem}
		mux := http.NewServeMux()
		mux.Handle("/s/{key}/", newHandler(t, st, func(*http.Request) (string, bool) { return "k", true }))
		got := make(chan []event, 1)
		readEvents(ctx, a2atest.NewClient(mux), "", got)
		requireRun(t, <-got, l.Epoch(), 1, 2)
		st.mu.Lock()
		defer st.mu.Unlock()
		require.Positive(t, st.reads)
		require.Zero(t, st.underHTTP, "reads made on the browser's goroutine, of %d", st.reads)
	})
}
