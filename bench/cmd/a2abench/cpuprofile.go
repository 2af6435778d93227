package main

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"github.com/a2astream/a2astream/bench/internal/measure"
)

// cpuProfiler profiles the runs of some contenders, by key, and renders
// the top functions of each key's runs merged.
type cpuProfiler struct {
	on    bool // off during warm-up
	profs map[string][]*profile.Profile
	keys  []string
}

// wrap returns run, profiled under key while the profiler is on.
func (p *cpuProfiler) wrap(key string, run func() error) func() error {
	if !slices.Contains(p.keys, key) {
		p.keys = append(p.keys, key)
	}
	return func() error {
		if !p.on {
			return run()
		}
		var buf bytes.Buffer
		if err := pprof.StartCPUProfile(&buf); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		err := run()
		pprof.StopCPUProfile()
		prof, perr := profile.Parse(&buf)
		if perr != nil {
			return fmt.Errorf("cpu profile: %w", perr)
		}
		if p.profs == nil {
			p.profs = map[string][]*profile.Profile{}
		}
		p.profs[key] = append(p.profs[key], prof)
		return err
	}
}

// funcCost is one function's share of a profile.
type funcCost struct {
	name      string
	flat, cum float64 // fractions of all samples
}

// profileShares returns every function's flat and cumulative share of p's
// CPU time, the total, and the share of samples with a function of each
// of the given name prefixes on the stack.
func profileShares(p *profile.Profile, prefixes []string) ([]funcCost, int64, []float64) {
	vi := len(p.SampleType) - 1
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			vi = i
		}
	}
	flat, cum := map[string]int64{}, map[string]int64{}
	within := make([]int64, len(prefixes))
	var total int64
	for _, s := range p.Sample {
		v := s.Value[vi]
		total += v
		seen := map[string]bool{}
		hit := make([]bool, len(prefixes))
		for li, loc := range s.Location {
			for lj, line := range loc.Line {
				if line.Function == nil {
					continue
				}
				name := line.Function.Name
				if li == 0 && lj == 0 { // the innermost function of the leaf
					flat[name] += v
				}
				if !seen[name] {
					seen[name] = true
					cum[name] += v
				}
				for k, pre := range prefixes {
					if strings.HasPrefix(name, pre) {
						hit[k] = true
					}
				}
			}
		}
		for k := range hit {
			if hit[k] {
				within[k] += v
			}
		}
	}
	if total == 0 {
		return nil, 0, make([]float64, len(prefixes))
	}
	out := make([]funcCost, 0, len(cum))
	for name, c := range cum {
		out = append(out, funcCost{name: name, flat: float64(flat[name]) / float64(total), cum: float64(c) / float64(total)})
	}
	shares := make([]float64, len(prefixes))
	for k := range within {
		shares[k] = float64(within[k]) / float64(total)
	}
	return out, total, shares
}

// shortFunc drops the module path of a2astream's own functions, and the
// type arguments of a generic one (grpc.recvEvent[…]).
func shortFunc(name string) string {
	name = strings.TrimPrefix(name, "github.com/a2astream/a2astream/")
	if i, j := strings.Index(name, "["), strings.LastIndex(name, "]"); i >= 0 && j > i {
		name = name[:i+1] + "…" + name[j:]
	}
	return name
}

func pct(x float64) string { return fmt.Sprintf("%.1f %%", 100*x) }

// add records a profile taken elsewhere (a fresh round's child) under key.
func (p *cpuProfiler) add(key string, prof *profile.Profile) {
	if !slices.Contains(p.keys, key) {
		p.keys = append(p.keys, key)
	}
	if p.profs == nil {
		p.profs = map[string][]*profile.Profile{}
	}
	p.profs[key] = append(p.profs[key], prof)
}

// write renders the top n functions of each key's merged runs, by flat
// and by cumulative time, after title, which says which runs they are.
func (p *cpuProfiler) write(w io.Writer, n int, title string) error {
	prefixes := []string{"encoding/json.", "runtime.gcBgMarkWorker", "runtime.mallocgc", "net/http.",
		"google.golang.org/grpc", "google.golang.org/protobuf/", "github.com/a2astream/a2astream/grpc"}
	fmt.Fprintf(w, "\n%s: runtime/pprof at its default 100 Hz, "+
		"one profile per round merged, the whole client process (net/http's goroutines and the collector included, the server is "+
		"another process). Flat is the time in the function itself, cumulative the time with it on the stack, both as shares of "+
		"the samples; the left half is sorted by flat, the right by cumulative, without the frames above the driver "+
		"(a2abench's own functions, runtime.main), which are on every stack.\n", title)
	for _, key := range p.keys {
		merged, err := profile.Merge(p.profs[key])
		if err != nil {
			return fmt.Errorf("merging the profiles of %s: %w", key, err)
		}
		costs, total, shares := profileShares(merged, prefixes)
		grpcShares := ""
		if shares[4]+shares[5]+shares[6] > 0 {
			grpcShares = fmt.Sprintf(", grpc-go %s, protobuf-go %s, a2agrpc (its conversion included) %s", pct(shares[4]), pct(shares[5]), pct(shares[6]))
		}
		fmt.Fprintf(w, "\n%s: %s of samples; on the stack: encoding/json %s, the collector's mark workers %s, mallocgc %s, net/http %s%s.\n\n",
			key, measure.Dur(time.Duration(total)), pct(shares[0]), pct(shares[1]), pct(shares[2]), pct(shares[3]), grpcShares)
		byFlat := slices.Clone(costs)
		slices.SortFunc(byFlat, func(a, b funcCost) int { return cmp.Or(cmp.Compare(b.flat, a.flat), cmp.Compare(a.name, b.name)) })
		// The frames above the driver (a2abench's own, runtime.main) are on
		// every stack: the cumulative side leaves them out.
		byCum := slices.DeleteFunc(slices.Clone(costs), func(c funcCost) bool {
			return strings.HasPrefix(c.name, "main.") || c.name == "runtime.main" || c.name == "runtime.goexit"
		})
		slices.SortFunc(byCum, func(a, b funcCost) int { return cmp.Or(cmp.Compare(b.cum, a.cum), cmp.Compare(a.name, b.name)) })
		t := measure.Table{Head: []string{"#", "function (by flat)", "flat", "cum", "function (by cumulative)", "cum", "flat"},
			Align: []bool{true, false, true, true, false, true, true}}
		for i := range min(n, len(byFlat)) {
			row := []string{fmt.Sprint(i + 1), "`" + shortFunc(byFlat[i].name) + "`", pct(byFlat[i].flat), pct(byFlat[i].cum), "", "", ""}
			if i < len(byCum) {
				c := byCum[i]
				row[4], row[5], row[6] = "`"+shortFunc(c.name)+"`", pct(c.cum), pct(c.flat)
			}
			t.Add(row...)
		}
		fmt.Fprintln(w, t.String())
	}
	return nil
}
