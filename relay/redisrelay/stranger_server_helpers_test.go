package redisrelay_test

// The helpers of a stranger's red team of the store's waits: a redis-server of
// the test's own, and a driver that commits entries. They use only the public
// API of relay and redisrelay.

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// strangerRedis is one redis-server on a free 127.0.0.1 port, killed at the
// test's end; restart brings it back on the same port.
type strangerRedis struct {
	t    *testing.T
	port int
	args []string
	mu   sync.Mutex
	cmd  *exec.Cmd
	out  *serverOutput
}

// serverOutput keeps what a redis-server wrote, and closes ready once it
// wrote that it accepts connections.
type serverOutput struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready chan struct{}
}

func (o *serverOutput) Write(b []byte) (int, error) {
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

func (o *serverOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

func startStrangerRedis(t *testing.T, extra ...string) *strangerRedis {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("no redis-server")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	s := &strangerRedis{t: t, port: port, args: append([]string{
		"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", t.TempDir(),
		"--save", "", "--appendonly", "yes", "--appendfsync", "always", "--enable-debug-command", "yes",
	}, extra...)}
	s.up()
	t.Cleanup(s.down)
	return s
}

func (s *strangerRedis) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// up starts the server and waits, 10 s at most, until it says that it
// accepts connections (it has loaded its AOF and listens), then for its
// PONG.
func (s *strangerRedis) up() {
	s.t.Helper()
	s.mu.Lock()
	out := &serverOutput{ready: make(chan struct{})}
	s.out = out
	s.cmd = exec.Command("/usr/bin/redis-server", s.args...)
	s.cmd.Stdout, s.cmd.Stderr = out, out
	require.NoError(s.t, s.cmd.Start())
	s.mu.Unlock()
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	select {
	case <-out.ready:
	case <-timer.C:
		s.down()
		s.t.Fatalf("redis-server was not ready in 10 s; it wrote:\n%s", out)
	}
	c := redis.NewClient(&redis.Options{Addr: s.addr(), MaxRetries: -1})
	defer c.Close()
	require.NoError(s.t, c.Ping(context.Background()).Err(), "redis-server said it was ready")
}

// down kills the server (SIGKILL) and reaps it.
func (s *strangerRedis) down() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

func (s *strangerRedis) client(t *testing.T, o *redis.Options) *redis.Client {
	if o == nil {
		o = &redis.Options{}
	}
	o.Addr = s.addr()
	c := redis.NewClient(o)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// strangerDriver commits entries to one log under its own lease.
type strangerDriver struct {
	log   relay.Log
	fence relay.Fence
	seq   uint64
}

func newStrangerDriver(t *testing.T, ctx context.Context, st relay.Store, key string) *strangerDriver {
	t.Helper()
	l, err := st.Open(ctx, key)
	require.NoError(t, err)
	f, err := l.Acquire(ctx, "stranger", time.Hour)
	require.NoError(t, err)
	return &strangerDriver{log: l, fence: f}
}

// commit appends one message entry whose text is its seq.
func (d *strangerDriver) commit(ctx context.Context) error {
	e := relay.Entry{Seq: d.seq + 1, Name: relay.EventMessage,
		Data: fmt.Appendf(nil, `{"pane":"message:m","kind":"message","text":"%d","append":true}`, d.seq+1)}
	err := d.log.Commit(ctx, d.fence, nil, e)
	if err == nil {
		d.seq++
	}
	return err
}
