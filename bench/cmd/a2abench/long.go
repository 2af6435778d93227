package main

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/bench/internal/measure"
	"github.com/a2astream/a2astream/stream"
)

// heapAfterGC returns the live heap after two collections.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

type longResult struct {
	events        int
	wall, cpu     float64 // seconds
	total, ledger int64   // heap growth with the stream, and beyond the task
	task          int64
	parts, hist   int
}

// longRun streams n events (msgs status messages, the rest chunks over
// arts artifacts) and splits the heap growth into the assembled task and
// everything else the stream keeps.
func longRun(cfg *config, n, msgs, arts int) (longResult, error) {
	url := fmt.Sprintf("%s/?s=long&n=%d&msgs=%d&arts=%d", cfg.base, n, msgs, arts)
	c, err := stream.NewClient(url, stream.WithHTTPClient(cfg.hc), stream.WithVersion(a2a.V03))
	if err != nil {
		return longResult{}, err
	}
	h0 := heapAfterGC()
	p := measure.Start(false)
	s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hello"))
	got := 0
	for s.Next() {
		got++
	}
	smp := p.Stop()
	if err := s.Err(); err != nil {
		return longResult{}, err
	}
	// The task read first: until then the stream holds the parts of live
	// appends in its compact tails (see internal/ledger/tail.go), which
	// are the task's parts, not something kept beside it.
	t := s.Task()
	h1 := heapAfterGC() // the drained stream: ledger (with the task), ID sets
	r := longResult{events: got, wall: smp.Wall.Seconds(), cpu: smp.CPU.Seconds(), parts: 0, hist: len(t.History)}
	for i := range t.Artifacts {
		r.parts += len(t.Artifacts[i].Parts)
	}
	if len(t.Artifacts) != arts {
		return r, fmt.Errorf("task has %d artifacts; want %d", len(t.Artifacts), arts)
	}
	runtime.KeepAlive(s)
	s = nil
	h2 := heapAfterGC() // the task alone
	runtime.KeepAlive(t)
	r.total = int64(h1) - int64(h0)
	r.task = int64(h2) - int64(h0)
	r.ledger = int64(h1) - int64(h2)
	return r, nil
}

func longStream(cfg *config, w io.Writer) error {
	sizes := []int{250_000, 1_000_000}
	msgs, arts := 10_000, 1_000
	if cfg.quick {
		sizes = []int{20_000, 50_000}
		msgs, arts = 1_000, 100
	}
	rounds := min(cfg.rounds, 3)
	res := make([][]longResult, len(sizes))
	for range rounds {
		for i, n := range sizes {
			r, err := longRun(cfg, n, msgs*n/sizes[len(sizes)-1], arts)
			if err != nil {
				return err
			}
			res[i] = append(res[i], r)
		}
	}
	fmt.Fprintf(w, "## 3. Long streams\n\n")
	fmt.Fprintf(w, "One loopback call of N events (0.3): a status update with a new agent message every %d events (%s distinct "+
		"message IDs at 1M; the ledger keeps every ID), the rest append chunks spread round-robin over %s artifacts. "+
		"After the stream is drained: heap growth with the Stream held (after GC), then with only its Task() held; "+
		"the difference is what the stream keeps beyond the assembled task (the ledger's message-ID set, artifact index, status cursor and replay cursors, the queue). "+
		"%d interleaved rounds: events/s and CPU ns/event are min / median / max, the rest medians.\n\n",
		sizes[len(sizes)-1]/msgs, measure.Thousands(int64(msgs)), measure.Thousands(int64(arts)), rounds)
	t := measure.Table{Head: []string{"events", "events/s", "CPU ns/event", "history msgs", "parts", "heap growth", "assembled task", "beyond the task"},
		Align: []bool{true, true, true, true, true, true, true, true}}
	var beyond float64
	for i, n := range sizes {
		all := func(g func(longResult) float64) []float64 {
			xs := make([]float64, len(res[i]))
			for k, r := range res[i] {
				xs[k] = g(r)
			}
			return xs
		}
		f := func(g func(longResult) float64) float64 { return measure.Median(all(g)) }
		beyond = f(func(r longResult) float64 { return float64(r.ledger) })
		t.Add(measure.Thousands(int64(n)), measure.SpreadCell(all(func(r longResult) float64 { return float64(r.events) / r.wall }), measure.F),
			measure.SpreadCell(all(func(r longResult) float64 { return r.cpu * 1e9 / float64(r.events) }), measure.F),
			measure.Thousands(int64(res[i][0].hist)), measure.Thousands(int64(res[i][0].parts)),
			measure.MiB(f(func(r longResult) float64 { return float64(r.total) })),
			measure.MiB(f(func(r longResult) float64 { return float64(r.task) })),
			fmt.Sprintf("%s KiB", measure.F(beyond/1024)))
	}
	fmt.Fprintln(w, t.String())
	fmt.Fprintf(w, "Target: heap beyond the assembled task ≤ 1 MiB at 1M events: **%s KiB** — %s\n", measure.F(beyond/1024), verdict(beyond <= 1<<20))
	return nil
}
