package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime/metrics"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/bench/internal/measure"
	"github.com/a2astream/a2astream/bench/internal/memnet"
	"github.com/a2astream/a2astream/bench/internal/server"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// gcCycles returns the number of completed GC cycles.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// resumeRun streams n chunks cut every `every` and returns the duration of
// each Next that spanned a resume, whether a GC cycle ended during it, and
// the median of the other Next calls.
func resumeRun(hc *http.Client, base string, n, every int) (resumes, cpus []float64, gcHit []bool, normal float64, err error) {
	url := fmt.Sprintf("%s/?s=resume&n=%d&every=%d", base, n, every)
	resumed := 0
	c, err := stream.NewClient(url, stream.WithHTTPClient(hc), stream.WithVersion(a2a.V03),
		stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: time.Nanosecond}), // as good as none: 0 would mean the default
		stream.WithNotify(func(nt stream.Notice) {
			if nt.Kind == stream.Resumed {
				resumed++
			}
		}))
	if err != nil {
		return nil, nil, nil, 0, err
	}
	s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hello"))
	defer s.Close()
	var others []float64
	for {
		before, gc0, cpu0 := resumed, gcCycles(), measure.CPUTime()
		t0 := time.Now()
		ok := s.Next()
		d := float64(time.Since(t0).Nanoseconds())
		cpu := float64(measure.CPUTime() - cpu0)
		if !ok {
			break
		}
		if resumed != before {
			resumes = append(resumes, d)
			gcHit = append(gcHit, gcCycles() != gc0)
			cpus = append(cpus, cpu)
		} else {
			others = append(others, d)
		}
	}
	if err := s.Err(); err != nil {
		return nil, nil, nil, 0, err
	}
	if t := s.Task(); len(t.Artifacts) != 1 || len(t.Artifacts[0].Parts) != n {
		return nil, nil, nil, 0, fmt.Errorf("assembled task does not hold the %d parts", n)
	}
	if want := (n - 1) / every; len(resumes) != want {
		return nil, nil, nil, 0, fmt.Errorf("%d resumes; want %d", len(resumes), want)
	}
	return resumes, cpus, gcHit, measure.Median(others), nil
}

func resumeLatency(cfg *config, w io.Writer) error {
	n, every := 100_000, 1_000
	if cfg.quick {
		n = 5_000
	}
	// In-process: the same handler behind an http.Server on net.Pipe
	// connections.
	ln := memnet.NewListener()
	srv := server.NewServer(&server.Handler{})
	go srv.Serve(ln)
	defer srv.Close()
	mtr := &http.Transport{DialContext: ln.Dial, MaxIdleConnsPerHost: 8}
	modes := []struct {
		name, base string
		hc         *http.Client
	}{
		{"in-process (net.Pipe)", "http://bench.invalid", &http.Client{Transport: mtr}},
		{"loopback TCP (server in a child process)", cfg.base, cfg.hc},
	}
	added := make([][]float64, len(modes))
	noGC := make([][]float64, len(modes))
	cpus := make([][]float64, len(modes))
	normals := make([][]float64, len(modes))
	for range cfg.rounds {
		for i, m := range modes {
			rs, cs, hit, normal, err := resumeRun(m.hc, m.base, n, every)
			cpus[i] = append(cpus[i], cs...)
			if err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
			for k, r := range rs {
				added[i] = append(added[i], r-normal)
				if !hit[k] {
					noGC[i] = append(noGC[i], r-normal)
				}
			}
			normals[i] = append(normals[i], normal)
		}
	}
	fmt.Fprintf(w, "## 5. Resume latency\n\n")
	fmt.Fprintf(w, "A call of %s chunks (0.3) whose connection the server cuts after every %s chunks; resubscribe continues live "+
		"(a2a-go style). Policy: Backoff 0. The added latency of a resume is the duration of the Next call that spanned it "+
		"(EOF, resubscribe POST, response headers, first event) minus the median Next of the same run. "+
		"Quantiles over all resumes of %d interleaved rounds. Process CPU is the user+system time of the whole process "+
		"(getrusage) during that Next: in-process it includes the server's work; a wall time far above it is time spent waiting "+
		"for a CPU or for the peer.\n\n", measure.Thousands(int64(n)), measure.Thousands(int64(every)), cfg.rounds)
	t := measure.Table{Head: []string{"mode", "resumes", "added p50", "added p99", "added max", "resumes with a GC cycle ending inside", "p99 of the others", "process CPU in the resume p50 / p99", "median Next otherwise"},
		Align: []bool{false, true, true, true, true, true, true, true, true}}
	q := func(xs []float64, p float64) string { return measure.Dur(time.Duration(measure.Quantile(xs, p))) }
	for i, m := range modes {
		t.Add(m.name, fmt.Sprint(len(added[i])), q(added[i], 0.5), q(added[i], 0.99), q(added[i], 1),
			fmt.Sprint(len(added[i])-len(noGC[i])), q(noGC[i], 0.99), q(cpus[i], 0.5)+" / "+q(cpus[i], 0.99),
			fmt.Sprintf("%.0f ns", measure.Median(normals[i])))
	}
	fmt.Fprintln(w, t.String())
	p99 := time.Duration(measure.Quantile(added[0], 0.99))
	fmt.Fprintf(w, "Target: p99 ≤ 1 ms in-process: **%s** — %s\n", measure.Dur(p99), verdict(p99 <= time.Millisecond))
	return nil
}
