package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	ga "github.com/a2aproject/a2a-go/a2a"
	gaclient "github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2apb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/a2astream/a2astream/bench/internal/grpcserver"
	"github.com/a2astream/a2astream/bench/internal/measure"
)

// The a2astream gRPC contenders run in cmd/grpcworker, a process of their
// own (its doc says why: a2a-go's generated code and a2agrpc's register the
// same protobuf names, and one binary cannot hold both). This file starts
// it and asks it for rounds; the a2a-go gRPC contender runs here, as the
// a2a-go JSON-RPC one does.

// grpcWorkers builds cmd/grpcworker once per a2abench run and runs rounds
// in it: the warm rounds in one process kept for the run, a fresh round in
// a new process.
type grpcWorkers struct {
	addr     string // the gRPC server's host:port
	dir, exe string // the build, once made
	warm     *grpcWorker
}

// grpcWorker is one running cmd/grpcworker.
type grpcWorker struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// build builds cmd/grpcworker (the go command must run inside the bench
// module, as for cmd/jsonv2worker).
func (g *grpcWorkers) build() error {
	if g.exe != "" {
		return nil
	}
	dir, err := os.MkdirTemp("", "a2abench-grpc")
	if err != nil {
		return err
	}
	exe := filepath.Join(dir, "grpcworker")
	out, err := exec.Command("go", "build", "-o", exe, "github.com/a2astream/a2astream/bench/cmd/grpcworker").CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		return fmt.Errorf("go build cmd/grpcworker: %v: %s", err, strings.TrimSpace(string(out)))
	}
	g.dir, g.exe = dir, exe
	return nil
}

// start starts a worker under GOMAXPROCS procs.
func (g *grpcWorkers) start(procs int) (*grpcWorker, error) {
	if err := g.build(); err != nil {
		return nil, err
	}
	w := &grpcWorker{cmd: exec.Command(g.exe, "-grpc", g.addr)}
	w.cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(procs))
	w.cmd.Stderr = os.Stderr
	var err error
	if w.in, err = w.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := w.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	w.out = bufio.NewReader(out)
	if err := w.cmd.Start(); err != nil {
		return nil, err
	}
	return w, nil
}

// round asks w for one round of the driver over gRPC in version v, n
// chunks, under GOMAXPROCS procs; with profPath the worker also writes a
// CPU profile of it there.
func (w *grpcWorker) round(v string, n, procs int, profPath string) (measure.Sample, error) {
	line := fmt.Sprintf("%s %d %d", v, n, procs)
	if profPath != "" {
		line += " " + profPath
	}
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		return measure.Sample{}, fmt.Errorf("grpcworker: %w", err)
	}
	b, err := w.out.ReadBytes('\n')
	if err != nil {
		return measure.Sample{}, fmt.Errorf("grpcworker: %w", err)
	}
	var r struct {
		Sample measure.Sample `json:"sample"`
		Err    string         `json:"err"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return measure.Sample{}, fmt.Errorf("grpcworker printed %q: %w", b, err)
	}
	if r.Err != "" {
		return measure.Sample{}, fmt.Errorf("grpcworker: %s", r.Err)
	}
	return r.Sample, nil
}

func (w *grpcWorker) stop() {
	w.in.Close()
	_ = w.cmd.Wait()
}

// round runs one round in the warm worker (started on the first call) or,
// with fresh, in a new one.
func (g *grpcWorkers) round(fresh bool, v string, n, procs int, profPath string) (measure.Sample, error) {
	if fresh {
		w, err := g.start(procs)
		if err != nil {
			return measure.Sample{}, err
		}
		defer w.stop()
		return w.round(v, n, procs, profPath)
	}
	if g.warm == nil {
		w, err := g.start(procs)
		if err != nil {
			return measure.Sample{}, err
		}
		g.warm = w
	}
	return g.warm.round(v, n, procs, profPath)
}

// close stops the warm worker and removes the build.
func (g *grpcWorkers) close() {
	if g.warm != nil {
		g.warm.stop()
		g.warm = nil
	}
	if g.dir != "" {
		os.RemoveAll(g.dir)
		g.dir, g.exe = "", ""
	}
}

// newA2AGoConn returns the connection every round of the a2a-go gRPC
// contender shares in a process (as the JSON-RPC contenders share an
// http.Client): grpc.NewClient dials on the first call.
func newA2AGoConn(addr string) (*grpc.ClientConn, error) {
	return grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
}

// sendA2AGoGRPC runs the a2a-go v0.3.3 client's SendStreamingMessage loop
// over its gRPC transport (A2A 0.3) on conn, asking for n chunks.
func sendA2AGoGRPC(conn *grpc.ClientConn, addr string, n int) (int, error) {
	ctx := metadata.AppendToOutgoingContext(context.Background(), grpcserver.NKey, strconv.Itoa(n))
	c, err := gaclient.NewFromEndpoints(ctx, []ga.AgentInterface{{URL: addr, Transport: ga.TransportProtocolGRPC}},
		gaclient.WithTransport(ga.TransportProtocolGRPC, gaclient.TransportFactoryFn(
			func(context.Context, string, *ga.AgentCard) (gaclient.Transport, error) {
				return gaclient.NewGRPCTransportFromClient(a2apb.NewA2AServiceClient(conn)), nil
			})))
	if err != nil {
		return 0, err
	}
	got := 0
	msg := &ga.MessageSendParams{Message: ga.NewMessage(ga.MessageRoleUser, ga.TextPart{Text: "hello"})}
	var last ga.Event
	for ev, err := range c.SendStreamingMessage(ctx, msg) {
		if err != nil {
			return got, err
		}
		last = ev
		got++
	}
	if u, ok := last.(*ga.TaskStatusUpdateEvent); !ok || u.Status.State != ga.TaskStateCompleted {
		return got, fmt.Errorf("last event %T; want a completed status update", last)
	}
	return got, nil
}
