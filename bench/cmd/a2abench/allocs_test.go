package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/bench/internal/grpcserver"
	"github.com/a2astream/a2astream/bench/internal/memnet"
	"github.com/a2astream/a2astream/bench/internal/server"
)

// allocsFile keeps the driver's allocations per event, one line per wire:
// "<binding> <version> <allocs>".
const allocsFile = "testdata/allocs.txt"

var updateAllocs = flag.Bool("allocs.update", false, "rewrite "+allocsFile+" with the allocations measured")

// allocEvents is the stream's length: the allocations of the call itself
// (the request, the connection's reuse, the client) spread over it add less
// than 0.02 per event.
const allocEvents = 20_000

// preparedServer answers every streaming send with the throughput suite's
// stream, rendered once: over JSON-RPC (the "/rpc?v=" path) by
// server.Handler, with the request's ID put where the rendering has
// memnet.Marker; over HTTP+JSON under "/rest/"; over gRPC (content type
// application/grpc, both versions' SendStreamingMessage) as grpcserver's
// messages, each with its 5-byte prefix, in one response body and a
// grpc-status trailer. Its own allocations per call are a few dozen
// whatever the stream's length (net/http's for the gRPC body grow with its
// 16 KiB HTTP/2 frames, not with its messages), so the process's
// allocations per event are the client's.
type preparedServer struct {
	rpc  map[string][][]byte // by version: the rendering cut at each memnet.Marker
	rest map[string][]byte   // by version
	grpc map[string][]byte   // by path: the full method name

	mu  sync.Mutex // held while a JSON-RPC stream is written from buf
	buf []byte     // the JSON-RPC stream with the request's ID, reused
}

func newPreparedServer(t *testing.T, n int) *preparedServer {
	p := &preparedServer{rpc: map[string][][]byte{}, rest: map[string][]byte{}, grpc: map[string][]byte{}}
	h := &server.Handler{}
	for _, v := range []string{"0.3", "1.0"} {
		method := "SendStreamingMessage"
		if v == "0.3" {
			method = "message/stream"
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/?s=throughput&n="+strconv.Itoa(n),
			strings.NewReader(`{"jsonrpc":"2.0","id":`+memnet.Marker+`,"method":"`+method+`","params":{}}`)))
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		p.rpc[v] = bytes.Split(rec.Body.Bytes(), []byte(memnet.Marker))

		path := "/rest/throughput/n=" + strconv.Itoa(n) + "/message:stream"
		if v == "0.3" {
			path = "/rest/throughput/n=" + strconv.Itoa(n) + "/v1/message:stream"
		}
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{"message":{"messageId":"m-1","role":"ROLE_USER","parts":[{"text":"hello"}]}}`))
		req.Header.Set("A2A-Version", "1.0")
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		p.rest[v] = rec.Body.Bytes()

		var body []byte
		for _, m := range grpcserver.Encode(v, n) {
			body = append(body, 0, byte(len(m)>>24), byte(len(m)>>16), byte(len(m)>>8), byte(len(m)))
			body = append(body, m...)
		}
		p.grpc[map[string]string{"0.3": grpcserver.Method03, "1.0": grpcserver.Method10}[v]] = body
	}
	return p
}

func (p *preparedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if r.Header.Get("Content-Type") == "application/grpc" {
		w.Header().Set("Content-Type", "application/grpc")
		out, ok := p.grpc[r.URL.Path]
		if !ok {
			w.Header().Set("Grpc-Status", "12") // UNIMPLEMENTED, trailers-only
			w.WriteHeader(http.StatusOK)
			return
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(out)
		w.Header().Set(http.TrailerPrefix+"Grpc-Status", "0")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	if rest, ok := strings.CutPrefix(r.URL.Path, "/rest/"); ok {
		out := p.rest["1.0"]
		if strings.HasPrefix(rest, "v1/") {
			out = p.rest["0.3"]
		}
		_, _ = w.Write(out)
		return
	}
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// The request's ID between the pieces, in a buffer reused from call
	// to call: a new copy of the stream would count as the client's bytes,
	// and one write of it keeps the transport's chunks as they were.
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = p.buf[:0]
	for i, piece := range p.rpc[r.URL.Query().Get("v")] {
		if i > 0 {
			p.buf = append(p.buf, req.ID...)
		}
		p.buf = append(p.buf, piece...)
	}
	_, _ = w.Write(p.buf)
}

// allocWire is one wire of the guards.
type allocWire struct {
	binding string // "jsonrpc", "rest" or "grpc", as the guards' files name it
	v       a2a.Version
}

func (w allocWire) key() string { return w.binding + " " + w.v.String() }

// benchName is the wire's sub-benchmark of BenchmarkDriverThroughput (the
// HTTP wires only).
func (w allocWire) benchName() string {
	if w.binding == "rest" {
		return w.v.String() + "-rest"
	}
	return w.v.String()
}

// allocWires returns the wires of the allocation guard: the four HTTP
// wires of every guard, and gRPC 0.3 and 1.0.
func allocWires() []allocWire {
	return append(guardWires(), allocWire{"grpc", a2a.V03}, allocWire{"grpc", a2a.V10})
}

// allocRule says how the allocation guard measures w: the least count of
// calls calls, and the margin the kept number holds above the count
// measured (-allocs.update adds it; a count that falls more than the
// margin below the kept number is reported as shrunk). Over net/http the
// count is exact from one call. Over gRPC grpc-go's pools and flow
// control make it move between runs: the least of 3 calls, plus 0.5.
func (w allocWire) allocRule() (calls int, margin float64) {
	if w.binding == "grpc" {
		return 3, 0.5
	}
	return 1, 0
}

// TestDriverAllocationsPerEvent is the allocation guard: the driver's
// allocations per event (net/http's Transport, or a2agrpc and grpc-go's
// client, and a real connection, over an in-memory pipe, included) on each
// wire must not grow above the number testdata/allocs.txt keeps for it.
// Allocations are a count, the same on every machine; the average over
// 20,000 events is exact to 0.1 (see allocRule for the gRPC wires). When
// the count shrinks, the test says how to lower the kept number (go test
// -v shows it); -allocs.update rewrites the file with the counts measured.
func TestDriverAllocationsPerEvent(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops items at random: the counts are not the product's")
	}
	kept := readKept(t, allocsFile)
	p := newGuardPipe(t)
	measured := map[string]float64{}
	for _, w := range allocWires() {
		t.Run(strings.ReplaceAll(w.key(), " ", "-"), func(t *testing.T) {
			send := p.send(w)
			calls, margin := w.allocRule()
			require.NoError(t, send()) // warm-up: the connection, the pools
			got := leastPerEvent(t, send, calls, func(m0, m1 *runtime.MemStats) uint64 { return m1.Mallocs - m0.Mallocs })
			t.Logf("%s: %.3f allocations per event (the least of %d calls of %d events)", w.key(), got, calls, allocEvents)
			got = math.Round(got*10) / 10
			measured[w.key()] = got
			want, ok := kept[w.key()]
			if *updateAllocs {
				return
			}
			require.True(t, ok, "%s keeps no number for %q", allocsFile, w.key())
			profile := fmt.Sprintf("go test -run '^$' -bench 'DriverThroughput/%s$' -memprofile mem.out ./cmd/a2abench/", w.benchName())
			if w.binding == "grpc" {
				profile = fmt.Sprintf("go test -run 'TestDriverAllocationsPerEvent/grpc-%s$' -memprofile mem.out ./cmd/a2abench/", w.v)
			}
			require.LessOrEqual(t, got, want,
				"the driver's allocations per event on %s grew from %.1f (kept in %s) to %.1f. Find the new allocation "+
					"(%s, then go tool pprof -sample_index=alloc_objects -top mem.out), or, if it is worth it, raise the number in %s",
				w.key(), want, allocsFile, got, profile, allocsFile)
			if got < want-margin {
				t.Logf("the driver's allocations per event on %s shrank from %.1f to %.1f: lower the kept number, "+
					"the line %q of %s, to %.1f (or run go test ./cmd/a2abench/ -run TestDriverAllocationsPerEvent -allocs.update)",
					w.key(), want, got, w.key()+fmt.Sprintf(" %.1f", want), allocsFile, got+margin)
			}
		})
	}
	if *updateAllocs && !t.Failed() {
		var b strings.Builder
		b.WriteString(allocsHeader)
		for _, w := range allocWires() {
			_, margin := w.allocRule()
			fmt.Fprintf(&b, "%s %.1f\n", w.key(), measured[w.key()]+margin)
		}
		require.NoError(t, os.WriteFile(allocsFile, []byte(b.String()), 0o644))
	}
}

const allocsHeader = `# The driver's allocations per event on each wire, net/http's or grpc-go's included: "<binding> <version> <allocs>".
# TestDriverAllocationsPerEvent (allocs_test.go) fails when a count grows above its number here. When a count
# shrinks, lower its number (in bench/: go test ./cmd/a2abench/ -run TestDriverAllocationsPerEvent -allocs.update
# rewrites this file), so that the next growth is seen. The grpc lines hold the count measured plus 0.5 (allocRule).
`
