package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bytedance/sonic"
	jsonexp "github.com/go-json-experiment/json"
	goccy "github.com/goccy/go-json"
	segjson "github.com/segmentio/encoding/json"

	"github.com/a2astream/a2astream/bench/internal/decodebench"
	"github.com/a2astream/a2astream/bench/internal/measure"
)

// decoderRow is one contender of the decoders suite: it runs in this
// process (prepare) or in the jsonv2 worker (worker, its index there).
type decoderRow struct {
	name    string
	lib     bool // a JSON library into the floor struct, a candidate for the winner
	prepare func(decodebench.Event) func() error
	worker  int
	err     error // set once the contender failed; it is not run again
}

// jsonv2Worker is the GOEXPERIMENT=jsonv2 process that times the
// contenders only that build has.
type jsonv2Worker struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	dir string
}

// startJSONv2Worker builds cmd/jsonv2worker with GOEXPERIMENT=jsonv2 (the
// go command must run inside the bench module) and starts it.
func startJSONv2Worker() (*jsonv2Worker, error) {
	dir, err := os.MkdirTemp("", "a2abench-jsonv2")
	if err != nil {
		return nil, err
	}
	exe := filepath.Join(dir, "jsonv2worker")
	build := exec.Command("go", "build", "-o", exe, "github.com/a2astream/a2astream/bench/cmd/jsonv2worker")
	build.Env = append(os.Environ(), "GOEXPERIMENT=jsonv2")
	if out, err := build.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("GOEXPERIMENT=jsonv2 go build: %v: %s", err, strings.TrimSpace(string(out)))
	}
	w := &jsonv2Worker{cmd: exec.Command(exe), dir: dir}
	w.cmd.Stderr = os.Stderr
	if w.in, err = w.cmd.StdinPipe(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	out, err := w.cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	w.out = bufio.NewReader(out)
	if err := w.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return w, nil
}

func (w *jsonv2Worker) stop() {
	w.in.Close()
	_ = w.cmd.Wait()
	os.RemoveAll(w.dir)
}

// decoders compares JSON decoders on the throughput suite's events, one
// event at a time, in interleaved rounds.
func decoders(cfg *config, w io.Writer) error {
	n := 50_000
	if cfg.quick {
		n = 500
	}
	evs := decodebench.Events()
	worker, werr := startJSONv2Worker()
	if worker != nil {
		defer worker.stop()
	}
	// sonic.ConfigStd copies strings out of the input and validates them, as
	// encoding/json does; its default config would alias the SSE buffer.
	rows := []*decoderRow{
		{name: "floor: encoding/json Unmarshal", lib: true, prepare: decodebench.IntoFloor(json.Unmarshal)},
		{name: "a2a.Codec.DecodeEvent of a frame's raw result (a frame of a binding's own, read by encoding/json in two steps, into a2a's model)", prepare: decodebench.DecodeFrame},
		{name: "a2a.EventDecoder.Decode (the result member alone, into a2a's model: the driver's path, which scans the JSON-RPC envelope apart)", prepare: decodebench.DecodeResult},
		{name: "github.com/go-json-experiment/json Unmarshal", lib: true, prepare: decodebench.IntoFloor(func(b []byte, v any) error { return jsonexp.Unmarshal(b, v) })},
		{name: "encoding/json/v2 Unmarshal (GOEXPERIMENT=jsonv2 worker)", lib: true, worker: 0},
		{name: "encoding/json Unmarshal built with GOEXPERIMENT=jsonv2 (worker)", lib: true, worker: 1},
		{name: "a2a.Codec.DecodeEvent of a frame's raw result built with GOEXPERIMENT=jsonv2 (worker)", worker: 2},
		{name: "github.com/goccy/go-json Unmarshal", lib: true, prepare: decodebench.IntoFloor(goccy.Unmarshal)},
		{name: "github.com/bytedance/sonic ConfigStd.Unmarshal", lib: true, prepare: decodebench.IntoFloor(sonic.ConfigStd.Unmarshal)},
		{name: "github.com/segmentio/encoding/json Unmarshal", lib: true, prepare: decodebench.IntoFloor(segjson.Unmarshal)},
	}
	for _, r := range rows {
		if r.prepare == nil && werr != nil {
			r.err = werr
		}
	}
	runOne := func(r *decoderRow, ei int) (decodebench.Result, error) {
		if r.prepare == nil {
			return decodebench.Ask(worker.in, worker.out, r.worker, ei, n)
		}
		return decodebench.Time(r.prepare(evs[ei]), n)
	}
	// samples[row][event] holds one result per round; a warm-up round first.
	samples := make([][][]decodebench.Result, len(rows))
	for i := range samples {
		samples[i] = make([][]decodebench.Result, len(evs))
	}
	for round := -1; round < cfg.rounds; round++ {
		for ei := range evs {
			for i, r := range rows {
				if r.err != nil {
					continue
				}
				res, err := runOne(r, ei)
				if err != nil {
					r.err = fmt.Errorf("%s: %w", evs[ei].Name, err)
					continue
				}
				if round >= 0 {
					samples[i][ei] = append(samples[i][ei], res)
				}
			}
		}
	}
	if rows[0].err != nil {
		return fmt.Errorf("the floor: %w", rows[0].err)
	}

	fmt.Fprintf(w, "## 1b. JSON decoders on the throughput suite's events\n\n")
	fmt.Fprintf(w, "Each contender decodes the same event %s times per round, in %d interleaved rounds (event by event, contender by contender) "+
		"after one warm-up round: the data line of an event of the throughput suite, the JSON-RPC response around its result. "+
		"The libraries decode into the decode floor's small struct (the throughput suite's); a2a's rows decode into a2a's model, "+
		"the EventDecoder as the driver does. ns/event is wall time and ×first the per-round ratio to the floor's time, both min / median / max of the rounds (the winner is picked on the medians); allocations are "+
		"the process's while the loop runs. The GOEXPERIMENT=jsonv2 rows run in a worker process built with that setting "+
		"(cmd/jsonv2worker), asked for one loop at a time so that its rounds interleave with the others; under that setting "+
		"encoding/json itself is implemented on encoding/json/v2.\n\n",
		measure.Thousands(int64(n)), cfg.rounds)
	ratios := make([][]float64, len(rows)) // [row][event]: median ratio to the floor
	allocs := make([][]float64, len(rows))
	for ei, ev := range evs {
		fmt.Fprintf(w, "%s (%d B):\n\n", ev.Name, len(ev.Data))
		t := measure.Table{Head: []string{"contender", "ns/event", "×first", "allocs/event", "B/event"},
			Align: []bool{false, true, true, true, true}}
		floor := samples[0][ei]
		for i, r := range rows {
			ss := samples[i][ei]
			if r.err != nil || len(ss) != len(floor) {
				t.Add(r.name, "failed: "+failure(r.err), "–", "–", "–")
				continue
			}
			xs := make([]float64, len(ss))
			for k := range ss {
				xs[k] = ss[k].Ns / floor[k].Ns
			}
			x := measure.Median(xs)
			a := medianOf(ss, func(r decodebench.Result) float64 { return r.Allocs })
			ratios[i] = append(ratios[i], x)
			allocs[i] = append(allocs[i], a)
			nss := make([]float64, len(ss))
			for k := range ss {
				nss[k] = ss[k].Ns
			}
			t.Add(r.name, measure.SpreadCell(nss, measure.F), measure.SpreadCell(xs, measure.Ratio),
				measure.F(a), measure.F(medianOf(ss, func(r decodebench.Result) float64 { return r.Bytes })))
		}
		fmt.Fprintln(w, t.String())
	}
	fmt.Fprintf(w, "%s\n", whyTheWinner(rows, ratios, allocs, len(evs)))
	return nil
}

// failure is the text of a contender's failure for a table cell.
func failure(err error) string {
	if err == nil {
		return "no sample"
	}
	s := strings.Join(strings.Fields(err.Error()), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

func medianOf(ss []decodebench.Result, f func(decodebench.Result) float64) float64 {
	xs := make([]float64, len(ss))
	for i, s := range ss {
		xs[i] = f(s)
	}
	return measure.Median(xs)
}

func geomean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(xs)))
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// whyTheWinner writes the paragraph that names the fastest JSON library
// from the figures of this run.
func whyTheWinner(rows []*decoderRow, ratios, allocs [][]float64, nev int) string {
	type score struct {
		i      int
		g      float64 // geometric mean of the per-event ratios to the floor
		lo, hi float64
		allocs float64 // mean allocations per event
	}
	var libs, all []score
	var failed []string
	for i, r := range rows {
		if len(ratios[i]) != nev {
			failed = append(failed, fmt.Sprintf("%s (%s)", r.name, failure(r.err)))
			continue
		}
		s := score{i: i, g: geomean(ratios[i]), lo: slices.Min(ratios[i]), hi: slices.Max(ratios[i]), allocs: mean(allocs[i])}
		all = append(all, s)
		if r.lib {
			libs = append(libs, s)
		}
	}
	var b strings.Builder
	b.WriteString("**Why the winner** (generated from this run's figures): ")
	if len(libs) == 0 {
		b.WriteString("no JSON library was measured on every event.")
		return b.String()
	}
	slices.SortFunc(libs, func(a, b score) int { return cmp.Compare(a.g, b.g) })
	floor := all[0] // the floor is row 0 and never fails here
	win := libs[0]
	fmt.Fprintf(&b, "over the %d events, the fastest JSON library into the floor's struct is **%s**: %s the floor's time per event "+
		"(the geometric mean of the per-event ×first; %s–%s), with %s allocations per event against the floor's %s. ",
		nev, rows[win.i].name, measure.Ratio(win.g), measure.F(win.lo), measure.Ratio(win.hi), measure.F(win.allocs), measure.F(floor.allocs))
	if len(libs) > 1 {
		next := libs[1]
		fmt.Fprintf(&b, "The next, %s, is at %s: the winner's time is %s of its. ", rows[next.i].name, measure.Ratio(next.g), measure.Ratio(win.g/next.g))
	}
	var others []string
	for _, s := range libs[min(2, len(libs)):] {
		others = append(others, fmt.Sprintf("%s %s", rows[s.i].name, measure.Ratio(s.g)))
	}
	if len(others) > 0 {
		fmt.Fprintf(&b, "The others: %s. ", strings.Join(others, ", "))
	}
	for _, s := range all {
		if rows[s.i].lib {
			continue
		}
		fmt.Fprintf(&b, "%s is at %s the floor (%s–%s, %s allocations per event): the winner's time is %s of its. ",
			rows[s.i].name, measure.Ratio(s.g), measure.F(s.lo), measure.Ratio(s.hi), measure.F(s.allocs), measure.Ratio(win.g/s.g))
	}
	if len(failed) > 0 {
		fmt.Fprintf(&b, "Not measured on every event: %s.", strings.Join(failed, "; "))
	}
	return strings.TrimSpace(b.String())
}
