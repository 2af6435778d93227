package interop_test

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/a2astream/a2astream/a2a"
)

// peerDelay spaces the scripted peers' events. Cuts and stalls need events
// that arrive over time; "slow" scripts use five times this.
const peerDelay = 60 * time.Millisecond

// a2agoBin is the a2a-go peer built by TestMain, or "" with a2agoErr set.
var (
	a2agoBin string
	a2agoErr error
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
	a2agoBin, a2agoErr = buildA2AGo(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildA2AGo builds the a2a-go peer (package ./peers/a2ago of this module).
func buildA2AGo(dir string) (string, error) {
	bin := filepath.Join(dir, "a2ago")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./peers/a2ago")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build ./peers/a2ago: %v\n%s", err, out)
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
	// command returns the command that starts the peer, or why it cannot.
	command func() (*exec.Cmd, error)
}

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
}

// peer is a running peer process.
type peer struct {
	def  peerDef
	url  string // http://127.0.0.1:PORT/
	addr string // 127.0.0.1:PORT
	logs *tailBuffer
}

// startPeer starts def and waits (at most 20 s) for its A2A_PEER_URL line.
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

	urlc := make(chan string, 1)
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(stdout)
		sent := false
		for sc.Scan() {
			line := sc.Text()
			if u, ok := strings.CutPrefix(line, "A2A_PEER_URL="); ok && !sent {
				urlc <- u
				sent = true
			}
		}
		_ = cmd.Wait()
	}()

	select {
	case u := <-urlc:
		addr := strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/")
		return &peer{def: def, url: u, addr: addr, logs: logs}
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

// eachPeer runs f as a parallel subtest per peer, with the peer started.
func eachPeer(t *testing.T, f func(t *testing.T, p *peer)) {
	for _, def := range peerDefs {
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
