package relay

import (
	"context"
	"sync"
)

// One wait on the store per log per process: the readers of one stream
// that a Handler serves wait for its next entry together. The first
// reader of a log starts a waiter, which makes the log's AwaitEntry calls
// on its own goroutine and wakes every reader of the log when one returns;
// the last reader to leave stops it. A store that pays for each wait
// (Redis's looks at the log when a note wakes it; the waits of every log
// share one connection there) then pays once per stream however many
// browsers watch it.

// waitKey names a log: its key and its epoch, since a log lost and made
// afresh under the same key is another log.
type waitKey struct{ key, epoch string }

// waiters are a Handler's waiters, one per log that readers follow. Its
// zero value is ready.
type waiters struct {
	mu sync.Mutex
	m  map[waitKey]*waiter
}

// waiter is the one wait on a log. Its fields are guarded by waiters.mu.
type waiter struct {
	tail    uint64        // the log holds entries through tail, as far as the waiter knows
	err     error         // the wait failed, and the waiter ended
	wake    chan struct{} // closed when tail grows or the wait fails, then replaced
	readers int
	stop    context.CancelFunc
}

// follower is one reader's hold on the waiter of its log.
type follower struct {
	ws  *waiters
	k   waitKey
	log Log
	w   *waiter
}

// follow makes a reader of log, named k, that has read through after a
// follower of the log's waiter. Leave ends it.
func (ws *waiters) follow(k waitKey, log Log, after uint64) *follower {
	f := &follower{ws: ws, k: k, log: log}
	ws.mu.Lock()
	f.join(after)
	ws.mu.Unlock()
	return f
}

// join attaches f to its log's waiter, starting one if there is none.
// Under ws.mu.
func (f *follower) join(after uint64) {
	ws := f.ws
	w := ws.m[f.k]
	if w == nil {
		ctx, stop := context.WithCancel(context.Background())
		w = &waiter{tail: after, wake: make(chan struct{}), stop: stop}
		if ws.m == nil {
			ws.m = make(map[waitKey]*waiter)
		}
		ws.m[f.k] = w
		go ws.run(ctx, f.k, w, f.log, after)
	}
	w.readers++
	f.w = w
}

// detach takes f off its waiter, and stops the waiter when f was its last
// reader. Under ws.mu.
func (f *follower) detach() {
	w := f.w
	w.readers--
	if w.readers == 0 {
		w.stop()
		if f.ws.m[f.k] == w {
			delete(f.ws.m, f.k)
		}
	}
}

// leave ends f.
func (f *follower) leave() {
	f.ws.mu.Lock()
	f.detach()
	f.ws.mu.Unlock()
}

// await returns nil once the log holds an entry after after; the store's
// error when the waiter's wait failed (the next await joins another); or
// ctx's error.
func (f *follower) await(ctx context.Context, after uint64) error {
	ws := f.ws
	ws.mu.Lock()
	if f.w.err != nil {
		f.detach()
		f.join(after)
	}
	w := f.w
	for {
		if w.tail > after {
			ws.mu.Unlock()
			return nil
		}
		if w.err != nil {
			ws.mu.Unlock()
			return w.err
		}
		wake := w.wake
		ws.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
		ws.mu.Lock()
	}
}

// run is w's wait: AwaitEntry after the tail it knows, then the log's
// tail, and every reader woken; until w is stopped, or the store fails,
// which ends w (its readers get the error).
func (ws *waiters) run(ctx context.Context, k waitKey, w *waiter, log Log, seen uint64) {
	for {
		err := log.AwaitEntry(ctx, seen)
		var tail uint64
		if err == nil {
			tail, err = log.Tail(ctx)
		}
		if ctx.Err() != nil {
			return // stopped: its readers are gone
		}
		ws.mu.Lock()
		if err != nil {
			w.err = err
			if ws.m[k] == w {
				delete(ws.m, k)
			}
		} else if tail > w.tail {
			w.tail = tail
		}
		close(w.wake)
		w.wake = make(chan struct{})
		seen = w.tail
		ws.mu.Unlock()
		if err != nil {
			return
		}
	}
}
