package relay_test

import (
	"context"
	"sync"
	"time"

	"github.com/a2astream/a2astream/relay"
)

// gatedStore wraps a Store to count the calls a Handler makes to it at once.
// Every call but the Await ones (which the bound leaves aside) is counted,
// Open included; while held, each counted call blocks until the test lets
// the calls in flight go (release), or its context ends.
type gatedStore struct {
	inner relay.Store

	mu       sync.Mutex
	hold     bool
	gate     chan struct{}
	inflight int
	max      int
	calls    map[string]int
}

func newGatedStore(inner relay.Store) *gatedStore {
	return &gatedStore{inner: inner, gate: make(chan struct{}), calls: map[string]int{}}
}

// call counts one call named name for as long as it runs.
func (g *gatedStore) call(ctx context.Context, name string, f func() error) error {
	g.mu.Lock()
	g.inflight++
	g.calls[name]++
	if g.inflight > g.max {
		g.max = g.inflight
	}
	hold, gate := g.hold, g.gate
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.inflight--
		g.mu.Unlock()
	}()
	if hold {
		select {
		case <-gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return f()
}

// setHold makes the calls from now on block until release (true), or run
// at once (false).
func (g *gatedStore) setHold(hold bool) {
	g.mu.Lock()
	g.hold = hold
	g.mu.Unlock()
}

// release lets every call blocked now go.
func (g *gatedStore) release() {
	g.mu.Lock()
	close(g.gate)
	g.gate = make(chan struct{})
	g.mu.Unlock()
}

// stats returns the calls in flight now and the most there ever were.
func (g *gatedStore) stats() (inflight, max int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.inflight, g.max
}

func (g *gatedStore) Open(ctx context.Context, key string) (relay.Log, error) {
	var l relay.Log
	err := g.call(ctx, "Open", func() (err error) {
		l, err = g.inner.Open(ctx, key)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &gatedLog{Log: l, g: g}, nil
}

// gatedLog counts every call of its Log but AwaitEntry, AwaitAnswer and
// AwaitCancel, which pass through.
type gatedLog struct {
	relay.Log
	g *gatedStore
}

func (l *gatedLog) Commit(ctx context.Context, f relay.Fence, cp []byte, e ...relay.Entry) error {
	return l.g.call(ctx, "Commit", func() error { return l.Log.Commit(ctx, f, cp, e...) })
}

func (l *gatedLog) Read(ctx context.Context, after uint64, max int) (es []relay.Entry, err error) {
	err = l.g.call(ctx, "Read", func() (err error) { es, err = l.Log.Read(ctx, after, max); return err })
	return es, err
}

func (l *gatedLog) Tail(ctx context.Context) (t uint64, err error) {
	err = l.g.call(ctx, "Tail", func() (err error) { t, err = l.Log.Tail(ctx); return err })
	return t, err
}

func (l *gatedLog) Trim(ctx context.Context, through uint64) error {
	return l.g.call(ctx, "Trim", func() error { return l.Log.Trim(ctx, through) })
}

func (l *gatedLog) SaveSnapshot(ctx context.Context, f relay.Fence, s relay.Snapshot) error {
	return l.g.call(ctx, "SaveSnapshot", func() error { return l.Log.SaveSnapshot(ctx, f, s) })
}

func (l *gatedLog) LoadSnapshot(ctx context.Context) (s relay.Snapshot, err error) {
	err = l.g.call(ctx, "LoadSnapshot", func() (err error) { s, err = l.Log.LoadSnapshot(ctx); return err })
	return s, err
}

func (l *gatedLog) Attach(ctx context.Context, max int) (s relay.Snapshot, es []relay.Entry, err error) {
	err = l.g.call(ctx, "Attach", func() (err error) { s, es, err = l.Log.Attach(ctx, max); return err })
	return s, es, err
}

func (l *gatedLog) LoadCheckpoint(ctx context.Context) (cp []byte, err error) {
	err = l.g.call(ctx, "LoadCheckpoint", func() (err error) { cp, err = l.Log.LoadCheckpoint(ctx); return err })
	return cp, err
}

func (l *gatedLog) PostAnswer(ctx context.Context, a relay.Answer) (got relay.Answer, err error) {
	err = l.g.call(ctx, "PostAnswer", func() (err error) { got, err = l.Log.PostAnswer(ctx, a); return err })
	return got, err
}

func (l *gatedLog) LoadAnswer(ctx context.Context, prompt uint64) (a relay.Answer, ok bool, err error) {
	err = l.g.call(ctx, "LoadAnswer", func() (err error) { a, ok, err = l.Log.LoadAnswer(ctx, prompt); return err })
	return a, ok, err
}

func (l *gatedLog) RequestCancel(ctx context.Context) error {
	return l.g.call(ctx, "RequestCancel", func() error { return l.Log.RequestCancel(ctx) })
}

func (l *gatedLog) Acquire(ctx context.Context, owner string, ttl time.Duration) (f relay.Fence, err error) {
	err = l.g.call(ctx, "Acquire", func() (err error) { f, err = l.Log.Acquire(ctx, owner, ttl); return err })
	return f, err
}

func (l *gatedLog) Renew(ctx context.Context, f relay.Fence, ttl time.Duration) error {
	return l.g.call(ctx, "Renew", func() error { return l.Log.Renew(ctx, f, ttl) })
}

func (l *gatedLog) Release(ctx context.Context, f relay.Fence) error {
	return l.g.call(ctx, "Release", func() error { return l.Log.Release(ctx, f) })
}
