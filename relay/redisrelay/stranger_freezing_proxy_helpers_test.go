package redisrelay_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
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
// notes through. It keeps what each connection carried, and fires sig
// whenever bytes went through or a reply was held, so that a test waits for
// what it needs to have happened (a subscription confirmed, a reply held).
type freezingProxy struct {
	ln     net.Listener
	target string
	sig    *signal

	mu     sync.Mutex
	frozen bool
	cutoff int // while frozen, only connections numbered below it are held; 0 for all
	next   int // the number of the next connection accepted
	thaw   chan struct{}
	marker []byte       // freezeNext: the bytes whose connection is to be held
	held   map[int]bool // the connections freezeNext picked
	holds  int          // replies held so far
	seen   map[int]*proxied
	conns  []net.Conn
	wg     sync.WaitGroup
}

// proxied is what one connection carried; guarded by freezingProxy.mu.
type proxied struct {
	pubsub bool   // it sent SUBSCRIBE
	up     []byte // what it forwarded to Redis
	down   []byte // what it passed on to the client
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
	p := &freezingProxy{ln: ln, target: target, sig: &signal{}, thaw: make(chan struct{}), seen: map[int]*proxied{}}
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

// sending tells the proxy that connection conn is about to forward b to
// Redis: a SUBSCRIBE makes it a Pub/Sub connection, and freezeNext's
// marker has its replies held.
func (p *freezingProxy) sending(conn int, b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if bytes.Contains(bytes.ToUpper(b), []byte("SUBSCRIBE")) {
		p.seen[conn].pubsub = true
	}
	if p.marker != nil && bytes.Contains(b, p.marker) {
		p.held[conn] = true
		p.marker = nil
	}
}

// sent tells the proxy that connection conn forwarded b to Redis.
func (p *freezingProxy) sent(conn int, b []byte) {
	defer p.sig.fire()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen[conn].up = append(p.seen[conn].up, b...)
}

// passed tells the proxy that connection conn passed b on to the client.
func (p *freezingProxy) passed(conn int, b []byte) {
	defer p.sig.fire()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen[conn].down = append(p.seen[conn].down, b...)
}

// confirmed reports whether Redis confirmed the subscription of each of
// channels on a Pub/Sub connection, and the client was given it.
func (p *freezingProxy) confirmed(channels ...string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ch := range channels {
		// The confirmation (RESP2 or RESP3): "subscribe", the channel, the count.
		want := fmt.Appendf(nil, "$9\r\nsubscribe\r\n$%d\r\n%s\r\n", len(ch), ch)
		found := false
		for _, c := range p.seen {
			if c.pubsub && bytes.Contains(c.down, want) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// forwarded reports whether a connection forwarded marker to Redis (in
// upper or lower case).
func (p *freezingProxy) forwarded(marker string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.seen {
		if bytes.Contains(bytes.ToUpper(c.up), []byte(strings.ToUpper(marker))) {
			return true
		}
	}
	return false
}

// heldReplies returns how many replies the proxy held so far.
func (p *freezingProxy) heldReplies() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.holds
}

// channelsOf returns the Pub/Sub channels of logs, "{rt:<log>}:log".
func channelsOf(logs ...string) []string {
	out := make([]string, len(logs))
	for i, l := range logs {
		out[i] = "{rt:" + l + "}:log"
	}
	return out
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
// none; it counts the reply held when it returns one.
func (p *freezingProxy) gate(conn int) chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frozen && !p.seen[conn].pubsub && (p.cutoff == 0 || conn < p.cutoff || p.held[conn]) {
		p.holds++
		defer p.sig.fire()
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
		p.seen[num] = &proxied{}
		p.mu.Unlock()
		p.wg.Go(func() { // client to server: spot SUBSCRIBE
			defer s.Close()
			buf := make([]byte, 32<<10)
			for {
				n, err := c.Read(buf)
				if n > 0 {
					p.sending(num, buf[:n])
					if _, werr := s.Write(buf[:n]); werr != nil {
						return
					}
					p.sent(num, buf[:n])
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
					if g := p.gate(num); g != nil {
						<-g
					}
					if _, werr := c.Write(buf[:n]); werr != nil {
						return
					}
					p.passed(num, buf[:n])
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
// goes through the proxy (ReadTimeout 10 s, PoolSize 10) with wake; a
// scriptWatch on that client fires the proxy's signal.
type stallRig struct {
	proxy   *freezingProxy
	looks   *scriptWatch
	drivers []*strangerDriver
	logs    []relay.Log
}

func newStallRig(t *testing.T, ctx context.Context, n int, wake time.Duration) *stallRig {
	srv := startStrangerRedis(t)
	proxy := startFreezingProxy(t, srv.Addr())
	writer, err := redisrelay.New(srv.Client(t, nil), redisrelay.WithPrefix("rt"))
	require.NoError(t, err)
	rc := redis.NewClient(&redis.Options{Addr: proxy.addr(), ReadTimeout: 10 * time.Second, PoolSize: 10})
	t.Cleanup(func() { _ = rc.Close() })
	looks := newScriptWatch(proxy.sig)
	rc.AddHook(looks)
	waiter, err := redisrelay.New(rc, redisrelay.WithPrefix("rt"), redisrelay.WithWake(wake))
	require.NoError(t, err)
	r := &stallRig{proxy: proxy, looks: looks, drivers: make([]*strangerDriver, n), logs: make([]relay.Log, n)}
	for i := range n {
		r.drivers[i] = newStrangerDriver(t, ctx, writer, fmt.Sprintf("s%d", i))
		r.logs[i], err = waiter.Open(ctx, fmt.Sprintf("s%d", i))
		require.NoError(t, err)
	}
	return r
}

// subscribedAndLooked waits until the store subscribed to the channels of
// logs, Redis confirmed it, and each of them had a look answered.
func (r *stallRig) subscribedAndLooked(t *testing.T, ctx context.Context, logs ...string) {
	t.Helper()
	r.proxy.sig.waitFor(t, ctx, fmt.Sprintf("the subscriptions and first looks of %d waits", len(logs)), func() bool {
		return r.proxy.confirmed(channelsOf(logs...)...) && r.looks.lookedAll(1, logs...)
	})
}
