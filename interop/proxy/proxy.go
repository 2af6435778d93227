// Package proxy is a small TCP proxy for interop tests that breaks
// Server-Sent Events streams on purpose: it sits between an HTTP client and
// an A2A server on 127.0.0.1 and, following a plan, cuts a streaming
// response after a chosen number of events or bytes, or stalls it silently.
// It also drops polls (get-task requests) as a policy decides, rewrites the
// URLs in agent cards to its own address, and records every request.
//
// # Requests
//
// The proxy reads the head of the first request of each connection, and its
// body when it has a Content-Length of at most 4 MiB, before forwarding
// them, and records what it asks for (see Kind and Requests): a send with
// its message's ID, a poll, a subscribe, a cancel or an agent card, in
// either binding (JSON-RPC or HTTP+JSON) and either protocol version.
//
// The response to a GET of an agent card (/.well-known/agent-card.json or
// /.well-known/agent.json) is read whole; every "//HOST:PORT" of the target
// in it becomes the proxy's own address, so that a client that resolves the
// agent through the proxy also sends its calls through it (see Rewrites).
//
// A poll is dropped when the policy set with DropPolls says so: either
// before the server sees it (ResetRequest), or after the server answered,
// with the head and some body bytes forwarded before a reset (ResetResponse).
//
// # What is counted
//
// The proxy reads the server's HTTP/1.1 response head (up to the blank line
// that ends the headers). Only a response whose Content-Type is
// text/event-stream is a stream; every other connection (agent cards, unary
// calls, plain-JSON error bodies) is forwarded untouched and consumes no
// fault.
//
// For a stream, counting starts at the first body byte and works on the
// payload: with Transfer-Encoding: chunked the chunk-size lines and the CRLF
// after each chunk are framing and are not counted, so the numbers do not
// depend on how the server happened to flush. Otherwise every body byte is
// payload.
//
//   - An event is complete when the blank line that ends it has been read in
//     full: "\n\n", "\r\n\r\n" or "\r\r" after at least one byte that is not a
//     line break. Blank lines with nothing before them are not events.
//   - PlusBytes counts payload bytes after the AfterEvents-th event ends
//     (or from the start of the body when AfterEvents is 0).
//
// The fault fires once AfterEvents events and then PlusBytes more payload
// bytes have been forwarded to the client, and not a byte more: the framing
// of a chunk still being sent is cut off with it. A fault whose point is never
// reached (the response ends first) does not fire.
//
// # Faults
//
// Plan queues faults; each one applies to the next streaming response, in the
// order the response heads arrive. A Pass fault forwards one stream untouched
// (to let, say, a resubscribe through and hit the one after it); when the
// queue is empty every stream passes. Cut closes both sockets at once with
// SO_LINGER 0, so both ends see a reset rather than an orderly close. Stall
// stops forwarding and stops reading from the server but keeps both sockets
// open, as a dead network path would, until the client gives up and closes
// its end (the proxy then closes the server side) or Close is called.
//
// # Refusing connections
//
// StopListening closes the listener and Listen opens it again on the same
// address: in between a dial to Addr is refused, as when an agent is down,
// so the client knows its request never left. (A connection the proxy
// accepted and then reset would not do: the client had a connection, and
// the request may have gone out on it.)
//
// Use it with an HTTP client that does not reuse connections
// (http.Transport.DisableKeepAlives), so that each request is one connection:
// only the first request and response of a connection are read.
//
// # gRPC
//
// NewGRPC makes a proxy for a gRPC server instead: it reads HTTP/2 frames,
// not HTTP/1.1, and counts each streaming call's gRPC messages as events;
// see NewGRPC for exactly what it counts and how its faults act.
package proxy

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Action says what a Fault does to a stream.
type Action int

const (
	// Pass forwards the stream untouched.
	Pass Action = iota
	// Cut closes both connections abruptly at the fault's point.
	Cut
	// Stall stops forwarding at the fault's point and keeps both connections open.
	Stall
)

func (a Action) String() string {
	switch a {
	case Pass:
		return "pass"
	case Cut:
		return "cut"
	case Stall:
		return "stall"
	}
	return "action(" + strconv.Itoa(int(a)) + ")"
}

// Fault is what happens to one streaming response.
type Fault struct {
	Action Action
	// AfterEvents is the number of complete SSE events forwarded before the
	// fault's point.
	AfterEvents int
	// PlusBytes is the number of payload bytes forwarded after those events.
	PlusBytes int
}

// String reads like "cut@3+40" (after 3 events and 40 bytes) or "pass".
func (f Fault) String() string {
	if f.Action == Pass {
		return "pass"
	}
	s := fmt.Sprintf("%s@%d", f.Action, f.AfterEvents)
	if f.PlusBytes > 0 {
		s += "+" + strconv.Itoa(f.PlusBytes)
	}
	return s
}

// Record describes one streaming response the proxy saw.
type Record struct {
	Fault Fault
	// Fired reports whether the fault's point was reached and it acted.
	Fired bool
	// Events and Bytes are the complete events and payload bytes forwarded
	// to the client.
	Events int
	Bytes  int64
}

// Proxy forwards TCP connections from its listener to a target address.
type Proxy struct {
	addr   string // the address it listens on, kept across StopListening
	target string
	grpc   bool // gRPC mode (see NewGRPC)

	mu         sync.Mutex
	ln         net.Listener // nil while not listening (see StopListening)
	plan       []Fault
	records    []*Record
	requests   []*Request
	pollPolicy func(n int) Drop
	polls      int // polls seen so far
	rewrites   int // URLs rewritten in agent cards
	conns      map[net.Conn]struct{}
	closed     bool
	done       chan struct{}

	wg sync.WaitGroup
}

// New starts a proxy on 127.0.0.1 (a free port) that forwards to target,
// a host:port.
func New(target string) (*Proxy, error) { return start(target, false) }

// start starts a proxy, in gRPC mode when grpc is set (see NewGRPC).
func start(target string, grpc bool) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{addr: ln.Addr().String(), ln: ln, target: target, grpc: grpc, conns: map[net.Conn]struct{}{}, done: make(chan struct{})}
	p.wg.Add(1)
	go p.serve(ln)
	return p, nil
}

// Addr returns the host:port the proxy listens on (or will listen on again,
// see StopListening).
func (p *Proxy) Addr() string { return p.addr }

// Plan replaces the queue of faults: faults[i] applies to the i-th streaming
// response from now on.
func (p *Proxy) Plan(faults ...Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.plan = append([]Fault(nil), faults...)
}

// Pending returns the number of faults not yet assigned to a stream.
func (p *Proxy) Pending() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.plan)
}

// Records returns a copy of the record of every streaming response so far,
// in the order their heads arrived.
func (p *Proxy) Records() []Record {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Record, len(p.records))
	for i, r := range p.records {
		out[i] = *r
	}
	return out
}

// Requests returns a copy of the record of every request so far (the first
// one of each connection), in the order they arrived.
func (p *Proxy) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Request, len(p.requests))
	for i, r := range p.requests {
		out[i] = *r
	}
	return out
}

// Count returns how many requests of kind k arrived so far.
func (p *Proxy) Count(k Kind) int {
	n := 0
	for _, r := range p.Requests() {
		if r.Kind == k {
			n++
		}
	}
	return n
}

// Fired returns how many faults have acted so far.
func (p *Proxy) Fired() int {
	n := 0
	for _, r := range p.Records() {
		if r.Fired {
			n++
		}
	}
	return n
}

// Close stops the listener, closes every connection, and waits for all of
// the proxy's goroutines to end.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.done)
	var err error
	if p.ln != nil {
		err = p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

func (p *Proxy) serve(ln net.Listener) {
	defer p.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go p.handle(c)
	}
}

// track registers c to be closed by Close; it reports false when the proxy
// is already closed.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.conns, c)
}

// nextFault assigns the next fault to a new stream and returns its record.
func (p *Proxy) nextFault() *Record {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := &Record{}
	if len(p.plan) > 0 {
		r.Fault = p.plan[0]
		p.plan = p.plan[1:]
	}
	p.records = append(p.records, r)
	return r
}

// update changes a record (a *Record or a *Request) under the lock.
func update[T any](p *Proxy, r *T, f func(*T)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(r)
}

// addRequest records a request and, for a poll, decides its drop.
func (p *Proxy) addRequest(r *Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r.Kind == Poll {
		if p.pollPolicy != nil {
			r.Drop = p.pollPolicy(p.polls)
		}
		p.polls++
	}
	p.requests = append(p.requests, r)
}

// pair is one proxied connection: the client's and the server's sockets.
type pair struct {
	client, server net.Conn
	once           sync.Once
	closed         chan struct{}
	// req receives the connection's first request once it is read (nil
	// when it could not be), before any of it is forwarded.
	req chan *Request
}

// shut closes both sockets; with reset it makes the kernel send RST.
func (c *pair) shut(reset bool) {
	c.once.Do(func() {
		if reset {
			for _, s := range []net.Conn{c.client, c.server} {
				if tc, ok := s.(*net.TCPConn); ok {
					_ = tc.SetLinger(0)
				}
			}
		}
		c.client.Close()
		c.server.Close()
		close(c.closed)
	})
}

func (p *Proxy) handle(client net.Conn) {
	defer p.wg.Done()
	if !p.track(client) {
		client.Close()
		return
	}
	defer p.untrack(client)
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	if !p.track(server) {
		client.Close()
		server.Close()
		return
	}
	defer p.untrack(server)

	c := &pair{client: client, server: server, closed: make(chan struct{}), req: make(chan *Request, 1)}
	if p.grpc {
		p.handleGRPC(c)
		return
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		p.clientToServer(c)
		c.shut(false)
	}()
	p.serverToClient(c)
	wg.Wait()
}

// clientToServer reads and records the connection's first request, drops
// it if it is a poll the policy drops before the server sees it, and
// forwards everything else as is. When the client goes away, so does the
// whole connection (this is also how a stall ends).
func (p *Proxy) clientToServer(c *pair) {
	raw, h, body, ok, err := readRequest(c.client)
	var r *Request
	if ok {
		req := classify(h, body)
		r = &req
		p.addRequest(r)
	}
	c.req <- r
	if r != nil && r.Drop.Action == ResetRequest {
		update(p, r, func(r *Request) { r.Dropped = true })
		c.shut(true)
		return
	}
	if len(raw) > 0 {
		if _, werr := c.server.Write(raw); werr != nil {
			return
		}
	}
	if err != nil {
		return
	}
	_, _ = io.Copy(c.server, c.client)
}

// request returns the connection's first request once it has been read,
// or nil.
func (c *pair) request() *Request {
	select {
	case r := <-c.req:
		c.req <- r
		return r
	case <-c.closed:
		return nil
	}
}

// serverToClient forwards the response, applying a fault to a stream.
func (p *Proxy) serverToClient(c *pair) {
	buf := make([]byte, 32<<10)
	var head []byte
	var rec *Record       // nil until the head is complete; then the stream's record
	var body *bodyScanner // nil for a response that is not a stream
	headDone := false
	for {
		n, err := c.server.Read(buf)
		data := buf[:n]
		if !headDone && n > 0 {
			head = append(head, data...)
			data = nil
			if end := bytes.Index(head, []byte("\r\n\r\n")); end >= 0 {
				end += 4
				headDone = true
				h := parseHead(head[:end])
				if req := c.request(); req != nil {
					update(p, req, func(r *Request) { r.Status = h.status })
					if req.Kind == Card || (req.Kind == Poll && req.Drop.Action == ResetResponse) {
						p.whole(c, req, head)
						return
					}
				}
				if _, werr := c.client.Write(head[:end]); werr != nil {
					c.shut(false)
					return
				}
				data = head[end:]
				head = nil
				if h.sse {
					rec = p.nextFault()
					body = newBodyScanner(rec.Fault, h.chunked)
					f := rec.Fault
					if f.Action != Pass && f.AfterEvents == 0 && f.PlusBytes == 0 {
						p.act(c, rec)
						return
					}
				}
			} else if len(head) > 64<<10 { // not an HTTP head as we know it
				headDone = true
				data, head = head, nil
			}
		}
		if len(data) > 0 {
			k, hit := len(data), false
			if body != nil {
				k, hit = body.feed(data)
				// Record the firing before the last bytes go out, so that
				// a client that has read them sees the fault as fired.
				update(p, rec, func(r *Record) { r.Events, r.Bytes, r.Fired = body.events, body.payload, hit })
			}
			if _, werr := c.client.Write(data[:k]); werr != nil {
				c.shut(false)
				return
			}
			if hit {
				p.act(c, rec)
				return
			}
		}
		if err != nil {
			if len(head) > 0 {
				_, _ = c.client.Write(head)
			}
			c.shut(false)
			return
		}
	}
}

// wholeResponseWait bounds how long the proxy waits for the server to end a
// response it reads whole (servers close the connection after it, as the
// client asks with Connection: close).
const wholeResponseWait = 10 * time.Second

// whole reads the rest of a response whose head has arrived (read holds
// everything read so far) until the server closes the connection, then
// forwards it: an agent card with its URLs rewritten to the proxy's, or the
// part of a poll's response its drop lets through before a reset.
func (p *Proxy) whole(c *pair, req *Request, read []byte) {
	raw := append([]byte(nil), read...)
	_ = c.server.SetReadDeadline(time.Now().Add(wholeResponseWait))
	buf := make([]byte, 32<<10)
	for {
		n, err := c.server.Read(buf)
		raw = append(raw, buf[:n]...)
		if err != nil {
			break
		}
	}
	if req.Kind == Card {
		out, n := rewriteCard(raw, p.target, p.Addr())
		if n > 0 {
			p.mu.Lock()
			p.rewrites += n
			p.mu.Unlock()
		}
		_, _ = c.client.Write(out)
		c.shut(false)
		return
	}
	// A dropped poll: the head, then up to AfterBytes of the body, at most
	// all but its last byte, then a reset.
	end := bytes.Index(raw, []byte("\r\n\r\n")) + 4
	k := min(req.Drop.AfterBytes, max(len(raw)-end-1, 0))
	update(p, req, func(r *Request) { r.Dropped = true })
	_, _ = c.client.Write(raw[:end+k])
	c.shut(true)
}

// Rewrites returns how many URLs the proxy has rewritten in agent cards.
func (p *Proxy) Rewrites() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rewrites
}

// act carries out a fault whose point has been reached.
func (p *Proxy) act(c *pair, rec *Record) {
	update(p, rec, func(r *Record) { r.Fired = true })
	switch rec.Fault.Action {
	case Cut:
		c.shut(true)
	case Stall:
		select {
		case <-c.closed:
		case <-p.done:
			c.shut(false)
		}
	}
}

type head struct {
	status       int
	sse, chunked bool
}

// parseHead reads what the proxy needs from a response head.
func parseHead(b []byte) head {
	var h head
	lines := strings.Split(string(b), "\r\n")
	if f := strings.Fields(lines[0]); len(f) >= 2 {
		h.status, _ = strconv.Atoi(f[1])
	}
	for _, l := range lines[1:] {
		name, value, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		value = strings.ToLower(strings.TrimSpace(value))
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "content-type":
			mt, _, _ := strings.Cut(value, ";")
			h.sse = strings.TrimSpace(mt) == "text/event-stream"
		case "transfer-encoding":
			h.chunked = strings.Contains(value, "chunked")
		}
	}
	return h
}
