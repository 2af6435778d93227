package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/bench/internal/measure"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

// errKilled is what every write of a killed replica gets.
var errKilled = errors.New("replica killed")

// killableLog is replica A's view of a shared log: once killed, every
// write fails, as a process killed with SIGKILL writes nothing more and
// releases nothing (the relay's takeover tests kill a driver the same way).
type killableLog struct {
	relay.Log
	mu     sync.Mutex
	killed bool
}

func (l *killableLog) dead() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.killed
}

func (l *killableLog) kill() {
	l.mu.Lock()
	l.killed = true
	l.mu.Unlock()
}

func (l *killableLog) Commit(ctx context.Context, f relay.Fence, cp []byte, es ...relay.Entry) error {
	if l.dead() {
		return errKilled
	}
	return l.Log.Commit(ctx, f, cp, es...)
}

func (l *killableLog) SaveSnapshot(ctx context.Context, f relay.Fence, s relay.Snapshot) error {
	if l.dead() {
		return errKilled
	}
	return l.Log.SaveSnapshot(ctx, f, s)
}

func (l *killableLog) Trim(ctx context.Context, through uint64) error {
	if l.dead() {
		return errKilled
	}
	return l.Log.Trim(ctx, through)
}

func (l *killableLog) Acquire(ctx context.Context, owner string, ttl time.Duration) (relay.Fence, error) {
	if l.dead() {
		return relay.Fence{}, errKilled
	}
	return l.Log.Acquire(ctx, owner, ttl)
}

func (l *killableLog) Renew(ctx context.Context, f relay.Fence, ttl time.Duration) error {
	if l.dead() {
		return errKilled
	}
	return l.Log.Renew(ctx, f, ttl)
}

func (l *killableLog) Release(ctx context.Context, f relay.Fence) error {
	if l.dead() {
		return errKilled
	}
	return l.Log.Release(ctx, f)
}

// firstCommitLog is replica B's view: it records when B first appended
// entries.
type firstCommitLog struct {
	relay.Log
	once  sync.Once
	first chan time.Time
}

func (l *firstCommitLog) Commit(ctx context.Context, f relay.Fence, cp []byte, es ...relay.Entry) error {
	err := l.Log.Commit(ctx, f, cp, es...)
	if err == nil && len(es) > 0 {
		l.once.Do(func() { l.first <- time.Now() })
	}
	return err
}

// takeRow is one row of the takeover table.
type takeRow struct {
	store   string
	lease   time.Duration
	streams int
	readers int
	delays  []float64 // s, one per stream and round
	missed  int       // streams not taken over in time
	dropped int64     // readers' responses the replica ended
	note    string
}

// takeoverScript is a task of about 5 minutes: a chunk every 50 ms (the
// round stops it sooner).
func takeoverScript() []a2atest.Step {
	steps := []a2atest.Step{a2atest.Working("thinking")}
	for i := range 6000 {
		steps = append(steps, a2atest.Pause(50*time.Millisecond), a2atest.Chunk("a1", "token "+strconv.Itoa(i)+" ", i > 0, false))
	}
	return append(steps, a2atest.Chunk("a1", "end", true, true), a2atest.Finish(a2a.StateCompleted, "done"))
}

// takeoverRun kills the driver of sz.takeStreams streams at once, under
// sz.takeReaders readers of them served by replica B, once per round, and
// times B's takeover of each: from the kill to B's first appended entry.
// Replica A (the driver) and replica B (a watcher, and the Handler of the
// readers) have a store, and for Redis a client, of their own, as two
// processes would. The agent is package a2atest's, in memory.
func takeoverRun(ctx context.Context, cfg *config, sz scaleSizes, st scaleStore, rd *readers, ttl time.Duration) (takeRow, error) {
	row := takeRow{store: st.name, lease: ttl, streams: sz.takeStreams, readers: sz.takeReaders}
	rng := rand.New(rand.NewPCG(uint64(ttl), 35))
	for round := range cfg.rounds {
		prefix := fmt.Sprintf("a2abench-take-%d-%d", time.Now().UnixNano(), round)
		storeA, clientA, err := st.open(prefix)
		if err != nil {
			return row, err
		}
		storeB, clientB := storeA, clientA
		if st.redis != nil {
			if storeB, clientB, err = st.open(prefix); err != nil {
				clientA.Close()
				return row, err
			}
		}
		err = takeoverRound(ctx, sz, storeA, storeB, rd, ttl, rng, &row)
		if clientA != nil {
			clientA.Close()
			clientB.Close()
		}
		if err != nil {
			return row, err
		}
	}
	return row, nil
}

func takeoverRound(ctx context.Context, sz scaleSizes, storeA, storeB relay.Store, rd *readers, ttl time.Duration, rng *rand.Rand, row *takeRow) (err error) {
	agent := a2atest.NewAgent(a2atest.WithScript(takeoverScript()...), a2atest.WithStyle(a2atest.LiveOnly))
	client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
	if err != nil {
		return err
	}
	rep, err := startScaleReplica(storeB)
	if err != nil {
		return err
	}
	defer rep.close()
	runCtx, stopAll := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		stopAll()
		wg.Wait()
	}()
	type pair struct {
		a      *killableLog
		b      *firstCommitLog
		stopA  context.CancelFunc
		killed time.Time
	}
	pairs := make([]*pair, sz.takeStreams)
	urls := make([]string, sz.takeStreams)
	for i := range urls {
		urls[i] = rep.url("t" + strconv.Itoa(i))
	}
	// The readers attach first, and wait for the streams' first entries.
	opened, err := rd.do(readerCmd{Op: "open", URLs: urls, N: sz.takeReaders, H2C: true})
	if err != nil {
		return err
	}
	defer func() {
		if _, cerr := rd.do(readerCmd{Op: "close"}); cerr != nil {
			err = firstErr(err, cerr)
		}
	}()
	if opened.Failed > 0 {
		row.note = fmt.Sprintf("%d readers could not attach (%s). ", opened.Failed, opened.Err)
	}
	for i := range pairs {
		key := "t" + strconv.Itoa(i)
		la, err := storeA.Open(ctx, key)
		if err != nil {
			return err
		}
		lb, err := storeB.Open(ctx, key)
		if err != nil {
			return err
		}
		actx, stopA := context.WithCancel(runCtx)
		p := &pair{a: &killableLog{Log: la}, b: &firstCommitLog{Log: lb, first: make(chan time.Time, 1)}, stopA: stopA}
		pairs[i] = p
		wg.Go(func() {
			_ = relay.Run(actx, p.a, "A", relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hello")), relay.WithLease(ttl))
		})
	}
	// B watches once A drives, so that A is the driver.
	deadline := time.Now().Add(30 * time.Second)
	for i, p := range pairs {
		for {
			tail, err := p.a.Log.Tail(ctx)
			if err != nil {
				return err
			}
			if tail >= 3 {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("stream %d: A appended %d entries in 30 s", i, tail)
			}
			time.Sleep(10 * time.Millisecond)
		}
		wg.Go(func() { _ = relay.Run(runCtx, p.b, "B", relay.Resume(client), relay.WithLease(ttl)) })
	}
	// Kill each driver at a random point of its renewal period.
	var kw sync.WaitGroup
	for _, p := range pairs {
		after := time.Duration(rng.Int64N(int64(ttl / 3)))
		kw.Go(func() {
			time.Sleep(after)
			p.killed = time.Now()
			p.a.kill()
			p.stopA()
		})
	}
	kw.Wait()
	limit, cancel := context.WithTimeout(ctx, 3*ttl+10*time.Second)
	defer cancel()
	for _, p := range pairs {
		select {
		case at := <-p.b.first:
			row.delays = append(row.delays, at.Sub(p.killed).Seconds())
		case <-limit.Done():
			row.missed++
		}
	}
	got, err := rd.do(readerCmd{Op: "reset"})
	if err != nil {
		return err
	}
	row.dropped += got.Ended
	return nil
}

func writeTakeovers(w io.Writer, takes []takeRow) {
	if len(takes) == 0 {
		return
	}
	fmt.Fprintf(w, "### Takeover under load\n\n")
	fmt.Fprintf(w, "Each round: %d streams of package a2atest's agent (a chunk every 50 ms), each driven by relay.Run on replica A, watched by relay.Run on replica B "+
		"(with relay.Resume), with %s SSE readers (h2c) of them served by B's Handler. A and B have a store, and for Redis a client, of their own. "+
		"A's driver of each stream is killed at a random point of its renewal period (ttl/3): its Log fails every write from then on and its Run is stopped, "+
		"so it releases nothing, as the relay's takeover tests do. Figure: from the kill to B's first appended entry; p50 / p99 over every stream of every round "+
		"(few samples: the p99 is the slowest but one or so). Dropped: readers' responses the replica ended.\n\n",
		takes[0].streams, measure.Thousands(int64(takes[0].readers)))
	t := measure.Table{Head: []string{"store", "lease", "takeovers", "p50", "p99", "max", "not taken over in 3×lease + 10 s", "readers dropped", "note"},
		Align: []bool{false, true, true, true, true, true, true, true, false}}
	for _, r := range takes {
		sec := func(x float64) string { return measure.Dur(time.Duration(x * 1e9)) }
		p50, p99, mx := "–", "–", "–"
		if len(r.delays) > 0 {
			p50, p99, mx = sec(measure.Quantile(r.delays, 0.5)), sec(measure.Quantile(r.delays, 0.99)), sec(measure.Quantile(r.delays, 1))
		}
		t.Add(r.store, r.lease.String(), strconv.Itoa(len(r.delays)), p50, p99, mx, strconv.Itoa(r.missed), strconv.FormatInt(r.dropped, 10), orDash(r.note))
	}
	fmt.Fprintln(w, t.String())
}
