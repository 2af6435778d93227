package stream_test

// Helpers that make what a test talks through: a stream.Client of an agent
// (on a wire, a binding, a keyed URL, ...), the http.Client or transport
// under it, and the contexts calls run in.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

var versions = []a2a.Version{a2a.V03, a2a.V10}

const endpoint = "http://agent.test/"

var bothBindings = []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON}

// newClient returns a JSON-RPC client of h (an a2atest agent or any
// handler) fixed to version v.
func newClient(t *testing.T, h http.Handler, v a2a.Version, opts ...stream.Option) *stream.Client {
	t.Helper()
	all := append([]stream.Option{stream.WithHTTPClient(a2atest.NewClient(h)), stream.WithVersion(v)}, opts...)
	c, err := stream.NewClient(endpoint, all...)
	require.NoError(t, err)
	return c
}

// restClient is a client of version v for h, over HTTP+JSON.
func restClient(t *testing.T, h http.Handler, v a2a.Version, opts ...stream.Option) *stream.Client {
	t.Helper()
	all := append([]stream.Option{stream.WithHTTPClient(a2atest.NewClient(h)), stream.WithVersion(v)}, opts...)
	c, err := stream.NewRESTClient("http://agent.test", all...)
	require.NoError(t, err)
	return c
}

// clientOn returns a client of agent in binding b, fixed to version v.
func clientOn(t *testing.T, agent *a2atest.Agent, v a2a.Version, b a2a.Binding, opts ...stream.Option) *stream.Client {
	t.Helper()
	return bindingClient(t, b, "http://agent.test", append([]stream.Option{stream.WithHTTPClient(agent.Client()), stream.WithVersion(v)}, opts...)...)
}

// resolveAgent resolves the client of an a2atest agent from its card.
func resolveAgent(t *testing.T, agent *a2atest.Agent, opts ...stream.Option) *stream.Client {
	t.Helper()
	all := append([]stream.Option{stream.WithHTTPClient(agent.Client())}, opts...)
	c, err := stream.Resolve(background(), "http://agent.test", all...)
	require.NoError(t, err)
	return c
}

// bindingClient returns a Client of binding b for the agent at base (a
// scheme and host): NewRESTClient under base, or NewClient for base+"/".
func bindingClient(t *testing.T, b a2a.Binding, base string, opts ...stream.Option) *stream.Client {
	t.Helper()
	var (
		c   *stream.Client
		err error
	)
	if b == a2a.BindingHTTPJSON {
		c, err = stream.NewRESTClient(base, opts...)
	} else {
		c, err = stream.NewClient(base+"/", opts...)
	}
	require.NoError(t, err)
	return c
}

// client returns a Client of the agent fixed to its version.
func (a *wireAgent) client(t *testing.T, opts ...stream.Option) *stream.Client {
	t.Helper()
	all := append([]stream.Option{stream.WithHTTPClient(a2atest.NewClient(a)), stream.WithVersion(a.v)}, opts...)
	return a.clientOf(t, all...)
}

// clientOf returns a Client of the agent's binding with opts only (a
// negotiating one unless opts fix the version).
func (a *wireAgent) clientOf(t *testing.T, opts ...stream.Option) *stream.Client {
	t.Helper()
	return bindingClient(t, a.b, "http://agent.test", opts...)
}

// clientAt returns a client of this wire on hc at base.
func (w wire) clientAt(t *testing.T, base string, hc *http.Client, opts ...stream.Option) *stream.Client {
	t.Helper()
	all := append([]stream.Option{stream.WithHTTPClient(hc), stream.WithVersion(w.v)}, opts...)
	var c *stream.Client
	var err error
	if w.b == a2a.BindingHTTPJSON {
		c, err = stream.NewRESTClient(base, all...)
	} else {
		c, err = stream.NewClient(base, all...)
	}
	require.NoError(t, err)
	return c
}

// client returns a client of this wire for h at http://agent.test/.
func (w wire) client(t *testing.T, h http.Handler, opts ...stream.Option) *stream.Client {
	t.Helper()
	return w.clientAt(t, "http://agent.test/", a2atest.NewClient(h), opts...)
}

// reconnectingClient is clientOn for wire w with a quick reconnect policy
// (3 attempts, 100 ms apart) and a 100 ms poll interval.
func reconnectingClient(t *testing.T, w wire, agent *a2atest.Agent, opts ...stream.Option) *stream.Client {
	t.Helper()
	all := append([]stream.Option{stream.WithHTTPClient(agent.Client()), stream.WithVersion(w.v),
		stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 100 * time.Millisecond}), stream.WithPollInterval(100 * time.Millisecond)}, opts...)
	return bindingClient(t, w.b, "http://agent.test", all...)
}

// negotiatingClient returns a Client of binding b for agent that negotiates
// the version (no WithVersion).
func negotiatingClient(t *testing.T, b a2a.Binding, hc *http.Client, opts ...stream.Option) *stream.Client {
	t.Helper()
	all := append([]stream.Option{stream.WithHTTPClient(hc), stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: time.Second}),
		stream.WithPollInterval(time.Second)}, opts...)
	var (
		c   *stream.Client
		err error
	)
	if b == a2a.BindingJSONRPC {
		c, err = stream.NewClient("http://agent.test/", all...)
	} else {
		c, err = stream.NewRESTClient("http://agent.test", all...)
	}
	require.NoError(t, err)
	return c
}

// keyedLoggedClient returns a Client of wire w for https://agent.test under a
// keyed URL (?code=, a URL password) with secret headers, logging to log.
func keyedLoggedClient(t *testing.T, w wire, hc *http.Client, log *logCapture, extra ...stream.Option) *stream.Client {
	t.Helper()
	opts := append([]stream.Option{stream.WithHTTPClient(hc), stream.WithVersion(w.v), stream.WithLogger(log.logger()),
		stream.WithHeader("Authorization", "Bearer service-secret"), stream.WithHeader("X-Api-Key", "key-secret"),
		stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: time.Second})}, extra...)
	var (
		c   *stream.Client
		err error
	)
	if w.b == a2a.BindingJSONRPC {
		c, err = stream.NewClient("https://user:pw-secret@agent.test/rpc?code=code-secret&lang=en", opts...)
	} else {
		c, err = stream.NewRESTClient("https://user:pw-secret@agent.test/api?code=code-secret&lang=en", opts...)
	}
	require.NoError(t, err)
	return c
}

// keyedAgentClient returns a Client of the agent under a keyed URL (a URL
// password, ?code=) with a secret Authorization header: credentials that
// must not reach the agent's callers.
func keyedAgentClient(t *testing.T, a *wireAgent) *stream.Client {
	t.Helper()
	opts := []stream.Option{stream.WithHTTPClient(a2atest.NewClient(a)), stream.WithVersion(a.v),
		stream.WithHeader("Authorization", "Bearer service-secret")}
	var (
		c   *stream.Client
		err error
	)
	if a.b == a2a.BindingHTTPJSON {
		c, err = stream.NewRESTClient("https://bot:pw-secret@downstream.test?code=code-secret", opts...)
	} else {
		c, err = stream.NewClient("https://bot:pw-secret@downstream.test/?code=code-secret", opts...)
	}
	require.NoError(t, err)
	return c
}

func background() context.Context { return context.Background() }

// bounded returns a context that ends after an hour of (fake) time, so that a
// stream that would wait forever ends with an error instead of deadlocking
// the bubble.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(background(), time.Hour)
	t.Cleanup(cancel)
	return ctx
}

// bodyTransport answers every request with the same SSE body.
type bodyTransport struct{ body []byte }

func (t bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(bytes.NewReader(t.body)), Request: r}, nil
}

// errReset is the error of a transport that fails a request.
var errReset = errors.New("connection reset by peer")

// resetTransport fails the requests fail picks (all when fail is nil) with
// errReset, and sends the others to next.
type resetTransport struct {
	next http.RoundTripper
	fail func(n int) bool
	n    int
}

func (f *resetTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	f.n++
	if f.fail == nil || f.fail(f.n) {
		return nil, errReset
	}
	return f.next.RoundTrip(r)
}

// failingTransport fails chosen requests before they reach the agent, the way
// a reset connection does.
type failingTransport struct {
	next http.RoundTripper
	fail func(n int, r *http.Request) bool
	n    int
}

func (f *failingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	f.n++
	if f.fail(f.n, r) {
		return nil, errors.New("connection reset by peer")
	}
	return f.next.RoundTrip(r)
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// headerSpy records the Authorization header of each request by host.
type headerSpy struct {
	next http.RoundTripper
	seen map[string][]string
}

func (h *headerSpy) RoundTrip(r *http.Request) (*http.Response, error) {
	h.seen[r.URL.Host] = append(h.seen[r.URL.Host], r.Header.Get("Authorization"))
	return h.next.RoundTrip(r)
}

// blackHole is a net/http Transport dial that never connects: it waits
// until its context ends, as a dial to a black-holed address does.
type blackHole struct{ n atomic.Int32 }

func (d *blackHole) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	d.n.Add(1)
	<-ctx.Done()
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: ctx.Err()}
}

// waitFake lets d pass on the bubble's fake clock.
func waitFake(d time.Duration) {
	if d > 0 {
		<-time.After(d)
	}
}

// funcBinding answers each call with its function; a call without one is
// refused as a method the agent does not have.
type funcBinding struct {
	sendStream func(ctx context.Context, call transport.Call, m *a2a.Message) (transport.EventReader, error)
	subscribe  func(ctx context.Context, call transport.Call, taskID string) (transport.EventReader, error)
	sendUnary  func(ctx context.Context, call transport.Call, m *a2a.Message) (a2a.Event, error)
	getTask    func(ctx context.Context, call transport.Call, taskID string) (*a2a.Task, error)
	cancel     func(ctx context.Context, call transport.Call, taskID string) (*a2a.Task, error)
}

func (b *funcBinding) SendStream(ctx context.Context, call transport.Call, m *a2a.Message) (transport.EventReader, error) {
	if b.sendStream == nil {
		return nil, errNoMethod
	}
	return b.sendStream(ctx, call, m)
}

func (b *funcBinding) Subscribe(ctx context.Context, call transport.Call, id string) (transport.EventReader, error) {
	if b.subscribe == nil {
		return nil, errNoMethod
	}
	return b.subscribe(ctx, call, id)
}

func (b *funcBinding) SendUnary(ctx context.Context, call transport.Call, m *a2a.Message) (a2a.Event, error) {
	if b.sendUnary == nil {
		return nil, errNoMethod
	}
	return b.sendUnary(ctx, call, m)
}

func (b *funcBinding) GetTask(ctx context.Context, call transport.Call, id string) (*a2a.Task, error) {
	if b.getTask == nil {
		return nil, errNoMethod
	}
	return b.getTask(ctx, call, id)
}

func (b *funcBinding) Cancel(ctx context.Context, call transport.Call, id string) (*a2a.Task, error) {
	if b.cancel == nil {
		return nil, errNoMethod
	}
	return b.cancel(ctx, call, id)
}

var errNoMethod = &a2a.RPCError{Code: a2a.CodeMethodNotFound, Message: "method not found"}
