package main

import (
	"fmt"
	"strings"

	"github.com/a2astream/a2astream/bench/internal/measure"
)

// Issue 21's targets.
const (
	floorTarget   = 1.2      // driver events/s over the decode floor's, at least
	a2agoTarget   = 3.0      // driver events/s over the a2a-go client's, at least
	allocsTarget  = 4.0      // the driver's allocations per event, net/http included, at most
	bigTimeTarget = 1.0      // one big event through the driver over one json.Unmarshal of it, at most
	bigPeakTarget = 2.0      // the driver's peak heap over the event's size, at most
	idleTarget    = 16 << 10 // bytes per idle stream, everything included, at most
	ledgerTarget  = 1.2      // the ledger's cost per event at 1,000 artifacts over 1 artifact, at most
	pollTarget    = 1.5      // an empty poll over one json.Unmarshal of its body, at most
)

// figure is one measured value of a target, under the name of where it
// was measured (a wire, a size, a protocol).
type figure struct {
	where string
	x     float64
}

// ranged is the smallest and the largest round of a figure that is a
// median of rounds.
type ranged struct{ lo, hi float64 }

// results collects what the suites measured for issue 21's targets; a
// suite that did not run leaves its field nil.
type results struct {
	floor []figure // driver events/s ×the floor, by wire (and GOMAXPROCS)
	a2ago []figure // driver events/s ×a2a-go, 0.3 JSON-RPC (by GOMAXPROCS)
	// floorRange and a2agoRange are the rounds' range of each figure of
	// floor and a2ago, in the same order (nil when unknown).
	floorRange, a2agoRange []ranged
	// throughputRead says which rounds floor, a2ago and allocs read: warm
	// or fresh, their number, the statistic.
	throughputRead string
	allocs         []figure // driver allocations per event, by wire
	big            *bigFigures
	idle           []figure // bytes per idle stream, everything included, by protocol
	// idleNetHTTP is the same streams held with net/http alone, by
	// protocol: what of idle is not a2astream's.
	idleNetHTTP []figure
	ledger      *ledgerFigures
	poll        []pollFigures
}

// bigFigures is the driver's row of the big-events suite: per size, time
// over json.Unmarshal and peak heap over the size (no figure for a size
// it skipped).
type bigFigures struct {
	time, peak []figure
	ssePeak    []figure // the SSE decoder's own peak heap over the size, alone
	skipped    []string
}

// targetRow is one row of the closing table.
type targetRow struct {
	measure, target string
	figures         []figure
	ok              func(float64) bool
	format          func(float64) string
	unmeasured      []string // where a suite that ran measured nothing (a skipped size)
	// why says, for a miss, what this run measured that explains it, and
	// the next idea; "" when the run measured nothing to the point.
	why    string
	ranges []ranged // each figure's rounds, min–max, when known
	// read says which figure of the rounds the verdict read (a median of
	// fresh rounds, the largest median, one measurement).
	read string
}

// targetsReport renders the closing section: one row per target of issue
// 21, with this run's figures and whether each met it.
func targetsReport(r *results) string {
	atLeast := func(t float64) func(float64) bool { return func(x float64) bool { return x >= t } }
	atMost := func(t float64) func(float64) bool { return func(x float64) bool { return x <= t } }
	var bigTime, bigPeak []figure
	var bigSkipped []string
	if r.big != nil {
		bigTime, bigPeak, bigSkipped = r.big.time, r.big.peak, r.big.skipped
	}
	var ledger, poll []figure
	if r.ledger != nil {
		ledger = []figure{{"1,000 vs 1 artifact", r.ledger.ratio}}
	}
	for _, p := range r.poll {
		poll = append(poll, figure{p.where(), p.ratio})
	}
	whyPeak, whyIdle, whyPoll := "", "", ""
	if r.big != nil && len(r.big.ssePeak) > 0 {
		whyPeak = "the SSE decoder alone, holding the event's data in 16 KiB chunks that are never copied, peaks at " +
			figures(r.big.ssePeak, measure.Ratio) + " the event (with its read buffer, the last chunk's free room and the first one's growth); " +
			"the text's one copy adds about 1×, and the call's own allocations (request, response, task, chunk list) a few tens of KiB, " +
			"which weigh most at 1 MiB. No decoder that gives `Part.Text` as one string gets under 2× at 1 MiB: the event's data is held until the text's closing quote gives its length, and the text is then one string of 0.99× the event (a floor of 2.009× with the call's own 16 KiB; docs/performance.md)."
	}
	if len(r.idleNetHTTP) > 0 {
		whyIdle = "net/http alone holds " + figures(r.idleNetHTTP, kib) + " per stream for the same streams. " +
			"Next: over HTTP/1.1 the rest is net/http's connection; share connections with HTTP/2."
	}
	if len(r.poll) > 0 {
		var ds []figure
		for _, p := range r.poll {
			ds = append(ds, figure{p.where(), p.decodeRatio})
		}
		whyPoll = "a2a.Codec.DecodeTask of the body alone takes " + figures(ds, measure.Ratio) + " the struct's json.Unmarshal " +
			"(encoding/json into the union of both versions' shapes, then the conversion), which an empty poll skips when its body " +
			"repeats the last poll's byte for byte: a miss says a poll decoded it. Next: find what made the body differ, or what " +
			"made the stream forget the last one."
	}
	tput := r.throughputRead
	if tput == "" {
		tput = "median of the suite's rounds"
	}
	rows := []targetRow{
		{"driver events/s vs the decode floor, 0.3 and 1.0, JSON-RPC and HTTP+JSON", fmt.Sprintf("≥ %s", measure.Ratio(floorTarget)), r.floor, atLeast(floorTarget), measure.Ratio, nil, "", r.floorRange, tput},
		{"driver events/s vs the a2a-go v0.3.3 client", fmt.Sprintf("≥ %s", measure.Ratio(a2agoTarget)), r.a2ago, atLeast(a2agoTarget), measure.Ratio, nil, "", r.a2agoRange, tput},
		{"allocations per event in the driver, net/http included", fmt.Sprintf("≤ %s", measure.F(allocsTarget)), r.allocs, atMost(allocsTarget), measure.F, nil, "", nil, "largest median of the throughput sets judged"},
		{"one big event: time vs one json.Unmarshal of it", fmt.Sprintf("≤ %s", measure.Ratio(bigTimeTarget)), bigTime, atMost(bigTimeTarget), measure.Ratio, bigSkipped, "", nil, "median of warm rounds"},
		{"one big event: peak heap vs the event size", fmt.Sprintf("≤ %s", measure.Ratio(bigPeakTarget)), bigPeak, atMost(bigPeakTarget), measure.Ratio, bigSkipped, whyPeak, nil, "median of warm rounds"},
		{"memory per idle stream, everything included", fmt.Sprintf("≤ %s", kib(idleTarget)), r.idle, atMost(idleTarget), kib, nil, whyIdle, nil, "one measurement per protocol"},
		{"ledger cost per event at 1,000 artifacts vs 1 artifact", fmt.Sprintf("≤ %s", measure.Ratio(ledgerTarget)), ledger, atMost(ledgerTarget), measure.Ratio, nil, "", nil, "median of warm rounds"},
		{"a polled task of 10,000 artifacts: an empty poll vs one json.Unmarshal of it", fmt.Sprintf("≤ %s", measure.Ratio(pollTarget)), poll, atMost(pollTarget), measure.Ratio, nil, whyPoll, nil, "median of warm rounds"},
	}
	var b strings.Builder
	b.WriteString("## Issue 21 targets\n\n")
	b.WriteString("Each target of issue 21's table against this run's figures, taken from the suites above (a suite not run says so). " +
		"A target with several figures is met when every figure meets it. The last column says which figure of the rounds the verdict read; " +
		"a figure that is a median of rounds has the rounds' min–max in brackets.\n\n")
	t := measure.Table{Head: []string{"measure", "target", "this run", "verdict", "for a miss: what this run measured, and the next idea", "the verdict read"}}
	for _, row := range rows {
		if len(row.figures) == 0 && len(row.unmeasured) == 0 {
			t.Add(row.measure, row.target, "not run", "–", "–", "–")
			continue
		}
		cells := make([]string, len(row.figures))
		var met, missed []string
		for i, f := range row.figures {
			cells[i] = f.where + ": " + row.format(f.x)
			if i < len(row.ranges) {
				cells[i] += " (" + row.format(row.ranges[i].lo) + "–" + row.format(row.ranges[i].hi) + ")"
			}
			if row.ok(f.x) {
				met = append(met, f.where)
			} else {
				missed = append(missed, f.where)
			}
		}
		for _, u := range row.unmeasured {
			cells = append(cells, u+": not measured")
		}
		v := "met"
		switch {
		case len(missed) == 0 && len(met) == 0:
			v = "–"
		case len(missed) > 0 && len(met) == 0:
			v = "**missed**"
		case len(missed) > 0:
			v = "**missed** at " + strings.Join(missed, ", ") + "; met at " + strings.Join(met, ", ")
		}
		if len(row.unmeasured) > 0 {
			v = strings.TrimPrefix(v+"; ", "–; ") + "not measured at " + strings.Join(row.unmeasured, ", ")
		}
		why := "–"
		switch {
		case len(missed) == 0:
		case row.why != "":
			why = row.why
		default:
			why = "nothing in this run's figures explains it; the CPU profile of section 1 is where to look"
		}
		t.Add(row.measure, row.target, strings.Join(cells, "; "), v, why, row.read)
	}
	b.WriteString(t.String())
	return b.String()
}

// figures lists figures as "where: value; …".
func figures(fs []figure, format func(float64) string) string {
	cells := make([]string, len(fs))
	for i, f := range fs {
		cells[i] = f.where + " " + format(f.x)
	}
	return strings.Join(cells, ", ")
}
