// Package proxy is a small TCP proxy for interop tests that breaks
// Server-Sent Events streams on purpose: it sits between an HTTP client and
// an A2A server on 127.0.0.1 and, following a plan, cuts a streaming
// response after a chosen number of events or bytes, or stalls it silently.
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
// Use it with an HTTP client that does not reuse connections
// (http.Transport.DisableKeepAlives), so that each request is one connection.
package proxy

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
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
	ln     net.Listener
	target string

	mu      sync.Mutex
	plan    []Fault
	records []*Record
	conns   map[net.Conn]struct{}
	closed  bool
	done    chan struct{}

	wg sync.WaitGroup
}

// New starts a proxy on 127.0.0.1 (a free port) that forwards to target,
// a host:port.
func New(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}, done: make(chan struct{})}
	p.wg.Add(1)
	go p.serve()
	return p, nil
}

// Addr returns the host:port the proxy listens on.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

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
	err := p.ln.Close()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return err
}

func (p *Proxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
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

func (p *Proxy) update(r *Record, f func(*Record)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(r)
}

// pair is one proxied connection: the client's and the server's sockets.
type pair struct {
	client, server net.Conn
	once           sync.Once
	closed         chan struct{}
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

	c := &pair{client: client, server: server, closed: make(chan struct{})}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// Client to server: forwarded as is. When the client goes away, so
		// does the whole connection (this is also how a stall ends).
		_, _ = io.Copy(server, client)
		c.shut(false)
	}()
	p.serverToClient(c)
	wg.Wait()
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
				p.update(rec, func(r *Record) { r.Events, r.Bytes, r.Fired = body.events, body.payload, hit })
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

// act carries out a fault whose point has been reached.
func (p *Proxy) act(c *pair, rec *Record) {
	p.update(rec, func(r *Record) { r.Fired = true })
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
	sse, chunked bool
}

// parseHead reads what the proxy needs from a response head.
func parseHead(b []byte) head {
	var h head
	lines := strings.Split(string(b), "\r\n")
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

// Chunked-decoder states.
const (
	chunkSize = iota // reading the hex size (and any extension) up to LF
	chunkData
	chunkDataEnd // the CRLF after a chunk's data
	chunkTrailer // after the last chunk: trailer lines up to a blank line
	chunkDone
)

// bodyScanner follows a response body byte by byte: it undoes chunked
// framing, counts payload bytes and complete SSE events, and finds the
// fault's point.
type bodyScanner struct {
	fault   Fault // AfterEvents < 0: no point to find
	chunked bool

	state   int
	size    int64 // chunkSize: the size parsed so far; chunkData: bytes left
	inExt   bool  // chunkSize: past ';'
	lineLen int   // chunkTrailer: length of the current trailer line

	payload int64 // payload bytes seen
	events  int   // complete events
	mark    int64 // payload bytes when the AfterEvents-th event ended; -1 before

	lineStart bool // the previous payload byte ended a line
	dirty     bool // a byte that is not a line break since the last event
	prevCR    bool // the previous payload byte was a '\r' ending a content line
	pendingCR bool // a '\r' ended a blank line; a '\n' right after belongs to it
}

func newBodyScanner(f Fault, chunked bool) *bodyScanner {
	s := &bodyScanner{fault: f, chunked: chunked, mark: -1}
	if f.Action == Pass {
		s.fault.AfterEvents = -1
	}
	if s.fault.AfterEvents == 0 {
		s.mark = 0
	}
	return s
}

// feed scans data and returns how many of its bytes may be forwarded: all
// of them, or (with hit) only those before the fault's point.
func (s *bodyScanner) feed(data []byte) (int, bool) {
	for i, c := range data {
		before, at := s.step(c)
		if before {
			return i, true
		}
		if at {
			return i + 1, true
		}
	}
	return len(data), false
}

// step consumes one raw body byte. before reports that the point was reached
// just before c (which is then not consumed), at that it was reached with c.
func (s *bodyScanner) step(c byte) (before, at bool) {
	if !s.chunked {
		return s.payloadByte(c)
	}
	switch s.state {
	case chunkSize:
		switch {
		case c == '\n':
			s.inExt = false
			if s.size == 0 {
				s.state = chunkTrailer
				s.lineLen = 0
			} else {
				s.state = chunkData
			}
		case c == '\r' || s.inExt:
		case c == ';' || c == ' ' || c == '\t':
			s.inExt = true
		default:
			s.size = s.size*16 + int64(hexVal(c))
		}
	case chunkData:
		before, at = s.payloadByte(c)
		if !before {
			s.size--
			if s.size == 0 {
				s.state = chunkDataEnd
			}
		}
		return before, at
	case chunkDataEnd:
		if c == '\n' {
			s.state = chunkSize
			s.size = 0
		}
	case chunkTrailer:
		switch c {
		case '\n':
			if s.lineLen == 0 {
				s.state = chunkDone
			}
			s.lineLen = 0
		case '\r':
		default:
			s.lineLen++
		}
	}
	return false, false
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return 0
}

func (s *bodyScanner) payloadByte(c byte) (before, at bool) {
	if s.pendingCR {
		s.pendingCR = false
		if c == '\n' { // the LF of the CRLF that ends the blank line
			s.payload++
			s.endEvent()
			return false, s.reached()
		}
		s.endEvent() // the blank line was a lone '\r'
		if s.reached() {
			return true, false
		}
	}
	s.payload++
	crlfTail := c == '\n' && s.prevCR
	s.prevCR = false
	switch {
	case crlfTail: // the rest of a content line's CRLF
	case c == '\r' || c == '\n':
		if s.lineStart && s.dirty { // a blank line ends the event
			if c == '\r' {
				s.pendingCR = true
				return false, false
			}
			s.endEvent()
			break
		}
		s.lineStart = true
		s.prevCR = c == '\r'
	default:
		s.lineStart = false
		s.dirty = true
	}
	return false, s.reached()
}

func (s *bodyScanner) endEvent() {
	s.events++
	s.dirty = false
	s.lineStart = true
	if s.events == s.fault.AfterEvents {
		s.mark = s.payload
	}
}

func (s *bodyScanner) reached() bool {
	return s.fault.AfterEvents >= 0 && s.mark >= 0 && s.payload-s.mark >= int64(s.fault.PlusBytes)
}
