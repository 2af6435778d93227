package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// The anchor's target compares the served anchor with the relay's
// HTTP/1.1 rows on Redis at the same size only, figure by figure: a figure
// the relay loses is missed, by name.
func TestAnchorTargetComparesLikeWithLike(t *testing.T) {
	sz := scaleSizesFor(false)
	row := func(store string, memory, h2c bool, per int, heap, rss, p50, p99, delivered float64, peak int) scaleRow {
		return scaleRow{store: store, proto: map[bool]string{false: "HTTP/1.1", true: "h2c"}[h2c], streams: 1, per: per, opened: per,
			memory: memory, h2c: h2c, heapPer: heap, rssPer: rss, p50: []float64{p50}, p99: []float64{p99}, commits: []float64{1}, none: []float64{1},
			delivered: []float64{delivered}, connsIdle: peak, connsPeak: peak}
	}
	rows := []scaleRow{
		row("Redis", false, false, 100, 20<<10, 30<<10, 1, 4, 9e4, 5),
		row("Redis", false, true, 100, 90<<10, 90<<10, 9, 90, 1, 50),       // h2c: not compared
		row("MemoryStore", true, false, 100, 90<<10, 90<<10, 9, 90, 1, -1), // MemoryStore: not compared
		row("Redis", false, false, 1_000, 20<<10, 30<<10, 1, 4, 9e4, 5),    // no anchor at this size
	}
	anchor := &anchorResult{served: []anchorServed{{Readers: 100, Opened: 100, HeapPer: 10 << 10, ExtPer: 15 << 10, RSSPer: 40 << 10,
		ConnsIdle: 2, ConnsPeak: 2, P50: 2, P99: 8, Delivered: 5e4}}}
	var b bytes.Buffer
	writeScaleTargets(&b, sz, rows, anchor)
	line := targetLine(t, b.String(), anchorAheadMeasure)
	require.Contains(t, line, "Redis, HTTP/1.1, 100 vs resumable-stream: memory/idle reader: 20.0 KiB heap+stacks vs 25.0 KiB heapUsed+external")
	require.Contains(t, line, "**missed** at Redis, HTTP/1.1, 100 vs resumable-stream: Redis conns peak (at most); met at ")
	require.Contains(t, line, "p99: 4.00 ms vs 8.00 ms")
	require.NotContains(t, line, "h2c")
	require.NotContains(t, line, "MemoryStore")
	require.NotContains(t, line, "1 000")
	require.Contains(t, line, "vs resumable-stream: RSS/idle reader: 30.0 KiB vs 40.0 KiB")

	// A resident-set delta at or below zero is noise: shown, not judged.
	rows[0].rssPer = -4 << 10
	b.Reset()
	writeScaleTargets(&b, sz, rows, anchor)
	line = targetLine(t, b.String(), anchorAheadMeasure)
	require.Contains(t, line, "heapUsed+external; RSS -4.0 KiB vs 40.0 KiB not judged (a delta ≤ 0 is the resident set's noise)")
	require.NotContains(t, line, "RSS/idle reader")

	served := anchor.served[0]
	served.Short = 3
	anchor.served[0] = served
	b.Reset()
	writeScaleTargets(&b, sz, rows, anchor)
	line = targetLine(t, b.String(), anchorAheadMeasure)
	require.Contains(t, line, "readers served: the relay 100 of 100 with 0 undelivered vs resumable-stream 100 with 3 undelivered")
	require.Contains(t, line, "| met |")
}

func TestRSSDeltasAreJudgedOnlyWhenBothArePositive(t *testing.T) {
	for _, c := range []struct {
		relay, anchor float64
		want          bool
	}{
		{1, 1, true},
		{0, 1, false},
		{1, 0, false},
		{-56 << 10, 6 << 10, false},
		{6 << 10, -1, false},
	} {
		require.Equal(t, c.want, rssJudged(c.relay, c.anchor), "%v vs %v", c.relay, c.anchor)
	}
}
