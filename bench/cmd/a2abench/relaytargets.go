package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/a2astream/a2astream/bench/internal/measure"
)

// scaleJudged is one figure of a target: where it was measured, its text,
// and whether it meets the target (nil: not at the target's size).
type scaleJudged struct {
	where, value string
	ok           *bool
}

func judged(where, value string, ok bool, atSize bool) scaleJudged {
	if !atSize {
		return scaleJudged{where: where, value: value}
	}
	return scaleJudged{where: where, value: value, ok: &ok}
}

// writeScaleTargets renders issue 35's targets against the run's figures.
func writeScaleTargets(w io.Writer, sz scaleSizes, rows []scaleRow, anchor *anchorResult) {
	largest := slices.Max(sz.perStream)
	latAt := scaleP99At
	if !slices.Contains(sz.perStream, latAt) {
		latAt = largest
	}
	one := func(keep func(scaleRow) bool) []scaleRow {
		var out []scaleRow
		for _, r := range rows {
			if r.streams == 1 && keep(r) {
				out = append(out, r)
			}
		}
		return out
	}
	where := func(r scaleRow) string { return r.store + ", " + r.proto + ", " + measure.Thousands(int64(r.per)) }
	complete := func(r scaleRow) bool {
		return r.opened == r.readers() && r.dropped == 0 && r.short == 0 && r.note == ""
	}

	type target struct {
		measure, target string
		figs            []scaleJudged
		why             string
	}
	var ts []target

	var conns []scaleJudged
	for _, r := range one(func(r scaleRow) bool { return !r.memory && r.per == largest }) {
		v := fmt.Sprintf("%d peak (%s attached, %s undelivered)", r.connsPeak, measure.Thousands(int64(r.opened)), measure.Thousands(r.short))
		conns = append(conns, judged(where(r), v, complete(r) && r.connsPeak <= scaleRedisConns, r.per >= scaleReaders))
	}
	ts = append(ts, target{fmt.Sprintf("%s readers of one stream on one replica, Redis connections", measure.Thousands(scaleReaders)),
		fmt.Sprintf("≤ %d, every reader served", scaleRedisConns), conns,
		fmt.Sprintf("the peak counts every connection of the process (CLIENT LIST): the driver's and the readers', in a pool of %d, and the store's Pub/Sub connection", scaleRedisPool)})

	var idle []scaleJudged
	for _, r := range one(func(r scaleRow) bool { return r.h2c && r.per == largest }) {
		idle = append(idle, judged(where(r), kib(r.heapPer)+" heap+stacks ("+kib(r.rssPer)+" RSS)", r.heapPer <= scaleIdleTarget, r.per >= scaleReaders))
	}
	ts = append(ts, target{"memory per idle reader over h2c (heap + stacks)", "≤ " + kib(scaleIdleTarget), idle,
		"a reader is a net/http server stream and the Handler's goroutine, its bufio writer and its follower"})

	var lat []scaleJudged
	for _, r := range one(func(r scaleRow) bool { return r.per == latAt }) {
		if len(r.p99) == 0 {
			lat = append(lat, judged(where(r), "not measured", false, latAt == scaleP99At))
			continue
		}
		p := measure.Median(r.p99)
		lat = append(lat, judged(where(r), measure.F(p)+" ms", p <= float64(scaleP99Target)/1e6 && complete(r), latAt == scaleP99At))
	}
	ts = append(ts, target{fmt.Sprintf("p99 delivery, commit to receipt, at %s readers of one stream", measure.Thousands(scaleP99At)),
		"≤ " + measure.Dur(scaleP99Target), lat, "the readers' child and the replica share the machine's cores"})

	var rate []scaleJudged
	for _, r := range one(func(r scaleRow) bool { return r.per == largest }) {
		var ratios []float64
		for i := range min(len(r.commits), len(r.none)) {
			ratios = append(ratios, r.commits[i]/r.none[i])
		}
		if len(ratios) == 0 {
			rate = append(rate, judged(where(r), "not measured", false, r.per >= scaleReaders))
			continue
		}
		x := measure.Median(ratios)
		rate = append(rate, judged(where(r), measure.Ratio(x), x >= scaleCommitTarget, r.per >= scaleReaders))
	}
	ts = append(ts, target{fmt.Sprintf("the driver's commit rate with %s readers over none (same round)", measure.Thousands(scaleReaders)),
		fmt.Sprintf("≥ %s", measure.Ratio(scaleCommitTarget)), rate, "each entry's fan-out costs about 2 µs of CPU per reader (the replica's writes and the readers' reads, on the same cores): the deliveries of the burst hold the cores, and the driver's Commit waits for CPU, not for Redis"})

	ahead, whyAnchor := anchorAhead(rows, anchor, where)
	ts = append(ts, target{anchorAheadMeasure, "ahead", ahead, whyAnchor})

	fmt.Fprintf(w, "### Issue 35 targets\n\n")
	fmt.Fprintf(w, "Each target against this run's figures (medians of the rounds). A figure measured below the target's size is shown but not judged.\n\n")
	t := measure.Table{Head: []string{"measure", "target", "this run", "verdict", "for a miss: what it counts"}}
	for _, x := range ts {
		if len(x.figs) == 0 {
			why := "–"
			if strings.HasPrefix(x.why, "resumable-stream") {
				why = x.why
			}
			t.Add(x.measure, x.target, "not run", "–", why)
			continue
		}
		var cells, met, missed, unsized []string
		for _, f := range x.figs {
			cells = append(cells, f.where+": "+f.value)
			switch {
			case f.ok == nil:
				unsized = append(unsized, f.where)
			case *f.ok:
				met = append(met, f.where)
			default:
				missed = append(missed, f.where)
			}
		}
		var v []string
		switch {
		case len(missed) > 0 && len(met) == 0:
			v = append(v, "**missed**")
		case len(missed) > 0:
			v = append(v, "**missed** at "+strings.Join(missed, "; ")+"; met at "+strings.Join(met, "; "))
		case len(met) > 0:
			v = append(v, "met")
		}
		if len(unsized) > 0 {
			v = append(v, "not judged (below the target's size)")
		}
		why := "–"
		if len(missed) > 0 {
			why = x.why
		}
		t.Add(x.measure, x.target, strings.Join(cells, "; "), strings.Join(v, "; "), why)
	}
	fmt.Fprintln(w, t.String())
}

// anchorAheadMeasure names the anchor's target and what it compares.
const anchorAheadMeasure = "ahead of resumable-stream on every figure measured side by side (the relay's HTTP/1.1 rows on Redis vs resumable-stream served by node's http server: the same readers' child, redis-server and phases)"

// anchorAhead judges the relay against the served anchor, figure by
// figure, like with like: the relay's rows on Redis over HTTP/1.1 (node's
// http server speaks HTTP/1.1 only), one stream, at the anchor's sizes,
// their readers the same child's SSE GETs. It also says what a miss
// counts, or why the anchor did not run.
func anchorAhead(rows []scaleRow, anchor *anchorResult, where func(scaleRow) string) ([]scaleJudged, string) {
	if anchor == nil {
		return nil, "resumable-stream did not run: no redis-server"
	}
	if len(anchor.served) == 0 {
		return nil, "resumable-stream did not run: " + anchor.ServedErr
	}
	var ahead []scaleJudged
	for _, a := range anchor.served {
		complete := a.Opened == a.Readers && a.Short == 0 && a.Dropped == 0
		for _, r := range rows {
			if r.memory || r.h2c || r.streams != 1 || r.per != a.Readers || len(r.p99) == 0 {
				continue
			}
			at := where(r) + " vs resumable-stream"
			if !complete {
				relayAll := r.opened == r.readers() && r.short == 0 && r.dropped == 0
				ahead = append(ahead, judged(at+": readers served", fmt.Sprintf("the relay %s of %s with %d undelivered vs resumable-stream %s with %d undelivered",
					measure.Thousands(int64(r.opened)), measure.Thousands(int64(r.readers())), r.short, measure.Thousands(int64(a.Opened)), a.Short), relayAll, true))
				continue
			}
			node := a.HeapPer + a.ExtPer
			ahead = append(ahead, judged(at+": memory/idle reader", kib(r.heapPer)+" heap+stacks vs "+kib(node)+" heapUsed+external", r.heapPer < node, true))
			if rssJudged(r.rssPer, a.RSSPer) {
				ahead = append(ahead, judged(at+": RSS/idle reader", kib(r.rssPer)+" vs "+kib(a.RSSPer), r.rssPer < a.RSSPer, true))
			} else {
				ahead[len(ahead)-1].value += "; RSS " + kib(r.rssPer) + " vs " + kib(a.RSSPer) + " not judged (a delta ≤ 0 is the resident set's noise)"
			}
			ahead = append(ahead, judged(at+": Redis conns peak (at most)", fmt.Sprintf("%d vs %d", r.connsPeak, a.ConnsPeak), r.connsPeak <= a.ConnsPeak, true))
			p50, p99 := measure.Median(r.p50), measure.Median(r.p99)
			ahead = append(ahead,
				judged(at+": p50", measure.F(p50)+" ms vs "+measure.F(a.P50)+" ms", p50 < a.P50, true),
				judged(at+": p99", measure.F(p99)+" ms vs "+measure.F(a.P99)+" ms", p99 < a.P99, true))
			if a.Delivered > 0 && len(r.delivered) > 0 {
				d := measure.Median(r.delivered)
				ahead = append(ahead, judged(at+": chunks/s delivered", measure.F(d)+" vs "+measure.F(a.Delivered), d > a.Delivered, true))
			}
		}
	}
	why := "each side is one process serving SSE over HTTP/1.1 on 127.0.0.1 to the same readers' child: the relay's heap+stacks (Go) against node's heapUsed+external, RSS against RSS; " +
		"the relay's connections are its go-redis pool and Pub/Sub connection, resumable-stream's its publisher and subscriber"
	if anchor.ServedErr != "" {
		why += "; then: " + anchor.ServedErr
	}
	return ahead, why
}

// rssJudged reports whether two resident-set deltas per reader can be
// compared: a delta at or below zero says the resident set moved for other
// reasons (pages a GC gave back, a previous row's), not what a reader holds.
func rssJudged(relay, anchor float64) bool { return relay > 0 && anchor > 0 }
