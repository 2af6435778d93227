package redisrelay

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay/internal/redistest"
)

// benchEntriesPerRound is how many entries each writer appends in one
// round of BenchmarkCommit.
const benchEntriesPerRound = 4096

// benchWriter is one of the writers BenchmarkCommit compares: start opens
// a log of its own under key and returns the function that appends the
// entries of one delta to it.
type benchWriter struct {
	name  string
	top   []string // the commands whose time in Redis is the writer's (INFO commandstats)
	start func(b *testing.B, key string) func(ctx context.Context, es []relay.Entry) error
}

// BenchmarkCommit measures the entries a second that Commit appends, in
// deltas of 1 and of 16 entries of 200 bytes without a checkpoint, against
// the append script of the version that read the tail with XINFO STREAM
// ("xinfo", the same Commit otherwise) and against raw XADDs of the same
// entries at the same IDs, one pipeline a delta ("xadd"), on the same
// redis-server. Each iteration is a round in which each writer appends
// benchEntriesPerRound entries to a log of its own, in an order that
// rotates from round to round, so that the machine's noise falls on all
// three. It reports, per writer, the median entries/s and two costs per
// entry in Redis, which leave out the client and the round trip (a busy
// machine inflates them too, less): the µs spent in the writer's commands
// (INFO commandstats: EVALSHA with all it calls, or XADD) and
// redis-server's CPU time (INFO cpu, with reading and answering the
// calls); then the medians of the per-round ratios ("commit/xinfo" of
// entries/s, "commit/xinfo-cmd-us" of the µs in the commands, and so on).
// -v logs every round and the spread. The figures are only as steady as
// the machine: run it on an idle one, with several rounds:
//
//	cd relay/redisrelay && go test -run '^$' -bench BenchmarkCommit -benchtime 9x -count 1 -v .
func BenchmarkCommit(b *testing.B) {
	srv := redistest.Start(b)
	c := srv.Client(b, nil)
	st := newStore(b, c)
	data := bytes.Repeat([]byte("x"), 200)
	copy(data, `{"text":"`)
	data[len(data)-2], data[len(data)-1] = '"', '}'

	opened := func(b *testing.B, key string) (*log, relay.Fence) {
		l, err := st.Open(b.Context(), key)
		require.NoError(b, err)
		f, err := l.Acquire(b.Context(), "driver", time.Hour)
		require.NoError(b, err)
		return l.(*log), f
	}
	writers := []benchWriter{
		{name: "commit", top: []string{"evalsha", "eval"}, start: func(b *testing.B, key string) func(context.Context, []relay.Entry) error {
			l, f := opened(b, key)
			return func(ctx context.Context, es []relay.Entry) error { return l.Commit(ctx, f, nil, es...) }
		}},
		{name: "xinfo", top: []string{"evalsha", "eval"}, start: func(b *testing.B, key string) func(context.Context, []relay.Entry) error {
			l, f := opened(b, key)
			old := newV1(l)
			return func(ctx context.Context, es []relay.Entry) error { return old.Commit(ctx, f, nil, es...) }
		}},
		{name: "xadd", top: []string{"xadd"}, start: func(b *testing.B, key string) func(context.Context, []relay.Entry) error {
			stream := keysOf(defaultConfig().prefix, key).log
			return func(ctx context.Context, es []relay.Entry) error {
				_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
					for _, e := range es {
						p.XAdd(ctx, &redis.XAddArgs{Stream: stream, ID: "0-" + strconv.FormatUint(e.Seq, 10), Values: []any{"n", e.Name, "d", e.Data}})
					}
					return nil
				})
				return err
			}
		}},
	}

	for _, delta := range []int{1, 16} {
		b.Run(fmt.Sprintf("delta=%d", delta), func(b *testing.B) {
			ctx := b.Context()
			rates := make([][]float64, len(writers))   // entries/s, per writer per round
			inRedis := make([][]float64, len(writers)) // µs in the writer's commands per entry
			cpu := make([][]float64, len(writers))     // µs of redis-server's CPU per entry
			round := 0
			es := make([]relay.Entry, delta)
			for b.Loop() {
				for i := range writers {
					w := (i + round) % len(writers)
					require.NoError(b, c.FlushAll(ctx).Err())
					commit := writers[w].start(b, fmt.Sprintf("bench-%s-%d", writers[w].name, round))
					require.NoError(b, c.ConfigResetStat(ctx).Err())
					cpuBefore := redisCPU(b, c)
					began := time.Now()
					for seq := 1; seq <= benchEntriesPerRound; seq += delta {
						for j := range es {
							es[j] = relay.Entry{Seq: uint64(seq + j), Name: "delta", Data: data}
						}
						require.NoError(b, commit(ctx, es))
					}
					took := time.Since(began)
					cpu[w] = append(cpu[w], (redisCPU(b, c)-cpuBefore)/benchEntriesPerRound)
					rates[w] = append(rates[w], benchEntriesPerRound/took.Seconds())
					inRedis[w] = append(inRedis[w], commandMicros(b, c, writers[w].top)/benchEntriesPerRound)
				}
				round++
			}
			for w, wr := range writers {
				r, u, p := sorted(rates[w]), sorted(inRedis[w]), sorted(cpu[w])
				b.ReportMetric(median(r), wr.name+"-entries/s")
				b.ReportMetric(median(u), wr.name+"-cmd-us/entry")
				b.ReportMetric(median(p), wr.name+"-redis-cpu-us/entry")
				b.Logf("%-6s entries/s median %6.0f (min %6.0f, max %6.0f), rounds %v", wr.name, median(r), r[0], r[len(r)-1], rounded(rates[w]))
				b.Logf("%-6s µs/entry in its commands median %5.2f (min %5.2f, max %5.2f); redis-server CPU µs/entry median %5.2f (min %5.2f, max %5.2f)",
					wr.name, median(u), u[0], u[len(u)-1], median(p), p[0], p[len(p)-1])
			}
			for _, pair := range [][2]int{{0, 1}, {0, 2}} {
				name := writers[pair[0]].name + "/" + writers[pair[1]].name
				for _, m := range []struct {
					what, unit string
					v          [][]float64
				}{{"entries/s", "", rates}, {"µs in Redis's commands", "-cmd-us", inRedis}, {"redis-server CPU µs", "-redis-cpu-us", cpu}} {
					ratios := make([]float64, len(m.v[0]))
					for i := range ratios {
						ratios[i] = m.v[pair[0]][i] / m.v[pair[1]][i]
					}
					r := sorted(ratios)
					b.ReportMetric(median(r), name+m.unit)
					b.Logf("%-13s %s per round: median %.2f (min %.2f, max %.2f)", name, m.what, median(r), r[0], r[len(r)-1])
				}
			}
		})
	}
}

// redisCPU is the CPU time redis-server used so far, in µs (INFO cpu:
// used_cpu_user and used_cpu_sys), which a busy machine inflates less
// than a wall clock.
func redisCPU(b *testing.B, c redis.UniversalClient) float64 {
	info, err := c.Info(b.Context(), "cpu").Result()
	require.NoError(b, err)
	var sum float64
	for line := range strings.SplitSeq(info, "\n") {
		name, v, _ := strings.Cut(strings.TrimSpace(line), ":")
		if name == "used_cpu_user" || name == "used_cpu_sys" {
			n, err := strconv.ParseFloat(v, 64)
			require.NoError(b, err, "INFO cpu: %s", line)
			sum += n * 1e6
		}
	}
	return sum
}

// commandMicros sums the µs Redis spent in the named commands since the
// last CONFIG RESETSTAT, from INFO commandstats.
func commandMicros(b *testing.B, c redis.UniversalClient, names []string) float64 {
	info, err := c.Info(b.Context(), "commandstats").Result()
	require.NoError(b, err)
	var sum float64
	for line := range strings.SplitSeq(info, "\n") {
		name, fields, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !slices.Contains(names, strings.TrimPrefix(name, "cmdstat_")) {
			continue
		}
		for f := range strings.SplitSeq(fields, ",") {
			if v, ok := strings.CutPrefix(f, "usec="); ok {
				n, err := strconv.ParseFloat(v, 64)
				require.NoError(b, err, "INFO commandstats: %s", line)
				sum += n
			}
		}
	}
	return sum
}

func sorted(v []float64) []float64 { s := slices.Clone(v); slices.Sort(s); return s }

func median(s []float64) float64 {
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func rounded(v []float64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x + 0.5)
	}
	return out
}

// BenchmarkCommitWhileWaiting measures the latency of a driver's Commit
// of one entry on a client whose pool has 20 connections (go-redis's
// default on two CPUs), with no wait under way ("waits=0"), with 1,000
// logs each with an AwaitEntry under way ("waits=1000": the driver
// commits to a log of its own; "waits=1000-woken": it commits to the
// waited logs in turn, so that each Commit wakes one wait, which looks
// and waits again), and with 1,000 waits of the version before, which
// held a pooled connection each in XREAD BLOCK for the wake interval
// ("waits=1000-xread"). It reports the median, p99 and max latency, and
// per Commit the waits for a pooled connection and the pool's timeouts
// (a Commit that timed out after go-redis's pool timeout, 4 s, is counted
// with its latency, and sent again at the next iteration). The figures
// are only as steady as the machine:
//
//	cd relay/redisrelay && go test -run '^$' -bench BenchmarkCommitWhileWaiting -benchtime 2000x -count 1 .
//
// (With the XREAD BLOCK waits, a Commit waits behind them for the pool
// and times out: give that one -benchtime 5x.)
func BenchmarkCommitWhileWaiting(b *testing.B) {
	srv := redistest.Start(b)
	admin := srv.Client(b, nil)
	const waits = 1000
	for _, tc := range []struct {
		name  string
		waits int
		woken bool
		xread bool
	}{
		{name: "waits=0"},
		{name: "waits=1000", waits: waits},
		{name: "waits=1000-woken", waits: waits, woken: true},
		{name: "waits=1000-xread", waits: waits, xread: true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := b.Context()
			require.NoError(b, admin.FlushAll(ctx).Err())
			c := redis.NewClient(&redis.Options{Addr: srv.Addr(), PoolSize: 20})
			defer func() { _ = c.Close() }()
			st := newStore(b, c)
			var confirmed atomic.Int64
			st.(*store).hub.hook = func(_ context.Context, point string) {
				if point == "confirmed" {
					confirmed.Add(1)
				}
			}

			type target struct {
				l    *log
				f    relay.Fence
				next uint64
			}
			var waited []*target
			wctx, stop := context.WithCancel(ctx)
			var wg sync.WaitGroup
			defer wg.Wait()
			defer stop()
			for i := range tc.waits {
				l, f := openDriven(b, st, fmt.Sprintf("w%d", i))
				waited = append(waited, &target{l: l, f: f, next: 1})
			}
			own := func() *target { l, f := openDriven(b, st, "driver"); return &target{l: l, f: f, next: 1} }()
			for _, t := range waited {
				l := t.l
				wg.Go(func() {
					var seen uint64
					for wctx.Err() == nil {
						if tc.xread {
							_ = xreadAwaitEntry(wctx, l, seen)
						} else if l.AwaitEntry(wctx, seen) == nil {
							seen++
						}
					}
				})
			}
			if tc.waits > 0 && !tc.xread {
				// Measured once every wait is under way and has looked
				// after its subscription's confirmation.
				awaitSubscribed(b, admin, tc.waits)
				awaitSettled(b, c, func() bool { return confirmed.Load() >= int64(tc.waits) })
			}
			before := c.PoolStats()
			var lat []time.Duration
			i, timeouts := 0, 0
			for b.Loop() {
				t := own
				if tc.woken {
					t = waited[i%len(waited)]
					i++
				}
				began := time.Now()
				err := t.l.Commit(ctx, t.f, nil, relay.Entry{Seq: t.next, Name: "delta", Data: []byte(`{"text":"x"}`)})
				lat = append(lat, time.Since(began))
				if err != nil {
					// Sent again at the next iteration: behind a queue of
					// waits, a Commit may time out again and again.
					require.ErrorIs(b, err, redis.ErrPoolTimeout)
					timeouts++
					continue
				}
				t.next++
			}
			after := c.PoolStats()
			s := slices.Clone(lat)
			slices.Sort(s)
			b.ReportMetric(float64(s[len(s)/2].Microseconds()), "p50-us")
			b.ReportMetric(float64(s[len(s)*99/100].Microseconds()), "p99-us")
			b.ReportMetric(float64(s[len(s)-1].Microseconds()), "max-us")
			b.ReportMetric(float64(after.WaitCount-before.WaitCount)/float64(len(lat)), "pool-waits/commit")
			b.ReportMetric(float64(timeouts)/float64(len(lat)), "timeouts/commit")
			b.ReportMetric(float64(after.PubSubStats.Active), "pubsub-conns")
		})
	}
}

// openDriven opens key on st and acquires its lease for "driver".
func openDriven(b *testing.B, st relay.Store, key string) (*log, relay.Fence) {
	l, err := st.Open(b.Context(), key)
	require.NoError(b, err)
	f, err := l.Acquire(b.Context(), "driver", time.Hour)
	require.NoError(b, err)
	return l.(*log), f
}

// xreadAwaitEntry is AwaitEntry as the version before made it: the tail,
// then one XREAD BLOCK on the log's stream for the wake interval, on a
// pooled connection.
func xreadAwaitEntry(ctx context.Context, l *log, after uint64) error {
	tail, err := l.Tail(ctx)
	if err != nil || tail > after {
		return err
	}
	return l.store.client.XRead(ctx, &redis.XReadArgs{
		Streams: []string{l.keys.log, "0-" + strconv.FormatUint(after, 10)}, Count: 1, Block: l.store.cfg.wake,
	}).Err()
}

// awaitSettled waits, 30 s at most, until ready answers true and then no
// pooled connection of c is in use.
func awaitSettled(b *testing.B, c *redis.Client, ready func() bool) {
	ctx, cancel := context.WithTimeout(b.Context(), 30*time.Second)
	defer cancel()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		if ready() {
			if s := c.PoolStats(); s.IdleConns == s.TotalConns {
				return
			}
		}
		select {
		case <-ctx.Done():
			b.Fatalf("the waits did not settle within 30 s: %+v", c.PoolStats())
		case <-tick.C:
		}
	}
}
