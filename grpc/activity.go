package a2agrpc

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/credentials"
)

// A call's idle timeout is the silence of its connection, not the wait for
// each whole message: a big event on a slow link that is never quiet
// arrives, as it does over the HTTP bindings, whose timer every byte read
// resets. gRPC reads its connections itself and says nothing of bytes until
// a message is whole, so the Transport wraps the connections its
// credentials hand gRPC (the handshake is where a Transport meets its
// connections whatever dials them: the default dialer, a proxy, a dialer of
// WithDialOptions), and every read notes the time. The idle timer, when it
// fires, waits on for as long as bytes came within the timeout. Bytes of
// any call on the connection count, so a stream stays alive while another
// on the same connection is busy.

// activity is when the Transport's connections last read bytes.
type activity struct {
	start time.Time
	last  atomic.Int64 // nanoseconds from start to the last read
}

func newActivity() *activity { return &activity{start: time.Now()} }

// read notes that bytes were read now.
func (a *activity) read() { a.last.Store(int64(time.Since(a.start))) }

// quiet returns how long the connections have read nothing.
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
	return &notingConn{Conn: conn, act: n.act}, info, nil
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
	return noting{TransportCredentials: n.TransportCredentials.Clone(), act: n.act, secure: n.secure}
}

// notingConn is a connection whose reads are noted.
type notingConn struct {
	net.Conn
	act *activity
}

func (c *notingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.act.read()
	}
	return n, err
}
