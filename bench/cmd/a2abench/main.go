// Command a2abench compares a2astream with the a2a-go v0.3.3 client, the
// r3labs/sse and tmaxmax/go-sse parsers and a decode floor, and a2a's
// event decoder with fast JSON libraries (the decoders suite), measures
// whether the driver's cost per event grows with the artifact it
// assembles (growth), times the ledger's cost per event (ledger) and a
// poll that brings nothing new (poll), measures the relay's Handler with
// thousands of SSE readers per replica on MemoryStore and a redis-server
// (relay-scale, issue 35, with its own targets), and prints markdown
// tables over interleaved rounds (A B A B …) with ratios against a
// reference contender. A closing section sets issue 21's targets against
// the figures of the run.
//
//	go run ./cmd/a2abench                       # all suites
//	go run ./cmd/a2abench -out ../BENCHMARKS.md # also update the file
//	go run ./cmd/a2abench -only throughput -rounds 3
//	go run ./cmd/a2abench -only growth -quick   # a smoke test of one suite
//	go run ./cmd/a2abench -only relay-scale -rounds 3 [-redis host:port]
//
// A child process (the same binary with -serve) is the loopback server, so
// the CPU time and allocations reported are the client's alone; it serves
// gRPC too, on a second port, for the throughput suite's gRPC contenders.
// The throughput suite runs its rounds warm (in this process) and, with
// -fresh (the default), also each round in a new process (the same binary
// with -round), cold; the growth suite runs fresh rounds only. Both run under
// each GOMAXPROCS of -procs (1 and 2 by default) and give min / median /
// max of the rounds.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"

	"github.com/a2astream/a2astream/bench/internal/server"
	a2agrpc "github.com/a2astream/a2astream/grpc"
)

// allSuites is the default of -only: every suite, in the report's order.
const allSuites = "throughput,growth,decoders,big,long,many,resume,ledger,poll,relay-scale"

type config struct {
	rounds int
	quick  bool
	cpuTop int    // with > 0, the throughput suite profiles the driver and prints its top functions
	fresh  bool   // the throughput suite also runs each round in a new process
	procs  []int  // the GOMAXPROCS values the throughput and growth suites run under
	base   string // http://127.0.0.1:port of the child server
	hc     *http.Client
	// grpcAddr is the child server's gRPC host:port; grpcTr is the
	// a2astream gRPC contenders' transport, gaConn the a2a-go gRPC
	// contender's connection.
	grpcAddr string
	grpcTr   *a2agrpc.Transport
	gaConn   *grpc.ClientConn
	res      *results // what the suites measured for issue 21's targets
	// redisAddr is the redis-server the relay-scale suite runs on; ""
	// starts one on a free port of 127.0.0.1.
	redisAddr string
	// relayRows, when not empty, are the only rows the relay-scale suite
	// measures (-relay-rows), without its takeovers and anchor.
	relayRows []scaleShape
}

func main() {
	if isReadersChild(os.Args[1:]) {
		if err := readersChild(); err != nil {
			fmt.Fprintln(os.Stderr, "a2abench:", err)
			os.Exit(1)
		}
		return
	}
	if isRoundChild(os.Args[1:]) {
		if err := roundChild(os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, "a2abench:", err)
			os.Exit(1)
		}
		return
	}
	serve := flag.Bool("serve", false, "run as the loopback server (internal)")
	out := flag.String("out", "", "also write the report into this markdown file, between the a2abench markers")
	only := flag.String("only", allSuites, "comma-separated suites to run")
	rounds := flag.Int("rounds", 5, "interleaved rounds per suite")
	quick := flag.Bool("quick", false, "small sizes, for a smoke test")
	cpuTop := flag.Int("cpuprofile-top", 0, "profile the throughput suite's JSON-RPC and gRPC driver rounds and print the top `N` functions")
	fresh := flag.Bool("fresh", true, "also run each throughput round in a new process (cold heap and pages), beside the warm rounds")
	procs := flag.String("procs", "1,2", "comma-separated GOMAXPROCS `values` the throughput and growth suites run under")
	redisAddr := flag.String("redis", "", "the relay-scale suite's redis-server `host:port` (default: start one on a free port of 127.0.0.1)")
	relayRows := flag.String("relay-rows", "", "measure only these rows of the relay-scale suite, over HTTP/1.1, without its takeovers and anchor: comma-separated `store:streamsxreaders`, store memory or redis (e.g. redis:1x1000,redis:1000x1)")
	flag.Parse()
	if *serve {
		if err := server.ServeChild(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	ps, err := parseProcs(*procs)
	var rows []scaleShape
	if err == nil {
		rows, err = parseScaleShapes(*relayRows)
	}
	if err == nil {
		err = run(*only, *rounds, *quick, *cpuTop, *fresh, ps, *out, *redisAddr, rows)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "a2abench:", err)
		os.Exit(1)
	}
}

func run(only string, rounds int, quick bool, cpuTop int, fresh bool, procs []int, out, redisAddr string, relayRows []scaleShape) error {
	nofile := raiseNoFile()
	child, base, grpcAddr, err := startChild()
	if err != nil {
		return err
	}
	defer child.stop()
	hc := newHTTPClient()
	tr := hc.Transport.(*http.Transport)
	gaConn, err := newA2AGoConn(grpcAddr)
	if err != nil {
		return err
	}
	defer gaConn.Close()
	grpcTr, err := newGRPCTransport(grpcAddr)
	if err != nil {
		return err
	}
	defer grpcTr.Close()
	cfg := &config{rounds: rounds, quick: quick, cpuTop: cpuTop, fresh: fresh, procs: procs, base: base, hc: hc, res: &results{},
		grpcAddr: grpcAddr, grpcTr: grpcTr, gaConn: gaConn, redisAddr: redisAddr, relayRows: relayRows}

	var rep bytes.Buffer
	start := time.Now()
	flags := ""
	if only != allSuites {
		flags = " -only " + only
	}
	if cpuTop > 0 {
		flags += fmt.Sprintf(" -cpuprofile-top %d", cpuTop)
	}
	if !fresh {
		flags += " -fresh=false"
	}
	if redisAddr != "" {
		flags += " -redis " + redisAddr
	}
	if len(relayRows) > 0 {
		flags += " -relay-rows " + formatScaleShapes(relayRows)
	}
	if ps := fmt.Sprint(procs); ps != "[1 2]" {
		flags += " -procs " + strings.Trim(strings.ReplaceAll(ps, " ", ","), "[]")
	}
	fmt.Fprintf(&rep, "Command: `cd bench && go run ./cmd/a2abench -rounds %d%s`%s  \n", rounds, flags, map[bool]string{true: " (-quick)"}[quick])
	fmt.Fprintf(&rep, "Machine: %s, %d CPUs (GOMAXPROCS %d; the throughput and growth suites run under GOMAXPROCS %s), %s %s/%s, RLIMIT_NOFILE %s, %s.  \n",
		cpuModel(), runtime.NumCPU(), runtime.GOMAXPROCS(0), procsList(procs), runtime.Version(), runtime.GOOS, runtime.GOARCH, nofile, memTotal())
	fmt.Fprintf(&rep, "Library: %s (the bench module replaces github.com/a2astream/a2astream with ../).  \n", libraryRevision())
	fmt.Fprintf(&rep, "Run: %s; the machine is shared and noisy, so compare ratios within this run, not absolute figures across runs.\n\n",
		start.UTC().Format("2006-01-02 15:04 MST"))
	os.Stdout.Write(rep.Bytes())

	suites := []struct {
		name string
		fn   func(*config, io.Writer) error
	}{
		{"throughput", throughput},
		{"growth", growth},
		{"decoders", decoders},
		{"big", bigEvents},
		{"long", longStream},
		{"many", manyStreams},
		{"resume", resumeLatency},
		{"ledger", ledgerCost},
		{"poll", pollCost},
		{"relay-scale", relayScale},
	}
	for _, s := range suites {
		if !strings.Contains(","+only+",", ","+s.name+",") {
			continue
		}
		t0 := time.Now()
		var b bytes.Buffer
		err := s.fn(cfg, &b)
		fmt.Fprintf(&b, "\n_(suite %s: %s)_\n\n", s.name, time.Since(t0).Round(time.Second))
		os.Stdout.Write(b.Bytes())
		rep.Write(b.Bytes())
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		tr.CloseIdleConnections()
		debug.FreeOSMemory()
	}
	closing := targetsReport(cfg.res) + "\n"
	fmt.Print(closing)
	rep.WriteString(closing)
	tail := fmt.Sprintf("Total: %s.\n", time.Since(start).Round(time.Second))
	fmt.Print(tail)
	rep.WriteString(tail)
	if out != "" {
		return writeReport(out, rep.String())
	}
	return nil
}

const (
	beginMark = "<!-- a2abench:begin (generated by bench/cmd/a2abench; edit outside the markers) -->"
	endMark   = "<!-- a2abench:end -->"
)

// writeReport replaces the text between the markers in path, or appends
// the report with markers when the file has none.
func writeReport(path, report string) error {
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	block := beginMark + "\n\n" + report + "\n" + endMark
	s := string(old)
	i, j := strings.Index(s, beginMark), strings.Index(s, endMark)
	if i >= 0 && j > i {
		s = s[:i] + block + s[j+len(endMark):]
	} else {
		s += "\n" + block + "\n"
	}
	return os.WriteFile(path, []byte(s), 0o644)
}

type childProc struct {
	cmd   *exec.Cmd
	stdin io.Closer
}

// stop closes the server's stdin and waits for it to exit, 5 s at most.
func (c *childProc) stop() { stopChild(c.cmd, c.stdin, 5*time.Second) }

// stopChild ends a child that exits when its stdin closes: it closes
// stdin, waits up to grace for the child to exit, then kills it and waits
// again, so the child is reaped on every path.
func stopChild(cmd *exec.Cmd, stdin io.Closer, grace time.Duration) {
	stdin.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		cmd.Process.Kill()
		<-done
	}
}

// startChild starts the loopback server as a child process and returns
// its HTTP base URL and its gRPC host:port.
func startChild() (*childProc, string, string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, "", "", err
	}
	cmd := exec.Command(exe, "-serve")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, "", "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", "", err
	}
	c := &childProc{cmd: cmd, stdin: stdin}
	r := bufio.NewReader(stdout)
	var addrs [2]string
	for i, prefix := range []string{"addr ", "grpc "} {
		line, err := r.ReadString('\n')
		addr, ok := strings.CutPrefix(strings.TrimSpace(line), prefix)
		if err != nil || !ok {
			c.stop()
			return nil, "", "", fmt.Errorf("server child: got %q, %v; want %q", line, err, prefix+"host:port")
		}
		addrs[i] = addr
	}
	return c, "http://" + addrs[0], addrs[1], nil
}

// raiseNoFile lifts the soft open-file limit to the hard one (the Go
// runtime does so too on Linux) and reports it.
func raiseNoFile() string {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return "unknown"
	}
	if rl.Cur < rl.Max {
		rl.Cur = rl.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl)
		_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl)
	}
	return fmt.Sprint(rl.Cur)
}

// procsList renders GOMAXPROCS values as "1 and 2".
func procsList(procs []int) string {
	parts := make([]string, len(procs))
	for i, p := range procs {
		parts[i] = fmt.Sprint(p)
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

func memTotal() string {
	b, _ := os.ReadFile("/proc/meminfo")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "MemTotal:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return fmt.Sprintf("%.0f GiB RAM", float64(kb)/(1<<20))
		}
	}
	return "RAM unknown"
}

// libraryRevision names the commit of the library under test, and whether
// its non-test Go files differ from it.
func libraryRevision() string {
	out, err := exec.Command("git", "-C", "..", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "commit unknown"
	}
	rev := "commit " + strings.TrimSpace(string(out))
	diff, err := exec.Command("git", "-C", "..", "status", "--porcelain", "--untracked-files=no", "--", "*.go", ":!*_test.go", ":!bench").Output()
	if err == nil && len(bytes.TrimSpace(diff)) > 0 {
		rev += " with local changes to its Go sources"
	}
	return rev
}
