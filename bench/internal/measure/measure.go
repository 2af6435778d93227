// Package measure takes the figures the benchmarks report: wall and CPU
// time of the process, allocations, peak heap, and the medians and ratios
// of interleaved rounds, and renders them as markdown.
package measure

import (
	"fmt"
	"math"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Sample is what one run cost.
type Sample struct {
	Wall    time.Duration
	CPU     time.Duration // user+system time of the whole process
	Mallocs uint64
	Bytes   uint64
	Peak    uint64 // peak heap growth over the baseline, when sampled
}

// Probe measures one run.
type Probe struct {
	t0   time.Time
	cpu0 time.Duration
	m0   runtime.MemStats
	peak *peakSampler
}

// Start collects garbage, then starts measuring. With peak, a goroutine
// samples the heap every 100µs for the peak growth.
func Start(peak bool) *Probe {
	runtime.GC()
	p := &Probe{}
	runtime.ReadMemStats(&p.m0)
	if peak {
		p.peak = startPeak()
	}
	p.cpu0 = CPUTime()
	p.t0 = time.Now()
	return p
}

// Stop ends the measurement.
func (p *Probe) Stop() Sample {
	wall := time.Since(p.t0)
	cpu := CPUTime() - p.cpu0
	var m1 runtime.MemStats
	runtime.ReadMemStats(&m1)
	s := Sample{Wall: wall, CPU: cpu, Mallocs: m1.Mallocs - p.m0.Mallocs, Bytes: m1.TotalAlloc - p.m0.TotalAlloc}
	if p.peak != nil {
		s.Peak = p.peak.stop()
	}
	return s
}

// CPUTime returns the user+system CPU time the process used so far.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

const heapMetric = "/memory/classes/heap/objects:bytes"

// HeapObjects returns the bytes of live and not yet swept dead heap
// objects, without stopping the world.
func HeapObjects() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

type peakSampler struct {
	base uint64
	max  atomic.Uint64
	quit chan struct{}
	done chan struct{}
}

func startPeak() *peakSampler {
	p := &peakSampler{base: HeapObjects(), quit: make(chan struct{}), done: make(chan struct{})}
	p.max.Store(p.base)
	go func() {
		defer close(p.done)
		s := []metrics.Sample{{Name: heapMetric}}
		t := time.NewTicker(100 * time.Microsecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > p.max.Load() {
				p.max.Store(v)
			}
			select {
			case <-p.quit:
				return
			case <-t.C:
			}
		}
	}()
	return p
}

func (p *peakSampler) stop() uint64 {
	if v := HeapObjects(); v > p.max.Load() {
		p.max.Store(v)
	}
	close(p.quit)
	<-p.done
	return p.max.Load() - p.base
}

// Median returns the median of xs (NaN for none).
func Median(xs []float64) float64 { return Quantile(xs, 0.5) }

// Quantile returns the q-quantile of xs by linear interpolation.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	pos := q * float64(len(s)-1)
	i := int(pos)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	f := pos - float64(i)
	return s[i]*(1-f) + s[i+1]*f
}

// Table is a markdown table.
type Table struct {
	Head  []string
	Align []bool // right-aligned columns
	Rows  [][]string
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// String renders the table.
func (t *Table) String() string {
	var b strings.Builder
	b.WriteString("| " + strings.Join(t.Head, " | ") + " |\n|")
	for i := range t.Head {
		if i < len(t.Align) && t.Align[i] {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	return b.String()
}

// F formats a float with a precision that suits its size.
func F(x float64) string {
	switch ax := math.Abs(x); {
	case math.IsNaN(x):
		return "–"
	case ax >= 10_000:
		return Thousands(int64(math.Round(x)))
	case ax >= 100:
		return fmt.Sprintf("%.0f", x)
	case ax >= 10:
		return fmt.Sprintf("%.1f", x)
	default:
		return fmt.Sprintf("%.2f", x)
	}
}

// Thousands formats n with thin separators: 1 234 567.
func Thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []string
	for len(s) > 3 {
		out = append([]string{s[len(s)-3:]}, out...)
		s = s[:len(s)-3]
	}
	out = append([]string{s}, out...)
	r := strings.Join(out, " ")
	if neg {
		r = "-" + r
	}
	return r
}

// Ratio formats x as a multiple: 2.31×.
func Ratio(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "–"
	}
	return fmt.Sprintf("%.2f×", x)
}

// MiB formats bytes in MiB.
func MiB(b float64) string { return fmt.Sprintf("%.1f MiB", b/(1<<20)) }

// Dur formats a duration with three significant digits.
func Dur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	default:
		return fmt.Sprintf("%.0f µs", float64(d)/1e3)
	}
}

// Spread returns the smallest, the median and the largest of xs (NaN for
// none).
func Spread(xs []float64) (lo, med, hi float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	return slices.Min(xs), Median(xs), slices.Max(xs)
}

// SpreadCell renders the spread of xs as "min / median / max", each with
// format; one value alone is rendered once.
func SpreadCell(xs []float64, format func(float64) string) string {
	lo, med, hi := Spread(xs)
	if len(xs) == 1 {
		return format(med)
	}
	return format(lo) + " / " + format(med) + " / " + format(hi)
}
