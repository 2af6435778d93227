package redisrelay_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay"
)

// inflight is a go-redis hook that counts the commands and pipelines under way
// on a client's pool, and the most seen at once.
type inflight struct {
	now, max atomic.Int64
	calls    atomic.Int64
	single   atomic.Int64 // scripts sent alone, not in a pipeline
	piped    atomic.Int64 // scripts sent in pipelines

	armed atomic.Bool // counts only once armed, and only scripts (not a new connection's handshake)
	all   bool        // counts every command but a new connection's handshake, not only scripts

	mu      sync.Mutex
	under   map[int64]string
	id      int64
	overlap []string // what was under way each time more than one call was
	sent    []string // the first 50 calls counted
}

func (h *inflight) enter(what string) func() {
	h.mu.Lock()
	if h.under == nil {
		h.under = map[int64]string{}
	}
	h.id++
	id := h.id
	h.under[id] = what
	if len(h.sent) < 50 {
		h.sent = append(h.sent, time.Now().Format("05.000")+" "+what)
	}
	if len(h.under) > 1 && len(h.overlap) < 10 {
		s := ""
		for _, w := range h.under {
			s += "[" + w + "] "
		}
		h.overlap = append(h.overlap, s)
	}
	h.mu.Unlock()
	defer h.bump()
	return func() {
		h.mu.Lock()
		delete(h.under, id)
		h.mu.Unlock()
		h.now.Add(-1)
	}
}

func (h *inflight) bump() {
	n := h.now.Add(1)
	h.calls.Add(1)
	for {
		m := h.max.Load()
		if n <= m || h.max.CompareAndSwap(m, n) {
			return
		}
	}
}

func (h *inflight) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *inflight) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !h.armed.Load() || !h.counts(cmd) {
			return next(ctx, cmd)
		}
		h.single.Add(1)
		defer h.enter(fmt.Sprint(cmd.Args()...)[:min(60, len(fmt.Sprint(cmd.Args()...)))])()
		return next(ctx, cmd)
	}
}
func (h *inflight) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if !h.armed.Load() || !h.counts(cmds[0]) {
			return next(ctx, cmds)
		}
		h.piped.Add(int64(len(cmds)))
		defer h.enter(fmt.Sprintf("pipeline of %d, first %.40s", len(cmds), fmt.Sprint(cmds[0].Args()...)))()
		return next(ctx, cmds)
	}
}

func (h *inflight) counts(cmd redis.Cmder) bool {
	if h.all {
		n := cmd.Name()
		return n != "hello" && n != "client" && n != "auth" && n != "select"
	}
	return isScript(cmd)
}

func isScript(cmd redis.Cmder) bool {
	n := cmd.Name()
	return n == "evalsha" || n == "eval" || n == "evalsha_ro" || n == "eval_ro"
}

// TestStrangerWaitsOfAThousandStreamsHoldOnePooledConnectionAcrossARestart:
// the waits of 1,000 streams on one store (its client doing nothing else once
// the logs are open) never have more than one call under way on the pool,
// while they start together, while Redis is killed and comes back, and while
// every stream gets an entry; and every wait returns once, for its entry.
func TestStrangerWaitsOfAThousandStreamsHoldOnePooledConnectionAcrossARestart(t *testing.T) {
	const streams = 1000
	srv := startStrangerRedis(t)
	wc := srv.Client(t, &redis.Options{PoolSize: 20})
	writer, err := redisrelay.New(wc, redisrelay.WithPrefix("rt"))
	require.NoError(t, err)
	hook := &inflight{}
	rc := srv.Client(t, &redis.Options{PoolSize: 50})
	rc.AddHook(hook)
	sig := &signal{}
	looks := newScriptWatch(sig)
	rc.AddHook(looks)
	waiter, err := redisrelay.New(rc, redisrelay.WithPrefix("rt"), redisrelay.WithWake(200*time.Millisecond))
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	drivers := make([]*strangerDriver, streams)
	logs := make([]relay.Log, streams)
	for i := range streams {
		drivers[i] = newStrangerDriver(t, ctx, writer, fmt.Sprintf("s%d", i))
		logs[i], err = waiter.Open(ctx, fmt.Sprintf("s%d", i))
		require.NoError(t, err)
	}
	hook.armed.Store(true)

	var woke, failed atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, streams)
	for i := range streams {
		wg.Go(func() {
			for {
				err := logs[i].AwaitEntry(ctx, 0)
				if err == nil {
					woke.Add(1)
					return
				}
				if ctx.Err() != nil {
					errs <- fmt.Errorf("stream %d: %w", i, err)
					return
				}
				failed.Add(1) // Redis was down: wait again, as a Handler would
				sig.fire()
			}
		})
	}
	// Let the waits start, then kill Redis, and bring it back once a wait
	// failed (a batch of looks: go-redis's retries take a second or two);
	// then let every wait look again.
	all := names(0, streams)
	sig.waitFor(t, ctx, "a look of every wait", func() bool { return looks.lookedAll(1, all...) })
	srv.Kill()
	sig.waitFor(t, ctx, "a wait failed, Redis down", func() bool { return failed.Load() > 0 })
	srv.Restart()
	restarted := looks.looks()
	sig.waitFor(t, ctx, "a look of every wait, Redis back", func() bool { return looks.lookedSince(restarted, all...) })
	require.Zero(t, woke.Load(), "a wait returned before any entry")
	for i := range streams {
		for {
			if err := drivers[i].commit(ctx); err == nil {
				break
			}
			require.NoError(t, ctx.Err())
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.EqualValues(t, streams, woke.Load())
	t.Logf("waits that failed while Redis was down: %d; calls on the pool: %d (scripts alone %d, in pipelines %d); most at once: %d",
		failed.Load(), hook.calls.Load(), hook.single.Load(), hook.piped.Load(), hook.max.Load())
	require.LessOrEqual(t, hook.max.Load(), int64(1), "the waits' looks held more than one pooled connection at once: %q", hook.overlap)
}
