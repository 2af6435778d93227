package stream_test

// A message that may have reached the agent is never sent again, whatever
// the path it took there: a redirect followed before the failure, a
// breaker consulted on the redirect's hop, or an HTTP/2 connection whose
// server reset the stream after it had read the whole request. Every test
// counts the sends the agent (or the server) received.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/stream"
)

// movedTo answers a call with 307 Temporary Redirect to target, which keeps
// the method and the body: net/http follows it with the same POST.
func movedTo(ww *wireWriter, target string) {
	ww.w.Header().Set("Location", target)
	ww.w.WriteHeader(http.StatusTemporaryRedirect)
}

// redirectingAgent answers the first streaming send with a 307 to another
// origin, and later ones with a completed task.
func redirectingAgent(w wire) *wireAgent {
	return newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
		kindStream: func(ww *wireWriter, c wireCall) {
			if c.n == 0 {
				movedTo(ww, "http://moved.test/a2a")
				return
			}
			ww.sse()
			ww.event(snap(a2a.StateCompleted, "done"))
		},
	})
}

// A RoundTripper that reports no connection steps (a custom transport, as
// reach.go allows for): the first hop reaches the agent, which answers 307;
// the redirect's hop fails with a dial error. That dial error is the
// second hop's, not the message's: the agent had the message.
func TestSendRedirectedToARefusedOriginIsNotSentAgain(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := redirectingAgent(w)
				rt := refuseOnce{next: a2atest.NewTransport(a), refuse: func(r *http.Request) bool {
					return r.URL.Host == "moved.test"
				}}
				c := a.clientOf(t, stream.WithHTTPClient(&http.Client{Transport: rt}), stream.WithVersion(w.v))
				_, err := drain(t, c.Send(background(), hello()))
				require.Equal(t, 1, a.count(kindStream), "the agent had the message once: it answered the first hop")
				require.ErrorIs(t, err, syscall.ECONNREFUSED)
			})
		})
	}
}

// The same redirect over a real Transport, whose connection steps reach.go
// follows: the first hop got a connection, so the redirect's refused dial
// does not make the send again.
func TestSendRedirectedToARefusedOriginOverARealTransportIsNotSentAgain(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := redirectingAgent(w)
				p := &pipeServer{h: a}
				var refused atomic.Int32
				tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
					if addr == "moved.test:80" {
						refused.Add(1)
						return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
					}
					return p.dial(ctx, network, addr)
				}}
				defer p.close()
				defer tr.CloseIdleConnections()
				c := a.clientOf(t, stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(w.v))
				_, err := drain(t, c.Send(background(), hello()))
				require.ErrorIs(t, err, syscall.ECONNREFUSED)
				require.Equal(t, int32(1), refused.Load())
				require.Equal(t, 1, a.count(kindStream))
			})
		})
	}
}

// refuseNth is a Breaker that lets every request through but the n-th it
// is asked about (from 1), which it refuses as an open circuit does.
type refuseNth struct {
	n     int
	asked atomic.Int32
}

var errRefusedNth = errors.New("breaker: refused")

func (b *refuseNth) Allow() (func(error), error) {
	if int(b.asked.Add(1)) == b.n {
		return nil, errRefusedNth
	}
	return func(error) {}, nil
}

// A reply whose send the agent answers 307: the breaker refuses the
// redirect's hop (WithBreaker asks it for "each redirect followed"). The
// agent answered the reply's first hop, so it may have taken the reply,
// which must not be sent again; ErrCircuitOpen on the hop does not prove
// that nothing was sent.
func TestReplyWhoseRedirectTheBreakerRefusesIsNotSentAgain(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				asking := snap(a2a.StateInputRequired)
				asking.Status.Message = agentMsg("q-1", "which city?")
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, c wireCall) {
						switch c.n {
						case 0:
							ww.sse()
							ww.event(asking)
						case 1:
							movedTo(ww, "http://moved.test/a2a")
						default:
							ww.sse()
							ww.event(snap(a2a.StateCompleted, "Paris it is"))
						}
					},
					kindSubscribe: func(ww *wireWriter, _ wireCall) {
						ww.sse()
						ww.event(snap(a2a.StateCompleted, "Paris it is"))
					},
					kindGet: func(ww *wireWriter, _ wireCall) {
						ww.task(snap(a2a.StateCompleted, "Paris it is"))
					},
				})
				moved := newWireAgent(w, nil)
				routes := newSGOrigins().serve("http://agent.test", a).serve("http://moved.test", moved)
				// Asked for: 1 the message, 2 the reply, 3 the reply's redirect.
				b := &refuseNth{n: 3}
				hook := hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) { return hitl.Text("Paris"), nil })
				c := a.clientOf(t, stream.WithHTTPClient(routes.client()), stream.WithVersion(w.v),
					stream.WithHumanInput(hook), stream.WithBreaker(b))
				_, _ = drain(t, c.Send(background(), hello()))
				require.GreaterOrEqual(t, int(b.asked.Load()), 3, "the breaker was asked about the redirect")
				require.Len(t, a.sentIDs(), 2, "the message, then the reply once: the agent answered the reply's first hop")
			})
		})
	}
}

// h2Resetter is an HTTP/2 server (prior knowledge, over in-memory
// connections) that reads each request whole, counts it, and then answers
// as its reset function says (with a RST_STREAM frame), never with a
// response. It speaks just enough HTTP/2 for that: no HPACK is needed to
// count requests and refuse them.
type h2Resetter struct {
	// reset writes the frame that answers the n-th request (from 1) on
	// stream id.
	reset func(w io.Writer, n int, id uint32)

	mu       sync.Mutex
	requests int
	conns    []net.Conn
}

// HTTP/2 frame types and flags (RFC 9113, section 6).
const (
	h2Data       = 0x0
	h2Headers    = 0x1
	h2RSTStream  = 0x3
	h2Settings   = 0x4
	h2EndStream  = 0x1
	h2Ack        = 0x1
	h2ErrProto   = 0x1
	h2ErrInt     = 0x2
	h2PrefaceLen = 24
)

func h2Frame(w io.Writer, typ, flags byte, id uint32, payload []byte) {
	var hdr [9]byte
	hdr[0], hdr[1], hdr[2] = byte(len(payload)>>16), byte(len(payload)>>8), byte(len(payload))
	hdr[3], hdr[4] = typ, flags
	binary.BigEndian.PutUint32(hdr[5:], id)
	_, _ = w.Write(append(hdr[:], payload...))
}

// rstStream resets stream id with code.
func rstStream(w io.Writer, id, code uint32) {
	h2Frame(w, h2RSTStream, 0, id, binary.BigEndian.AppendUint32(nil, code))
}

func (s *h2Resetter) dial(context.Context, string, string) (net.Conn, error) {
	client, server := net.Pipe()
	s.mu.Lock()
	s.conns = append(s.conns, server)
	s.mu.Unlock()
	go s.serve(server)
	return client, nil
}

func (s *h2Resetter) serve(c net.Conn) {
	defer c.Close()
	preface := make([]byte, h2PrefaceLen)
	if _, err := io.ReadFull(c, preface); err != nil {
		return
	}
	// net.Pipe does not buffer: frames go out from their own goroutine,
	// so that reading the client's frames never waits on writing ours.
	out := make(chan []byte, 64)
	defer close(out)
	go func() {
		for b := range out {
			_, _ = c.Write(b)
		}
	}()
	write := func(f func(io.Writer)) {
		var b bytes.Buffer
		f(&b)
		out <- b.Bytes()
	}
	write(func(w io.Writer) { h2Frame(w, h2Settings, 0, 0, nil) })
	for {
		var hdr [9]byte
		if _, err := io.ReadFull(c, hdr[:]); err != nil {
			return
		}
		n := int(hdr[0])<<16 | int(hdr[1])<<8 | int(hdr[2])
		typ, flags, id := hdr[3], hdr[4], binary.BigEndian.Uint32(hdr[5:])&0x7fffffff
		if _, err := io.CopyN(io.Discard, c, int64(n)); err != nil {
			return
		}
		switch {
		case typ == h2Settings && flags&h2Ack == 0:
			write(func(w io.Writer) { h2Frame(w, h2Settings, h2Ack, 0, nil) })
		case (typ == h2Headers || typ == h2Data) && flags&h2EndStream != 0:
			// The request is in, whole: the agent has the message.
			s.mu.Lock()
			s.requests++
			k := s.requests
			s.mu.Unlock()
			write(func(w io.Writer) { s.reset(w, k, id) })
		}
	}
}

func (s *h2Resetter) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

func (s *h2Resetter) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		c.Close()
	}
}

// An HTTP/2 server (or a proxy in front of the agent) that reads the whole
// send and then resets its stream with PROTOCOL_ERROR: net/http's HTTP/2
// transport makes such a request again by itself (golang/go#47635),
// rewinding the body with Request.GetBody, before the stream sees any
// error. Unlike REFUSED_STREAM, or a GOAWAY below the stream's ID, that
// reset does not say the server left the request unprocessed. The agent
// then has the message twice; the stream must not let its transport do
// that.
func TestSendOverHTTP2ResetWithProtocolErrorIsNotRepeatedByTheTransport(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := &h2Resetter{reset: func(w io.Writer, n int, id uint32) {
					code := uint32(h2ErrProto)
					if n > 1 {
						code = h2ErrInt // a repeat is refused for good
					}
					rstStream(w, id, code)
				}}
				defer srv.close()
				var protos http.Protocols
				protos.SetUnencryptedHTTP2(true)
				tr := &http.Transport{DialContext: srv.dial, Protocols: &protos}
				defer tr.CloseIdleConnections()
				c := bindingClient(t, w.b, "http://agent.test", stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(w.v))
				_, err := drain(t, c.Send(background(), hello()))
				require.Equal(t, 1, srv.count(), "the server read the whole send once; it must not get it again")
				require.Error(t, err)
			})
		})
	}
}

// WithConnectTimeout "bounds the making of each call's connection": a
// redirect's hop makes a connection of the call too. The first hop got its
// connection and stopped the timer; the hop to a black-holed origin must
// still be cut after the connect timeout, and the send, which reached the
// agent on the first hop, not made again.
func TestConnectTimeoutBoundsARedirectsDial(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := redirectingAgent(w)
				p := &pipeServer{h: a}
				var hole blackHole
				tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
					if addr == "moved.test:80" {
						return hole.dial(ctx, network, addr)
					}
					return p.dial(ctx, network, addr)
				}}
				defer p.close()
				defer tr.CloseIdleConnections()
				ctx, cancel := context.WithTimeout(background(), time.Minute)
				defer cancel()
				start := time.Now()
				c := a.clientOf(t, stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(w.v),
					stream.WithConnectTimeout(2*time.Second))
				_, err := drain(t, c.Send(ctx, hello()))
				require.Equal(t, int32(1), hole.n.Load(), "the redirect was followed")
				require.ErrorIs(t, err, stream.ErrConnectTimeout)
				require.Equal(t, 2*time.Second, time.Since(start))
				require.Equal(t, 1, a.count(kindStream))
			})
		})
	}
}
