package stream_test

// Streams over HTTP/2 cleartext (h2c), where the streams of a Client share
// one connection: a real net/http server on loopback, since the server's
// HTTP/2 (resets, flow control) is what is under test, and no timer is.

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// h2cOnly is the protocol set of an h2c server and of a Transport that
// speaks it with prior knowledge.
func h2cOnly() *http.Protocols {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	return &p
}

// h2cServer serves h over HTTP/2 cleartext only on loopback, refusing any
// request that did not come over HTTP/2, and holds the response of every
// request whose body holds holdWord after its first write, until release
// is closed or the request is cancelled: such a stream stays open on the
// shared connection while the others run.
type h2cServer struct {
	srv     *httptest.Server
	release chan struct{}
	notH2   atomic.Int32 // requests that came over another protocol

	mu    sync.Mutex
	conns map[string]int // requests per connection (the client's address)
}

const holdWord = "hold"

func newH2CServer(t *testing.T, h http.Handler) *h2cServer {
	t.Helper()
	s := &h2cServer{release: make(chan struct{}), conns: map[string]int{}}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.conns[r.RemoteAddr]++
		s.mu.Unlock()
		if r.ProtoMajor != 2 {
			s.notH2.Add(1)
			http.Error(w, "HTTP/2 only", http.StatusHTTPVersionNotSupported)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(holdWord)) {
			w = &heldWriter{ResponseWriter: w, release: s.release, done: r.Context().Done()}
		}
		h.ServeHTTP(w, r)
	}))
	s.srv.Config.Protocols = h2cOnly()
	s.srv.Start()
	t.Cleanup(s.srv.Close)
	return s
}

// client returns an HTTP client that speaks h2c to the server.
func (s *h2cServer) client(t *testing.T) *http.Client {
	t.Helper()
	tr := &http.Transport{Protocols: h2cOnly()}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// connections returns how many connections the server's requests came
// over. (Counting the client's dials would not do: net/http's Transport
// may dial a spare HTTP/2 connection it never uses when a request comes
// while the first connection is still being handed out.)
func (s *h2cServer) connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// heldWriter passes the first Write and Flush of a response through and
// blocks every later Write until release is closed or done is.
type heldWriter struct {
	http.ResponseWriter
	release <-chan struct{}
	done    <-chan struct{}
	mu      sync.Mutex
	writes  int
}

func (w *heldWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	w.writes++
	first := w.writes == 1
	w.mu.Unlock()
	if !first {
		select {
		case <-w.release:
		case <-w.done:
			return 0, http.ErrAbortHandler
		}
	}
	return w.ResponseWriter.Write(b)
}

func (w *heldWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

// noWait is a sleep that returns at once: the backoff between attempts
// takes no wall time in the loopback tests.
func noWait(context.Context, time.Duration) error { return nil }

// Over h2c the streams of a Client share one connection. A stream whose
// HTTP/2 stream the agent resets midway resubscribes and hands over each
// chunk once, on the four wires and whether the agent replays nothing,
// a snapshot or everything; the stream held open beside it on the same
// connection is not cut and completes, with no subscribe of its own; and
// a stream's Close cancels its own HTTP/2 stream only: the next stream
// runs on the same connection.
func TestStreamsSharingAnHTTP2ConnectionHealOnlyTheirOwnCuts(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, style := range []a2atest.ResubscribeStyle{a2atest.LiveOnly, a2atest.SnapshotFirst, a2atest.FullReplay} {
			t.Run(w.String()+"/"+styleName(style), func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithBindings(w.b), a2atest.WithStyle(style),
					a2atest.WithScript(
						a2atest.Working("on it"),
						a2atest.Chunk("a1", "one ", false, false),
						a2atest.Chunk("a1", "two ", true, false),
						a2atest.Chunk("a1", "three", true, true),
						a2atest.Finish(a2a.StateCompleted, ""),
					),
					// The held stream's send takes no fault; the next send
					// is reset after its task and first status.
					a2atest.WithFaults(a2atest.Fault{}, a2atest.CutAfterEvents(2)))
				srv := newH2CServer(t, agent)
				c := bindingClient(t, w.b, srv.srv.URL, stream.WithHTTPClient(srv.client(t)), stream.WithVersion(w.v), stream.WithSleep(noWait))
				ctx := background()

				held := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, holdWord))
				defer held.Close()
				require.True(t, held.Next(), "the held stream's first event: %v", held.Err())
				heldTask := held.Task().ID

				reset := c.Send(ctx, hello())
				cut, err := drain(t, reset)
				require.NoError(t, err)
				require.Equal(t, "one two three", cut.text("a1"), "each chunk once after the reset")
				cutTask := reset.Task().ID

				close(srv.release)
				rest, err := drain(t, held)
				require.NoError(t, err, "the held stream survived the reset of the other")
				require.Equal(t, "one two three", rest.text("a1"))

				closed := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, holdWord+" and close"))
				require.True(t, closed.Next(), "%v", closed.Err())
				require.NoError(t, closed.Close())
				after, err := drain(t, c.Send(ctx, hello()))
				require.NoError(t, err)
				require.Equal(t, "one two three", after.text("a1"))

				subscribes := map[string]int{}
				for _, r := range agent.Requests() {
					if strings.Contains(strings.ToLower(r.Method), "subscribe") {
						subscribes[r.TaskID]++
					}
				}
				require.Equal(t, map[string]int{cutTask: 1}, subscribes, "only the reset stream resubscribed (held %s)", heldTask)
				require.Equal(t, 1, srv.connections(), "every request on one connection, before and after a Close")
				require.Zero(t, srv.notH2.Load(), "every request over HTTP/2")
			})
		}
	}
}

func styleName(s a2atest.ResubscribeStyle) string {
	switch s {
	case a2atest.LiveOnly:
		return "LiveOnly"
	case a2atest.SnapshotFirst:
		return "SnapshotFirst"
	}
	return "FullReplay"
}
