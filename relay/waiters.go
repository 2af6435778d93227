package relay

import (
	"context"
	"errors"
	"sync"
)

// One wait and one read on the store per log per process: the readers of
// one stream that a Handler serves wait for its next entries together, and
// take them from memory. The first reader of a log starts a waiter, which
// makes the log's AwaitEntry and Read calls on its own goroutine: when the
// log grows, it reads the new entries once, in pages, keeps the newest in
// the log's window (window.go says how many) and wakes every reader of the
// log, a few at a time (turns.go), so that the fan-out never stands between
// the process and its other work. A reader whose position is in the window takes its page from there;
// one behind it (resuming from an old Last-Event-ID, or slow) reads the
// store itself, as does every reader while its waiter has failed. The
// waiter never waits for a reader, so a slow one holds no other back. The
// last reader to leave stops the waiter and frees its window. A store that
// pays for each wait and read (Redis's; the calls of every log share one
// connection pool there, with the driver's commits) then pays once per
// stream however many browsers watch it.

// waitKey names a log: its key and its epoch, since a log lost and made
// afresh under the same key is another log.
type waitKey struct{ key, epoch string }

// waiters are a Handler's waiters, one per log that readers follow.
type waiters struct {
	page  int // entries per read: the Handler's page size
	turns int // readers woken at once, at most (turns.go)

	mu    sync.Mutex
	m     map[waitKey]*waiter
	bytes int // held by the windows of every waiter, at most handlerWindowBytes
	queue turnQueue
}

func newWaiters(page, turns int) *waiters { return &waiters{page: page, turns: turns} }

// waiter is the one wait on a log. Its fields are guarded by waiters.mu.
type waiter struct {
	win      window  // the newest entries read; its tail is as far as the waiter knows the log
	err      error   // the wait failed, and the waiter ended
	sleepers tickets // the readers asleep until the window's tail grows or the wait fails
	readers  int
	stop     context.CancelFunc
}

// follower is one reader's hold on the waiter of its log.
type follower struct {
	ws  *waiters
	k   waitKey
	log Log
	w   *waiter
	// started is set once the reader read its first page, which it reads
	// from the store: a store that fails is seen at once.
	started bool
	// Its place in the wakes (turns.go), guarded by waiters.mu.
	state turnState
	gen   uint64        // counts its sleeps: a ticket of an earlier one is void
	woken chan struct{} // takes the turn it is given; capacity 1
}

// follow makes a reader of log, named k, a follower of the log's waiter;
// a new waiter's window starts after Seq tail, the log's tail as the
// reader saw it. Leave ends it.
func (ws *waiters) follow(k waitKey, log Log, tail uint64) *follower {
	f := &follower{ws: ws, k: k, log: log, woken: make(chan struct{}, 1)}
	ws.mu.Lock()
	f.join(tail)
	ws.mu.Unlock()
	return f
}

// join attaches f to its log's waiter, starting one, whose window starts
// after Seq tail, if there is none. Under ws.mu.
func (f *follower) join(tail uint64) {
	ws := f.ws
	w := ws.m[f.k]
	if w == nil {
		ctx, stop := context.WithCancel(context.Background())
		w = &waiter{win: window{base: tail}, stop: stop}
		if ws.m == nil {
			ws.m = make(map[waitKey]*waiter)
		}
		ws.m[f.k] = w
		go ws.run(ctx, f.k, w, f.log, tail)
	}
	w.readers++
	f.w = w
}

// detach takes f off its waiter, and stops the waiter and frees its window
// when f was its last reader. Under ws.mu.
func (f *follower) detach() {
	w := f.w
	w.readers--
	if w.readers == 0 {
		w.stop()
		f.ws.end(f.k, w)
	}
}

// end takes w out of the map and frees its window. Under ws.mu.
func (ws *waiters) end(k waitKey, w *waiter) {
	if ws.m[k] == w {
		delete(ws.m, k)
	}
	ws.bytes -= w.win.bytes
	w.win.reset(w.win.tail())
}

// leave ends f, and passes its turn on if it holds one.
func (f *follower) leave() {
	f.ws.mu.Lock()
	f.settle()
	f.detach()
	f.ws.mu.Unlock()
}

// read returns, in order, up to max entries after Seq after: from the
// window when it says what follows after; from the store (Log.Read) for
// the reader's first page, and when the window cannot say. An empty page
// from the window means the waiter knows of no entry after after yet:
// await says when it does. A reader that holds a turn (await returned
// with one) passes it on here, before it writes what it read.
func (f *follower) read(ctx context.Context, after uint64, max int) ([]Entry, error) {
	f.ws.mu.Lock()
	f.settle()
	if !f.started {
		f.started = true
		f.ws.mu.Unlock()
		return f.log.Read(ctx, after, max)
	}
	var (
		es []Entry
		ok bool
	)
	if f.w.err == nil {
		es, ok = f.w.win.page(after, max)
	}
	f.ws.mu.Unlock()
	if ok {
		return es, nil
	}
	return f.log.Read(ctx, after, max)
}

// await returns nil once the waiter knows of an entry after after; the
// store's error when the waiter's wait failed (the next await joins
// another); or ctx's error. When it had to sleep, it returns nil holding
// a turn (turns.go), which the next read passes on.
func (f *follower) await(ctx context.Context, after uint64) error {
	ws := f.ws
	ws.mu.Lock()
	f.settle()
	if f.w.err != nil {
		start := max(after, f.w.win.tail())
		f.detach()
		f.join(start)
	}
	for {
		w := f.w
		if w.win.tail() > after {
			ws.mu.Unlock()
			return nil
		}
		if w.err != nil {
			f.settle()
			ws.mu.Unlock()
			return w.err
		}
		f.sleep()
		ws.mu.Unlock()
		select {
		case <-f.woken:
			ws.mu.Lock()
		case <-ctx.Done():
			ws.mu.Lock()
			f.settle()
			ws.mu.Unlock()
			return ctx.Err()
		}
	}
}

// run is w's wait: AwaitEntry after the last entry it read, then Read
// the new entries in pages into the window, waking every reader after
// each; until w is stopped, or the store fails, which ends w (its readers
// get the error, and read the store themselves).
func (ws *waiters) run(ctx context.Context, k waitKey, w *waiter, log Log, seen uint64) {
	for {
		err := log.AwaitEntry(ctx, seen)
		for err == nil {
			var es []Entry
			es, err = log.Read(ctx, seen, ws.page)
			if errors.Is(err, ErrGone) {
				// Trimmed past what w read: start again at the tail,
				// and let the readers behind read the store.
				var tail uint64
				if tail, err = log.Tail(ctx); err == nil {
					seen = ws.restart(ctx, w, tail)
				}
				break
			}
			if err != nil || len(es) == 0 {
				break
			}
			seen = ws.grow(ctx, w, es)
			if len(es) < ws.page {
				break
			}
		}
		if ctx.Err() != nil {
			return // stopped: its readers are gone
		}
		if err != nil {
			ws.mu.Lock()
			if ctx.Err() == nil {
				w.err = err
				ws.end(k, w)
				ws.wakeAll(w)
			}
			ws.mu.Unlock()
			return
		}
	}
}

// grow adds es, read after the window's tail, to w's window within its
// bounds and the Handler's, wakes w's readers, and returns the Seq
// through which w has read.
func (ws *waiters) grow(ctx context.Context, w *waiter, es []Entry) uint64 {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ctx.Err() == nil { // not stopped: the window is still counted
		ws.bytes += w.win.add(es, windowPages*ws.page, windowBytes, handlerWindowBytes-ws.bytes)
		ws.wakeAll(w)
	}
	return es[len(es)-1].Seq
}

// restart empties w's window, which then starts after Seq tail, and wakes
// w's readers.
func (ws *waiters) restart(ctx context.Context, w *waiter, tail uint64) uint64 {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ctx.Err() == nil {
		ws.bytes -= w.win.bytes
		w.win.reset(max(tail, w.win.tail()))
		ws.wakeAll(w)
	}
	return max(tail, w.win.tail())
}

// wakeAll wakes w's readers, a few at a time (turns.go). Under
// waiters.mu.
func (ws *waiters) wakeAll(w *waiter) {
	ws.queue.take(&w.sleepers)
	ws.dispatch()
}
