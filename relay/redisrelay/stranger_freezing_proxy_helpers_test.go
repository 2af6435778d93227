package redisrelay_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay"
)

// freezingProxy forwards connections to a Redis; while frozen, it holds the
// replies on every connection that has not sent SUBSCRIBE (the pool's), so
// that a look sent then stays unanswered, and lets the Pub/Sub connection's
// notes through.
type freezingProxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	frozen bool
	cutoff int // while frozen, only connections numbered below it are held; 0 for all
	next   int // the number of the next connection accepted
	thaw   chan struct{}
	marker []byte       // freezeNext: the bytes whose connection is to be held
	held   map[int]bool // the connections freezeNext picked
	conns  []net.Conn
	wg     sync.WaitGroup
}

// freezeOpen holds the replies on the pool's connections open now, and lets
// those dialed later through.
func (p *freezingProxy) freezeOpen() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.frozen {
		p.frozen, p.thaw = true, make(chan struct{})
	}
	p.cutoff = p.next
}

func startFreezingProxy(t *testing.T, target string) *freezingProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &freezingProxy{ln: ln, target: target, thaw: make(chan struct{})}
	p.wg.Go(p.accept)
	t.Cleanup(p.close)
	return p
}

func (p *freezingProxy) addr() string { return p.ln.Addr().String() }

func (p *freezingProxy) freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.frozen {
		p.frozen, p.thaw = true, make(chan struct{})
	}
	p.cutoff = 0
}

// freezeNext holds the replies on the first connection that sends marker from
// now on, and on no other.
func (p *freezingProxy) freezeNext(marker []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.frozen {
		p.frozen, p.thaw = true, make(chan struct{})
	}
	p.cutoff = -1
	p.marker = marker
	p.held = map[int]bool{}
}

// sent tells the proxy that connection conn sent b.
func (p *freezingProxy) sent(conn int, b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.marker != nil && bytes.Contains(b, p.marker) {
		p.held[conn] = true
		p.marker = nil
	}
}

func (p *freezingProxy) unfreeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frozen {
		p.frozen = false
		close(p.thaw)
	}
}

// gate returns a channel to wait on before a reply is passed on, nil when
// none.
func (p *freezingProxy) gate(conn int) chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frozen && (p.cutoff == 0 || conn < p.cutoff || p.held[conn]) {
		return p.thaw
	}
	return nil
}

func (p *freezingProxy) close() {
	_ = p.ln.Close()
	p.unfreeze()
	p.mu.Lock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

func (p *freezingProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		num := p.next
		p.next++
		p.mu.Unlock()
		var pubsub atomic.Bool
		p.wg.Go(func() { // client to server: spot SUBSCRIBE
			defer s.Close()
			buf := make([]byte, 32<<10)
			for {
				n, err := c.Read(buf)
				if n > 0 {
					if bytes.Contains(bytes.ToUpper(buf[:n]), []byte("SUBSCRIBE")) {
						pubsub.Store(true)
					}
					p.sent(num, buf[:n])
					if _, werr := s.Write(buf[:n]); werr != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		})
		p.wg.Go(func() { // server to client: held while frozen
			defer c.Close()
			buf := make([]byte, 32<<10)
			for {
				n, err := s.Read(buf)
				if n > 0 {
					if g := p.gate(num); g != nil && !pubsub.Load() {
						<-g
					}
					if _, werr := c.Write(buf[:n]); werr != nil {
						return
					}
				}
				if err != nil {
					if err != io.EOF {
						return
					}
					return
				}
			}
		})
	}
}

// stallRig is what the stalled-connection tests share: a redis-server, a
// freezing proxy before it, and logs 0 to n-1, each with a driver that
// commits on the server directly and a log opened by a store whose client
// goes through the proxy (ReadTimeout 10 s, PoolSize 10) with wake.
type stallRig struct {
	proxy   *freezingProxy
	drivers []*strangerDriver
	logs    []relay.Log
}

func newStallRig(t *testing.T, ctx context.Context, n int, wake time.Duration) *stallRig {
	srv := startStrangerRedis(t)
	proxy := startFreezingProxy(t, srv.addr())
	writer, err := redisrelay.New(srv.client(t, nil), redisrelay.WithPrefix("rt"))
	require.NoError(t, err)
	rc := redis.NewClient(&redis.Options{Addr: proxy.addr(), ReadTimeout: 10 * time.Second, PoolSize: 10})
	t.Cleanup(func() { _ = rc.Close() })
	waiter, err := redisrelay.New(rc, redisrelay.WithPrefix("rt"), redisrelay.WithWake(wake))
	require.NoError(t, err)
	r := &stallRig{proxy: proxy, drivers: make([]*strangerDriver, n), logs: make([]relay.Log, n)}
	for i := range n {
		r.drivers[i] = newStrangerDriver(t, ctx, writer, fmt.Sprintf("s%d", i))
		r.logs[i], err = waiter.Open(ctx, fmt.Sprintf("s%d", i))
		require.NoError(t, err)
	}
	return r
}
