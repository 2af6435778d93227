package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/bench/internal/measure"
	"github.com/a2astream/a2astream/stream"
)

type memSnap struct {
	heap, stack uint64
	goroutines  int
	httpG       int // goroutines net/http started (connection loops, HTTP/2 request writers)
	conns       int // connections: their read loops, one per connection in both protocols
}

func snapshot() memSnap {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s := memSnap{heap: m.HeapAlloc, stack: m.StackInuse, goroutines: runtime.NumGoroutine()}
	buf := make([]byte, 64<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if bytes.Contains(g, []byte("\ncreated by net/http.")) {
			s.httpG++
		}
		if bytes.Contains(g, []byte("net/http.(*persistConn).readLoop(")) || bytes.Contains(g, []byte("net/http.(*http2ClientConn).readLoop(")) {
			s.conns++
		}
	}
	return s
}

// protocol is one way the many-streams suite reaches the server: a
// Transport setting.
type protocol struct {
	name string
	set  func(*http.Transport)
}

// smallBuffers is the HTTP/1.1 variant's ReadBufferSize and
// WriteBufferSize (net/http's default is 4 KiB each).
const smallBuffers = 1 << 10

var protocols = []protocol{
	{"HTTP/1.1", func(*http.Transport) {}},
	{"HTTP/1.1, 1 KiB buffers", func(tr *http.Transport) { tr.ReadBufferSize, tr.WriteBufferSize = smallBuffers, smallBuffers }},
	{"HTTP/2 (h2c)", func(tr *http.Transport) {
		var p http.Protocols
		p.SetUnencryptedHTTP2(true)
		tr.Protocols = &p
	}},
}

// openMany opens n streams with a few workers, each through open, and
// returns the closers.
func openMany(n int, open func() (io.Closer, error)) ([]io.Closer, error) {
	out := make([]io.Closer, n)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	next := make(chan int)
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c, err := open()
				if err != nil {
					mu.Lock()
					first = err
					mu.Unlock()
					continue
				}
				out[i] = c
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return out, first
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

func manyStreams(cfg *config, w io.Writer) error {
	n := 10_000
	if cfg.quick {
		n = 300
	}
	url := cfg.base + "/?s=idle"
	contenders := []struct {
		name string
		open func(hc *http.Client) func() (io.Closer, error)
	}{
		{"a2astream Stream (Send, one Next, held open)", func(hc *http.Client) func() (io.Closer, error) {
			c, err := stream.NewClient(url, stream.WithHTTPClient(hc), stream.WithVersion(a2a.V03))
			return func() (io.Closer, error) {
				if err != nil {
					return nil, err
				}
				s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hello"))
				if !s.Next() {
					return nil, fmt.Errorf("no first event: %v", s.Err())
				}
				return s, nil
			}
		}},
		{"net/http alone (POST, read the first event into 4 KiB, hold)", func(hc *http.Client) func() (io.Closer, error) {
			return func() (io.Closer, error) {
				req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":"1","method":"message/stream","params":{}}`))
				if err != nil {
					return nil, err
				}
				resp, err := hc.Do(req)
				if err != nil {
					return nil, err
				}
				buf := make([]byte, 4<<10)
				got := 0
				for !bytes.Contains(buf[:got], []byte("\n\n")) {
					k, err := resp.Body.Read(buf[got:])
					got += k
					if err != nil {
						resp.Body.Close()
						return nil, err
					}
				}
				return closerFunc(func() error { runtime.KeepAlive(buf); return resp.Body.Close() }), nil
			}
		}},
	}
	type row struct {
		proto, name    string
		mem, heap, stk float64
		gor, httpG     float64
		conns          int
		open           time.Duration
	}
	var rows []row
	for _, p := range protocols {
		for _, c := range contenders {
			tr := http.DefaultTransport.(*http.Transport).Clone()
			tr.MaxIdleConnsPerHost = 64
			p.set(tr)
			hc := &http.Client{Transport: tr}
			before := snapshot()
			t0 := time.Now()
			closers, err := openMany(n, c.open(hc))
			elapsed := time.Since(t0)
			if err != nil {
				closeAll(closers, tr)
				return fmt.Errorf("%s, %s: %w", p.name, c.name, err)
			}
			after := snapshot()
			runtime.KeepAlive(closers)
			fn := float64(n)
			rows = append(rows, row{
				proto: p.name,
				name:  c.name,
				mem:   (float64(after.heap+after.stack) - float64(before.heap+before.stack)) / fn,
				heap:  (float64(after.heap) - float64(before.heap)) / fn,
				stk:   (float64(after.stack) - float64(before.stack)) / fn,
				gor:   float64(after.goroutines-before.goroutines-(after.httpG-before.httpG)) / fn,
				httpG: float64(after.httpG-before.httpG) / fn,
				conns: after.conns - before.conns,
				open:  elapsed,
			})
			closeAll(closers, tr)
		}
	}
	fmt.Fprintf(w, "## 4. Many streams\n\n")
	fmt.Fprintf(w, "%s concurrent streams on one Client (one http.Transport) against the loopback server, which sends a task "+
		"and a working status, then stays silent. Each stream is opened with Send and one Next (32 openers), then held. "+
		"Per stream: (heap + goroutine stacks after − before) / N, each after two GCs; goroutines from runtime.NumGoroutine, "+
		"with those net/http started (its connections' read and write loops, HTTP/2's request writers) counted apart. "+
		"Each protocol's second row holds the same streams with net/http alone, so the difference is what a2astream adds. "+
		"HTTP/1.1 holds one connection per stream; \"1 KiB buffers\" sets the Transport's ReadBufferSize and WriteBufferSize "+
		"to 1 KiB (4 KiB by default). HTTP/2 is h2c with prior knowledge (Transport.Protocols with only UnencryptedHTTP2); "+
		"the server allows Go's default of 250 streams per connection, so the streams share connections 250 to one. "+
		"One round (the figures are counts, and each HTTP/1.1 row costs %s loopback ports).\n\n", measure.Thousands(int64(n)), measure.Thousands(int64(n)))
	t := measure.Table{Head: []string{"protocol", "contender", "memory/stream", "heap/stream", "stacks/stream", "goroutines/stream (excl. net/http)", "net/http goroutines/stream", "connections", "open all"},
		Align: []bool{false, false, true, true, true, true, true, true, true}}
	for _, r := range rows {
		t.Add(r.proto, r.name, kib(r.mem), kib(r.heap), kib(r.stk), fmt.Sprintf("%.3f", r.gor), fmt.Sprintf("%.3f", r.httpG), measure.Thousands(int64(r.conns)), measure.Dur(r.open))
	}
	fmt.Fprintln(w, t.String())
	cfg.res.idle, cfg.res.idleNetHTTP = nil, nil
	for i := 0; i+1 < len(rows); i += 2 {
		ours, base := rows[i], rows[i+1]
		cfg.res.idle = append(cfg.res.idle, figure{ours.proto, ours.mem})
		cfg.res.idleNetHTTP = append(cfg.res.idleNetHTTP, figure{ours.proto, base.mem})
		fmt.Fprintf(w, "%s: a2astream's own share **%s** per stream (%s heap, %s stacks); ≤ 16 KiB per stream: %s in all — %s; "+
			"≤ 1 goroutine per stream (excl. net/http): %.3f — %s  \n",
			ours.proto, kib(ours.mem-base.mem), kib(ours.heap-base.heap), kib(ours.stk-base.stk),
			kib(ours.mem), verdict(ours.mem <= idleTarget), ours.gor, verdict(ours.gor <= 1))
	}
	return nil
}

func kib(b float64) string { return fmt.Sprintf("%.1f KiB", b/1024) }

func closeAll(cs []io.Closer, tr *http.Transport) {
	for _, c := range cs {
		if c != nil {
			c.Close()
		}
	}
	tr.CloseIdleConnections()
	for range 50 { // let the connection goroutines wind down
		if runtime.NumGoroutine() < 100 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
}
