package stream_test

import (
	"context"
	"net/http"
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

// badOptions are refused by every constructor, each on its own.
func badOptions() map[string]stream.Option {
	return map[string]stream.Option{
		"nil HTTP client":           stream.WithHTTPClient(nil),
		"HTTP client with Timeout":  stream.WithHTTPClient(&http.Client{Timeout: time.Minute}),
		"zero max event size":       stream.WithMaxEventSize(0),
		"negative max event size":   stream.WithMaxEventSize(-1),
		"negative idle timeout":     stream.WithIdleTimeout(-time.Second),
		"negative input timeout":    stream.WithInputTimeout(-time.Second),
		"negative stall timeout":    stream.WithStallTimeout(-time.Second),
		"zero poll interval":        stream.WithPollInterval(0),
		"nil logger":                stream.WithLogger(nil),
		"negative backoff":          stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: -time.Second}),
		"unknown version":           stream.WithVersion("2.0"),
		"unknown binding":           stream.WithBinding("GRPC"),
		"header name with a space":  stream.WithHeader("X Key", "v"),
		"header value with a break": stream.WithHeader("X-Key", "v\r\nX-Evil: 1"),
		"nil option":                nil,
		"nil human-input hook":      stream.WithHumanInput(nil),
		"nil human-input func":      stream.WithHumanInput(hitl.Func(nil)),
		"nil notify function":       stream.WithNotify(nil),
		"nil credentials hook":      stream.WithCredentials(nil),
		"nil credentials func":      stream.WithCredentials(stream.CredentialsFunc(nil)),
	}
}

func TestOptionsAreValidatedByEveryConstructor(t *testing.T) {
	var requests int
	count := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { requests++ })
	hc := &http.Client{Transport: a2atest.NewTransport(count)}
	for name, bad := range badOptions() {
		t.Run(name, func(t *testing.T) {
			_, err := stream.NewClient("http://agent.test/", bad)
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			_, err = stream.NewRESTClient("http://agent.test/", bad)
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			opts := []stream.Option{bad}
			if name != "nil HTTP client" && name != "HTTP client with Timeout" {
				opts = []stream.Option{stream.WithHTTPClient(hc), bad}
			}
			_, err = stream.Resolve(context.Background(), "http://agent.test/", opts...)
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.Zero(t, requests, "Resolve refused the options before fetching the card")
		})
	}
	_, err := stream.NewClient("http://agent.test/", stream.WithMaxEventSize(0), stream.WithLogger(nil))
	require.ErrorIs(t, err, stream.ErrInvalidOption)
	require.Contains(t, err.Error(), "WithMaxEventSize")
	require.Contains(t, err.Error(), "WithLogger", "every refused option is named")
}

func TestGoodOptionsAreAccepted(t *testing.T) {
	_, err := stream.NewClient("http://agent.test/",
		stream.WithIdleTimeout(0), stream.WithStallTimeout(0), stream.WithInputTimeout(0),
		stream.WithPollInterval(time.Nanosecond), stream.WithReconnect(reconnect.Policy{}),
		stream.WithReconnect(reconnect.Never()), stream.WithHeader("Authorization", "Bearer x"),
		stream.WithHTTPClient(&http.Client{}))
	require.NoError(t, err)
}

// A per-call option that is Client-wide, or bad, ends that stream at once
// with the refusal, and nothing is sent.
func TestPerCallOptionsAreValidated(t *testing.T) {
	agent := a2atest.NewAgent()
	c := newClient(t, agent, a2a.V10)
	refused := map[string]stream.Option{
		"WithHTTPClient": stream.WithHTTPClient(&http.Client{}),
		"WithVersion":    stream.WithVersion(a2a.V03),
		"WithBinding":    stream.WithBinding(a2a.BindingHTTPJSON),
	}
	for name, bad := range badOptions() {
		refused[name] = bad
	}
	for name, bad := range refused {
		t.Run(name, func(t *testing.T) {
			_, err := drain(t, c.Send(background(), hello(), bad))
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			_, err = drain(t, c.Subscribe(background(), "t-1", bad))
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			_, err = c.GetTask(background(), "t-1", bad)
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.Empty(t, agent.Requests())
		})
	}
}

// A per-call option overrides the Client's for that stream only.
func TestPerCallOptionsOverrideTheClients(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(asking()...))
		var clientAsked, callAsked int
		clientHook := hitl.Func(func(ctx context.Context, req *hitl.Request) ([]a2a.Part, error) {
			clientAsked++
			return hitl.Text("from the client's hook"), nil
		})
		callHook := hitl.Func(func(ctx context.Context, req *hitl.Request) ([]a2a.Part, error) {
			callAsked++
			return hitl.Text("from the call's hook"), nil
		})
		var notices []stream.Notice
		c := newClient(t, agent, a2a.V10, stream.WithHumanInput(clientHook), stream.WithHeader("X-Tenant", "acme"))

		s := c.Send(background(), hello(), stream.WithHumanInput(callHook), stream.WithHeader("Authorization", "Bearer call"),
			stream.WithNotify(func(n stream.Notice) { notices = append(notices, n) }))
		_, err := drain(t, s)
		require.NoError(t, err)
		require.Equal(t, 1, callAsked)
		require.Zero(t, clientAsked)
		for _, r := range agent.Requests() {
			require.Equal(t, "Bearer call", r.Header.Get("Authorization"))
			require.Equal(t, "acme", r.Header.Get("X-Tenant"), "the Client's header stays")
		}
		n := len(agent.Requests())

		_, err = drain(t, c.Send(background(), hello()))
		require.NoError(t, err)
		require.Equal(t, 1, clientAsked, "the next stream has the Client's hook again")
		for _, r := range agent.Requests()[n:] {
			require.Empty(t, r.Header.Get("Authorization"), "the per-call header stayed with its call")
		}
		_, err = c.GetTask(background(), s.Task().ID, stream.WithHeader("Authorization", "Bearer get"))
		require.NoError(t, err)
		reqs := agent.Requests()
		require.Equal(t, "Bearer get", reqs[len(reqs)-1].Header.Get("Authorization"))
	})
}

// A stream's per-call options are for its own calls. The hook gets the
// caller's context, so the Client's own GetTask from the hook sends the
// Client's headers; and a context that carries a stream's options (here
// taken from a request by the transport, as middleware could) makes no
// other Client send them.
func TestPerCallOptionsStayWithTheirStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(asking()...))
		var c *stream.Client
		var hookSaw string
		hook := hitl.Func(func(ctx context.Context, req *hitl.Request) ([]a2a.Part, error) {
			if _, err := c.GetTask(ctx, req.Task.ID); err != nil {
				return nil, err
			}
			reqs := agent.Requests()
			hookSaw = reqs[len(reqs)-1].Header.Get("Authorization")
			return hitl.Text("yes"), nil
		})
		var leaked context.Context
		capture := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if leaked == nil {
				leaked = r.Context()
			}
			return agent.Client().Transport.RoundTrip(r)
		})}
		var err error
		c, err = stream.NewClient("http://agent.test/", stream.WithHTTPClient(capture), stream.WithVersion(a2a.V10),
			stream.WithHeader("Authorization", "Bearer service"))
		require.NoError(t, err)
		_, err = drain(t, c.Send(background(), hello(), stream.WithHumanInput(hook), stream.WithHeader("Authorization", "Bearer user")))
		require.NoError(t, err)
		require.Equal(t, "Bearer service", hookSaw, "the hook's calls are not the stream's")

		other := a2atest.NewAgent()
		done, err := newClient(t, other, a2a.V10).Send(background(), hello()).Wait()
		require.NoError(t, err)
		oc, err := stream.NewClient("http://other.test/", stream.WithHTTPClient(other.Client()), stream.WithVersion(a2a.V10),
			stream.WithHeader("Authorization", "Bearer other"))
		require.NoError(t, err)
		require.NotNil(t, leaked)
		_, err = oc.GetTask(context.WithoutCancel(leaked), done.ID)
		require.NoError(t, err)
		reqs := other.Requests()
		require.Equal(t, []string{"Bearer other"}, reqs[len(reqs)-1].Header.Values("Authorization"))
	})
}

// A per-call reconnect policy and notify function: the stream reconnects
// as the call says and tells the call's function.
func TestPerCallReconnectPolicy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(paced()...), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
		c := newClient(t, agent, a2a.V10)
		_, err := drain(t, c.Send(background(), hello(), stream.WithReconnect(reconnect.Never())))
		require.ErrorAs(t, err, new(*reconnect.Error))

		agent = a2atest.NewAgent(a2atest.WithScript(paced()...), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
		c = newClient(t, agent, a2a.V10, stream.WithReconnect(reconnect.Never()))
		var notices []stream.Notice
		start := time.Now()
		_, err = drain(t, c.Send(background(), hello(), stream.WithReconnect(reconnect.Policy{Backoff: 2 * time.Second}),
			stream.WithNotify(func(n stream.Notice) { notices = append(notices, n) })))
		require.NoError(t, err)
		require.Equal(t, stream.Reconnecting, notices[0].Kind)
		require.Equal(t, 2*time.Second, notices[0].Wait)
		require.Equal(t, 3, notices[0].MaxAttempts, "zero MaxAttempts is the default")
		require.GreaterOrEqual(t, time.Since(start), 2*time.Second)
	})
}

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
