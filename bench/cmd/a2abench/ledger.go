package main

import (
	"fmt"
	"io"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/bench/internal/measure"
	"github.com/a2astream/a2astream/dedupe"
)

// ledgerEvents is the number of live events one ledger folds, as in
// dedupe's BenchmarkLedger/live.
const ledgerEvents = 1000

// ledgerChunks returns ledgerEvents append chunks spread round-robin over
// arts artifacts, the first chunk of each artifact not an append: dedupe's
// benchChunks.
func ledgerChunks(arts int) []a2a.ArtifactUpdate {
	evs := make([]a2a.ArtifactUpdate, ledgerEvents)
	for i := range evs {
		a := i % arts
		evs[i] = a2a.ArtifactUpdate{
			TaskID: "6a799648-30b9-4e70-87fa-d9d210d16cc3", ContextID: "ctx", Append: i >= arts,
			Artifact: a2a.Artifact{ID: fmt.Sprintf("%08x-artifact", a*2654435761), Parts: []a2a.Part{a2a.TextPart(fmt.Sprintf("token %d ", i))}},
		}
	}
	return evs
}

// ledgerFigures is what the ledger suite measured: ns and allocations per
// event with 1 and with 1,000 artifacts, and the median per-round ratio of
// the times.
type ledgerFigures struct {
	nsOne, nsMany         float64
	allocsOne, allocsMany float64
	ratio                 float64
}

// ledgerCost times live append events through dedupe.Ledger.Apply: 1,000
// events on one artifact against 1,000 events on 1,000 artifacts, each run
// folding them into reps fresh ledgers.
func ledgerCost(cfg *config, w io.Writer) error {
	reps := 200
	if cfg.quick {
		reps = 5
	}
	one, many := ledgerChunks(1), ledgerChunks(ledgerEvents)
	// Apply takes ownership of its event (it may cut its parts and set its
	// IDs), so every ledger gets copies of its own, made before the clock
	// starts.
	copies := func(evs []a2a.ArtifactUpdate) [][]a2a.ArtifactUpdate {
		out := make([][]a2a.ArtifactUpdate, reps)
		for i := range out {
			out[i] = append([]a2a.ArtifactUpdate(nil), evs...)
		}
		return out
	}
	var pending [2][][]a2a.ArtifactUpdate
	fold := func(k int) func() error {
		return func() error {
			var dst []a2a.Event
			delivered := 0
			for _, evs := range pending[k] {
				l := dedupe.New()
				for i := range evs {
					dst = l.Apply(dst[:0], &evs[i])
					delivered += len(dst)
				}
			}
			if want := reps * ledgerEvents; delivered != want {
				return fmt.Errorf("the ledgers yielded %d deltas; want %d", delivered, want)
			}
			return nil
		}
	}
	cs := []contender{
		{name: "1 artifact (1,000 appends to it)", run: fold(0)},
		{name: "1,000 artifacts (1,000 events, one per artifact)", run: fold(1)},
	}
	ss := make([][]measure.Sample, len(cs))
	for round := -1; round < cfg.rounds; round++ { // round -1 warms up
		for i, c := range cs {
			pending[i] = copies([][]a2a.ArtifactUpdate{one, many}[i])
			p := measure.Start(false)
			err := c.run()
			s := p.Stop()
			pending[i] = nil
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			if round >= 0 {
				ss[i] = append(ss[i], s)
			}
		}
	}
	perEvent := float64(reps * ledgerEvents)
	ns := func(s measure.Sample) float64 { return float64(s.Wall.Nanoseconds()) / perEvent }
	allocs := func(s measure.Sample) float64 { return float64(s.Mallocs) / perEvent }
	fig := &ledgerFigures{
		nsOne: measure.Median(perRound(ss[0], ns)), nsMany: measure.Median(perRound(ss[1], ns)),
		allocsOne: measure.Median(perRound(ss[0], allocs)), allocsMany: measure.Median(perRound(ss[1], allocs)),
		ratio: ratio(ss[1], ss[0], ns),
	}
	cfg.res.ledger = fig

	fmt.Fprintf(w, "## 6. The ledger's cost per event\n\n")
	fmt.Fprintf(w, "Live artifact-update events folded by dedupe.Ledger.Apply, as internal/ledger's BenchmarkLedger/live does: %s events into a fresh ledger, "+
		"either all on one artifact (the first opens it, the others append a text part) or each opening one of %s artifacts. "+
		"Each run folds them into %d fresh ledgers, from a collected heap; the events are copied before the clock starts (Apply takes "+
		"ownership of its event). %d interleaved rounds after one warm-up round: ns/event and ×first (the per-round ratio) are min / median / max, "+
		"allocations medians; the target reads the median ratio.\n\n",
		measure.Thousands(ledgerEvents), measure.Thousands(ledgerEvents), reps, cfg.rounds)
	t := measure.Table{Head: []string{"events", "ns/event", "×first", "allocs/event", "B/event"}, Align: []bool{false, true, true, true, true}}
	bytesPer := func(s measure.Sample) float64 { return float64(s.Bytes) / perEvent }
	for i, c := range cs {
		t.Add(c.name, measure.SpreadCell(perRound(ss[i], ns), measure.F), measure.SpreadCell(perRoundRatio(ss[i], ss[0], ns), measure.Ratio),
			measure.F(measure.Median(perRound(ss[i], allocs))), measure.F(measure.Median(perRound(ss[i], bytesPer))))
	}
	fmt.Fprintln(w, t.String())
	fmt.Fprintf(w, "- cost per event at 1,000 artifacts ≤ 1.2× at 1 artifact: **%s** (median of the rounds) — %s\n", measure.Ratio(fig.ratio), verdict(fig.ratio <= ledgerTarget))
	return nil
}
