package proxy

import (
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"sync"

	"golang.org/x/net/http2/hpack"
	"google.golang.org/protobuf/encoding/protowire"
)

// NewGRPC starts a proxy on 127.0.0.1 (a free port) in gRPC mode that
// forwards to target, the host:port of a gRPC server in plaintext: HTTP/2
// with prior knowledge (h2c), where one connection carries every call of a
// client, each on its own HTTP/2 stream. Counting bytes of the TCP stream, as the
// HTTP/1.1 mode does, would count frame headers, SETTINGS, PINGs and window
// updates and other calls' frames mixed in: where a cut lands would depend
// on how the peers happened to frame and interleave. So in gRPC mode the
// proxy reads the HTTP/2 frames in both directions (forwarding each as it
// is, or cut short at a fault's point) and counts what a stream of events
// is made of in gRPC: the length-prefixed messages of one call's response,
// in its DATA frames.
//
//   - The calls are told apart by the :path of the client's HEADERS (HPACK
//     decoded): SendStreamingMessage, SubscribeToTask (1.0) and
//     TaskSubscription (0.3) are streams; every call is recorded as a
//     Request (Path is the :path, RPC the method's name), a send with its
//     message's ID read from the request message.
//   - A stream's fault is assigned when its response HEADERS arrive, in the
//     order they arrive; a trailers-only response (an error before any
//     message: HEADERS with END_STREAM) is no stream and consumes none.
//   - An event is one gRPC message (5-byte prefix and payload) of the
//     response, complete once its last byte has been forwarded; PlusBytes
//     counts message bytes (prefix included) after the AfterEvents-th. DATA
//     frame padding is not counted.
//   - At the fault's point inside a DATA frame the proxy forwards a valid
//     DATA frame holding exactly the bytes up to the point (its length
//     rewritten, padding and END_STREAM dropped), so that the client has
//     every byte before the point and none after.
//
// Cut resets the whole TCP connection, as a lost network path does: every
// call on it fails. Stall stops forwarding anything, either way, as a dead
// path would, until the client gives up on the stalled call (it resets its
// stream with RST_STREAM); then the proxy sends the client a GOAWAY whose
// last stream is the last one it forwarded to the server (calls after it
// never reached the server), so that the client makes its next calls on a
// new connection, as it would once its keepalive had found the path dead,
// and closes this one.
// Poll drops (DropPolls) and card rewriting do not apply in gRPC mode.
func NewGRPC(target string) (*Proxy, error) { return start(target, true) }

const (
	h2Preface    = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
	h2FrameHead  = 9
	h2MaxFrame   = 1 << 24
	frameData    = 0x0
	frameHeaders = 0x1
	frameRST     = 0x3
	frameGoAway  = 0x7
	frameCont    = 0x9

	flagEndStream  = 0x1
	flagEndHeaders = 0x4
	flagPadded     = 0x8
	flagPriority   = 0x20
)

// h2Frame is one HTTP/2 frame as read: its 9-byte head and payload.
type h2Frame struct {
	typ, flags byte
	stream     uint32
	raw        []byte
}

func (f h2Frame) payload() []byte { return f.raw[h2FrameHead:] }

var errFrameTooBig = errors.New("proxy: HTTP/2 frame over 16 MiB")

func readFrame(r io.Reader) (h2Frame, error) {
	var head [h2FrameHead]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return h2Frame{}, err
	}
	n := int(head[0])<<16 | int(head[1])<<8 | int(head[2])
	if n > h2MaxFrame {
		return h2Frame{}, errFrameTooBig
	}
	raw := make([]byte, h2FrameHead+n)
	copy(raw, head[:])
	if _, err := io.ReadFull(r, raw[h2FrameHead:]); err != nil {
		return h2Frame{}, err
	}
	return h2Frame{typ: head[3], flags: head[4], stream: binary.BigEndian.Uint32(head[5:9]) & 0x7fffffff, raw: raw}, nil
}

// unpad returns the data of a DATA or HEADERS payload without its padding
// (and, for HEADERS, its priority fields), and the bytes before it.
func (f h2Frame) unpad() (data []byte, off int, ok bool) {
	pl := f.payload()
	pad := 0
	if f.flags&flagPadded != 0 {
		if len(pl) < 1 {
			return nil, 0, false
		}
		pad, off = int(pl[0]), 1
	}
	if f.typ == frameHeaders && f.flags&flagPriority != 0 {
		off += 5
	}
	if off+pad > len(pl) {
		return nil, 0, false
	}
	return pl[off : len(pl)-pad], off, true
}

// grpcStream is one call on a proxied gRPC connection.
type grpcStream struct {
	req       *Request
	streaming bool
	v10       bool   // the call is A2A 1.0's (lf.a2a.v1)
	reqBuf    []byte // the request's DATA so far, while a send's message ID is unread
	responded bool   // the response HEADERS arrived
	rec       *Record
	count     msgCounter
}

// grpcConn is one proxied gRPC connection.
type grpcConn struct {
	p *Proxy
	c *pair

	mu      sync.Mutex
	streams map[uint32]*grpcStream
	stalled uint32 // the stream a Stall fault stopped, or 0
}

func (g *grpcConn) stream(id uint32) *grpcStream {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.streams[id]
}

// handleGRPC runs both directions of a gRPC connection.
func (p *Proxy) handleGRPC(c *pair) {
	g := &grpcConn{p: p, c: c, streams: map[uint32]*grpcStream{}}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		g.clientToServer()
		c.shut(false)
	}()
	g.serverToClient()
	wg.Wait()
}

// clientToServer forwards the client's frames as they are, reading the
// calls' paths from their HEADERS and a send's message ID from its request.
func (g *grpcConn) clientToServer() {
	pre := make([]byte, len(h2Preface))
	if _, err := io.ReadFull(g.c.client, pre); err != nil {
		return
	}
	if _, err := g.c.server.Write(pre); err != nil {
		return
	}
	if string(pre) != h2Preface {
		_, _ = io.Copy(g.c.server, g.c.client)
		return
	}
	dec := hpack.NewDecoder(4096, nil)
	var block []byte // a header block continued in CONTINUATION frames
	var blockStream uint32
	goaway := false
	var lastOpened uint32 // the highest stream the server has seen
	for {
		f, err := readFrame(g.c.client)
		if err != nil {
			return
		}
		g.mu.Lock()
		stalled := g.stalled
		g.mu.Unlock()
		if stalled != 0 {
			// A stalled connection forwards nothing more. Once the client
			// gives up on the stalled call, it is told to take its next
			// calls elsewhere (GOAWAY: nothing after that call was seen),
			// and the proxy waits for it to close the connection.
			if f.typ == frameRST && f.stream == stalled && !goaway {
				goaway = true
				if _, err := g.c.client.Write(goAway(lastOpened)); err != nil {
					return
				}
			}
			continue
		}
		// The frame is read for the record before it is forwarded, so that
		// a call's record (its message ID) is whole before the server, and
		// so the client, can have an answer to it.
		switch f.typ {
		case frameHeaders:
			lastOpened = max(lastOpened, f.stream)
			frag, _, ok := f.unpad()
			if !ok {
				return
			}
			block, blockStream = append([]byte(nil), frag...), f.stream
			if f.flags&flagEndHeaders != 0 {
				g.opened(dec, blockStream, block)
				block = nil
			}
		case frameCont:
			block = append(block, f.payload()...)
			if f.flags&flagEndHeaders != 0 {
				g.opened(dec, blockStream, block)
				block = nil
			}
		case frameData:
			data, _, ok := f.unpad()
			if !ok {
				return
			}
			g.requestData(f.stream, data)
		}
		if _, err := g.c.server.Write(f.raw); err != nil {
			return
		}
	}
}

// opened reads a client header block; the first one of a stream opens a call.
func (g *grpcConn) opened(dec *hpack.Decoder, id uint32, block []byte) {
	fields, err := dec.DecodeFull(block)
	if err != nil {
		return
	}
	if g.stream(id) != nil {
		return // trailers, if a client ever sends them
	}
	path := ""
	for _, hf := range fields {
		if hf.Name == ":path" {
			path = hf.Value
		}
	}
	service, method, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	st := &grpcStream{req: &Request{Method: "POST", Path: path, RPC: method}, v10: service == "lf.a2a.v1.A2AService"}
	switch method {
	case "SendMessage":
		st.req.Kind = Send
	case "SendStreamingMessage":
		st.req.Kind, st.streaming = Send, true
	case "GetTask":
		st.req.Kind = Poll
	case "SubscribeToTask", "TaskSubscription":
		st.req.Kind, st.streaming = Subscribe, true
	case "CancelTask":
		st.req.Kind = Cancel
	}
	g.mu.Lock()
	g.streams[id] = st
	g.mu.Unlock()
	g.p.addRequest(st.req)
}

// requestData collects a send's request message until its message ID can
// be read.
func (g *grpcConn) requestData(id uint32, data []byte) {
	st := g.stream(id)
	if st == nil || st.req.Kind != Send || st.req.MessageID != "" || st.reqBuf == nil && len(data) == 0 {
		return
	}
	st.reqBuf = append(st.reqBuf, data...)
	if len(st.reqBuf) < 5 {
		return
	}
	n := int(binary.BigEndian.Uint32(st.reqBuf[1:5]))
	if len(st.reqBuf) < 5+n || n > maxParsedBody {
		return
	}
	// SendMessageRequest's message is field 2 in 1.0 (after tenant), 1 in
	// 0.3; a Message's message_id is field 1 in both.
	field := protowire.Number(1)
	if st.v10 {
		field = 2
	}
	msgID := string(protoField(protoField(st.reqBuf[5:5+n], field), 1))
	st.reqBuf = nil
	update(g.p, st.req, func(r *Request) { r.MessageID = msgID })
}

// protoField returns the bytes of the last length-delimited field num of
// the protobuf message b, or nil.
func protoField(b []byte, num protowire.Number) []byte {
	var out []byte
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return nil
		}
		b = b[l:]
		if typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return nil
			}
			if n == num {
				out = v
			}
			b = b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(n, typ, b)
		if m < 0 {
			return nil
		}
		b = b[m:]
	}
	return out
}

// serverToClient forwards the server's frames, applying each streaming
// call's fault.
func (g *grpcConn) serverToClient() {
	for {
		f, err := readFrame(g.c.server)
		if err != nil {
			g.c.shut(false)
			return
		}
		st := g.stream(f.stream)
		if st != nil && !st.streaming && f.typ == frameHeaders && !st.responded {
			st.responded = true
			update(g.p, st.req, func(r *Request) { r.Status = 200 })
		}
		if st == nil || !st.streaming {
			if _, err := g.c.client.Write(f.raw); err != nil {
				g.c.shut(false)
				return
			}
			continue
		}
		switch f.typ {
		case frameHeaders:
			if !st.responded {
				st.responded = true
				update(g.p, st.req, func(r *Request) { r.Status = 200 })
				if f.flags&flagEndStream == 0 { // not trailers-only: a stream
					st.rec = g.p.nextFault()
					st.count = newMsgCounter(st.rec.Fault)
				}
			}
			if _, err := g.c.client.Write(f.raw); err != nil {
				g.c.shut(false)
				return
			}
			if rec := st.rec; rec != nil && !rec.Fired && rec.Fault.Action != Pass && rec.Fault.AfterEvents == 0 && rec.Fault.PlusBytes == 0 && f.flags&flagEndHeaders != 0 {
				g.act(f.stream, rec)
				return
			}
		case frameData:
			if st.rec == nil || st.rec.Fired || st.rec.Fault.Action == Pass {
				if st.rec != nil {
					if data, _, ok := f.unpad(); ok {
						st.count.feed(data)
						update(g.p, st.rec, func(r *Record) { r.Events, r.Bytes = st.count.events, st.count.payload })
					}
				}
				if _, err := g.c.client.Write(f.raw); err != nil {
					g.c.shut(false)
					return
				}
				continue
			}
			data, _, ok := f.unpad()
			if !ok {
				g.c.shut(true)
				return
			}
			k, hit := st.count.feed(data)
			rec := st.rec
			// Record the firing before the last bytes go out, so that a
			// client that has read them sees the fault as fired.
			update(g.p, rec, func(r *Record) { r.Events, r.Bytes, r.Fired = st.count.events, st.count.payload, hit })
			out := f.raw
			if hit && (k < len(data) || len(data) != len(f.payload()) || f.flags&flagEndStream != 0) {
				out = dataFrame(f.stream, data[:k])
			}
			if !hit || k > 0 {
				if _, err := g.c.client.Write(out); err != nil {
					g.c.shut(false)
					return
				}
			}
			if hit {
				g.act(f.stream, rec)
				return
			}
		default:
			if _, err := g.c.client.Write(f.raw); err != nil {
				g.c.shut(false)
				return
			}
		}
	}
}

// goAway returns a GOAWAY frame (NO_ERROR) whose last stream is last.
func goAway(last uint32) []byte {
	raw := make([]byte, h2FrameHead+8)
	raw[2] = 8
	raw[3] = frameGoAway
	binary.BigEndian.PutUint32(raw[h2FrameHead:], last)
	return raw
}

// dataFrame returns a DATA frame of stream id holding data, without flags.
func dataFrame(id uint32, data []byte) []byte {
	raw := make([]byte, h2FrameHead+len(data))
	raw[0], raw[1], raw[2] = byte(len(data)>>16), byte(len(data)>>8), byte(len(data))
	raw[3] = frameData
	binary.BigEndian.PutUint32(raw[5:9], id)
	copy(raw[h2FrameHead:], data)
	return raw
}

// act carries out a fault whose point has been reached on stream id.
func (g *grpcConn) act(id uint32, rec *Record) {
	update(g.p, rec, func(r *Record) { r.Fired = true })
	switch rec.Fault.Action {
	case Cut:
		g.c.shut(true)
	case Stall:
		g.mu.Lock()
		g.stalled = id
		g.mu.Unlock()
		select {
		case <-g.c.closed:
		case <-g.p.done:
			g.c.shut(false)
		}
	}
}

// msgCounter follows the gRPC messages of one response: a 5-byte prefix
// (compressed flag, big-endian length), then the message.
type msgCounter struct {
	fault   Fault // AfterEvents < 0: no point to find
	head    [5]byte
	inHead  int   // prefix bytes read of the current message
	left    int64 // message bytes left after the prefix
	payload int64 // message bytes seen, prefixes included
	events  int
	mark    int64 // payload when the AfterEvents-th message ended; -1 before
}

func newMsgCounter(f Fault) msgCounter {
	m := msgCounter{fault: f, mark: -1}
	if f.Action == Pass {
		m.fault.AfterEvents = -1
	}
	if m.fault.AfterEvents == 0 {
		m.mark = 0
	}
	return m
}

// feed follows data, a DATA frame's bytes. It returns how many of them go
// out before the fault's point (all of them when it is not reached), and
// whether it is reached.
func (m *msgCounter) feed(data []byte) (int, bool) {
	for i := 0; i < len(data); {
		if m.mark >= 0 && m.fault.AfterEvents >= 0 && m.payload-m.mark >= int64(m.fault.PlusBytes) {
			return i, true
		}
		if m.inHead < 5 {
			m.head[m.inHead] = data[i]
			m.inHead++
			m.payload++
			i++
			if m.inHead == 5 {
				m.left = int64(binary.BigEndian.Uint32(m.head[1:5]))
				if m.left == 0 {
					m.done()
				}
			}
			continue
		}
		n := int(min(m.left, int64(len(data)-i)))
		if m.mark >= 0 && m.fault.AfterEvents >= 0 {
			n = int(min(int64(n), int64(m.fault.PlusBytes)-(m.payload-m.mark)))
		}
		m.left -= int64(n)
		m.payload += int64(n)
		i += n
		if m.left == 0 {
			m.done()
		}
	}
	hit := m.mark >= 0 && m.fault.AfterEvents >= 0 && m.payload-m.mark >= int64(m.fault.PlusBytes)
	return len(data), hit
}

// done ends the current message.
func (m *msgCounter) done() {
	m.inHead, m.left = 0, 0
	m.events++
	if m.events == m.fault.AfterEvents && m.mark < 0 {
		m.mark = m.payload
	}
}
