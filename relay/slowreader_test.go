package relay_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// pipeListener serves connections made with net.Pipe: they hold no
// buffer, so a write blocks as soon as the other end stops reading, as a
// TCP connection's does once its buffers are full.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error { l.once.Do(func() { close(l.done) }); return nil }

func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// dial returns the browser's end of a new connection; once the listener
// is closed, a connection closed at both ends.
func (l *pipeListener) dial() net.Conn {
	browser, server := net.Pipe()
	select {
	case l.conns <- server:
	case <-l.done:
		_, _ = server.Close(), browser.Close()
	}
	return browser
}

// servePipes serves h on a pipeListener until the returned stop is called;
// stop closes the server and every connection, and waits for Serve to
// return. A nil protos serves HTTP/1.1 only.
func servePipes(h http.Handler, protos *http.Protocols) (*pipeListener, func()) {
	l := newPipeListener()
	srv := &http.Server{Handler: h, Protocols: protos}
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.Serve(l) }()
	return l, func() { _ = srv.Close(); <-served }
}

// A browser that stops reading its event stream is dropped one write
// timeout after the write it stopped taking began: the Handler's response
// ends, with its goroutine, rather than waiting for ever on the write; a
// browser that reads is never dropped, however long the stream is idle.
func TestAReaderThatStopsReadingIsDropped(t *testing.T) {
	for _, timeout := range []time.Duration{0, 10 * time.Second} {
		name := "default"
		if timeout > 0 {
			name = timeout.String()
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := t.Context()
				st := newMemoryStore(t)
				l, err := st.Open(ctx, "k")
				require.NoError(t, err)
				f, err := l.Acquire(ctx, "driver", time.Hour)
				require.NoError(t, err)
				require.NoError(t, l.Commit(ctx, f, nil, relay.Entry{Seq: 1, Name: relay.EventStatus, Data: []byte(`{"state":"working"}`)}))
				var opts []relay.HandlerOption
				want := 30 * time.Second
				if timeout > 0 {
					opts, want = append(opts, relay.WithWriteTimeout(timeout)), timeout
				}
				h := newHandler(t, st, func(*http.Request) (string, bool) { return "k", true }, opts...)
				ended := make(chan time.Time, 1)
				srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					h.ServeHTTP(w, r)
					ended <- time.Now()
				})}
				lis := newPipeListener()
				go func() { _ = srv.Serve(lis) }()
				defer func() { _ = srv.Close() }()

				conn := lis.dial()
				defer func() { _ = conn.Close() }()
				req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://relay.test/s/k/events", nil)
				require.NoError(t, err)
				req.Header.Set("Accept", "text/event-stream")
				go func() { _ = req.Write(conn) }()
				resp, err := http.ReadResponse(bufio.NewReader(conn), req)
				require.NoError(t, err)
				require.Equal(t, http.StatusOK, resp.StatusCode)
				body := bufio.NewReader(resp.Body)
				readEvent := func() string {
					var b strings.Builder
					for {
						line, err := body.ReadString('\n')
						require.NoError(t, err)
						if line == "\n" {
							return b.String()
						}
						b.WriteString(line)
					}
				}
				require.Equal(t, ": relay\n", readEvent())
				require.Contains(t, readEvent(), `data: {"state":"working"}`)

				// Idle for ten keep-alives while the browser reads: not dropped.
				for range 10 {
					require.Equal(t, ": keep-alive\n", readEvent())
				}

				// Now the browser stops reading, and the stream goes on.
				start := time.Now()
				require.NoError(t, l.Commit(ctx, f, nil, relay.Entry{Seq: 2, Name: relay.EventStatus, Data: []byte(`{"state":"working"}`)}))
				select {
				case at := <-ended:
					require.Equal(t, want, at.Sub(start))
				case <-time.After(time.Hour):
					t.Fatal("the Handler still writes to a browser that stopped reading an hour ago")
				}
				_, err = io.Copy(io.Discard, body)
				require.Error(t, err, "the response was cut, not ended")
			})
		})
	}
}
