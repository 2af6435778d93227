package a2agrpc

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/credentials"
)

// A call's idle timeout is the silence of its HTTP/2 stream, not the wait
// for each whole message: a big event on a slow link that is never quiet
// arrives, as it does over the HTTP bindings, whose timer every byte read
// resets. gRPC reads its connections itself and says nothing of bytes until
// a message is whole, so the Transport wraps the connections its
// credentials hand gRPC (the handshake is where a Transport meets its
// connections whatever dials them: the default dialer, a proxy, a dialer of
// WithDialOptions), and every read notes the time, in the activity of the
// call whose stream the bytes belong to (see callKey) and in the
// Transport's. The idle timer, when it fires, waits on for as long as bytes
// of its call came within the timeout. Only the bytes of HTTP/2's DATA,
// HEADERS and CONTINUATION frames count, which carry calls. The
// connection's own frames do not: a PING (a keepalive of the client, the
// server or a proxy between them, sent while nothing else moves), a PING's
// ack, SETTINGS and WINDOW_UPDATE say that the connection lives, not that a
// call moves, and counting them would keep a silent stream open forever.
// The handshake returns the connection as HTTP/2 reads it (decrypted,
// under TLS), a sequence of frames from the server's first on: frames
// reads their headers.

// activity is when a call's stream, or any of the Transport's calls, last
// read bytes.
type activity struct {
	start time.Time
	last  atomic.Int64 // nanoseconds from start to the last read
}

func newActivity() *activity { return &activity{start: time.Now()} }

// read notes that bytes were read now.
func (a *activity) read() { a.last.Store(int64(time.Since(a.start))) }

// quiet returns how long nothing was read since.
func (a *activity) quiet() time.Duration {
	return time.Since(a.start) - time.Duration(a.last.Load())
}

// noting is TransportCredentials whose handshake hands gRPC a connection
// that notes its reads in act. When secure (the Transport says Secure), it
// refuses a connection the handshake did not encrypt: credentials that
// name TLS may fall back to plaintext (xDS's, with an insecure fallback),
// and the headers a Transport that says Secure is given must not travel
// in the clear.
type noting struct {
	credentials.TransportCredentials
	act    *activity
	calls  *callTable
	secure bool
}

// errNotEncrypted is the handshake's error for a connection that a
// Transport that says Secure would have had in plaintext.
var errNotEncrypted = errors.New("a2agrpc: the connection is not encrypted, though the transport credentials name an encrypting protocol")

// ClientHandshake is the wrapped credentials' handshake, with the
// connection it returns wrapped, or refused (see noting).
func (n noting) ClientHandshake(ctx context.Context, authority string, raw net.Conn) (net.Conn, credentials.AuthInfo, error) {
	conn, info, err := n.TransportCredentials.ClientHandshake(ctx, authority, raw)
	if err != nil {
		return conn, info, err
	}
	if n.secure && !encrypted(info) {
		_ = conn.Close()
		return nil, nil, errNotEncrypted
	}
	return newNotingConn(conn, n.act, n.calls), info, nil
}

// encrypted reports whether a handshake's result says its connection is
// encrypted and authenticated (credentials.PrivacyAndIntegrity).
func encrypted(info credentials.AuthInfo) bool {
	c, ok := info.(interface {
		GetCommonAuthInfo() credentials.CommonAuthInfo
	})
	return ok && c.GetCommonAuthInfo().SecurityLevel == credentials.PrivacyAndIntegrity
}

// Clone clones the wrapped credentials, noting in the same activity.
func (n noting) Clone() credentials.TransportCredentials {
	return noting{TransportCredentials: n.TransportCredentials.Clone(), act: n.act, calls: n.calls, secure: n.secure}
}

// notingConn is a connection whose reads of calls' frames are noted: in
// the Transport's activity, and in the activity of the call whose stream a
// frame belongs to (see callKey), which its writes tell.
type notingConn struct {
	net.Conn
	act    *activity
	frames frames // gRPC reads a connection from one goroutine
	out    *opened
}

func newNotingConn(conn net.Conn, act *activity, calls *callTable) *notingConn {
	c := &notingConn{Conn: conn, act: act}
	tab := &streamTable{}
	c.frames.tab = tab
	c.out = newOpened(func(stream uint32, values []string) { calls.bind(values, tab, stream) })
	return c
}

func (c *notingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.frames.scan(p[:n]) {
		c.act.read()
	}
	return n, err
}

// Write scans p before it goes, so that a stream is bound to its call
// before the server can answer on it.
func (c *notingConn) Write(p []byte) (int, error) {
	c.out.scan(p)
	return c.Conn.Write(p)
}

// frameHead follows HTTP/2 frames across reads (or writes): the 9-byte
// header of each (a 24-bit length, the type, the flags, the stream ID),
// then as many bytes of payload as the length says.
type frameHead struct {
	b     [9]byte
	nhead int    // bytes of the current frame's header read so far
	left  uint32 // bytes of the current frame's payload still to come
}

// take reads the first bytes of p into the current frame: payload bytes,
// returned as payload, or else header bytes, done when they complete the
// header. rest is what p holds after them.
func (h *frameHead) take(p []byte) (payload, rest []byte, done bool) {
	if h.left > 0 {
		n := int(min(uint64(len(p)), uint64(h.left)))
		h.left -= uint32(n)
		return p[:n], p[n:], false
	}
	n := copy(h.b[h.nhead:], p)
	h.nhead += n
	if h.nhead < len(h.b) {
		return nil, p[n:], false
	}
	h.nhead = 0
	h.left = uint32(h.b[0])<<16 | uint32(h.b[1])<<8 | uint32(h.b[2])
	return nil, p[n:], true
}

// typ, flags and streamID read the current frame's header.
func (h *frameHead) typ() byte   { return h.b[3] }
func (h *frameHead) flags() byte { return h.b[4] }
func (h *frameHead) streamID() uint32 {
	return (uint32(h.b[5])<<24 | uint32(h.b[6])<<16 | uint32(h.b[7])<<8 | uint32(h.b[8])) & (1<<31 - 1)
}

// frames follows the HTTP/2 frames a connection reads, across reads, and
// tells which carry calls.
type frames struct {
	frameHead
	calls bool // the current frame carries a call (calls)
	tab   *streamTable
	// cur is the call bound to stream curID, the last stream a frame
	// that carries a call came on: a stream's ID is never used again on
	// its connection, so the binding found holds for its next frames.
	cur   *callActivity
	curID uint32
}

// HTTP/2's frame types that carry calls (RFC 9113, section 6).
const (
	frameData         = 0x0
	frameHeaders      = 0x1
	frameContinuation = 0x9
)

// scan reads p, the next bytes of the connection, and reports whether any
// of them belong to a frame that carries a call: a DATA, HEADERS or
// CONTINUATION frame, header or payload. Such a frame's bytes are noted in
// the activity of the call bound to its stream, if one is.
func (f *frames) scan(p []byte) (calls bool) {
	var noted *callActivity // noted in this scan already
	note := func(a *callActivity) {
		if a != nil && a != noted {
			a.read()
			noted = a
		}
	}
	for len(p) > 0 {
		payload, rest, done := f.take(p)
		p = rest
		if len(payload) > 0 {
			calls = calls || f.calls
			if f.calls {
				note(f.cur)
			}
		}
		if !done {
			continue
		}
		switch f.typ() {
		case frameData, frameHeaders, frameContinuation:
			f.calls = true
		default:
			f.calls = false
		}
		if f.calls && f.tab != nil {
			if id := f.streamID(); f.cur == nil || id != f.curID {
				f.cur, f.curID = f.tab.get(id), id
			}
			note(f.cur)
		}
		calls = calls || f.calls
	}
	return calls
}
