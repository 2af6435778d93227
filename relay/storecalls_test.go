package relay_test

import (
	"context"
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

// callGauge is a store whose calls take a millisecond each (in a synctest
// bubble) and count how many are under way at once: Open, and a log's
// Read, Tail and Attach.
type callGauge struct {
	relay.Store
	mu   sync.Mutex
	now  int
	most int
}

func (g *callGauge) call() func() {
	g.mu.Lock()
	g.now++
	g.most = max(g.most, g.now)
	g.mu.Unlock()
	time.Sleep(time.Millisecond) // the store's round trip
	return func() {
		g.mu.Lock()
		g.now--
		g.mu.Unlock()
	}
}

func (g *callGauge) peak() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.most
}

func (g *callGauge) Open(ctx context.Context, key string) (relay.Log, error) {
	defer g.call()()
	l, err := g.Store.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	return gaugedLog{Log: l, g: g}, nil
}

type gaugedLog struct {
	relay.Log
	g *callGauge
}

func (l gaugedLog) Read(ctx context.Context, after uint64, max int) ([]relay.Entry, error) {
	defer l.g.call()()
	return l.Log.Read(ctx, after, max)
}

func (l gaugedLog) Tail(ctx context.Context) (uint64, error) {
	defer l.g.call()()
	return l.Log.Tail(ctx)
}

func (l gaugedLog) Attach(ctx context.Context, max int) (relay.Snapshot, []relay.Entry, error) {
	defer l.g.call()()
	return l.Log.Attach(ctx, max)
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

			st := &callGauge{Store: mem}
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

// WithStoreCalls refuses a number of 0 or less.
func TestWithStoreCallsRefusesNone(t *testing.T) {
	for _, n := range []int{0, -1} {
		_, err := relay.NewHandler(newMemoryStore(t), func(*http.Request) (string, bool) { return "k", true }, relay.WithStoreCalls(n))
		require.ErrorIs(t, err, relay.ErrInvalidOption, "WithStoreCalls(%d)", n)
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
