package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/a2astream/a2astream/bench/internal/measure"
)

// anchorServed is what one run of the served anchor (serve.mjs) measured at
// Readers readers: resumable-stream behind node's http server, its readers
// SSE GETs of the suite's readers' child, measured as the relay rows are.
type anchorServed struct {
	Readers  int
	Opened   int
	ResumeOK bool
	// HeapPer, ExtPer and RSSPer are the node process's heapUsed,
	// external and RSS deltas per idle reader, after two GCs.
	HeapPer, ExtPer, RSSPer float64
	ConnsIdle, ConnsPeak    int
	P50, P99                float64 // ms, the paced events
	Delivered               float64 // events/s delivered to all readers in the burst; 0: none
	Short                   int64   // deliveries missing when a phase's wait ran out
	Dropped                 int64   // responses the server ended
	Note                    string
}

// anchorServedSizes are the readers the served anchor runs with.
func anchorServedSizes(quick bool) []int {
	if quick {
		return []int{50}
	}
	return []int{100, 1_000, 10_000}
}

// anchorServer is the parent's end of one serve.mjs process.
type anchorServer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Scanner
	stderr bytes.Buffer
}

// anchorReply is one line serve.mjs writes.
type anchorReply struct {
	Err      string  `json:"err"`
	Port     int     `json:"port"`
	Middle   int     `json:"middle"`
	Want     string  `json:"want"`
	Written  int     `json:"written"`
	Heap     float64 `json:"heap"`
	External float64 `json:"external"`
	RSS      float64 `json:"rss"`
	T0       string  `json:"t0"`
}

func startAnchorServer(ctx context.Context, node, dir, redisURL string) (*anchorServer, anchorReply, error) {
	s := &anchorServer{cmd: exec.CommandContext(ctx, node, "--expose-gc", "serve.mjs", redisURL)}
	s.cmd.Dir = dir
	s.cmd.Stderr = &s.stderr
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		return nil, anchorReply{}, err
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, anchorReply{}, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, anchorReply{}, err
	}
	s.out = bufio.NewScanner(stdout)
	s.out.Buffer(make([]byte, 1<<16), 16<<20)
	hello, err := s.read()
	if err != nil {
		s.stop()
		return nil, hello, err
	}
	return s, hello, nil
}

func (s *anchorServer) read() (anchorReply, error) {
	var r anchorReply
	if !s.out.Scan() {
		return r, fmt.Errorf("node serve.mjs: no reply: %v %s", s.out.Err(), bytes.TrimSpace(s.stderr.Bytes()))
	}
	if err := json.Unmarshal(s.out.Bytes(), &r); err != nil {
		return r, fmt.Errorf("node serve.mjs printed %q: %w", s.out.Bytes(), err)
	}
	if r.Err != "" {
		return r, errors.New("node serve.mjs: " + r.Err)
	}
	return r, nil
}

func (s *anchorServer) do(cmd map[string]any) (anchorReply, error) {
	b, err := json.Marshal(cmd)
	if err != nil {
		return anchorReply{}, err
	}
	if _, err := s.stdin.Write(append(b, '\n')); err != nil {
		return anchorReply{}, fmt.Errorf("node serve.mjs: %w", err)
	}
	return s.read()
}

// stop closes the script's stdin and waits for it to exit, 10 s at most.
func (s *anchorServer) stop() { stopChild(s.cmd, s.stdin, 10*time.Second) }

// resumeFromMiddle opens a reader at the middle of the stream, has the
// script write more, and reports whether the reader got exactly the rest.
func resumeFromMiddle(ctx context.Context, s *anchorServer, base string, middle int) (ok bool, written int, err error) {
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, base+"/events?skip="+strconv.Itoa(middle), nil)
	if err != nil {
		return false, 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, 0, fmt.Errorf("GET /events?skip=%d: %s", middle, resp.Status)
	}
	br := bufio.NewReader(resp.Body)
	if _, err := br.ReadString('\n'); err != nil { // ": resumed"
		return false, 0, err
	}
	if _, err := br.ReadString('\n'); err != nil { // the comment's blank line
		return false, 0, err
	}
	more, err := s.do(map[string]any{"op": "more"})
	if err != nil {
		return false, 0, err
	}
	got := make([]byte, len(more.Want))
	if _, err := io.ReadFull(br, got); err != nil {
		return false, more.Written, fmt.Errorf("resume from the middle: %w after %q", err, got)
	}
	return string(got) == more.Want, more.Written, nil
}

// runAnchorServed runs serve.mjs once at n readers of the suite's readers'
// child rd, on rs: the resume from the middle, the memory per idle
// reader, the Redis connections, the paced and the burst phases.
func runAnchorServed(ctx context.Context, sz scaleSizes, node, dir string, rs *redisServer, rd *readers, n int) (run anchorServed, err error) {
	run = anchorServed{Readers: n, ConnsIdle: -1, ConnsPeak: -1}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	s, hello, err := startAnchorServer(rctx, node, dir, "redis://"+rs.addr)
	if err != nil {
		return run, err
	}
	defer s.stop()
	base := "http://127.0.0.1:" + strconv.Itoa(hello.Port)
	var written int
	if run.ResumeOK, written, err = resumeFromMiddle(rctx, s, base, hello.Middle); err != nil {
		return run, err
	}
	before, err := s.do(map[string]any{"op": "mem"})
	if err != nil {
		return run, err
	}
	opened, note, closeReaders, err := rd.open(readerCmd{URLs: []string{base + "/events?skip=" + strconv.Itoa(written)}, N: n})
	if err != nil {
		return run, err
	}
	defer func() { err = firstErr(err, closeReaders()) }()
	run.Opened, run.Note = opened.Open, note
	after, err := s.do(map[string]any{"op": "mem"})
	if err != nil {
		return run, err
	}
	if k := float64(run.Opened); k > 0 {
		run.HeapPer = (after.Heap - before.Heap) / k
		run.ExtPer = (after.External - before.External) / k
		run.RSSPer = (after.RSS - before.RSS) / k
	}
	if run.ConnsIdle, err = rs.clients(); err != nil {
		return run, err
	}
	peak := watchConns(rs)
	defer func() {
		p, perr := peak.end()
		run.ConnsPeak = max(p, run.ConnsIdle)
		err = firstErr(err, perr)
	}()
	k := int64(run.Opened)
	if _, err := rd.do(readerCmd{Op: "reset"}); err != nil {
		return run, err
	}
	if _, err := s.do(map[string]any{"op": "paced", "n": sz.paced, "every": int(sz.pacedEvery / time.Millisecond)}); err != nil {
		return run, err
	}
	got, err := rd.do(readerCmd{Op: "wait", Events: k * int64(sz.paced), Timeout: sz.wait})
	if err != nil {
		return run, err
	}
	run.Short += max(0, k*int64(sz.paced)-got.Events)
	run.P50, run.P99 = float64(got.P50)/1e6, float64(got.P99)/1e6
	if _, err := rd.do(readerCmd{Op: "reset"}); err != nil {
		return run, err
	}
	b, err := s.do(map[string]any{"op": "burst", "n": sz.burst})
	if err != nil {
		return run, err
	}
	t0, err := strconv.ParseInt(b.T0, 10, 64)
	if err != nil {
		return run, fmt.Errorf("node serve.mjs: t0 %q: %w", b.T0, err)
	}
	got, err = rd.do(readerCmd{Op: "wait", Events: k * int64(sz.burst), Timeout: sz.wait})
	if err != nil {
		return run, err
	}
	run.Short += max(0, k*int64(sz.burst)-got.Events)
	if got.LastNS > t0 {
		run.Delivered = float64(got.Events) / time.Duration(got.LastNS-t0).Seconds()
	}
	run.Dropped = got.Ended
	return run, nil
}

// runAnchorServedAll runs the served anchor at each size, with a readers'
// child of its own (the same binary the relay rows use), flushing Redis
// between sizes; it stops at the first size that fails and says why.
func runAnchorServedAll(ctx context.Context, cfg *config, sz scaleSizes, node, dir string, rs *redisServer) ([]anchorServed, string) {
	rd, err := startReaders()
	if err != nil {
		return nil, err.Error()
	}
	defer rd.stop()
	var runs []anchorServed
	for _, n := range anchorServedSizes(cfg.quick) {
		t0 := time.Now()
		run, err := runAnchorServed(ctx, sz, node, dir, rs, rd, n)
		fmt.Fprintf(os.Stderr, "relay-scale: resumable-stream served, %s readers: %s: resume from the middle %v, %d attached, %s heapUsed, %s external and %s RSS per idle reader, Redis conns %d idle %d peak, p50 %s ms, p99 %s ms, %s chunks/s delivered, dropped %d, undelivered %d %s%v\n",
			measure.Thousands(int64(n)), time.Since(t0).Round(time.Second), run.ResumeOK, run.Opened, kib(run.HeapPer), kib(run.ExtPer), kib(run.RSSPer),
			run.ConnsIdle, run.ConnsPeak, measure.F(run.P50), measure.F(run.P99), measure.F(run.Delivered), run.Dropped, run.Short, run.Note, orNil(err))
		if err != nil {
			return runs, fmt.Sprintf("node serve.mjs at %d readers: %v", n, err)
		}
		runs = append(runs, run)
		if err := rs.flush(); err != nil {
			return runs, err.Error()
		}
		debugFree()
	}
	return runs, ""
}

// orNil is err's text for a progress line, or nothing.
func orNil(err error) string {
	if err == nil {
		return ""
	}
	return "error: " + err.Error()
}
