// Command grpcworker runs a2abench's a2astream-over-gRPC contenders (the
// driver through a2agrpc, A2A 0.3 and 1.0) in a process of their own.
//
// It cannot run inside a2abench: a2abench links the a2a-go v0.3.3 client,
// whose generated a2apb registers the protobuf names a2a.v1.* with the
// global registry, and a2agrpc's own 0.3 code registers the same names, so
// one binary with both panics at its start ("name conflict over
// a2a.v1.Role"; only GOLANG_PROTOBUF_REGISTRATION_CONFLICT=warn in the
// environment or a linker flag would let it run).
//
// a2abench builds it, starts it with the gRPC server's address,
//
//	grpcworker -grpc 127.0.0.1:port
//
// and asks it for one round at a time on stdin, a line
// "<version> <chunks> <GOMAXPROCS> [<cpuprofile file>]" (the stream of the
// throughput scenario: a task, a working status, that many artifact
// chunks, a completed status); it runs the round under
// that GOMAXPROCS, measures it as a2abench measures its own rounds (its
// own rusage and runtime.MemStats, from a runtime.GC before the run to its
// end) and prints the measure.Sample, or the error, as one line of JSON.
// A warm set asks one process for every round; a fresh round starts a
// process for one. All rounds of a process share one a2agrpc.Transport (one
// connection), as a2abench's JSON-RPC rounds share one http.Client; each
// round makes its own stream.Client.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/bench/internal/drive"
	"github.com/a2astream/a2astream/bench/internal/grpcserver"
	"github.com/a2astream/a2astream/bench/internal/measure"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// Reply is what the worker prints for one round.
type Reply struct {
	Sample measure.Sample `json:"sample"`
	Err    string         `json:"err,omitempty"`
}

func main() {
	addr := flag.String("grpc", "", "the gRPC server's `host:port`")
	flag.Parse()
	if err := serve(*addr); err != nil {
		fmt.Fprintln(os.Stderr, "grpcworker:", err)
		os.Exit(1)
	}
}

func serve(addr string) error {
	tr, err := a2agrpc.New(addr, a2agrpc.WithInsecure())
	if err != nil {
		return err
	}
	defer tr.Close()
	out := json.NewEncoder(os.Stdout)
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 || len(f) > 4 {
			return fmt.Errorf("request %q: want <version> <chunks> <GOMAXPROCS> [<cpuprofile file>]", sc.Text())
		}
		v, ok := a2a.ParseVersion(f[0])
		if !ok {
			return fmt.Errorf("request %q: version %q", sc.Text(), f[0])
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 1 {
			return fmt.Errorf("request %q: chunks %q", sc.Text(), f[1])
		}
		procs, err := strconv.Atoi(f[2])
		if err != nil || procs < 1 {
			return fmt.Errorf("request %q: GOMAXPROCS %q", sc.Text(), f[2])
		}
		profPath := ""
		if len(f) == 4 {
			profPath = f[3]
		}
		runtime.GOMAXPROCS(procs)
		s, err := round(tr, v, n, profPath)
		r := Reply{Sample: s}
		if err != nil {
			r.Err = err.Error()
		}
		if err := out.Encode(r); err != nil {
			return err
		}
	}
	return sc.Err()
}

// round runs the driver once over tr in version v, measured, and with
// profPath also CPU-profiled into that file.
func round(tr *a2agrpc.Transport, v a2a.Version, n int, profPath string) (measure.Sample, error) {
	c, err := stream.NewClientFor(tr, stream.WithVersion(v), stream.WithReconnect(reconnect.Never()),
		stream.WithHeader(grpcserver.NKey, strconv.Itoa(n)))
	if err != nil {
		return measure.Sample{}, err
	}
	var prof *os.File
	if profPath != "" {
		if prof, err = os.Create(profPath); err != nil {
			return measure.Sample{}, err
		}
		defer prof.Close()
	}
	p := measure.Start(false)
	if prof != nil {
		if err := pprof.StartCPUProfile(prof); err != nil {
			return measure.Sample{}, err
		}
	}
	err = drive.Send(c, n+3, drive.CheckParts(n))
	if prof != nil {
		pprof.StopCPUProfile()
	}
	return p.Stop(), err
}
