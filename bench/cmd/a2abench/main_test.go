package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/a2astream/a2astream/a2a"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/bench/internal/grpcserver"
	"github.com/a2astream/a2astream/bench/internal/server"
)

// TestMain runs a fresh round, or the relay-scale suite's readers, when the
// suites under test start this test binary again as their child (a2abench
// -round …, a2abench -relay-readers); else the tests.
func TestMain(m *testing.M) {
	if isReadersChild(os.Args[1:]) {
		if err := readersChild(); err != nil {
			fmt.Fprintln(os.Stderr, "a2abench:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if isRoundChild(os.Args[1:]) {
		if err := roundChild(os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, "a2abench:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSuitesQuick runs every suite at its -quick size against an in-process
// server, to check that the contenders agree on what they read.
func TestSuitesQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("opens a few hundred loopback connections")
	}
	srv := httptest.NewUnstartedServer(&server.Handler{})
	srv.Config.Protocols = server.Protocols() // the many suite speaks h2c too
	srv.Start()
	defer srv.Close()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	defer tr.CloseIdleConnections()
	gln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	gs := grpcserver.NewGRPCServer(&grpcserver.Server{})
	go gs.Serve(gln)
	defer gs.Stop()
	gaConn, err := newA2AGoConn(gln.Addr().String())
	require.NoError(t, err)
	defer gaConn.Close()
	grpcTr, err := newGRPCTransport(gln.Addr().String())
	require.NoError(t, err)
	defer grpcTr.Close()
	cfg := &config{rounds: 1, quick: true, cpuTop: 5, fresh: true, procs: []int{1, 2}, base: srv.URL, hc: &http.Client{Transport: tr}, res: &results{},
		grpcAddr: gln.Addr().String(), grpcTr: grpcTr, gaConn: gaConn}
	for name, fn := range map[string]func(*config, *bytes.Buffer) error{
		"throughput": func(c *config, b *bytes.Buffer) error { return throughput(c, b) },
		"growth":     func(c *config, b *bytes.Buffer) error { return growth(c, b) },
		"decoders":   func(c *config, b *bytes.Buffer) error { return decoders(c, b) },
		"big":        func(c *config, b *bytes.Buffer) error { return bigEvents(c, b) },
		"long":       func(c *config, b *bytes.Buffer) error { return longStream(c, b) },
		"many":       func(c *config, b *bytes.Buffer) error { return manyStreams(c, b) },
		"resume":     func(c *config, b *bytes.Buffer) error { return resumeLatency(c, b) },
		"ledger":     func(c *config, b *bytes.Buffer) error { return ledgerCost(c, b) },
		"poll":       func(c *config, b *bytes.Buffer) error { return pollCost(c, b) },
	} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := fn(cfg, &b); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), "| ---") && !strings.Contains(b.String(), "|---") {
				t.Errorf("no table in the output:\n%s", b.String())
			}
			if name == "decoders" && (strings.Contains(b.String(), "failed:") || !strings.Contains(b.String(), "**Why the winner**")) {
				t.Errorf("a decoder failed, or no winner:\n%s", b.String())
			}
			if name == "growth" {
				require.Contains(t, b.String(), "- target (issue 31): CPU per event at 20 000 appended chunks ≤ 1.20× that at 100")
				require.Contains(t, b.String(), "| function (by flat) |")
			}
			if name == "ledger" || name == "poll" {
				require.Contains(t, b.String(), map[string]string{"ledger": "- cost per event at 1,000 artifacts ≤ 1.2×", "poll": "- an empty poll ≤ 1.5×"}[name])
			}
			if name == "throughput" {
				for _, row := range []string{"| a2astream JSON-RPC 0.3 |", "| a2astream REST 0.3 (proto-JSON) |", "| a2astream JSON-RPC 1.0 |", "| a2astream REST 1.0 |", "REST events/s within 10 %", "| function (by flat) |",
					"| a2astream gRPC 0.3 |", "| a2astream gRPC 1.0 |", "| a2a-go v0.3.3 gRPC 0.3 |", "gRPC allocations per event ≤ 5.00",
					"a2astream gRPC driver (Send → Next), 1.0: "} {
					if !strings.Contains(b.String(), row) {
						t.Errorf("no %q in the throughput output:\n%s", row, b.String())
					}
				}
			}
		})
	}
	// Every suite ran: each of the eight targets has a figure and a verdict.
	closing := targetsReport(cfg.res)
	require.NotContains(t, closing, "| not run |")
	require.Equal(t, 8, strings.Count(closing, "\n| ")-1, closing) // the rows below the head
}

func TestWriteReportReplacesBetweenMarkers(t *testing.T) {
	path := t.TempDir() + "/B.md"
	if err := writeReport(path, "one\n"); err != nil {
		t.Fatal(err)
	}
	if err := writeReport(path, "two\n"); err != nil {
		t.Fatal(err)
	}
	b, _ := readFile(path)
	if strings.Contains(b, "one") || strings.Count(b, "two") != 1 || strings.Count(b, beginMark) != 1 {
		t.Errorf("got %q", b)
	}
}

func readFile(p string) (string, error) {
	b, err := os.ReadFile(p)
	return string(b), err
}

// BenchmarkDriverThroughput is the throughput suite's driver contender as
// a Go benchmark, over JSON-RPC and REST, for profiling:
//
//	go test -run '^$' -bench DriverThroughput -cpuprofile cpu.out ./cmd/a2abench
//
// The server runs in-process here, so its functions (package server, wire)
// appear in the profile too; leave them out when reading it.
func BenchmarkDriverThroughput(b *testing.B) {
	srv := httptest.NewServer(&server.Handler{})
	defer srv.Close()
	const n = 20_000
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		for _, rest := range []bool{false, true} {
			name := v.String()
			if rest {
				name += "-rest"
			}
			b.Run(name, func(b *testing.B) {
				hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
				send := func() error { return sendOurs(hc, srv.URL+"/?s=throughput&n="+strconv.Itoa(n), v, n+3, nil) }
				if rest {
					send = func() error { return sendOursREST(hc, srv.URL+"/rest/throughput/n="+strconv.Itoa(n), v, n+3, nil) }
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := send(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(n+3)), "ns/event")
			})
		}
	}
}
