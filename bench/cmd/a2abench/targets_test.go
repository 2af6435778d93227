package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// targetLine returns the closing table's row that starts with measure.
func targetLine(t *testing.T, report, measure string) string {
	t.Helper()
	for _, l := range strings.Split(report, "\n") {
		if strings.HasPrefix(l, "| "+measure+" |") {
			return l
		}
	}
	require.Failf(t, "no row", "no row %q in:\n%s", measure, report)
	return ""
}

func TestTargetsReportSaysNotRunForSuitesNotRun(t *testing.T) {
	report := targetsReport(&results{ledger: &ledgerFigures{ratio: 1.1}})
	require.Equal(t, 7, strings.Count(report, "| not run |"), report)
	require.Contains(t, targetLine(t, report, "ledger cost per event at 1,000 artifacts vs 1 artifact"), "| 1,000 vs 1 artifact: 1.10× | met |")
}

func TestTargetsReportJudgesEveryFigure(t *testing.T) {
	report := targetsReport(&results{
		floor:  []figure{{"JSON-RPC 0.3", 1.25}, {"HTTP+JSON 0.3", 1.1}},
		a2ago:  []figure{{"JSON-RPC 0.3", 2.9}},
		allocs: []figure{{"JSON-RPC 0.3", 4}, {"HTTP+JSON 0.3", 3}},
		big:    &bigFigures{time: []figure{{"1 MiB", 0.9}}, peak: []figure{{"1 MiB", 2.5}}, skipped: []string{"4 MiB"}},
		idle:   []figure{{"HTTP/1.1", 30 << 10}, {"HTTP/2 (h2c)", 15 << 10}},
		poll:   []pollFigures{{v: "0.3", ratio: 1.5}, {v: "1.0", ratio: 1.6}},
	})
	for _, c := range []struct{ measure, want string }{
		{"driver events/s vs the decode floor, 0.3 and 1.0, JSON-RPC and HTTP+JSON", "| **missed** at HTTP+JSON 0.3; met at JSON-RPC 0.3 |"},
		{"driver events/s vs the a2a-go v0.3.3 client", "| JSON-RPC 0.3: 2.90× | **missed** |"},
		{"allocations per event in the driver, net/http included", "| met |"},
		{"one big event: time vs one json.Unmarshal of it", "| 1 MiB: 0.90×; 4 MiB: not measured | met; not measured at 4 MiB |"},
		{"one big event: peak heap vs the event size", "| **missed**; not measured at 4 MiB |"},
		{"memory per idle stream, everything included", "| **missed** at HTTP/1.1; met at HTTP/2 (h2c) |"},
		{"ledger cost per event at 1,000 artifacts vs 1 artifact", "| not run | – |"},
		{"a polled task of 10,000 artifacts: an empty poll vs one json.Unmarshal of it", "| HTTP+JSON 0.3: 1.50×; HTTP+JSON 1.0: 1.60× | **missed** at HTTP+JSON 1.0; met at HTTP+JSON 0.3 |"},
	} {
		require.Contains(t, targetLine(t, report, c.measure), c.want)
	}
}

func TestTargetsReportExplainsAMissWithWhatTheRunMeasured(t *testing.T) {
	report := targetsReport(&results{
		a2ago:       []figure{{"JSON-RPC 0.3", 3.5}},
		allocs:      []figure{{"JSON-RPC 0.3", 5}},
		big:         &bigFigures{time: []figure{{"1 MiB", 0.9}}, peak: []figure{{"1 MiB", 2.5}}, ssePeak: []figure{{"1 MiB", 1.8}}},
		idle:        []figure{{"HTTP/1.1", 30 << 10}},
		idleNetHTTP: []figure{{"HTTP/1.1", 25 << 10}},
		poll:        []pollFigures{{v: "0.3", ratio: 1.9, decodeRatio: 1.7}},
	})
	for _, c := range []struct{ measure, want string }{
		{"driver events/s vs the a2a-go v0.3.3 client", "| met | – |"},
		{"allocations per event in the driver, net/http included", "| **missed** | nothing in this run's figures explains it"},
		{"one big event: peak heap vs the event size", "peaks at 1 MiB 1.80× the event"},
		{"memory per idle stream, everything included", "net/http alone holds HTTP/1.1 25.0 KiB per stream"},
		{"a polled task of 10,000 artifacts: an empty poll vs one json.Unmarshal of it", "DecodeTask of the body alone takes HTTP+JSON 0.3 1.70× the struct's"},
	} {
		require.Contains(t, targetLine(t, report, c.measure), c.want)
	}
}
