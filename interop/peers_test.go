package interop_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// peerDelay spaces the scripted peers' events. Cuts and stalls need events
// that arrive over time; "slow" scripts use five times this.
const peerDelay = 60 * time.Millisecond

// a2agoBin is the a2a-go peer built by TestMain, or "" with a2agoErr set;
// retryBin the same for the retry peer.
var (
	a2agoBin string
	a2agoErr error
	retryBin string
	retryErr error
)

func TestMain(m *testing.M) {
	flag.Parse()
	// The interop tests mostly wait on the peers' timers, so they run far
	// more subtests at once than there are cores unless -parallel says
	// otherwise.
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	if !parallelSet {
		_ = flag.Set("test.parallel", "12")
	}

	dir, err := os.MkdirTemp("", "a2astream-interop-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	a2agoBin, a2agoErr = buildPeer(dir, "a2ago")
	retryBin, retryErr = buildPeer(dir, "retry")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildPeer builds a Go peer (package ./peers/NAME of this module) into dir.
func buildPeer(dir, name string) (string, error) {
	bin := filepath.Join(dir, name)
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./peers/"+name)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build ./peers/%s: %v\n%s", name, err, out)
	}
	return bin, nil
}

// underCI reports whether a missing peer must fail the run instead of
// skipping it.
func underCI() bool { return os.Getenv("CI") == "true" }

// missingPeer skips the test, or fails it under CI=true.
func missingPeer(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if underCI() {
		t.Fatalf("peer unavailable under CI=true: %s", msg)
	}
	t.Skipf("peer unavailable (set CI=true to make this a failure): %s", msg)
}

// peerDef is one real A2A server the tests drive.
type peerDef struct {
	name    string
	version a2a.Version // the dialect the client speaks to it
	// binding is the one its card offers (JSON-RPC unless set).
	binding a2a.Binding
	// mode says what the agent can do: stream and resubscribe, stream
	// only, or neither (its card says streaming: false).
	mode peerMode
	// command returns the command that starts the peer, or why it cannot.
	command func() (*exec.Cmd, error)
	// grpc says the tests reach the peer over gRPC (its A2A_PEER_GRPC
	// address, through a proxy in gRPC mode, with an a2agrpc client), not
	// over the binding of its card.
	grpc bool
}

// peerMode is what an agent can do, which decides the faults a run can
// meet: cut streams, or dropped polls.
type peerMode int

const (
	// streams: streaming sends and resubscribe.
	streams peerMode = iota
	// noSubscribe: streaming sends, but resubscribe is not served
	// (-32601, or no REST route): after a drop the client polls.
	noSubscribe
	// noStreaming: the card says streaming: false; the client sends with
	// a unary call and polls.
	noStreaming
)

// rest reports whether the peer serves the HTTP+JSON binding.
func (d peerDef) rest() bool { return d.binding == a2a.BindingHTTPJSON }

// classic reports whether the peer is one of the streaming JSON-RPC peers
// the quirk tests describe.
func (d peerDef) classic() bool { return d.mode == streams && !d.rest() }

func nodePeer(dir string, args ...string) func() (*exec.Cmd, error) {
	return func() (*exec.Cmd, error) {
		node, err := exec.LookPath("node")
		if err != nil {
			return nil, fmt.Errorf("node is not installed: %v", err)
		}
		sdk := filepath.Join("peers", dir, "node_modules", "@a2a-js", "sdk", "package.json")
		if _, err := os.Stat(sdk); err != nil {
			return nil, fmt.Errorf("%s is missing: run `npm ci` in interop/peers/%s (.ci/run does)", sdk, dir)
		}
		argv := append([]string{"server.mjs", "--port", "0", "--delay", fmt.Sprint(peerDelay.Milliseconds())}, args...)
		cmd := exec.Command(node, argv...)
		cmd.Dir = filepath.Join("peers", dir)
		return cmd, nil
	}
}

var peerDefs = []peerDef{
	{
		name: "a2a-go-0.3.3", version: a2a.V03,
		command: func() (*exec.Cmd, error) {
			if a2agoErr != nil {
				return nil, a2agoErr
			}
			return exec.Command(a2agoBin, "-addr", "127.0.0.1:0", "-delay", peerDelay.String()), nil
		},
	},
	{name: "js-0.3.14", version: a2a.V03, command: nodePeer("js03")},
	{name: "js-1.3.0", version: a2a.V10, command: nodePeer("js10")},
	{name: "js-1.3.0-legacy", version: a2a.V03, command: nodePeer("js10", "--legacy")},

	// The HTTP+JSON binding: the SDKs' restHandler under /rest, alone in
	// the card.
	{name: "js-0.3.14-rest", version: a2a.V03, binding: a2a.BindingHTTPJSON, command: nodePeer("js03", "--rest")},
	{name: "js-1.3.0-rest", version: a2a.V10, binding: a2a.BindingHTTPJSON, command: nodePeer("js10", "--rest")},

	// Agents that cannot stream (capabilities.streaming: false), in both
	// bindings.
	{name: "js-0.3.14-nostream", version: a2a.V03, mode: noStreaming, command: nodePeer("js03", "--no-streaming")},
	{name: "js-1.3.0-nostream", version: a2a.V10, mode: noStreaming, command: nodePeer("js10", "--no-streaming")},
	{name: "js-0.3.14-rest-nostream", version: a2a.V03, binding: a2a.BindingHTTPJSON, mode: noStreaming, command: nodePeer("js03", "--rest", "--no-streaming")},
	{name: "js-1.3.0-rest-nostream", version: a2a.V10, binding: a2a.BindingHTTPJSON, mode: noStreaming, command: nodePeer("js10", "--rest", "--no-streaming")},

	// Servers that stream but cannot resubscribe: over JSON-RPC the SDK
	// answers the method with -32601; over REST the :subscribe route is
	// absent (express's 404 page). The other two combinations add nothing
	// the client sees differently (-32601 is -32601 in 1.0 too, and the
	// 404 page is the same in 0.3), so they are left out for time.
	{name: "js-0.3.14-nosub", version: a2a.V03, mode: noSubscribe, command: nodePeer("js03", "--no-subscribe")},
	{name: "js-1.3.0-rest-nosub", version: a2a.V10, binding: a2a.BindingHTTPJSON, mode: noSubscribe, command: nodePeer("js10", "--rest", "--no-subscribe")},
}

// peer is a running peer process.
type peer struct {
	def      peerDef
	url      string // http://127.0.0.1:PORT/
	addr     string // 127.0.0.1:PORT
	grpcAddr string // 127.0.0.1:PORT of its gRPC server, or ""
	logs     *tailBuffer
}

// startPeer starts def and waits (at most 20 s) for its A2A_PEER_URL line,
// and its A2A_PEER_GRPC line before it for a gRPC peer.
// The process is killed when t's cleanup runs.
func startPeer(t *testing.T, def peerDef) *peer {
	t.Helper()
	cmd, err := def.command()
	if err != nil {
		missingPeer(t, "%s: %v", def.name, err)
		return nil
	}
	logs := &tailBuffer{max: 64 << 10}
	cmd.Stderr = logs
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		missingPeer(t, "%s: start: %v", def.name, err)
		return nil
	}
	exited := make(chan struct{})
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("%s stderr (tail):\n%s", def.name, logs.String())
		}
	})

	type lines struct{ url, grpc string }
	urlc := make(chan lines, 1)
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(stdout)
		sent := false
		var grpcAddr string
		for sc.Scan() {
			line := sc.Text()
			if a, ok := strings.CutPrefix(line, "A2A_PEER_GRPC="); ok && grpcAddr == "" {
				grpcAddr = a
			}
			if u, ok := strings.CutPrefix(line, "A2A_PEER_URL="); ok && !sent {
				urlc <- lines{u, grpcAddr}
				sent = true
			}
		}
		_ = cmd.Wait()
	}()

	select {
	case l := <-urlc:
		if def.grpc && l.grpc == "" {
			t.Fatalf("%s printed no A2A_PEER_GRPC line before its URL", def.name)
		}
		addr := strings.TrimSuffix(strings.TrimPrefix(l.url, "http://"), "/")
		return &peer{def: def, url: l.url, addr: addr, grpcAddr: l.grpc, logs: logs}
	case <-exited:
		missingPeer(t, "%s exited before printing its URL:\n%s", def.name, logs.String())
	case <-time.After(20 * time.Second):
		missingPeer(t, "%s printed no A2A_PEER_URL line within 20 s:\n%s", def.name, logs.String())
	}
	return nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

var errNotStarted = errors.New("peer not started")

// eachPeerWhere runs f as a parallel subtest per peer that want accepts.
func eachPeerWhere(t *testing.T, want func(peerDef) bool, f func(t *testing.T, p *peer)) {
	eachPeerOf(t, peerDefs, want, f)
}

// eachPeerOf runs f as a parallel subtest per peer of defs that want
// accepts.
func eachPeerOf(t *testing.T, defs []peerDef, want func(peerDef) bool, f func(t *testing.T, p *peer)) {
	for _, def := range defs {
		if !want(def) {
			continue
		}
		t.Run(def.name, func(t *testing.T) {
			t.Parallel()
			p := startPeer(t, def)
			if p == nil {
				t.Fatal(errNotStarted)
			}
			f(t, p)
		})
	}
}

// wire is one binding in one protocol version. "Every wire" is the four of
// them: JSON-RPC and HTTP+JSON, in A2A 0.3 and 1.0.
type wire struct {
	v a2a.Version
	b a2a.Binding
}

func (w wire) String() string {
	if w.b == a2a.BindingHTTPJSON {
		return "rest-" + string(w.v)
	}
	return "jsonrpc-" + string(w.v)
}

var wires = []wire{
	{a2a.V03, a2a.BindingJSONRPC},
	{a2a.V10, a2a.BindingJSONRPC},
	{a2a.V03, a2a.BindingHTTPJSON},
	{a2a.V10, a2a.BindingHTTPJSON},
}

// retryDelay is the delay the retry peer's retryable errors ask for on a
// wire: 0.3's retryAfter counts whole seconds, 1.0's RetryInfo takes
// "0.2s".
func retryDelay(w wire) time.Duration {
	if w.v == a2a.V10 {
		return 200 * time.Millisecond
	}
	return time.Second
}

// retryPeer is the retry peer (peers/retry) serving wire w with the faults
// that flags give (see its package doc), and the delay retryDelay(w).
func retryPeer(w wire, flags ...string) peerDef {
	binding := "jsonrpc"
	if w.b == a2a.BindingHTTPJSON {
		binding = "rest"
	}
	mode := streams
	if slices.Contains(flags, "-no-streaming") {
		mode = noStreaming
	}
	return peerDef{
		name: "retry-" + w.String(), version: w.v, binding: w.b, mode: mode,
		command: func() (*exec.Cmd, error) {
			if retryErr != nil {
				return nil, retryErr
			}
			args := append([]string{"-addr", "127.0.0.1:0", "-delay", peerDelay.String(),
				"-binding", binding, "-version", string(w.v), "-retry-after", retryDelay(w).String()}, flags...)
			return exec.Command(retryBin, args...), nil
		},
	}
}

// agentCounts is what the retry peer says it received (GET /counts,
// straight to the peer, not through the proxy).
type agentCounts struct {
	Sends      []string    `json:"sends"` // the message IDs of the sends, in order
	Subscribes int         `json:"subscribes"`
	Gets       int         `json:"gets"`
	Calls      []agentCall `json:"calls"` // sends, subscribes and get-tasks, in order
}

// agentCall is one send, subscribe or get-task the retry peer received.
type agentCall struct {
	Call          string `json:"call"`          // "send", "subscribe" or "get"
	Authorization string `json:"authorization"` // the header it carried, or ""
	Trace         string `json:"trace"`         // the trace ID of its traceparent, or ""
	Parent        string `json:"parent"`        // the caller's span ID of its traceparent, or ""
}

func (p *peer) counts(t *testing.T) agentCounts {
	t.Helper()
	c, err := p.readCounts(t.Context())
	require.NoError(t, err)
	return c
}

// calls returns the calls the retry peer has received so far.
func (p *peer) calls(ctx context.Context) ([]agentCall, error) {
	c, err := p.readCounts(ctx)
	return c.Calls, err
}

// readCounts reads GET /counts of the retry peer.
func (p *peer) readCounts(ctx context.Context) (agentCounts, error) {
	var c agentCounts
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url+"counts", nil)
	if err != nil {
		return c, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return c, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return c, fmt.Errorf("GET %scounts: %s", p.url, resp.Status)
	}
	return c, json.NewDecoder(resp.Body).Decode(&c)
}
