package redisrelay

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// The looks of a store's waits (the short script a wait runs when it
// starts, at a note or a confirmation of its channel, and every wake
// interval) go to Redis in batches: one pipeline at a time, on one
// connection of the client's pool, however many waits look at once. The
// browsers of ten thousand streams that come back together, or a Pub/Sub
// reconnection that wakes every wait, then cost the pool one connection
// and a few round trips, not a connection for each stream, and the
// drivers' writes find the rest of the pool free.

// maxLookBatch is the most looks one pipeline carries.
const maxLookBatch = 256

// looker sends a store's looks in batches. At most one goroutine sends
// them; it starts with the first look of a quiet queue and ends when the
// queue is empty.
type looker struct {
	client redis.UniversalClient
	hook   func(batch int) // tests only: called with the size of each batch sent

	mu      sync.Mutex
	queue   []*lookReq
	sending bool // a goroutine sends the queue
}

// lookReq is one look, queued until its batch has been answered.
type lookReq struct {
	ctx    context.Context // the wait's: a look whose wait has gone is not sent
	script *redis.Script
	keys   []string
	args   []any
	v      any   // the script's answer, set before done is closed
	err    error // or its error
	done   chan struct{}
}

// start queues a look that runs script with keys and args in the next
// batch, and returns it: its done channel is closed once it is answered,
// or at once when ctx is already done.
func (k *looker) start(ctx context.Context, script *redis.Script, keys []string, args ...any) *lookReq {
	r := &lookReq{ctx: ctx, script: script, keys: keys, args: args, done: make(chan struct{})}
	if r.err = ctx.Err(); r.err != nil {
		close(r.done)
		return r
	}
	k.mu.Lock()
	k.queue = append(k.queue, r)
	start := !k.sending
	k.sending = true
	k.mu.Unlock()
	if start {
		go k.send()
	}
	return r
}

// reply returns the answer of a look that is done, split as run splits
// it.
func (r *lookReq) reply() ([]any, error) { return splitReply(r.v, r.err, nil) }

// send sends the queue's looks, a batch at a time, until it is empty.
func (k *looker) send() {
	for {
		k.mu.Lock()
		n := min(len(k.queue), maxLookBatch)
		if n == 0 {
			k.sending = false
			k.queue = nil
			k.mu.Unlock()
			return
		}
		batch := k.queue[:n:n]
		k.queue = k.queue[n:]
		k.mu.Unlock()
		k.sendBatch(batch)
		clear(batch) // the queue's array may live on: keep no answered look
	}
}

// sendBatch runs the looks of batch whose waits are still there in one
// pipeline (EVALSHA; then EVAL, in a second one, for those Redis had no
// script for and whose waits are still there), and answers each. A
// pipeline not yet sent when every one of those waits has gone is not
// sent; one under way is waited for (on a stalled connection, until
// go-redis's ReadTimeout), which holds back the later looks, though no
// wait whose note came.
func (k *looker) sendBatch(batch []*lookReq) {
	var live []*lookReq
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.err = err
			close(r.done)
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	if k.hook != nil {
		k.hook(len(live))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var left atomic.Int64
	left.Store(int64(len(live)))
	for _, r := range live {
		stop := context.AfterFunc(r.ctx, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		})
		defer stop()
	}
	cmds := make([]*redis.Cmd, len(live))
	pipe := k.client.Pipeline()
	for i, r := range live {
		cmds[i] = r.script.EvalSha(ctx, pipe, r.keys, r.args...)
	}
	_, _ = pipe.Exec(ctx) // each command keeps its own answer or error
	var again redis.Pipeliner
	for i, c := range cmds {
		// A look whose wait went while the batch was under way is not
		// sent again: its answer is read by no one.
		if redis.HasErrorPrefix(c.Err(), "NOSCRIPT") && live[i].ctx.Err() == nil {
			if again == nil {
				again = k.client.Pipeline()
			}
			cmds[i] = live[i].script.Eval(ctx, again, live[i].keys, live[i].args...)
		}
	}
	if again != nil {
		_, _ = again.Exec(ctx)
	}
	for i, r := range live {
		r.v, r.err = cmds[i].Result()
		close(r.done)
	}
}
