package stream_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// reconnect.ErrCouldNotConnect says that no call could reach the agent: a
// stream that did connect once never says it, nor does a breaker that
// refused; a refusing proxy and a failed name lookup do say it; and the
// URL it names keeps no secret.

// gateTransport sends a request to next, or fails it as a refused dial
// does when refuse says so for the request's number (from 0).
type gateTransport struct {
	next   http.RoundTripper
	refuse func(n int) bool

	mu sync.Mutex
	n  int
}

func (g *gateTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	g.mu.Lock()
	n := g.n
	g.n++
	g.mu.Unlock()
	if g.refuse(n) {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	}
	return g.next.RoundTrip(r)
}

// A stream that connected once and then could not connect again (its
// resubscribes refused at the dial), or whose first send was refused at
// the dial but sent again, did reach the agent: its *reconnect.Error
// does not match ErrCouldNotConnect and names no unreachable URL.
func TestStreamThatConnectedOnceDoesNotSayItCouldNotConnect(t *testing.T) {
	cases := map[string]struct {
		refuse func(n int) bool
		faults []a2atest.Fault
	}{
		"every resubscribe refused at the dial": {
			refuse: func(n int) bool { return n > 0 },
			faults: []a2atest.Fault{a2atest.CutAfterEvents(2)},
		},
		"first send refused, then every later call answered 503": {
			refuse: func(n int) bool { return n == 0 },
			faults: []a2atest.Fault{a2atest.CutAfterEvents(2), a2atest.HTTPStatus(http.StatusServiceUnavailable, "busy"),
				a2atest.HTTPStatus(http.StatusServiceUnavailable, "busy"), a2atest.HTTPStatus(http.StatusServiceUnavailable, "busy"),
				a2atest.HTTPStatus(http.StatusServiceUnavailable, "busy"), a2atest.HTTPStatus(http.StatusServiceUnavailable, "busy")},
		},
		"first send refused, then the resubscribes refused at the dial": {
			refuse: func(n int) bool { return n == 0 || n > 1 },
			faults: []a2atest.Fault{a2atest.CutAfterEvents(2)},
		},
	}
	for name, c := range cases {
		for _, w := range wires() {
			t.Run(name+"/"+w.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithBindings(w.b),
						a2atest.WithScript(a2atest.Working("on it"), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")),
						a2atest.WithFaults(c.faults...), a2atest.WithGetFaults(a2atest.HTTPStatus(http.StatusServiceUnavailable, "busy"),
							a2atest.HTTPStatus(http.StatusServiceUnavailable, "busy"), a2atest.HTTPStatus(http.StatusServiceUnavailable, "busy")))
					tr := &gateTransport{next: a2atest.NewTransport(agent), refuse: c.refuse}
					cl := bindingClient(t, w.b, "http://agent.test", stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(w.v),
						stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 100 * time.Millisecond}))
					_, err := drain(t, cl.Send(background(), hello()))
					var re *reconnect.Error
					require.ErrorAs(t, err, &re)
					require.NotErrorIs(t, err, reconnect.ErrCouldNotConnect, "the stream connected once: %v", err)
					require.Empty(t, re.Unreachable)
					require.NotContains(t, err.Error(), "could not connect")
					require.Equal(t, 1, len(agent.TaskIDs()), "the message reached the agent once")
				})
			})
		}
	}
}

// A breaker that refuses is not an agent that is down: the first send it
// refuses, and the resubscribes it refuses after a drop, end in errors
// that wrap ErrCircuitOpen and do not say the agent could not be reached.
func TestBreakerRefusalDoesNotSayCouldNotConnect(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String()+"/first send", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithBindings(w.b))
				b := &refusingBreaker{}
				b.refuse.Store(true)
				_, err := drain(t, reconnectingClient(t, w, agent, stream.WithBreaker(b)).Send(background(), hello()))
				require.ErrorIs(t, err, transport.ErrCircuitOpen)
				require.NotErrorIs(t, err, reconnect.ErrCouldNotConnect)
				require.NotContains(t, err.Error(), "could not connect")
				require.Empty(t, agent.TaskIDs(), "nothing was sent")
			})
		})
		t.Run(w.String()+"/resubscribes", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(w.v), a2atest.WithBindings(w.b),
					a2atest.WithScript(a2atest.Working("on it"), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")),
					a2atest.WithFaults(a2atest.CutAfterEvents(2)))
				b := &refusingBreaker{}
				s := reconnectingClient(t, w, agent, stream.WithBreaker(b)).Send(background(), hello())
				defer s.Close()
				for s.Next() {
					b.refuse.Store(true) // open once the stream is under way
				}
				err := s.Err()
				require.ErrorIs(t, err, transport.ErrCircuitOpen)
				require.NotErrorIs(t, err, reconnect.ErrCouldNotConnect)
				require.NotContains(t, err.Error(), "could not connect")
			})
		})
	}
}

// refusingBreaker refuses every request while refuse is set.
type refusingBreaker struct{ refuse atomic.Bool }

var errBreakerOpen = errors.New("breaker: open")

func (b *refusingBreaker) Allow() (func(error), error) {
	if b.refuse.Load() {
		return nil, errBreakerOpen
	}
	return func(error) {}, nil
}

// dnsFailure fails every dial as a name that does not resolve does.
func dnsFailure(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, _ := net.SplitHostPort(addr)
	return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}
}

// refusedDial fails every dial as a closed port does.
func refusedDial(ctx context.Context, network, addr string) (net.Conn, error) {
	return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
}

// refusingProxy is a Transport whose every request goes through a proxy
// that refuses connections.
func refusingProxy(t *testing.T) *http.Transport {
	proxy, err := url.Parse("http://proxy.test:3128")
	require.NoError(t, err)
	return &http.Transport{Proxy: http.ProxyURL(proxy), DialContext: refusedDial}
}

// unreachableTransports are Transports by which the agent cannot be
// reached: its name does not resolve, or the proxy refuses.
func unreachableTransports() map[string]func(t *testing.T) *http.Transport {
	return map[string]func(t *testing.T) *http.Transport{
		"name does not resolve": func(*testing.T) *http.Transport { return &http.Transport{DialContext: dnsFailure} },
		"proxy refuses":         refusingProxy,
	}
}

// A card fetched from an agent whose name does not resolve (as unreachable
// as one whose port is closed), or through a proxy that refuses
// connections, could not be fetched because nothing could be connected to,
// as a stream's send says (TestStreamOfAnUnreachableAgentSaysCouldNotConnect):
// Resolve matches ErrCouldNotConnect and names the card URL.
func TestCardOfAnUnreachableAgentSaysCouldNotConnect(t *testing.T) {
	for name, newTransport := range unreachableTransports() {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tr := newTransport(t)
				defer tr.CloseIdleConnections()
				_, err := stream.Resolve(background(), "http://agent.test/", stream.WithHTTPClient(&http.Client{Transport: tr}))
				require.ErrorIs(t, err, reconnect.ErrCouldNotConnect, "%v", err)
				require.Contains(t, err.Error(), "could not connect to http://agent.test/.well-known/agent-card.json")
			})
		})
	}
}

// A stream to an agent whose name does not resolve, or behind a proxy
// that refuses, ends in a *reconnect.Error that matches
// ErrCouldNotConnect and names the agent's URL, on every wire.
func TestStreamOfAnUnreachableAgentSaysCouldNotConnect(t *testing.T) {
	for name, newTransport := range unreachableTransports() {
		for _, w := range wires() {
			t.Run(name+"/"+w.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					tr := newTransport(t)
					defer tr.CloseIdleConnections()
					c := bindingClient(t, w.b, "http://agent.test", stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(w.v),
						stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: time.Second}))
					_, err := drain(t, c.Send(background(), hello()))
					require.ErrorIs(t, err, reconnect.ErrCouldNotConnect, "%v", err)
					var re *reconnect.Error
					require.ErrorAs(t, err, &re)
					require.Contains(t, re.Unreachable, "agent.test")
				})
			})
		}
	}
}

// An agent behind a binding of another module (NewClientFor) whose every
// call fails at the dial, marked NotSent: the Client has no endpoint to
// name, so, as the Transport doc says, its *reconnect.Error does not match
// ErrCouldNotConnect; the sends were made again within the budget and the
// dial's error stays reachable.
func TestAgentBehindABindingThatNeverConnectsEndsInTheDialsError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sends := 0
		c, err := stream.NewClientFor(&funcBinding{sendStream: func(context.Context, transport.Call, *a2a.Message) (transport.EventReader, error) {
			sends++
			return nil, transport.NotSent(&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED})
		}}, stream.WithVersion(a2a.V10), stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: time.Second}))
		require.NoError(t, err)
		_, err = c.Send(background(), hello()).Wait()
		require.ErrorIs(t, err, syscall.ECONNREFUSED)
		require.NotErrorIs(t, err, reconnect.ErrCouldNotConnect)
		var re *reconnect.Error
		require.ErrorAs(t, err, &re)
		require.Equal(t, 2, re.Attempts)
		require.Equal(t, 3, sends, "the first send and two more")
	})
}

// not a fragment; neither in Unreachable nor anywhere in the error's text.
func TestCouldNotConnectNamesTheURLWithoutSecrets(t *testing.T) {
	requireNoSecretInCouldNotConnect(t, map[string]struct {
		url     string
		secrets []string
	}{
		"password and query":      {"http://user:pa55word@agent.test/a2a?key=s3cret&sig=0xdeadbeef", []string{"pa55word", "s3cret", "0xdeadbeef"}},
		"escaped query key":       {"http://agent.test/a2a?api%5Fkey=s3cret", []string{"s3cret"}},
		"token in the fragment":   {"http://agent.test/a2a#access_token=fr4gment", []string{"fr4gment"}},
		"escaped password":        {"http://user:p%40ss%2Fw0rd@agent.test/a2a", []string{"p@ss/w0rd", "p%40ss%2Fw0rd", "w0rd"}},
		"repeated query key":      {"http://agent.test/a2a?key=one1&key=two2", []string{"one1", "two2"}},
		"query without a value =": {"http://agent.test/a2a?s3cretflag", []string{"s3cretflag"}},
	})
}

// A token given as the URL's user name (https://TOKEN@host/, as GitHub and
// some gateways take it) is a secret as a password is.
func TestCouldNotConnectHidesATokenGivenAsTheUserName(t *testing.T) {
	requireNoSecretInCouldNotConnect(t, map[string]struct {
		url     string
		secrets []string
	}{"token as the user name": {"http://ghp_t0ken@agent.test/a2a", []string{"ghp_t0ken"}}})
}

// requireNoSecretInCouldNotConnect sends to each URL through a Transport
// that refuses every dial, and requires none of its secrets in the error.
func requireNoSecretInCouldNotConnect(t *testing.T, urls map[string]struct {
	url     string
	secrets []string
}) {
	for name, u := range urls {
		for _, b := range []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
			t.Run(name+"/"+string(b), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					opts := []stream.Option{stream.WithHTTPClient(&http.Client{Transport: refusingTransport{}}), stream.WithVersion(a2a.V10),
						stream.WithReconnect(reconnect.Policy{MaxAttempts: 1, Backoff: time.Second})}
					var (
						c   *stream.Client
						err error
					)
					if b == a2a.BindingHTTPJSON {
						c, err = stream.NewRESTClient(u.url, opts...)
					} else {
						c, err = stream.NewClient(u.url, opts...)
					}
					require.NoError(t, err)
					_, err = drain(t, c.Send(background(), hello()))
					var re *reconnect.Error
					require.ErrorAs(t, err, &re)
					require.ErrorIs(t, err, reconnect.ErrCouldNotConnect)
					require.Contains(t, re.Unreachable, "agent.test")
					for _, secret := range u.secrets {
						require.NotContains(t, re.Unreachable, secret, "Unreachable")
						require.NotContains(t, err.Error(), secret, "the error's text")
						require.NotContains(t, stream.EndingOf(err).String(), secret, "the ending's line")
					}
				})
			})
		}
	}
}

// "could not connect" names the URL it could not connect to once: the
// transport's error, which names the request's URL again ("Get
// "http://…": dial tcp …"), follows without it. The URL keeps no secret.

// secretURL is an agent's URL with a password and a query key, which every
// error text shows redacted.
const secretURL = "http://user:pa55word@agent.test/app?key=k-secret"

// hangingDial is a dial that never connects: the connect timeout cuts it.
func hangingDial(ctx context.Context, _, _ string) (net.Conn, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// requireURLOnce requires that text names url, and no other URL, once, and
// none of the secrets of secretURL.
func requireURLOnce(t *testing.T, text, url string) {
	t.Helper()
	require.Equal(t, 1, strings.Count(text, url), "%s", text)
	require.Equal(t, 1, strings.Count(text, "://"), "one URL: %s", text)
	require.NotContains(t, text, "pa55word")
	require.NotContains(t, text, "k-secret")
}

func TestCouldNotConnectToTheCardNamesItsURLOnce(t *testing.T) {
	const cardURL = "http://xxxxx:xxxxx@agent.test/app/.well-known/agent-card.json?key=xxxxx"
	transports := map[string]func(t *testing.T) http.RoundTripper{
		"refused":               func(*testing.T) http.RoundTripper { return refusingTransport{} },
		"name does not resolve": func(*testing.T) http.RoundTripper { return &http.Transport{DialContext: dnsFailure} },
		"proxy refuses":         func(t *testing.T) http.RoundTripper { return refusingProxy(t) },
	}
	fetches := map[string]func(hc *http.Client) error{
		"Resolve": func(hc *http.Client) error {
			_, err := stream.Resolve(background(), secretURL, stream.WithHTTPClient(hc))
			return err
		},
		"FetchCard": func(hc *http.Client) error {
			_, err := agentcard.Fetch(background(), secretURL, agentcard.WithHTTPClient(hc))
			return err
		},
	}
	for tname, tr := range transports {
		for fname, fetch := range fetches {
			t.Run(tname+"/"+fname, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					rt := tr(t)
					if h, ok := rt.(*http.Transport); ok {
						defer h.CloseIdleConnections()
					}
					err := fetch(&http.Client{Transport: rt})
					require.ErrorIs(t, err, reconnect.ErrCouldNotConnect, "%v", err)
					require.Contains(t, err.Error(), "could not connect to "+cardURL+": ")
					requireURLOnce(t, err.Error(), cardURL)
				})
			})
		}
	}
}

func TestCouldNotConnectToTheAgentNamesItsURLOnce(t *testing.T) {
	const agentURL = "http://xxxxx:xxxxx@agent.test/app?key=xxxxx"
	transports := map[string]func(t *testing.T) http.RoundTripper{
		"refused":               func(*testing.T) http.RoundTripper { return refusingTransport{} },
		"name does not resolve": func(*testing.T) http.RoundTripper { return &http.Transport{DialContext: dnsFailure} },
		"proxy refuses":         func(t *testing.T) http.RoundTripper { return refusingProxy(t) },
		"connect timeout":       func(*testing.T) http.RoundTripper { return &http.Transport{DialContext: hangingDial} },
	}
	for tname, tr := range transports {
		for _, w := range wires() {
			t.Run(tname+"/"+w.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					rt := tr(t)
					if h, ok := rt.(*http.Transport); ok {
						defer h.CloseIdleConnections()
					}
					opts := []stream.Option{stream.WithHTTPClient(&http.Client{Transport: rt}), stream.WithVersion(w.v),
						stream.WithConnectTimeout(time.Second), stream.WithReconnect(reconnect.Policy{MaxAttempts: 1, Backoff: time.Second})}
					var (
						c   *stream.Client
						err error
					)
					if w.b == a2a.BindingHTTPJSON {
						c, err = stream.NewRESTClient(secretURL, opts...)
					} else {
						c, err = stream.NewClient(secretURL, opts...)
					}
					require.NoError(t, err)
					_, err = drain(t, c.Send(background(), hello()))
					require.ErrorIs(t, err, reconnect.ErrCouldNotConnect, "%v", err)
					require.Contains(t, err.Error(), "could not connect to "+agentURL+", gave up after 1 attempts: ")
					requireURLOnce(t, err.Error(), agentURL)
					requireURLOnce(t, stream.EndingOf(err).String(), agentURL)
				})
			})
		}
	}
}

// An agent that is down when its card is fetched (Resolve, FetchCard) gives
// an error that says the card could not be fetched because nothing could be
// connected to, names the redacted card URL, matches
// reconnect.ErrCouldNotConnect as a stream's does, and keeps the transport's
// error reachable.

// refusingTransport fails every request as a refused dial does.
type refusingTransport struct{}

func (refusingTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
}

func TestCardOfAnAgentThatIsDownSaysItCouldNotConnect(t *testing.T) {
	hc := &http.Client{Transport: refusingTransport{}}
	fetches := map[string]func() error{
		"Resolve": func() error {
			_, err := stream.Resolve(context.Background(), "http://agent.test/app?key=k-secret", stream.WithHTTPClient(hc))
			return err
		},
		"FetchCard": func() error {
			_, err := agentcard.Fetch(context.Background(), "http://agent.test/app?key=k-secret", agentcard.WithHTTPClient(hc))
			return err
		},
	}
	for name, fetch := range fetches {
		t.Run(name, func(t *testing.T) {
			err := fetch()
			require.ErrorIs(t, err, reconnect.ErrCouldNotConnect)
			require.ErrorIs(t, err, syscall.ECONNREFUSED)
			var opErr *net.OpError
			require.ErrorAs(t, err, &opErr)
			require.Contains(t, err.Error(), "could not connect to http://agent.test/app/.well-known/agent-card.json?key=xxxxx")
			require.NotContains(t, err.Error(), "k-secret")
			var ce *agentcard.InvalidError
			require.False(t, errors.As(err, &ce), "a card that could not be fetched is not an invalid card")
		})
	}
}

func TestResolveOfAClosedPortSaysItCouldNotConnect(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now
	_, err = stream.Resolve(context.Background(), "http://"+addr+"/")
	require.ErrorIs(t, err, reconnect.ErrCouldNotConnect)
	require.ErrorIs(t, err, syscall.ECONNREFUSED)
	require.Contains(t, err.Error(), "could not connect to http://"+addr+"/.well-known/agent-card.json")
}

// The connect timeout counts from the moment net/http's Transport starts to
// get a connection (httptrace's GetConn), which the trace cannot tell apart
// from a dial through a custom DialContext: so a Transport that caps its
// connections to a host (MaxConnsPerHost) and queues a call until one is
// free has that wait cut by the connect timeout too, as WithConnectTimeout
// documents. Nothing of the call was sent.

func TestConnectTimeoutCountsAWaitForAPooledConnection(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						ww.sse()
						ww.event(snap(a2a.StateWorking))
						time.Sleep(30 * time.Second) // the agent works, in the bubble's time
						ww.event(snap(a2a.StateCompleted, "done"))
					},
					kindGet: func(ww *wireWriter, _ wireCall) {
						ww.task(snap(a2a.StateCompleted, "done"))
					},
				})
				p := &pipeServer{h: a}
				tr := &http.Transport{DialContext: p.dial, MaxConnsPerHost: 1}
				defer p.close()
				defer tr.CloseIdleConnections()
				c := a.clientOf(t, stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(w.v),
					stream.WithConnectTimeout(10*time.Second))
				s := c.Send(background(), hello())
				require.True(t, s.Next(), "the stream holds the one connection")
				done := make(chan error, 1)
				go func() { _, err := s.Wait(); done <- err }()
				var streamErr error
				defer func() { require.NoError(t, streamErr) }()
				defer func() { streamErr = <-done }() // whatever GetTask does

				start := time.Now()
				_, err := c.GetTask(background(), "t-1")
				require.ErrorIs(t, err, transport.ErrConnectTimeout)
				require.Equal(t, 10*time.Second, time.Since(start))
				require.Equal(t, 0, a.count(kindGet), "nothing of the call was sent")
			})
		})
	}
}
