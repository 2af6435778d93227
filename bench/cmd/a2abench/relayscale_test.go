package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRelayScaleQuick runs the relay-scale suite at its -quick size (1 and
// 50 readers of one stream, 10 streams of one reader, a takeover of 2
// streams with a 1 s lease, for a few seconds) and checks the shape of its
// output and its counts: every reader attached and got every entry, every
// killed driver was taken over. It checks no time. The Redis rows run on a
// redis-server the suite starts; without one they are skipped, unless
// CI=true. The anchor, served over HTTP to the same readers' child and
// alone, runs when `npm ci` was run in bench/anchor/resumable-stream.
func TestRelayScaleQuick(t *testing.T) {
	cfg := &config{rounds: 1, quick: true, res: &results{}}
	sc, err := measureScale(cfg)
	require.NoError(t, err)
	if !sc.redis && os.Getenv("CI") == "true" {
		t.Fatalf("the Redis rows were skipped under CI=true: %s", sc.redisLine)
	}
	stores := 1
	if sc.redis {
		stores = 2
	}
	require.Len(t, sc.rows, stores*2*(len(sc.sz.perStream)+1))
	for _, r := range sc.rows {
		name := r.store + ", " + r.proto + ", " + r.shape()
		require.Equal(t, r.readers(), r.opened, "%s: readers attached", name)
		require.Empty(t, r.note, name)
		require.Zero(t, r.dropped, "%s: responses the replica ended", name)
		require.Zero(t, r.short, "%s: deliveries missing", name)
		require.Len(t, r.p99, cfg.rounds, name)
		require.Len(t, r.commits, cfg.rounds, name)
		require.Len(t, r.delivered, cfg.rounds, name)
		if r.streams == 1 {
			require.Len(t, r.none, cfg.rounds, name)
		}
		if r.memory {
			require.Equal(t, -1, r.connsIdle, name)
		} else {
			require.Positive(t, r.connsIdle, name)
			require.GreaterOrEqual(t, r.connsPeak, r.connsIdle, name)
		}
	}
	require.Len(t, sc.takes, stores*len(sc.sz.leases))
	for _, tr := range sc.takes {
		require.Len(t, tr.delays, sc.sz.takeStreams*cfg.rounds, "%s, %s lease: takeovers", tr.store, tr.lease)
		require.Zero(t, tr.missed, tr.store)
		require.Zero(t, tr.dropped, tr.store)
		require.Empty(t, tr.note, tr.store)
	}
	_, installed := anchorPath()
	switch {
	case !sc.redis:
		require.Nil(t, sc.anchor)
	case installed:
		require.NotNil(t, sc.anchor)
		require.Empty(t, sc.anchor.ServedErr)
		require.Len(t, sc.anchor.served, len(anchorServedSizes(true)))
		for _, a := range sc.anchor.served {
			require.True(t, a.ResumeOK, "resumable-stream served: a reader that resumed from the middle got exactly the rest")
			require.Equal(t, a.Readers, a.Opened, "resumable-stream served: readers attached")
			require.Zero(t, a.Short, "resumable-stream served: deliveries missing")
			require.Zero(t, a.Dropped, "resumable-stream served: responses the server ended")
			require.Positive(t, a.ConnsIdle)
			require.Positive(t, a.Delivered)
		}
		require.Empty(t, sc.anchor.Err)
		require.Len(t, sc.anchor.runs, len(anchorSizes(true)))
		for _, a := range sc.anchor.runs {
			require.True(t, a.ResumeOK, "resumable-stream: a reader that resumed from the middle got exactly the rest")
			require.Equal(t, a.PacedWant, a.PacedEvents)
			require.Equal(t, a.BurstWant, a.BurstEvents)
		}
	default:
		require.Contains(t, sc.anchor.Err, "npm ci")
		require.Contains(t, sc.anchor.ServedErr, "npm ci")
	}

	var b bytes.Buffer
	writeScale(&b, cfg, sc)
	out := b.String()
	for _, want := range []string{"## 8. The relay at scale (issue 35)", "### Takeover under load", "### The anchor: resumable-stream", "### Issue 35 targets"} {
		require.Contains(t, out, want)
	}
	require.Equal(t, len(sc.rows), strings.Count(out, " of 1 stream | ")+strings.Count(out, " streams × 1 | "), out)
	require.Equal(t, 4, strings.Count(out, "not judged (below the target's size)"), out)
}

// At the full sizes, each target is judged at its own size: met and
// missed as the figures say.
func TestScaleTargetsJudgeAtTheTargetsSize(t *testing.T) {
	sz := scaleSizesFor(false)
	row := func(store string, memory, h2c bool, per int, heap, p99, commits, none float64, peak int) scaleRow {
		return scaleRow{store: store, proto: map[bool]string{false: "HTTP/1.1", true: "h2c"}[h2c], streams: 1, per: per, opened: per,
			memory: memory, h2c: h2c, heapPer: heap, p50: []float64{p99 / 2}, p99: []float64{p99}, commits: []float64{commits}, none: []float64{none},
			delivered: []float64{1e5}, connsIdle: peak, connsPeak: peak}
	}
	rows := []scaleRow{
		row("MemoryStore", true, true, 10_000, 12<<10, 80, 95, 100, -1),
		row("Redis", false, true, 10_000, 20<<10, 90, 50, 100, 25),
		row("Redis", false, true, 1_000, 20<<10, 30, 50, 100, 10),
		row("MemoryStore", true, true, 1_000, 12<<10, 60, 50, 100, -1),
		row("Redis", false, false, 1_000, 20<<10, 5, 50, 100, 2),
	}
	anchor := &anchorResult{served: []anchorServed{{Readers: 1_000, Opened: 1_000, HeapPer: 30 << 10, RSSPer: 40 << 10, ConnsPeak: 2, P50: 5, P99: 10, Delivered: 2e4}}}
	var b bytes.Buffer
	writeScaleTargets(&b, sz, rows, anchor)
	out := b.String()
	for _, c := range []struct{ measure, want string }{
		{"10 000 readers of one stream on one replica, Redis connections", "| Redis, h2c, 10 000: 25 peak (10 000 attached, 0 undelivered) | **missed** |"},
		{"memory per idle reader over h2c (heap + stacks)", "| **missed** at Redis, h2c, 10 000; met at MemoryStore, h2c, 10 000 |"},
		{"p99 delivery, commit to receipt, at 1 000 readers of one stream", "| **missed** at MemoryStore, h2c, 1 000; met at Redis, h2c, 1 000; Redis, HTTP/1.1, 1 000 |"},
		{"the driver's commit rate with 10 000 readers over none (same round)", "| **missed** at Redis, h2c, 10 000; met at MemoryStore, h2c, 10 000 |"},
		{anchorAheadMeasure, "| met |"},
	} {
		require.Contains(t, targetLine(t, out, c.measure), c.want)
	}
}
