// Package redistest starts redis-server processes for the tests of package
// redisrelay, one per test, on a free port of 127.0.0.1.
package redistest

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// readyWait is how long Start and Restart wait for the server to say that
// it accepts connections.
const readyWait = 10 * time.Second

// Server is a redis-server that a test started, killed at the test's end.
// Its methods are safe for concurrent use.
type Server struct {
	t    testing.TB
	bin  string
	port int
	args []string

	mu  sync.Mutex
	cmd *exec.Cmd
	out *output
}

// Start starts redis-server on a free port of 127.0.0.1, with its data in
// a temporary directory of t's and no persistence, unless extra says
// otherwise (later arguments win), and returns once it accepts
// connections. Without redis-server the test is skipped, or fails under
// CI=true, which requires it.
func Start(t testing.TB, extra ...string) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redis-server is not installed (apt-get install redis-server); CI=true requires it")
		}
		t.Skip("redis-server is not installed: apt-get install redis-server to run the Redis store's tests")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("redistest: finding a free port: %v", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatalf("redistest: finding a free port: %v", err)
	}
	s := &Server{t: t, bin: bin, port: port, args: append([]string{
		"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", t.TempDir(),
		"--save", "", "--appendonly", "no",
	}, extra...)}
	s.Restart()
	t.Cleanup(s.Kill)
	return s
}

// Addr is the server's address, host:port.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// Restart starts the server again, after Kill, on the same port with the
// same data directory, and returns once it accepts connections (with
// --appendonly yes, once it has read its data back). It fails the test
// when the server does not say so within 10 s, or then does not answer
// PING.
func (s *Server) Restart() {
	s.t.Helper()
	out := &output{ready: make(chan struct{})}
	s.mu.Lock()
	s.out = out
	s.cmd = exec.Command(s.bin, s.args...)
	s.cmd.Stdout, s.cmd.Stderr = out, out
	err := s.cmd.Start()
	s.mu.Unlock()
	if err != nil {
		s.t.Fatalf("redistest: starting redis-server: %v", err)
	}
	timer := time.NewTimer(readyWait)
	defer timer.Stop()
	select {
	case <-out.ready:
	case <-timer.C:
		s.Kill()
		s.t.Fatalf("redis-server did not accept connections within %v; it wrote:\n%s", readyWait, out)
	}
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
	defer c.Close()
	if err := c.Ping(context.Background()).Err(); err != nil {
		s.t.Fatalf("redis-server said it accepts connections, but PING failed: %v; it wrote:\n%s", err, out)
	}
}

// Kill ends the server with SIGKILL, as a crash would, and reaps it. It
// does nothing when the server is not running.
func (s *Server) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Output is what the server wrote since it last started.
func (s *Server) Output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// Client returns a new client of the server with the options o (nil for
// go-redis's defaults; its Addr is set), closed at the end of t.
func (s *Server) Client(t testing.TB, o *redis.Options) *redis.Client {
	if o == nil {
		o = &redis.Options{}
	}
	o.Addr = s.Addr()
	c := redis.NewClient(o)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// output keeps what a redis-server writes, and closes ready once it has
// written that it accepts connections.
type output struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready chan struct{}
}

func (o *output) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf.Write(b)
	select {
	case <-o.ready:
	default:
		if bytes.Contains(o.buf.Bytes(), []byte("Ready to accept connections")) {
			close(o.ready)
		}
	}
	return len(b), nil
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}
