package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/bench/internal/measure"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// growthTarget is issue 31's: the driver's CPU per event when one artifact
// has 1,000,000 appended chunks over the same with 1,000, at most.
const growthTarget = 1.2

// growthSizes returns the chunks appended to one artifact by one stream,
// short and long, and the total of chunks each contender reads: the short
// streams are repeated until they carry as many.
func growthSizes(quick bool) (short, long int) {
	if quick {
		return 100, 20_000
	}
	return 1_000, 1_000_000
}

// growthContenders returns the growth suite's contenders: the JSON-RPC 1.0
// driver reading long/short streams of short chunks each, then one stream
// of long chunks, every chunk appended to the stream's one artifact.
func growthContenders(cfg *config) []contender {
	short, long := growthSizes(cfg.quick)
	noRetry := stream.WithReconnect(reconnect.Never())
	mk := func(n int) contender {
		streams := long / n
		url := fmt.Sprintf("%s/?s=throughput&n=%d&v=1.0", cfg.base, n)
		check := func(t *a2a.Task) error {
			if t == nil || len(t.Artifacts) != 1 || len(t.Artifacts[0].Parts) != n {
				return fmt.Errorf("assembled task does not hold the %d parts", n)
			}
			return nil
		}
		name := fmt.Sprintf("%s chunks to one artifact × %s streams", measure.Thousands(int64(n)), measure.Thousands(int64(streams)))
		if streams == 1 {
			name = fmt.Sprintf("%s chunks to one artifact, one stream", measure.Thousands(int64(n)))
		}
		return contender{
			name: name,
			run: func() error {
				for range streams {
					if err := sendOurs(cfg.hc, url, a2a.V10, n+3, check, noRetry); err != nil {
						return err
					}
				}
				return nil
			},
		}
	}
	return []contender{mk(short), mk(long)}
}

// growthEvents returns the events each growth contender reads in a round.
func growthEvents(quick bool) [2]float64 {
	short, long := growthSizes(quick)
	return [2]float64{float64((long / short) * (short + 3)), float64(long + 3)}
}

// growth measures whether the driver's cost per event grows with the
// artifact it assembles: the same number of chunks read as many short
// streams and as one long one, each round in a fresh process under each
// GOMAXPROCS, then a CPU profile of one more fresh round of the long one.
func growth(cfg *config, w io.Writer) error {
	cs := growthContenders(cfg)
	short, long := growthSizes(cfg.quick)
	events := growthEvents(cfg.quick)
	procs := cfg.procs
	if len(procs) == 0 {
		procs = []int{1}
	}
	fmt.Fprintf(w, "## Artifact growth\n\n")
	fmt.Fprintf(w, "The JSON-RPC 1.0 driver reads %s chunks appended to one artifact, as %s streams of %s chunks and as one stream of %s "+
		"(the throughput suite's stream and server). Every round of each runs in a new process (cold heap and pages), interleaved; "+
		"no warm rounds. CPU is the child's user+system time over the events it read, allocations its runtime.MemStats. "+
		"Each cell is min / median / max of %d rounds; ×short is the per-round ratio of the long stream's CPU per event to the short streams'.\n\n",
		measure.Thousands(int64(long)), measure.Thousands(int64(long/short)), measure.Thousands(int64(short)), measure.Thousands(int64(long)), cfg.rounds)
	t := measure.Table{Head: []string{"GOMAXPROCS", "contender", "CPU ns/event", "×short", "events/s", "allocs/event", "B/event"},
		Align: []bool{true, false, true, true, true, true, true}}
	var xs []figure
	var rs []ranged
	for _, p := range procs {
		ss, err := interleaveFresh(cfg, "growth", cs, cfg.rounds, p)
		if err != nil {
			return err
		}
		for i := range cs {
			ev := events[i]
			cpu := func(s measure.Sample) float64 { return float64(s.CPU.Nanoseconds()) / ev }
			x := []float64{1}
			if i == 1 {
				x = make([]float64, len(ss[1]))
				for r := range x {
					x[r] = (float64(ss[1][r].CPU.Nanoseconds()) / events[1]) / (float64(ss[0][r].CPU.Nanoseconds()) / events[0])
				}
				f, rg := spreadFigure(fmt.Sprintf("GOMAXPROCS %d", p), x)
				xs, rs = append(xs, f), append(rs, rg)
			}
			t.Add(fmt.Sprint(p), cs[i].name, measure.SpreadCell(perRound(ss[i], cpu), measure.F), measure.SpreadCell(x, measure.Ratio),
				measure.SpreadCell(perRound(ss[i], func(s measure.Sample) float64 { return ev / s.Wall.Seconds() }), measure.F),
				measure.F(measure.Median(perRound(ss[i], func(s measure.Sample) float64 { return float64(s.Mallocs) / ev }))),
				measure.F(measure.Median(perRound(ss[i], func(s measure.Sample) float64 { return float64(s.Bytes) / ev }))))
		}
	}
	fmt.Fprintln(w, t.String())
	ok := true
	for i, f := range xs {
		ok = ok && f.x <= growthTarget
		fmt.Fprintf(w, "- CPU per event at %s chunks over %s, %s: **%s** (rounds %s–%s)\n", measure.Thousands(int64(long)), measure.Thousands(int64(short)),
			f.where, measure.Ratio(f.x), measure.Ratio(rs[i].lo), measure.Ratio(rs[i].hi))
	}
	fmt.Fprintf(w, "- target (issue 31): CPU per event at %s appended chunks ≤ %s that at %s, on the median of the fresh rounds under each GOMAXPROCS — %s\n",
		measure.Thousands(int64(long)), measure.Ratio(growthTarget), measure.Thousands(int64(short)), verdict(ok))

	const top = 5 // "no growth function in the top five" is issue 31's reading
	p := procs[len(procs)-1]
	prof, err := freshProfile(cfg, "growth", 1, p)
	if err != nil {
		return err
	}
	var cp cpuProfiler
	cp.add(cs[1].name, prof)
	if err := cp.write(w, top, fmt.Sprintf("CPU profile of one more fresh round of %s under GOMAXPROCS %d, top %d", cs[1].name, p, top)); err != nil {
		return err
	}
	// What growing the artifact costs: the samples with a slice's growth on
	// the stack (whatever their leaf: memmove, memclr, the allocator), set
	// against the fifth function by flat. Lumped together they would rank in
	// the top N when they are more than it.
	costs, _, shares := profileShares(prof, []string{"runtime.growslice", "slices.Grow", "github.com/a2astream/a2astream/a2a.(*Artifact).Apply"})
	slices.SortFunc(costs, func(a, b funcCost) int { return cmp.Or(cmp.Compare(b.flat, a.flat), cmp.Compare(a.name, b.name)) })
	nth := 0.0
	if len(costs) > 0 {
		nth = costs[min(top, len(costs))-1].flat
	}
	grow := max(shares[0], shares[1])
	fmt.Fprintf(w, "Growth in that profile: runtime.growslice on the stack in %s of the samples, slices.Grow in %s "+
		"(a2a.(*Artifact).Apply in %s); function %d by flat has %s, so the growth, lumped into one function, %s the top %d.\n",
		pct(shares[0]), pct(shares[1]), pct(shares[2]), min(top, len(costs)), pct(nth),
		map[bool]string{true: "**would rank in**", false: "stays out of"}[grow >= nth && grow > 0], top)
	return nil
}
