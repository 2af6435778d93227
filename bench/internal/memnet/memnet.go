// Package memnet provides in-process transports for the benchmarks: a
// listener whose connections are net.Pipe pairs (a real http.Server and
// http.Transport with no kernel socket between them), and a RoundTripper
// that hands out a prepared body in fixed-size reads, as a network body
// arrives.
package memnet

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"sync"
)

// Listener is an in-memory net.Listener. Dial connects to it.
type Listener struct {
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

// NewListener returns an open listener.
func NewListener() *Listener {
	return &Listener{ch: make(chan net.Conn), done: make(chan struct{})}
}

// Accept implements net.Listener.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close implements net.Listener.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr implements net.Listener.
func (l *Listener) Addr() net.Addr { return pipeAddr{} }

// Dial returns the client end of a new connection; it has the signature
// of http.Transport.DialContext.
func (l *Listener) Dial(ctx context.Context, _, _ string) (net.Conn, error) {
	c, s := net.Pipe()
	select {
	case l.ch <- s:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

// ChunkReader hands out its segments in reads of at most Chunk bytes.
type ChunkReader struct {
	Segs  [][]byte
	Chunk int
}

// Read implements io.Reader.
func (r *ChunkReader) Read(p []byte) (int, error) {
	for len(r.Segs) > 0 && len(r.Segs[0]) == 0 {
		r.Segs = r.Segs[1:]
	}
	if len(r.Segs) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.Chunk)], r.Segs[0])
	r.Segs[0] = r.Segs[0][n:]
	return n, nil
}

// Marker stands for the JSON-RPC request ID in a prepared body.
const Marker = `"@@request-id@@"`

// SSETransport answers every request with an SSE body prepared once: Body
// with each Marker replaced by the request's id, delivered in reads of Chunk
// bytes. It copies nothing per request but the ID.
type SSETransport struct {
	Chunk int
	segs  [][]byte
}

// NewSSETransport prepares body (which holds Marker where the request ID
// goes).
func NewSSETransport(body []byte, chunk int) *SSETransport {
	return &SSETransport{Chunk: chunk, segs: bytes.Split(body, []byte(Marker))}
}

// RoundTrip implements http.RoundTripper.
func (t *SSETransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var r struct {
		ID json.RawMessage `json:"id"`
	}
	b, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	segs := make([][]byte, 0, 2*len(t.segs))
	for i, s := range t.segs {
		if i > 0 {
			segs = append(segs, r.ID)
		}
		segs = append(segs, s)
	}
	return &http.Response{
		Status:     "200 OK",
		StatusCode: http.StatusOK,
		Proto:      "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"text/event-stream"}},
		Body:          io.NopCloser(&ChunkReader{Segs: segs, Chunk: t.Chunk}),
		ContentLength: -1,
		Request:       req,
	}, nil
}
