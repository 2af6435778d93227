package redisrelay

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
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// redisServer is a redis-server the test started on 127.0.0.1, killed in
// t.Cleanup.
type redisServer struct {
	t    testing.TB
	bin  string
	port int
	args []string

	mu  sync.Mutex
	cmd *exec.Cmd
	out *bytes.Buffer
}

// startRedis starts redis-server on a free port with its data in a
// temporary directory and no persistence, unless extra says otherwise
// (later arguments win). Without redis-server the test is skipped, or
// fails under CI=true.
func startRedis(t testing.TB, extra ...string) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redis-server is not installed (apt-get install redis-server); CI=true requires it")
		}
		t.Skip("redis-server is not installed: apt-get install redis-server to run the Redis store's tests")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	s := &redisServer{t: t, bin: bin, port: port, args: append([]string{
		"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", t.TempDir(),
		"--save", "", "--appendonly", "no",
	}, extra...)}
	s.start()
	t.Cleanup(s.kill)
	return s
}

// start runs the server and waits, 10 s at most, until it answers PING.
func (s *redisServer) start() {
	s.t.Helper()
	s.mu.Lock()
	s.out = &bytes.Buffer{}
	s.cmd = exec.Command(s.bin, s.args...)
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	require.NoError(s.t, s.cmd.Start())
	s.mu.Unlock()

	c := redis.NewClient(&redis.Options{Addr: s.addr(), MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	defer c.Close()
	ctx, cancel := context.WithTimeout(s.t.Context(), 10*time.Second)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for c.Ping(ctx).Err() != nil {
		select {
		case <-ctx.Done():
			s.kill()
			s.t.Fatalf("redis-server did not answer PING within 10 s:\n%s", s.out)
		case <-tick.C:
		}
	}
}

// kill ends the server with SIGKILL, as a crash would, and reaps it.
func (s *redisServer) kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

func (s *redisServer) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// client returns a new client of the server, closed in t.Cleanup.
func (s *redisServer) client(t testing.TB) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.addr()})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// newStore is New, failing t when it fails.
func newStore(t testing.TB, c redis.UniversalClient, opts ...Option) relay.Store {
	t.Helper()
	st, err := New(c, opts...)
	require.NoError(t, err)
	return st
}

// newHandler is relay.NewHandler, failing t when it fails.
func newHandler(t testing.TB, store relay.Store, key relay.KeyFunc, opts ...relay.HandlerOption) *relay.Handler {
	t.Helper()
	h, err := relay.NewHandler(store, key, opts...)
	require.NoError(t, err)
	return h
}

// awaitLeaseEnd returns once Redis no longer holds l's lease key: its PX
// ran out in Redis's clock. It looks every millisecond, 10 s at most.
func awaitLeaseEnd(t *testing.T, c redis.UniversalClient, l *log) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		n, err := c.Exists(ctx, l.keys.lease).Result()
		require.NoError(t, err, "EXISTS %s", l.keys.lease)
		if n == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the lease %s did not expire within 10 s", l.keys.lease)
		case <-tick.C:
		}
	}
}

// replicas is a store whose Opens go to its stores in turn: two Opens of a
// key are two replicas, each with a client of its own.
type replicas struct {
	mu     sync.Mutex
	next   int
	stores []relay.Store
}

func (r *replicas) Open(ctx context.Context, key string) (relay.Log, error) {
	r.mu.Lock()
	st := r.stores[r.next%len(r.stores)]
	r.next++
	r.mu.Unlock()
	return st.Open(ctx, key)
}
