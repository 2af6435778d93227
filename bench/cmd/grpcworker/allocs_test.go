package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/bench/internal/drive"
	"github.com/a2astream/a2astream/bench/internal/grpcserver"
	"github.com/a2astream/a2astream/bench/internal/memnet"
	"github.com/a2astream/a2astream/bench/internal/server"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// allocsFile keeps the gRPC driver's allocations per event, one line per
// version: "grpc <version> <allocs>". It is this package's because
// cmd/a2abench, where the HTTP wires' guard lives, cannot link a2agrpc
// (see the package doc).
const allocsFile = "testdata/allocs.txt"

var updateAllocs = flag.Bool("allocs.update", false, "rewrite "+allocsFile+" with the allocations measured")

// allocEvents is the stream's length, as in cmd/a2abench's guard.
const allocEvents = 20_000

// preparedGRPC answers SendStreamingMessage of both versions with the
// throughput stream as one gRPC response body written at once (every
// message with its 5-byte prefix), over net/http's HTTP/2 cleartext server,
// and a grpc-status trailer. net/http's allocations for it grow with the
// body's HTTP/2 frames (16 KiB each), not with its messages, so the
// process's allocations per event are the client's: grpc-go's, a2agrpc's
// and the driver's.
type preparedGRPC struct {
	body map[string][]byte // by path: the full method name
}

func newPreparedGRPC(n int) *preparedGRPC {
	p := &preparedGRPC{body: map[string][]byte{}}
	for path, v := range map[string]string{grpcserver.Method03: "0.3", grpcserver.Method10: "1.0"} {
		var b []byte
		for _, m := range grpcserver.Encode(v, n) {
			b = append(b, 0, byte(len(m)>>24), byte(len(m)>>16), byte(len(m)>>8), byte(len(m)))
			b = append(b, m...)
		}
		p.body[path] = b
	}
	return p
}

func (p *preparedGRPC) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/grpc")
	body, ok := p.body[r.URL.Path]
	if !ok {
		w.Header().Set("Grpc-Status", "12") // UNIMPLEMENTED, trailers-only
		w.WriteHeader(http.StatusOK)
		return
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	w.Header().Set(http.TrailerPrefix+"Grpc-Status", "0")
}

// TestGRPCDriverAllocationsPerEvent is the allocation guard of the gRPC
// wires: the driver's allocations per event through a2agrpc (grpc-go's
// client and a real HTTP/2 connection, over an in-memory pipe, included)
// must not grow above the number testdata/allocs.txt keeps for the
// version. The kept numbers are the counts measured when the guard was
// added, plus a margin of 0.5 for what grpc-go's pools and flow control
// make move between runs. When the count shrinks below the kept number by
// more than the margin, the test says so (go test -v shows it);
// -allocs.update rewrites the file with the counts measured plus the
// margin.
func TestGRPCDriverAllocationsPerEvent(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops items at random: the counts are not the product's")
	}
	kept := readKept(t)
	ln := memnet.NewListener()
	srv := server.NewServer(newPreparedGRPC(allocEvents - 3))
	go srv.Serve(ln)
	defer srv.Close()
	tr, err := a2agrpc.New("passthrough:///pipe", a2agrpc.WithInsecure(), a2agrpc.WithDialOptions(
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return ln.Dial(ctx, "", "") })))
	require.NoError(t, err)
	defer tr.Close()

	measured := map[string]float64{}
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		key := "grpc " + v.String()
		t.Run(v.String(), func(t *testing.T) {
			send := func() error {
				c, err := stream.NewClientFor(tr, stream.WithVersion(v), stream.WithReconnect(reconnect.Never()))
				if err != nil {
					return err
				}
				return drive.Send(c, allocEvents, drive.CheckParts(allocEvents-3))
			}
			require.NoError(t, send()) // warm-up: the connection, the pools
			got := math.Inf(1)
			for range 3 {
				runtime.GC()
				var m0, m1 runtime.MemStats
				runtime.ReadMemStats(&m0)
				require.NoError(t, send())
				runtime.ReadMemStats(&m1)
				got = min(got, float64(m1.Mallocs-m0.Mallocs)/allocEvents)
			}
			got = math.Round(got*10) / 10
			t.Logf("%s: %.1f allocations per event (the least of 3 calls of %d events)", key, got, allocEvents)
			measured[key] = got
			if *updateAllocs {
				return
			}
			want, ok := kept[key]
			require.True(t, ok, "%s keeps no number for %q", allocsFile, key)
			require.LessOrEqual(t, got, want,
				"the gRPC driver's allocations per event on %s grew from %.1f (kept in %s) to %.1f. Find the new allocation "+
					"(go test -run TestGRPCDriverAllocationsPerEvent -memprofile mem.out ./cmd/grpcworker/, then "+
					"go tool pprof -sample_index=alloc_objects -top mem.out), or, if it is worth it, raise the number in %s",
				key, want, allocsFile, got, allocsFile)
			if got < want-allocsMargin {
				t.Logf("the gRPC driver's allocations per event on %s shrank to %.1f, more than the margin below the kept %.1f: lower the "+
					"kept number (go test ./cmd/grpcworker/ -run TestGRPCDriverAllocationsPerEvent -allocs.update)", key, got, want)
			}
		})
	}
	if *updateAllocs && !t.Failed() {
		var b strings.Builder
		b.WriteString(allocsHeader)
		for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
			fmt.Fprintf(&b, "grpc %s %.1f\n", v, measured["grpc "+v.String()]+allocsMargin)
		}
		require.NoError(t, os.WriteFile(allocsFile, []byte(b.String()), 0o644))
	}
}

// allocsMargin is added to the count measured when the kept number is
// written.
const allocsMargin = 0.5

const allocsHeader = `# The gRPC driver's allocations per event, grpc-go included: "grpc <version> <allocs>", the count measured plus 0.5.
# TestGRPCDriverAllocationsPerEvent (allocs_test.go) fails when a count grows above its number here. When a count
# shrinks, lower its number (in bench/: go test ./cmd/grpcworker/ -run TestGRPCDriverAllocationsPerEvent -allocs.update
# rewrites this file), so that the next growth is seen.
`

// readKept reads allocsFile: a number for each version.
func readKept(t *testing.T) map[string]float64 {
	f, err := os.Open(allocsFile)
	require.NoError(t, err)
	defer f.Close()
	kept := map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		require.Len(t, fields, 3, "line %q of %s", line, allocsFile)
		x, err := strconv.ParseFloat(fields[2], 64)
		require.NoError(t, err, "line %q of %s", line, allocsFile)
		kept[fields[0]+" "+fields[1]] = x
	}
	require.NoError(t, sc.Err())
	return kept
}
