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
	"strings"
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

// anchorResult is the anchor's part of the run: served over HTTP (serve.mjs,
// side by side with the relay rows) and the library alone (bench.mjs), one
// run per size each, or why a part did not run.
type anchorResult struct {
	ServedErr string
	served    []anchorServed
	Err       string // the library alone
	runs      []anchorRun
}

// anchorSizes are the readers per process the library-alone anchor runs
// with.
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
		return &anchorResult{Err: "node is not installed", ServedErr: "node is not installed"}
	}
	dir, ok := anchorPath()
	if !ok {
		why := "its packages are not installed: run `npm ci` in bench/" + anchorDir
		return &anchorResult{Err: why, ServedErr: why}
	}
	res := &anchorResult{}
	res.served, res.ServedErr = runAnchorServedAll(ctx, cfg, sz, node, dir, rs)
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
	writeAnchorServed(w, a)
	writeAnchorAlone(w, a)
}

// writeAnchorServed renders the served anchor's table: the figures the
// targets compare with the relay's HTTP/1.1 rows on Redis.
func writeAnchorServed(w io.Writer, a *anchorResult) {
	fmt.Fprintf(w, "**Served over HTTP, side by side with the relay rows.** vercel's resumable-stream 2.2 (npm, with node-redis 4: one publisher and one subscriber connection) "+
		"on the same redis-server, behind node's http server on 127.0.0.1 (HTTP/1.1), as a TypeScript chat backend serves it: bench/%s/serve.mjs, one node process. "+
		"The producer (resumableStream) writes each chunk as an SSE event (data: and the same stamped text of about %d bytes as the relay rows); "+
		"GET /events?skip=N resumes the stream (resumeExistingStream with skipCharacters), writes one comment, then pipes the resumed stream into the response. "+
		"A reader that resumes from the middle must get exactly the rest. The readers are the relay rows' own: SSE GETs of the readers' child (%s), "+
		"opened, timed and counted the same way; the same paced and burst phases, one round; chunks/s delivered counts from the wall clock before the first write of the burst. "+
		"Memory per idle reader: the node process's heapUsed, external and RSS deltas with every reader attached, each after two GCs (node --expose-gc). "+
		"Redis connections: CLIENT LIST, idle and peak, as for the relay rows. One run per size.\n\n", anchorDir, scaleChunkLen, readersFlag)
	if len(a.served) == 0 {
		fmt.Fprintf(w, "**Not run: %s.**\n\n", a.ServedErr)
		return
	}
	t := measure.Table{Head: []string{"readers", "attached", "resume from the middle", "heapUsed / idle reader", "external / idle reader", "RSS / idle reader",
		"Redis conns idle / peak", "p50 delivery", "p99 delivery", "chunks/s delivered", "dropped / undelivered", "note"},
		Align: []bool{true, true, false, true, true, true, true, true, true, true, true, false}}
	for _, r := range a.served {
		delivered := "–"
		if r.Delivered > 0 {
			delivered = measure.F(r.Delivered)
		}
		t.Add(measure.Thousands(int64(r.Readers)), measure.Thousands(int64(r.Opened)), resumeCell(r.ResumeOK), kib(r.HeapPer), kib(r.ExtPer), kib(r.RSSPer),
			fmt.Sprintf("%d / %d", r.ConnsIdle, r.ConnsPeak), measure.F(r.P50)+" ms", measure.F(r.P99)+" ms", delivered,
			fmt.Sprintf("%d / %d", r.Dropped, r.Short), orDash(strings.TrimSpace(r.Note)))
	}
	fmt.Fprintln(w, t.String())
	if a.ServedErr != "" {
		fmt.Fprintf(w, "**Then: %s.**\n\n", a.ServedErr)
	}
}

func resumeCell(ok bool) string {
	if ok {
		return "exactly the rest"
	}
	return "**wrong**"
}

// writeAnchorAlone renders the library-alone anchor's table, which no
// target compares: it has no HTTP response per reader.
func writeAnchorAlone(w io.Writer, a *anchorResult) {
	fmt.Fprintf(w, "**The library alone, not side by side.** The same library driven by bench/%s/bench.mjs in one node process: "+
		"the same stream and phases, but the N readers resume the stream in the same process and read it there: no HTTP response and no socket per reader, "+
		"which the relay rows and the served anchor include; no target compares these figures. "+
		"Memory per idle reader: heapUsed and RSS deltas after two GCs. Redis connections: CLIENT LIST, peak. One run per size.\n\n", anchorDir)
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
		t.Add(measure.Thousands(int64(r.Readers)), resumeCell(r.ResumeOK), kib(r.HeapPer), kib(r.RSSPer),
			strconv.Itoa(r.conns), opt(r.P50, ms), opt(r.P99, ms), opt(r.Delivered, measure.F),
			strconv.FormatInt(max(0, r.PacedWant-r.PacedEvents)+max(0, r.BurstWant-r.BurstEvents), 10))
	}
	fmt.Fprintln(w, t.String())
	if a.Err != "" {
		fmt.Fprintf(w, "**Then: %s.**\n\n", a.Err)
	}
}
