package stream_test

// Sends made again: a send whose request provably never left (the dial was
// refused or timed out) is made again within the budget, with the same
// message ID; a send the agent answered "busy" is made again only with
// WithIdempotentSends. Every test counts the sends the agent received.

import (
	"context"
	"errors"
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
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// completes is an agent that answers every streaming send with a completed
// task.
func completes(w wire) *wireAgent {
	return newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
		kindStream: func(ww *wireWriter, _ wireCall) {
			ww.sse()
			ww.event(snap(a2a.StateCompleted, "done"))
		},
	})
}

// sentIDs returns the message IDs of the sends the agent received.
func (a *wireAgent) sentIDs() []string {
	var ids []string
	for _, c := range a.received() {
		if c.msg != nil {
			ids = append(ids, c.msg.ID)
		}
	}
	return ids
}

// TestSendRefusedAtDialIsSentAgainWhenTheAgentComesBack runs on real
// sockets: the agent's port is closed when the send starts, and the agent
// listens on it while the stream waits its first backoff, a second.
func TestSendRefusedAtDialIsSentAgainWhenTheAgentComesBack(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			t.Parallel()
			a := completes(w)
			// Take a free port, and free it: nothing listens there now.
			l, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			addr := l.Addr().String()
			require.NoError(t, l.Close())

			srv := &http.Server{Handler: a, ReadHeaderTimeout: 10 * time.Second}
			served := make(chan error, 1)
			var once sync.Once
			listen := func() {
				l, err := net.Listen("tcp", addr)
				if err != nil {
					served <- err
					return
				}
				go func() { served <- srv.Serve(l) }()
			}
			var notices []stream.Notice
			tr := http.DefaultTransport.(*http.Transport).Clone()
			defer tr.CloseIdleConnections()
			c := bindingClient(t, w.b, "http://"+addr, stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(w.v),
				stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: time.Second}),
				stream.WithNotify(func(n stream.Notice) {
					notices = append(notices, n)
					once.Do(listen) // the agent comes back during the wait
				}))
			msg := hello()
			got, err := drain(t, c.Send(background(), msg))
			require.NoError(t, err)
			require.Equal(t, "done", got.text("a1"))
			require.Equal(t, []string{msg.ID}, a.sentIDs(), "one send reached the agent, with the message's ID")
			require.Len(t, notices, 2)
			require.Equal(t, stream.Reconnecting, notices[0].Kind)
			require.Equal(t, time.Second, notices[0].Wait)
			var opErr *net.OpError
			require.ErrorAs(t, notices[0].Cause, &opErr)
			require.ErrorIs(t, notices[0].Cause, syscall.ECONNREFUSED)
			require.Equal(t, stream.Resumed, notices[1].Kind)
			require.NoError(t, srv.Shutdown(context.Background()))
			require.ErrorIs(t, <-served, http.ErrServerClosed)
		})
	}
}

// refusingDialer is a net/http Transport dial that refuses every
// connection, as a closed port does, and counts them.
type refusingDialer struct{ n atomic.Int32 }

func (d *refusingDialer) dial(context.Context, string, string) (net.Conn, error) {
	d.n.Add(1)
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
}

func TestSendRefusedAtDialSpendsTheBudget(t *testing.T) {
	for _, b := range []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		t.Run(string(b), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var d refusingDialer
				tr := &http.Transport{DialContext: d.dial}
				defer tr.CloseIdleConnections()
				start := time.Now()
				c := bindingClient(t, b, "http://agent.test", stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(a2a.V10))
				_, err := drain(t, c.Send(background(), hello()))
				var re *reconnect.Error
				require.ErrorAs(t, err, &re)
				require.Equal(t, 3, re.Attempts)
				require.ErrorIs(t, err, syscall.ECONNREFUSED)
				require.Equal(t, int32(4), d.n.Load(), "the send and three more")
				require.Equal(t, 3*backoff, time.Since(start))
			})
		})
	}
}

// blackHole is a net/http Transport dial that never connects: it waits
// until its context ends, as a dial to a black-holed address does.
type blackHole struct{ n atomic.Int32 }

func (d *blackHole) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	d.n.Add(1)
	<-ctx.Done()
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: ctx.Err()}
}

func TestConnectTimeoutBoundsEachDial(t *testing.T) {
	for _, b := range []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		t.Run(string(b), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var d blackHole
				tr := &http.Transport{DialContext: d.dial}
				defer tr.CloseIdleConnections()
				start := time.Now()
				c := bindingClient(t, b, "http://agent.test", stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(a2a.V10),
					stream.WithConnectTimeout(2*time.Second), stream.WithReconnect(reconnect.Policy{MaxAttempts: 2}))
				_, err := drain(t, c.Send(background(), hello()))
				require.ErrorIs(t, err, stream.ErrConnectTimeout)
				var re *reconnect.Error
				require.ErrorAs(t, err, &re)
				require.Equal(t, 2, re.Attempts)
				require.Equal(t, int32(3), d.n.Load())
				require.Equal(t, 3*2*time.Second+2*backoff, time.Since(start), "three dials of 2s, two backoffs")
			})
		})
	}
}

// TestAgentThatIsDownEndsInCouldNotConnect: a stream none of whose calls
// could connect (every dial refused, or every dial past the connect
// timeout) says it could not connect, naming the URL without its secrets,
// not that a connection was lost; the transport's cause stays reachable.
func TestAgentThatIsDownEndsInCouldNotConnect(t *testing.T) {
	const (
		endpoint = "http://user:pw@agent.test/a2a?key=secret"
		shown    = "http://xxxxx:xxxxx@agent.test/a2a?key=xxxxx"
	)
	cases := []struct {
		name     string
		dial     func(context.Context, string, string) (net.Conn, error)
		policy   reconnect.Policy
		attempts int
		cause    error
		opErr    bool // the dial's *net.OpError is in the chain
	}{
		{"refused", (&refusingDialer{}).dial, reconnect.Policy{MaxAttempts: 2}, 2, syscall.ECONNREFUSED, true},
		{"refused, no reconnect", (&refusingDialer{}).dial, reconnect.Never(), 0, syscall.ECONNREFUSED, true},
		{"connect timeout", (&blackHole{}).dial, reconnect.Policy{MaxAttempts: 1}, 1, stream.ErrConnectTimeout, false},
	}
	for _, w := range wires() {
		for _, tc := range cases {
			t.Run(w.String()+"/"+tc.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					tr := &http.Transport{DialContext: tc.dial}
					defer tr.CloseIdleConnections()
					opts := []stream.Option{stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(w.v),
						stream.WithConnectTimeout(time.Second), stream.WithReconnect(tc.policy)}
					var (
						c   *stream.Client
						err error
					)
					if w.b == a2a.BindingHTTPJSON {
						c, err = stream.NewRESTClient(endpoint, opts...)
					} else {
						c, err = stream.NewClient(endpoint, opts...)
					}
					require.NoError(t, err)
					_, err = drain(t, c.Send(background(), hello()))
					var re *reconnect.Error
					require.ErrorAs(t, err, &re)
					require.Equal(t, shown, re.Unreachable)
					require.Equal(t, tc.attempts, re.Attempts)
					require.ErrorIs(t, err, reconnect.ErrCouldNotConnect)
					require.NotErrorIs(t, err, reconnect.ErrNoTask, "no connection was lost")
					require.ErrorIs(t, err, tc.cause)
					if tc.opErr {
						var opErr *net.OpError
						require.ErrorAs(t, err, &opErr)
					}
					require.Contains(t, err.Error(), "could not connect to "+shown)
					require.NotContains(t, err.Error(), "connection lost")
					require.NotContains(t, err.Error(), "secret")
					require.NotContains(t, err.Error(), ":pw@")
				})
			})
		}
	}
}

func TestConnectTimeoutDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var d blackHole
		tr := &http.Transport{DialContext: d.dial}
		defer tr.CloseIdleConnections()
		start := time.Now()
		c := bindingClient(t, a2a.BindingJSONRPC, "http://agent.test", stream.WithHTTPClient(&http.Client{Transport: tr}),
			stream.WithVersion(a2a.V10), stream.WithReconnect(reconnect.Never()))
		_, err := drain(t, c.Send(background(), hello()))
		require.ErrorIs(t, err, stream.ErrConnectTimeout)
		require.Equal(t, stream.DefaultConnectTimeout, time.Since(start))
	})
}

func TestConnectTimeoutDoesNotCutASlowAnswer(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						time.Sleep(time.Minute) // the agent thinks, in the bubble's time
						ww.sse()
						ww.event(snap(a2a.StateCompleted, "done"))
					},
				})
				// A real Transport over an in-memory connection, so that
				// the connection steps are reported.
				p := &pipeServer{h: a}
				tr := &http.Transport{DialContext: p.dial}
				defer p.close()
				defer tr.CloseIdleConnections()
				c := a.clientOf(t, stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(w.v),
					stream.WithConnectTimeout(time.Second))
				got, err := drain(t, c.Send(background(), hello()))
				require.NoError(t, err)
				require.Equal(t, "done", got.text("a1"))
				require.Equal(t, 1, a.count(kindStream))
			})
		})
	}
}

// pipeServer serves h over in-memory connections, one http.Server per
// connection its dial makes; close stops them all.
type pipeServer struct {
	h       http.Handler
	mu      sync.Mutex
	servers []*http.Server
}

func (p *pipeServer) dial(context.Context, string, string) (net.Conn, error) {
	client, server := net.Pipe()
	srv := &http.Server{Handler: p.h}
	p.mu.Lock()
	p.servers = append(p.servers, srv)
	p.mu.Unlock()
	go srv.Serve(&oneConnListener{conn: server, done: make(chan struct{})})
	return client, nil
}

func (p *pipeServer) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, srv := range p.servers {
		srv.Close()
	}
}

// oneConnListener hands out one connection, then blocks until closed.
type oneConnListener struct {
	once sync.Once
	conn net.Conn
	done chan struct{}
}

func (l *oneConnListener) Accept() (net.Conn, error) {
	var c net.Conn
	l.once.Do(func() { c = l.conn })
	if c != nil {
		return c, nil
	}
	<-l.done
	return nil, net.ErrClosed
}

func (l *oneConnListener) Close() error {
	select {
	case <-l.done:
	default:
		close(l.done)
	}
	return nil
}

func (l *oneConnListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

// refuseOnce is a RoundTripper that fails the requests its refuse function
// picks as a transport does whose dial was refused, and passes the others
// to next.
type refuseOnce struct {
	next   http.RoundTripper
	refuse func(r *http.Request) bool
}

func (r refuseOnce) RoundTrip(req *http.Request) (*http.Response, error) {
	if r.refuse(req) {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}
	return r.next.RoundTrip(req)
}

func TestReplyRefusedAtDialIsSentAgain(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				asking := snap(a2a.StateInputRequired)
				asking.Status.Message = agentMsg("q-1", "which city?")
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, c wireCall) {
						ww.sse()
						if c.n == 0 {
							ww.event(asking)
							return
						}
						ww.event(snap(a2a.StateCompleted, "Paris it is"))
					},
				})
				var streams atomic.Int32
				rt := refuseOnce{next: a2atest.NewTransport(a), refuse: func(*http.Request) bool {
					return streams.Add(1) == 2 // the reply's first send
				}}
				hook := hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) { return hitl.Text("Paris"), nil })
				c := a.clientOf(t, stream.WithHTTPClient(&http.Client{Transport: rt}), stream.WithVersion(w.v), stream.WithHumanInput(hook))
				got, err := drain(t, c.Send(background(), hello()))
				require.NoError(t, err)
				require.Equal(t, "Paris it is", got.text("a1"))
				ids := a.sentIDs()
				require.Len(t, ids, 2, "the message, then the reply once")
				require.Equal(t, int32(3), streams.Load(), "the reply was tried twice")
				require.Equal(t, 0, a.count(kindSubscribe), "made again at once, not found by resubscribing")
			})
		})
	}
}

func TestBusySendIsNotSentAgainByDefault(t *testing.T) {
	for _, w := range wires() {
		for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
			t.Run(w.String()+"/"+http.StatusText(status), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					a := busyOnce(w, status)
					_, err := drain(t, a.client(t).Send(background(), hello()))
					var httpErr *stream.HTTPError
					require.ErrorAs(t, err, &httpErr)
					require.Equal(t, status, httpErr.StatusCode)
					require.Equal(t, 1, a.count(kindStream))
				})
			})
		}
	}
}

// busyOnce is an agent that answers the first streaming send with status
// and Retry-After: 2, and the next with a completed task.
func busyOnce(w wire, status int) *wireAgent {
	return newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
		kindStream: func(ww *wireWriter, c wireCall) {
			if c.n == 0 {
				ww.w.Header().Set("Retry-After", "2")
				http.Error(ww.w, http.StatusText(status), status)
				return
			}
			ww.sse()
			ww.event(snap(a2a.StateCompleted, "done"))
		},
	})
}

func TestBusySendIsSentAgainWithIdempotentSends(t *testing.T) {
	for _, w := range wires() {
		for _, status := range []int{http.StatusTooManyRequests, http.StatusServiceUnavailable} {
			t.Run(w.String()+"/"+http.StatusText(status), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					a := busyOnce(w, status)
					var ws waits
					msg := hello()
					got, err := drain(t, a.client(t, stream.WithIdempotentSends(), ws.option()).Send(background(), msg))
					require.NoError(t, err)
					require.Equal(t, "done", got.text("a1"))
					require.Equal(t, []string{msg.ID, msg.ID}, a.sentIDs(), "the same message, by its ID")
					require.Equal(t, []time.Duration{2 * time.Second}, ws.all(), "the Retry-After, longer than the backoff")
				})
			})
		}
	}
}

func TestRetryableSendErrorIsSentAgainWithIdempotentSends(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, c wireCall) {
						if c.n == 0 {
							ww.rpcErrorData(a2a.CodeInternalError, "model overloaded", retryData(w.v, 3))
							return
						}
						ww.sse()
						ww.event(snap(a2a.StateCompleted, "done"))
					},
				})
				var ws waits
				msg := hello()
				_, err := drain(t, a.client(t, stream.WithIdempotentSends(), ws.option()).Send(background(), msg))
				require.NoError(t, err)
				require.Equal(t, []string{msg.ID, msg.ID}, a.sentIDs())
				require.Equal(t, []time.Duration{3 * time.Second}, ws.all())
			})
		})
	}
}

func TestSendThatReachedTheAgentIsNeverSentAgainEvenWithIdempotentSends(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						ww.w.WriteHeader(http.StatusBadGateway)
					},
				})
				_, err := drain(t, a.client(t, stream.WithIdempotentSends()).Send(background(), hello()))
				var httpErr *stream.HTTPError
				require.ErrorAs(t, err, &httpErr)
				require.Equal(t, http.StatusBadGateway, httpErr.StatusCode)
				require.Equal(t, 1, a.count(kindStream), "a 502 is not a busy answer")
			})
		})
	}
}

func TestSendCancelledByTheCallerDuringTheDialIsNotSentAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var d blackHole
		tr := &http.Transport{DialContext: d.dial}
		defer tr.CloseIdleConnections()
		ctx, cancel := context.WithTimeout(background(), time.Second)
		defer cancel()
		c := bindingClient(t, a2a.BindingJSONRPC, "http://agent.test", stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(a2a.V10))
		_, err := drain(t, c.Send(ctx, hello()))
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.False(t, errors.Is(err, stream.ErrConnectTimeout))
		require.Equal(t, int32(1), d.n.Load())
	})
}
