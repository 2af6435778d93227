package relay

import "context"

// A Handler's calls to its store pass through a gate of a few slots
// (WithStoreCalls), its waits on the store aside. A store's client has a
// pool of connections that the drivers of the same process use too: their
// commits and, above all, their lease renewals. Browsers can each make a
// read at any moment (a crowd reconnecting after a deploy, or many reading
// a long stream from far back), and without a bound they would take every
// connection, so that a driver, waiting for one, lost its lease. With the
// gate the browsers' calls queue in the process instead, and the Handler
// never holds more than its slots of the pool.

// Each call runs on a goroutine of its own, which ends with it, while the
// browser's goroutine waits. A store's client goes deep (redisrelay:
// go-redis, its hooks, its pool, a script), and the stack of the goroutine
// that calls it grows to fit and stays grown while the browser waits for
// the next entry: measured with 10,000 idle browsers of one stream over
// h2c (the bench's relay-scale suite), 16.9 KiB per browser on Redis with
// the calls on the browsers' goroutines, 12.8 KiB with the calls on their
// own (11.9 KiB on MemoryStore, whose calls are shallow). The hop costs a
// goroutine's start per call, and a browser following its stream makes no
// call: it takes its pages from the Handler's memory.

// storeGate is the slots of a Handler's store calls.
type storeGate chan struct{}

// gated runs call in a slot of g, once one is free or ctx ends, on a
// goroutine of its own, and returns what it returns.
func gated[T any](ctx context.Context, g storeGate, call func() (T, error)) (T, error) {
	select {
	case g <- struct{}{}:
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
	defer func() { <-g }()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := call()
		done <- result{v, err}
	}()
	r := <-done
	return r.v, r.err
}

// open opens the log of key in a slot, and returns it gated.
func (h *Handler) open(ctx context.Context, key string) (Log, error) {
	log, err := gated(ctx, h.gate, func() (Log, error) { return h.store.Open(ctx, key) })
	if err != nil {
		return nil, err
	}
	return gatedLog{Log: log, g: h.gate}, nil
}

// gatedLog is a Log whose calls the Handler makes take a slot of its gate;
// AwaitEntry, a wait, does not (a store waits outside its pool of
// connections: redisrelay on one Pub/Sub connection, MemoryStore in
// memory).
type gatedLog struct {
	Log
	g storeGate
}

func (l gatedLog) Read(ctx context.Context, after uint64, max int) ([]Entry, error) {
	return gated(ctx, l.g, func() ([]Entry, error) { return l.Log.Read(ctx, after, max) })
}

func (l gatedLog) Tail(ctx context.Context) (uint64, error) {
	return gated(ctx, l.g, func() (uint64, error) { return l.Log.Tail(ctx) })
}

func (l gatedLog) LoadSnapshot(ctx context.Context) (Snapshot, error) {
	return gated(ctx, l.g, func() (Snapshot, error) { return l.Log.LoadSnapshot(ctx) })
}

func (l gatedLog) Attach(ctx context.Context, max int) (Snapshot, []Entry, error) {
	type attached struct {
		s  Snapshot
		es []Entry
	}
	a, err := gated(ctx, l.g, func() (attached, error) {
		s, es, err := l.Log.Attach(ctx, max)
		return attached{s, es}, err
	})
	return a.s, a.es, err
}

func (l gatedLog) LoadCheckpoint(ctx context.Context) ([]byte, error) {
	return gated(ctx, l.g, func() ([]byte, error) { return l.Log.LoadCheckpoint(ctx) })
}

func (l gatedLog) PostAnswer(ctx context.Context, a Answer) (Answer, error) {
	return gated(ctx, l.g, func() (Answer, error) { return l.Log.PostAnswer(ctx, a) })
}

func (l gatedLog) LoadAnswer(ctx context.Context, prompt uint64) (Answer, bool, error) {
	type loaded struct {
		a  Answer
		ok bool
	}
	r, err := gated(ctx, l.g, func() (loaded, error) {
		a, ok, err := l.Log.LoadAnswer(ctx, prompt)
		return loaded{a, ok}, err
	})
	return r.a, r.ok, err
}

func (l gatedLog) RequestCancel(ctx context.Context) error {
	_, err := gated(ctx, l.g, func() (struct{}, error) { return struct{}{}, l.Log.RequestCancel(ctx) })
	return err
}
