package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/a2astream/a2astream/bench/internal/measure"
)

// anchorDir is the node script of the anchor, relative to the bench
// module: vercel's resumable-stream, installed with `npm ci` there.
const anchorDir = "anchor/resumable-stream"

// anchorPath returns the anchor's directory, found from the bench module
// (go run) or from the command's package (go test), and whether its
// packages are installed.
func anchorPath() (string, bool) {
	for _, up := range []string{".", filepath.Join("..", "..")} {
		dir, err := filepath.Abs(filepath.Join(up, anchorDir))
		if err != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "bench.mjs")); err != nil {
			continue
		}
		_, err = os.Stat(filepath.Join(dir, "node_modules", "resumable-stream", "package.json"))
		return dir, err == nil
	}
	return "", false
}

// anchorRun is what one run of the anchor's script measured, at Readers
// readers (its JSON line), with the Redis connections it used.
type anchorRun struct {
	Readers     int      `json:"readers"`
	ResumeOK    bool     `json:"resumeOK"`
	HeapPer     float64  `json:"heapPer"`
	RSSPer      float64  `json:"rssPer"`
	P50         *float64 `json:"p50"`
	P99         *float64 `json:"p99"`
	PacedEvents int64    `json:"pacedEvents"`
	PacedWant   int64    `json:"pacedWant"`
	BurstEvents int64    `json:"burstEvents"`
	BurstWant   int64    `json:"burstWant"`
	Delivered   *float64 `json:"delivered"`
	conns       int
}

// anchorResult is the anchor's part of the run: one run per size, or why
// it did not run.
type anchorResult struct {
	Err  string
	runs []anchorRun
}

// anchorSizes are the readers per process the anchor runs with.
func anchorSizes(quick bool) []int {
	if quick {
		return []int{50}
	}
	return []int{100, 1_000}
}

// runAnchor runs the anchor's script on rs, once per size, when node and
// the script's packages are installed; else it says why not.
func runAnchor(ctx context.Context, cfg *config, sz scaleSizes, rs *redisServer) *anchorResult {
	node, err := exec.LookPath("node")
	if err != nil {
		return &anchorResult{Err: "node is not installed"}
	}
	dir, ok := anchorPath()
	if !ok {
		return &anchorResult{Err: "its packages are not installed: run `npm ci` in bench/" + anchorDir}
	}
	res := &anchorResult{}
	for _, n := range anchorSizes(cfg.quick) {
		peak := watchConns(rs)
		rctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		cmd := exec.CommandContext(rctx, node, "--expose-gc", "bench.mjs", "redis://"+rs.addr, strconv.Itoa(n),
			strconv.Itoa(sz.paced), strconv.Itoa(int(sz.pacedEvery/time.Millisecond)), strconv.Itoa(sz.burst))
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		cancel()
		conns, _ := peak.end()
		if err != nil {
			res.Err = fmt.Sprintf("node bench.mjs at %d readers: %v: %s", n, err, bytes.TrimSpace(stderr.Bytes()))
			return res
		}
		var r anchorRun
		if err := json.Unmarshal(bytes.TrimSpace(out), &r); err != nil {
			res.Err = fmt.Sprintf("node bench.mjs at %d readers printed %q: %v", n, out, err)
			return res
		}
		r.conns = conns
		res.runs = append(res.runs, r)
		if err := rs.flush(); err != nil {
			res.Err = err.Error()
			return res
		}
	}
	return res
}

func writeAnchor(w io.Writer, a *anchorResult) {
	fmt.Fprintf(w, "### The anchor: resumable-stream\n\n")
	if a == nil {
		fmt.Fprintf(w, "Not run: it needs the Redis rows' redis-server, which this run had not.\n\n")
		return
	}
	fmt.Fprintf(w, "vercel's resumable-stream 2.2 (npm, with node-redis 4) on the same redis-server, driven by bench/%s/bench.mjs in one node process: "+
		"one stream whose producer (resumableStream) writes the same chunks as the relay rows above (a stamped text of about 48 characters, "+
		"paced then back to back); a reader that resumes from the middle (resumeExistingStream with skipCharacters) must get exactly the rest; "+
		"then N readers resume the stream in the same process. It measures the library alone: no HTTP response per reader, which the relay rows include. "+
		"Memory per idle reader: heapUsed and RSS deltas after two GCs (node --expose-gc). Redis connections: CLIENT LIST, peak. One run per size.\n\n", anchorDir)
	if a.Err != "" && len(a.runs) == 0 {
		fmt.Fprintf(w, "**Not run: %s.**\n\n", a.Err)
		return
	}
	t := measure.Table{Head: []string{"readers", "resume from the middle", "heap / idle reader", "RSS / idle reader", "Redis conns peak", "p50 delivery", "p99 delivery", "chunks/s delivered", "undelivered"},
		Align: []bool{true, false, true, true, true, true, true, true, true}}
	opt := func(p *float64, f func(float64) string) string {
		if p == nil {
			return "–"
		}
		return f(*p)
	}
	ms := func(x float64) string { return measure.F(x) + " ms" }
	for _, r := range a.runs {
		t.Add(measure.Thousands(int64(r.Readers)), map[bool]string{true: "exactly the rest", false: "**wrong**"}[r.ResumeOK], kib(r.HeapPer), kib(r.RSSPer),
			strconv.Itoa(r.conns), opt(r.P50, ms), opt(r.P99, ms), opt(r.Delivered, measure.F),
			strconv.FormatInt(max(0, r.PacedWant-r.PacedEvents)+max(0, r.BurstWant-r.BurstEvents), 10))
	}
	fmt.Fprintln(w, t.String())
	if a.Err != "" {
		fmt.Fprintf(w, "**Then: %s.**\n\n", a.Err)
	}
}
