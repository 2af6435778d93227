package relay_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// pipeNet is a net.Listener whose connections are net.Pipes, so that an
// http.Server runs inside a testing/synctest bubble, write deadlines included.
type pipeNet struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeNet() *pipeNet {
	return &pipeNet{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (p *pipeNet) Accept() (net.Conn, error) {
	select {
	case c := <-p.conns:
		return c, nil
	case <-p.done:
		return nil, net.ErrClosed
	}
}

func (p *pipeNet) Close() error { p.once.Do(func() { close(p.done) }); return nil }

func (p *pipeNet) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

// dial returns the client's end of a new connection to the server.
func (p *pipeNet) dial(t testing.TB) net.Conn {
	c, s := net.Pipe()
	select {
	case p.conns <- s:
	case <-p.done:
		t.Fatal("the pipe server is closed")
	}
	return c
}

// servePipes runs h on a pipeNet until the returned stop is called; stop closes
// the server and every connection and waits for Serve to return.
func servePipes(h http.Handler) (*pipeNet, func()) {
	pn := newPipeNet()
	srv := &http.Server{Handler: h}
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.Serve(pn) }()
	return pn, func() { _ = srv.Close(); <-served }
}

// sseConn is one browser's raw HTTP/1.1 connection: it reads the response
// body at the pace the test chooses.
type sseConn struct {
	conn net.Conn
	resp *http.Response
}

// getSSE sends a GET of path with the headers given as "Name: value" lines and
// reads the response's head.
func getSSE(t testing.TB, pn *pipeNet, path string, headers ...string) *sseConn {
	t.Helper()
	c := pn.dial(t)
	var b strings.Builder
	fmt.Fprintf(&b, "GET %s HTTP/1.1\r\nHost: relay.test\r\nAccept: text/event-stream\r\n", path)
	for _, h := range headers {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("\r\n")
	_, err := io.WriteString(c, b.String())
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReaderSize(c, 64), nil)
	require.NoError(t, err)
	return &sseConn{conn: c, resp: resp}
}

// sseEvent is one event as a browser's EventSource parses it.
type sseEvent struct {
	ID, Name, Data string
}

// sseStream parses an event stream strictly: it also notes every comment
// line that comes inside an event (after a field of it, before its blank
// line), which a keep-alive must never be.
type sseStream struct {
	Events         []sseEvent
	CommentsInside int
	Comments       int
	Retry          []string
}

func parseSSE(r io.Reader) (sseStream, error) { return parseSSEFunc(r, nil) }

// parseSSEFunc is parseSSE that also calls each, when not nil, with each
// event as it comes.
func parseSSEFunc(r io.Reader, each func(sseEvent)) (sseStream, error) {
	var s sseStream
	br := bufio.NewReaderSize(r, 1<<20)
	var cur sseEvent
	var data []string
	inEvent := false
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if errors.Is(err, io.EOF) {
				if line != "" {
					return s, fmt.Errorf("the stream ends inside a line: %.40q", line)
				}
				if inEvent {
					return s, errors.New("the stream ends inside an event")
				}
				return s, nil
			}
			return s, err
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if inEvent {
				cur.Data = strings.Join(data, "\n")
				s.Events = append(s.Events, cur)
				if each != nil {
					each(cur)
				}
			}
			cur, data, inEvent = sseEvent{}, nil, false
		case strings.HasPrefix(line, ":"):
			s.Comments++
			if inEvent {
				s.CommentsInside++
			}
		default:
			inEvent = true
			name, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch name {
			case "id":
				cur.ID = value
			case "event":
				cur.Name = value
			case "data":
				data = append(data, value)
			case "retry":
				s.Retry = append(s.Retry, value)
				inEvent = cur != (sseEvent{}) || data != nil
			default:
				return s, fmt.Errorf("unknown field %.40q", line)
			}
		}
	}
}
