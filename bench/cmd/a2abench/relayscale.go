package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/bench/internal/measure"
	"github.com/a2astream/a2astream/bench/internal/server"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay"
)

// Issue 35's targets.
const (
	scaleReaders       = 10_000   // readers of one stream on one replica
	scaleRedisConns    = 20       // Redis connections for them, at most
	scaleRedisPool     = 19       // the client's PoolSize for that budget: one Pub/Sub connection is outside the pool
	scaleIdleTarget    = 16 << 10 // bytes per idle reader over h2c, at most
	scaleP99Target     = 50 * time.Millisecond
	scaleP99At         = 1_000 // readers at which the p99 is judged
	scaleCommitTarget  = 0.9   // commit rate with scaleReaders readers over none, at least
	scaleCheckpointLen = 200   // bytes of the synthetic driver's checkpoint
	scaleChunkLen      = 48    // bytes of text in each entry
)

// scaleSizes is what one run of the relay-scale suite measures.
type scaleSizes struct {
	perStream []int // readers of one stream
	streams   int   // streams of the many-streams rows, one reader each
	// paced phase: entries committed every pacedEvery (each to every
	// stream of the row), for the latencies; burst: entries committed back
	// to back, for the commit rate and the events/s delivered.
	paced, burst             int
	pacedEvery               time.Duration
	streamsPaced, streamsBst int
	wait                     time.Duration // how long the readers may take to get a phase's entries
	// phase is how long the driver may take to commit a phase's entries:
	// past it, the row stops and says so (a store whose Commit queues
	// behind the readers' waits would hold the suite for hours).
	phase time.Duration
	// takeover: streams whose driver is killed at once, per lease, with
	// takeReaders readers spread over them.
	takeStreams, takeReaders int
	leases                   []time.Duration
}

func scaleSizesFor(quick bool) scaleSizes {
	if quick {
		return scaleSizes{perStream: []int{1, 50}, streams: 10, paced: 10, burst: 20, pacedEvery: 10 * time.Millisecond,
			streamsPaced: 3, streamsBst: 5, wait: 10 * time.Second, phase: 20 * time.Second, takeStreams: 2, takeReaders: 50, leases: []time.Duration{time.Second}}
	}
	return scaleSizes{perStream: []int{1, 100, 1_000, 10_000}, streams: 1_000, paced: 50, burst: 200, pacedEvery: 20 * time.Millisecond,
		streamsPaced: 5, streamsBst: 10, wait: 120 * time.Second, phase: 60 * time.Second, takeStreams: 8, takeReaders: 10_000,
		leases: []time.Duration{time.Second, 5 * time.Second}}
}

// scaleStore is one store the suite measures: it makes a new store for
// each row, with a prefix of its own.
type scaleStore struct {
	name  string
	redis *redisServer // nil for MemoryStore
}

// open returns a new store, and its client for Redis (nil for memory).
func (s scaleStore) open(prefix string) (relay.Store, *redis.Client, error) {
	if s.redis == nil {
		st, err := relay.NewMemoryStore()
		return st, nil, err
	}
	// The pool sized as redisrelay's doc says for a budget of
	// scaleRedisConns: the store's Pub/Sub connection is outside it.
	c := redis.NewClient(&redis.Options{Addr: s.redis.addr, PoolSize: scaleRedisPool})
	st, err := redisrelay.New(c, redisrelay.WithPrefix(prefix))
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return st, c, nil
}

// scaleReplica is one replica's Handler on 127.0.0.1, speaking HTTP/1.1
// and h2c.
type scaleReplica struct {
	srv  *http.Server
	base string
}

func startScaleReplica(store relay.Store, opts ...relay.HandlerOption) (*scaleReplica, error) {
	h, err := relay.NewHandler(store, func(r *http.Request) (string, bool) {
		k := r.PathValue("key")
		return k, k != ""
	}, opts...)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/s/{key}/events", h)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: mux, Protocols: server.Protocols(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return &scaleReplica{srv: srv, base: "http://" + ln.Addr().String()}, nil
}

func (r *scaleReplica) url(key string) string { return r.base + "/s/" + key + "/events" }

func (r *scaleReplica) close() { r.srv.Close() }

// scaleDriver is the suite's own driver: it holds the lease of its logs
// and commits entries as relay.Drive does (each with a checkpoint), with
// the time of the commit in the entry's text, so a reader times the
// delivery from the driver's commit to its receipt.
type scaleDriver struct {
	logs   []relay.Log
	fences []relay.Fence
	seq    []uint64
	cp     []byte
}

func newScaleDriver(ctx context.Context, store relay.Store, keys []string) (*scaleDriver, error) {
	d := &scaleDriver{cp: bytes.Repeat([]byte("c"), scaleCheckpointLen)}
	for _, k := range keys {
		l, err := store.Open(ctx, k)
		if err != nil {
			return nil, err
		}
		f, err := l.Acquire(ctx, "bench-driver", time.Hour)
		if err != nil {
			return nil, err
		}
		d.logs, d.fences, d.seq = append(d.logs, l), append(d.fences, f), append(d.seq, 0)
	}
	return d, nil
}

// start commits each log's first entry: the task is working.
func (d *scaleDriver) start(ctx context.Context) error {
	data, _ := json.Marshal(relay.StatusData{State: a2a.StateWorking, TaskID: "task"})
	return d.each(ctx, func(i int) error { return d.commitEntry(ctx, i, relay.EventStatus, data) })
}

// chunk commits one stamped artifact chunk to log i.
func (d *scaleDriver) chunk(ctx context.Context, i int) error {
	data, _ := json.Marshal(relay.ArtifactData{Pane: "artifact:a1", ID: "a1", Text: stampText(time.Now(), scaleChunkLen), Append: true})
	return d.commitEntry(ctx, i, relay.EventArtifact, data)
}

func (d *scaleDriver) commitEntry(ctx context.Context, i int, name string, data []byte) error {
	e := relay.Entry{Seq: d.seq[i] + 1, Name: name, Data: data}
	if err := d.logs[i].Commit(ctx, d.fences[i], d.cp, e); err != nil {
		return fmt.Errorf("the driver's Commit: %w", err)
	}
	d.seq[i]++
	return nil
}

// each runs f on every log, with 16 workers when there are many; it stops
// at the first error, or when ctx ends.
func (d *scaleDriver) each(ctx context.Context, f func(i int) error) error {
	if len(d.logs) == 1 {
		return f(0)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	next := make(chan int)
	for range min(16, len(d.logs)) {
		wg.Go(func() {
			for i := range next {
				if err := f(i); err != nil {
					mu.Lock()
					first = firstErr(first, err)
					mu.Unlock()
				}
			}
		})
	}
	for i := range d.logs {
		mu.Lock()
		failed := first != nil
		mu.Unlock()
		if failed || ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}

func firstErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// stopped says why a row stopped in a phase: the driver's Commit failed,
// or the phase outran its time.
func stopped(phase string, done, want int, limit time.Duration, err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("Stopped: in %s the driver committed %d of the %s phase's %d entries per stream (%v). ", limit, done, phase, want, err)
	}
	return fmt.Sprintf("Stopped in the %s phase, after %d of %d entries per stream: %v. ", phase, done, want, err)
}

// procMem is the replica process's memory: heap and goroutine stacks
// after two GCs, and the resident set.
type procMem struct {
	heapStacks, rss uint64
	goroutines      int
}

func readProcMem() procMem {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return procMem{heapStacks: m.HeapAlloc + m.StackInuse, rss: rssBytes(), goroutines: runtime.NumGoroutine()}
}

// rssBytes is the process's VmRSS, from /proc/self/status (0 elsewhere).
func rssBytes() uint64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// connPeak samples the Redis connections every 20 ms and keeps the
// largest count.
type connPeak struct {
	mu   sync.Mutex
	peak int
	err  error
	stop chan struct{}
	done chan struct{}
}

func watchConns(s *redisServer) *connPeak {
	p := &connPeak{stop: make(chan struct{}), done: make(chan struct{})}
	if s == nil {
		close(p.done)
		return p
	}
	go func() {
		defer close(p.done)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			n, err := s.clients()
			p.mu.Lock()
			p.peak, p.err = max(p.peak, n), firstErr(p.err, err)
			p.mu.Unlock()
			select {
			case <-p.stop:
				return
			case <-t.C:
			}
		}
	}()
	return p
}

func (p *connPeak) end() (int, error) {
	select {
	case <-p.done:
	default:
		close(p.stop)
		<-p.done
	}
	return p.peak, p.err
}

// scaleRow is one row of the readers' table: what one store, protocol and
// shape of readers measured.
type scaleRow struct {
	store, proto  string
	streams, per  int
	memory        bool // a MemoryStore row
	h2c           bool
	opened        int
	heapPer       float64 // heap and stacks per idle reader
	rssPer        float64 // resident set per idle reader
	gorPer        float64
	connsIdle     int // Redis connections with the readers idle (-1: not Redis)
	connsPeak     int
	p50, p99      []float64 // per round, ms
	delivered     []float64 // events/s delivered to all readers, per round
	commits, none []float64 // commits/s with the readers, and to a log with none, per round
	dropped       int64     // responses the replica ended
	short         int64     // deliveries missing when a phase's wait ran out, summed over rounds
	note          string
}

func (r scaleRow) readers() int { return r.streams * r.per }

// summary is the row's figures on one line, for the progress on stderr.
func (r scaleRow) summary() string {
	conns := ""
	if r.connsIdle >= 0 {
		conns = fmt.Sprintf(", Redis conns %d idle %d peak", r.connsIdle, r.connsPeak)
	}
	return fmt.Sprintf("%d attached, %s heap+stacks and %s RSS per idle reader%s, p50 %s ms, p99 %s ms, %s events/s delivered, %s commits/s (none: %s), dropped %d, undelivered %d %s",
		r.opened, kib(r.heapPer), kib(r.rssPer), conns, cellOr(r.p50, measure.F), cellOr(r.p99, measure.F), cellOr(r.delivered, measure.F),
		cellOr(r.commits, measure.F), cellOr(r.none, measure.F), r.dropped, r.short, r.note)
}

func (r scaleRow) shape() string {
	if r.streams == 1 {
		return measure.Thousands(int64(r.per)) + " of 1 stream"
	}
	return measure.Thousands(int64(r.streams)) + " streams × " + measure.Thousands(int64(r.per))
}

// scaleRun measures one row.
func scaleRun(ctx context.Context, cfg *config, sz scaleSizes, st scaleStore, rd *readers, h2c bool, streams, per int, prefix string) (row scaleRow, err error) {
	row = scaleRow{store: st.name, proto: map[bool]string{false: "HTTP/1.1", true: "h2c"}[h2c], streams: streams, per: per,
		memory: st.redis == nil, h2c: h2c, connsIdle: -1, connsPeak: -1}
	store, client, err := st.open(prefix)
	if err != nil {
		return row, err
	}
	if client != nil {
		defer client.Close()
	}
	rep, err := startScaleReplica(store)
	if err != nil {
		return row, err
	}
	defer rep.close()
	keys := make([]string, streams)
	urls := make([]string, streams)
	for i := range keys {
		keys[i] = "s" + strconv.Itoa(i)
		urls[i] = rep.url(keys[i])
	}
	drv, err := newScaleDriver(ctx, store, keys)
	if err != nil {
		return row, err
	}
	var none *scaleDriver
	if streams == 1 {
		if none, err = newScaleDriver(ctx, store, []string{"none"}); err != nil {
			return row, err
		}
		if err := none.start(ctx); err != nil {
			return row, err
		}
	}
	if err := drv.start(ctx); err != nil {
		return row, err
	}
	before := readProcMem()
	opened, note, closeReaders, err := rd.open(readerCmd{URLs: urls, N: streams * per, H2C: h2c})
	if err != nil {
		return row, err
	}
	defer func() { err = firstErr(err, closeReaders()) }()
	row.opened, row.note = opened.Open, note
	after := readProcMem()
	if n := float64(row.opened); n > 0 {
		row.heapPer = (float64(after.heapStacks) - float64(before.heapStacks)) / n
		row.rssPer = (float64(after.rss) - float64(before.rss)) / n
		row.gorPer = float64(after.goroutines-before.goroutines) / n
	}
	if st.redis != nil {
		if row.connsIdle, err = st.redis.clients(); err != nil {
			return row, err
		}
	}
	peak := watchConns(st.redis)
	defer func() {
		p, perr := peak.end()
		if st.redis != nil {
			row.connsPeak = max(p, row.connsIdle)
		}
		err = firstErr(err, perr)
	}()
	paced, burst := sz.paced, sz.burst
	if streams > 1 {
		paced, burst = sz.streamsPaced, sz.streamsBst
	}
	n := int64(row.opened)
	for range cfg.rounds {
		// Paced: the latencies of a stream that writes every pacedEvery.
		if _, err := rd.do(readerCmd{Op: "reset"}); err != nil {
			return row, err
		}
		tick := time.NewTicker(max(sz.pacedEvery, time.Duration(streams)*50*time.Microsecond))
		pctx, cancel := context.WithTimeout(ctx, sz.phase)
		for k := range paced {
			if err := drv.each(pctx, func(i int) error { return drv.chunk(pctx, i) }); err != nil {
				tick.Stop()
				cancel()
				row.note += stopped("paced", k, paced, sz.phase, err)
				return row, nil
			}
			<-tick.C
		}
		tick.Stop()
		cancel()
		got, err := rd.do(readerCmd{Op: "wait", Events: n * int64(paced), Timeout: sz.wait})
		if err != nil {
			return row, err
		}
		row.short += max(0, n*int64(paced)-got.Events)
		row.p50 = append(row.p50, float64(got.P50)/1e6)
		row.p99 = append(row.p99, float64(got.P99)/1e6)
		// Burst: the driver commits back to back, to a log no browser
		// reads, then to the readers' log(s).
		if none != nil {
			t0 := time.Now()
			for range burst {
				if err := none.chunk(ctx, 0); err != nil {
					row.note += err.Error()
					return row, nil
				}
			}
			row.none = append(row.none, float64(burst)/time.Since(t0).Seconds())
		}
		if _, err := rd.do(readerCmd{Op: "reset"}); err != nil {
			return row, err
		}
		t0 := time.Now()
		bctx, cancel := context.WithTimeout(ctx, sz.phase)
		for k := range burst {
			if err := drv.each(bctx, func(i int) error { return drv.chunk(bctx, i) }); err != nil {
				cancel()
				row.note += stopped("burst", k, burst, sz.phase, err)
				return row, nil
			}
		}
		cancel()
		row.commits = append(row.commits, float64(burst*streams)/time.Since(t0).Seconds())
		got, err = rd.do(readerCmd{Op: "wait", Events: n * int64(burst), Timeout: sz.wait})
		if err != nil {
			return row, err
		}
		row.short += max(0, n*int64(burst)-got.Events)
		if got.LastNS > t0.UnixNano() {
			row.delivered = append(row.delivered, float64(got.Events)/time.Duration(got.LastNS-t0.UnixNano()).Seconds())
		}
		row.dropped = got.Ended
	}
	return row, nil
}

// relayScale is the relay-scale suite (issue 35): SSE readers of the
// relay's Handler per replica, on MemoryStore and on a real redis-server,
// over HTTP/1.1 and h2c; the driver's commit rate with readers and with
// none; the takeover time under that load; and the anchor,
// resumable-stream, on the same redis-server.
func relayScale(cfg *config, w io.Writer) error {
	sc, err := measureScale(cfg)
	if sc != nil {
		writeScale(w, cfg, sc) // what was measured, also when a later part failed
	}
	return err
}

// scaleResult is what the relay-scale suite measured.
type scaleResult struct {
	sz        scaleSizes
	redisLine string // which redis-server, or why the Redis rows were skipped
	redis     bool   // the Redis rows ran
	rows      []scaleRow
	takes     []takeRow
	anchor    *anchorResult // nil without Redis
}

func measureScale(cfg *config) (*scaleResult, error) {
	ctx := context.Background()
	sc := &scaleResult{sz: scaleSizesFor(cfg.quick)}
	sz := sc.sz
	stores := []scaleStore{{name: "MemoryStore"}}
	rs, rerr := startRedisServer(cfg.redisAddr)
	if rerr != nil {
		sc.redisLine = "**The Redis rows were skipped: " + rerr.Error() + ".**"
	} else {
		defer rs.stop()
		sc.redis = true
		stores = append(stores, scaleStore{name: "Redis " + rs.version, redis: rs})
		how := "a redis-server the suite started on 127.0.0.1 (--save '' --appendonly no)"
		if cfg.redisAddr != "" {
			how = "the redis-server at " + cfg.redisAddr + " (-redis)"
		}
		sc.redisLine = "Redis: " + how + ", version " + rs.version + "; each row a go-redis client with PoolSize " + strconv.Itoa(scaleRedisPool) + " (redisrelay's doc: a budget of n connections is a pool of n−1 beside the store's Pub/Sub connection) and a prefix of its own."
	}
	rd, err := startReaders()
	if err != nil {
		return nil, err
	}
	defer rd.stop()

	if len(cfg.relayRows) > 0 {
		return sc, scaleRows(ctx, cfg, sc, stores, rd)
	}
	for _, st := range stores {
		for _, h2c := range []bool{false, true} {
			shapes := [][2]int{}
			for _, n := range sz.perStream {
				shapes = append(shapes, [2]int{1, n})
			}
			shapes = append(shapes, [2]int{sz.streams, 1})
			for _, sh := range shapes {
				prefix := fmt.Sprintf("a2abench-%d-%d", time.Now().UnixNano(), len(sc.rows))
				t0 := time.Now()
				row, err := scaleRun(ctx, cfg, sz, st, rd, h2c, sh[0], sh[1], prefix)
				if err != nil {
					return sc, fmt.Errorf("%s, %s, %s: %w", st.name, row.proto, row.shape(), err)
				}
				fmt.Fprintf(os.Stderr, "relay-scale: %s, %s, %s: %s: %s\n", st.name, row.proto, row.shape(), time.Since(t0).Round(time.Second), row.summary())
				sc.rows = append(sc.rows, row)
				if st.redis != nil {
					if err := st.redis.flush(); err != nil {
						return nil, err
					}
				}
				debugFree()
			}
		}
	}
	for _, st := range stores {
		for _, ttl := range sz.leases {
			t0 := time.Now()
			tr, err := takeoverRun(ctx, cfg, sz, st, rd, ttl)
			if err != nil {
				return sc, fmt.Errorf("takeover, %s, %s lease: %w", st.name, ttl, err)
			}
			fmt.Fprintf(os.Stderr, "relay-scale: takeover, %s, %s lease: %s: %d takeovers, p50 %.3f s, p99 %.3f s, %d missed, %d readers dropped %s\n",
				st.name, ttl, time.Since(t0).Round(time.Second), len(tr.delays), measure.Quantile(tr.delays, 0.5), measure.Quantile(tr.delays, 0.99), tr.missed, tr.dropped, tr.note)
			sc.takes = append(sc.takes, tr)
			if st.redis != nil {
				if err := st.redis.flush(); err != nil {
					return nil, err
				}
			}
		}
	}
	if rs != nil {
		sc.anchor = runAnchor(ctx, cfg, sz, rs)
	}
	return sc, nil
}

// debugFree lets the connections of a row wind down before the next.
func debugFree() {
	for range 50 {
		if runtime.NumGoroutine() < 200 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func writeScale(w io.Writer, cfg *config, sc *scaleResult) {
	sz, redisLine, rows := sc.sz, sc.redisLine, sc.rows
	fmt.Fprintf(w, "## 8. The relay at scale (issue 35)\n\n")
	fmt.Fprintf(w, "One replica: relay.NewHandler on 127.0.0.1, HTTP/1.1 and h2c on one port (Go's default of 250 streams per h2c connection), "+
		"over a store; the browsers are SSE GETs in a child process (the same binary with %s) over 127.0.0.1, so this process's figures hold the replica alone. "+
		"The driver is the suite's own: it holds each log's lease and commits each entry as relay.Drive does (one Commit, with a %d-byte checkpoint), "+
		"an artifact chunk of about %d bytes whose text carries the time of its commit; a reader times each event from that stamp to its receipt. "+
		"Memory per idle reader: (after − before) / readers, with every reader attached and waiting, each after two GCs: the Go heap and goroutine stacks "+
		"(HeapAlloc + StackInuse), and the resident set (VmRSS, which a GC does not give back) beside it; one measurement per row. "+
		"Redis connections: CLIENT LIST, the suite's own counting connection excluded, with the readers idle and the largest count sampled every 20 ms during the rounds. "+
		"Each round: %d entries one every %s (latency; the many-streams rows: %d to every stream), then %d entries back to back (%d to every stream) "+
		"for the commit rate and the events/s delivered to all readers (deliveries over the time from the first commit to the last receipt); on one stream the same "+
		"burst also goes to a log no browser reads, in the same round, just before. Cells are min / median / max over %d rounds.  \n%s\n\n",
		readersFlag, scaleCheckpointLen, scaleChunkLen, sz.paced, sz.pacedEvery, sz.streamsPaced, sz.burst, sz.streamsBst, cfg.rounds, redisLine)
	t := measure.Table{Head: []string{"store", "protocol", "readers", "attached", "heap+stacks / idle reader", "RSS / idle reader", "goroutines / reader",
		"Redis conns idle / peak", "p50 delivery", "p99 delivery", "events/s delivered", "commits/s with the readers", "commits/s, no reader", "dropped / undelivered", "note"},
		Align: []bool{false, false, false, true, true, true, true, true, true, true, true, true, true, true, false}}
	ms := func(x float64) string { return measure.F(x) + " ms" }
	for _, r := range rows {
		conns := "–"
		if r.connsIdle >= 0 {
			conns = fmt.Sprintf("%d / %d", r.connsIdle, r.connsPeak)
		}
		noneCell := "–"
		if len(r.none) > 0 {
			noneCell = measure.SpreadCell(r.none, measure.F)
		}
		t.Add(r.store, r.proto, r.shape(), measure.Thousands(int64(r.opened)), kib(r.heapPer), kib(r.rssPer), fmt.Sprintf("%.2f", r.gorPer), conns,
			cellOr(r.p50, ms), cellOr(r.p99, ms), cellOr(r.delivered, measure.F), cellOr(r.commits, measure.F), noneCell,
			fmt.Sprintf("%d / %d", r.dropped, r.short), orDash(strings.TrimSpace(r.note)))
	}
	fmt.Fprintln(w, t.String())
	writeTakeovers(w, sc.takes)
	writeAnchor(w, sc.anchor)
	writeScaleTargets(w, sz, rows, sc.anchor)
}

func cellOr(xs []float64, f func(float64) string) string {
	if len(xs) == 0 {
		return "–"
	}
	return measure.SpreadCell(xs, f)
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
