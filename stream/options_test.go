package stream_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/credentials"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/push"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
	"github.com/a2astream/a2astream/transport"
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
		"poll interval below 1 ms":  stream.WithPollInterval(time.Millisecond - 1),
		"nil logger":                stream.WithLogger(nil),
		"negative backoff":          stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: -time.Second}),
		"unknown version":           stream.WithVersion("2.0"),
		"empty version":             stream.WithVersion(""),
		"unknown binding":           stream.WithBinding("GRPC"),
		"header name with a space":  stream.WithHeader("X Key", "v"),
		"header value with a break": stream.WithHeader("X-Key", "v\r\nX-Evil: 1"),
		"nil option":                nil,
		"nil human-input hook":      stream.WithHumanInput(nil),
		"nil human-input func":      stream.WithHumanInput(hitl.Func(nil)),
		"nil notify function":       stream.WithNotify(nil),
		"nil credentials hook":      stream.WithCredentials(nil),
		"nil credentials func":      stream.WithCredentials(credentials.Func(nil)),
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
		stream.WithPollInterval(time.Millisecond), stream.WithReconnect(reconnect.Policy{}),
		stream.WithReconnect(reconnect.Never()), stream.WithHeader("Authorization", "Bearer x"),
		stream.WithHTTPClient(&http.Client{}))
	require.NoError(t, err)
}

// A per-call option that is Client-wide (WithHTTPClient, WithVersion,
// WithBinding, WithCardCache), or bad, is refused with ErrInvalidOption by
// every call, Cancel included: a stream ends at once with the refusal, and
// nothing is sent.
func TestPerCallOptionsAreValidated(t *testing.T) {
	agent := a2atest.NewAgent()
	c := newClient(t, agent, a2a.V10)
	refused := map[string]stream.Option{
		"WithHTTPClient": stream.WithHTTPClient(&http.Client{}),
		"WithVersion":    stream.WithVersion(a2a.V03),
		"WithBinding":    stream.WithBinding(a2a.BindingHTTPJSON),
		"WithCardCache":  stream.WithCardCache(agentcard.NewCache()),
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
			_, err = c.Cancel(background(), "t-1", bad)
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.Empty(t, agent.Requests())
		})
	}
}

// A per-call option overrides the Client's for that stream only.
func TestPerCallOptionsOverrideTheClients(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(wirematrix.Asking()...))
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
		agent := a2atest.NewAgent(a2atest.WithScript(wirematrix.Asking()...))
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
		agent := a2atest.NewAgent(a2atest.WithScript(wirematrix.Paced()...), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
		c := newClient(t, agent, a2a.V10)
		_, err := drain(t, c.Send(background(), hello(), stream.WithReconnect(reconnect.Never())))
		require.ErrorAs(t, err, new(*reconnect.Error))

		agent = a2atest.NewAgent(a2atest.WithScript(wirematrix.Paced()...), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
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

// README: per call, an option "overrides the Client's for that call only: a
// user's token". A Client with a service token and a call with a user's
// token should send the user's token alone.
//
// DEFECT (fixed): a per-call WithHeader was added to the Client's header of
// the same name: every request carried both tokens, and
// Header.Get("Authorization") on the server read the Client's. A per-call
// header now replaces the Client's values of its name (callConfig).
func TestPerCallHeaderReplacesTheClients(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(wirematrix.Paced()...), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
		c := newClient(t, agent, a2a.V10, stream.WithHeader("Authorization", "Bearer service"))
		_, err := drain(t, c.Send(background(), hello(), stream.WithHeader("Authorization", "Bearer user-42")))
		require.NoError(t, err)
		for _, r := range agent.Requests() {
			require.Equal(t, []string{"Bearer user-42"}, r.Header.Values("Authorization"), "%s: the call's token only", r.Method)
		}
	})
}

// A human-input hook is handed a context; a hook that asks another agent
// (a second Client, with its own credentials) passes it on. The second
// Client's calls must carry its own headers, never the first stream's.
//
// DEFECT (fixed): the hook's context carried the stream's configuration,
// and Client.GetTask/Cancel without options took their configuration from
// the context, whichever Client made it. The hook now gets the caller's
// context, and a Client reads only a configuration it made itself:
// the other Client sends the first Client's Authorization header to the
// other agent, and not its own.
func TestHookContextDoesNotCarryOptionsToAnotherClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		other := a2atest.NewAgent()
		otherClient, err := stream.NewClient("http://other.test/", stream.WithHTTPClient(other.Client()),
			stream.WithVersion(a2a.V10), stream.WithHeader("Authorization", "Bearer other-agent"))
		require.NoError(t, err)
		done, err := otherClient.Send(background(), hello()).Wait()
		require.NoError(t, err)

		agent := a2atest.NewAgent(a2atest.WithScript(wirematrix.Asking()...))
		hook := hitl.Func(func(ctx context.Context, req *hitl.Request) ([]a2a.Part, error) {
			t, err := otherClient.GetTask(ctx, done.ID) // ask the other agent
			if err != nil {
				return nil, err
			}
			return hitl.Text("the other agent says " + string(t.Status.State)), nil
		})
		c := newClient(t, agent, a2a.V10, stream.WithHeader("Authorization", "Bearer first-agent-secret"))
		_, err = drain(t, c.Send(background(), hello(), stream.WithHumanInput(hook)))
		require.NoError(t, err)
		reqs := other.Requests()
		last := reqs[len(reqs)-1]
		require.Equal(t, "GetTask", last.Method)
		require.Equal(t, []string{"Bearer other-agent"}, last.Header.Values("Authorization"),
			"the other Client sends its own token, never the first stream's")
	})
}

// The next stream without per-call options uses the Client's again, for
// Subscribe and Cancel too.
func TestPerCallOptionsStayWithTheirCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Working("w"), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")))
		var clientNotices, callNotices int
		c := newClient(t, agent, a2a.V10, stream.WithHeader("X-Team", "travel"),
			stream.WithNotify(func(stream.Notice) { clientNotices++ }))
		first := c.Send(background(), hello())
		require.True(t, first.Next())
		id := first.Task().ID
		first.Close()

		n := len(agent.Requests())
		sub := c.Subscribe(background(), id, stream.WithHeader("X-User", "u1"),
			stream.WithNotify(func(stream.Notice) { callNotices++ }))
		require.True(t, sub.Next())
		sub.Close()
		_, err := c.Cancel(background(), id, stream.WithHeader("X-User", "u2"))
		require.NoError(t, err)
		_, err = c.GetTask(background(), id)
		require.NoError(t, err)
		reqs := agent.Requests()[n:]
		require.Len(t, reqs, 3)
		require.Equal(t, []string{"u1"}, reqs[0].Header.Values("X-User"))
		require.Equal(t, []string{"u2"}, reqs[1].Header.Values("X-User"))
		require.Empty(t, reqs[2].Header.Values("X-User"), "GetTask without options: the Client's headers only")
		for _, r := range reqs {
			require.Equal(t, []string{"travel"}, r.Header.Values("X-Team"))
		}
	})
}

// The README and Option's doc: WithHTTPClient, WithVersion, WithBinding and
// WithCardCache "are Client-wide and are refused per call".
//
// DEFECT (fixed): they were refused only when their value differed from
// the Client's: given the Client's own HTTP client, version or binding, or
// a nil card cache, per call, they were silently accepted. Client-wide
// options are now their own type, refused per call whatever their value.
func TestClientWideOptionsAreRefusedPerCallEvenWithTheClientsValue(t *testing.T) {
	agent := a2atest.NewAgent()
	hc := agent.Client()
	c, err := stream.NewClient(endpoint, stream.WithHTTPClient(hc), stream.WithVersion(a2a.V10))
	require.NoError(t, err)
	same := map[string]stream.Option{
		"WithHTTPClient": stream.WithHTTPClient(hc),
		"WithVersion":    stream.WithVersion(a2a.V10),
		"WithBinding":    stream.WithBinding(""),
		"WithCardCache":  stream.WithCardCache(nil),
	}
	for name, o := range same {
		t.Run(name, func(t *testing.T) {
			_, err := c.GetTask(background(), "t-1", o)
			require.ErrorIs(t, err, stream.ErrInvalidOption, "%s is Client-wide: refused per call", name)
		})
	}
}

// Concurrent streams of one Client, each with its own per-call header, hook
// and notify function, all cut once: no option reaches another stream.
func TestConcurrentPerCallOptionsDoNotMix(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(wirematrix.Asking()...), a2atest.WithStyle(a2atest.FullReplay),
			a2atest.WithFaults(a2atest.CutAfterEvents(2), a2atest.CutAfterEvents(2), a2atest.CutAfterEvents(2), a2atest.CutAfterEvents(2),
				a2atest.CutAfterEvents(2), a2atest.CutAfterEvents(2), a2atest.CutAfterEvents(2), a2atest.CutAfterEvents(2)))
		c := newClient(t, agent, a2a.V10, stream.WithHeader("X-Team", "travel"),
			stream.WithReconnect(reconnect.Policy{Backoff: time.Second}))
		const n = 8
		taskOf := make([]string, n)
		notices := make([]int, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				user := fmt.Sprintf("user-%d", i)
				hook := hitl.Func(func(ctx context.Context, req *hitl.Request) ([]a2a.Part, error) {
					return hitl.Text("answer of " + user), nil
				})
				s := c.Send(background(), a2a.NewTextMessage(a2a.RoleUser, "hello from "+user), stream.WithHeader("X-User", user),
					stream.WithHumanInput(hook), stream.WithNotify(func(stream.Notice) { notices[i]++ }))
				task, err := s.Wait()
				errs[i] = err
				if task != nil {
					taskOf[i] = task.ID
				}
			}()
		}
		wg.Wait()
		for i := range n {
			require.NoError(t, errs[i])
			require.NotEmpty(t, taskOf[i])
		}
		user := map[string]string{} // task ID -> user
		for i, id := range taskOf {
			user[id] = fmt.Sprintf("user-%d", i)
		}
		for _, r := range agent.Requests() {
			require.Equal(t, []string{"travel"}, r.Header.Values("X-Team"))
			vals := r.Header.Values("X-User")
			require.Len(t, vals, 1)
			if r.TaskID != "" {
				require.Equal(t, user[r.TaskID], vals[0], "%s of task %s", r.Method, r.TaskID)
			}
			if r.Message != nil {
				require.Contains(t, r.Message.Text(), vals[0], "the message of %s goes with its header", vals[0])
			}
		}
		for i := range n {
			require.NotZero(t, notices[i], "stream %d was told of its own reconnect", i)
		}
	})
}

// The entry points that take Options, named as a refusal names them.
const (
	atNewClient     = "NewClient"
	atNewRESTClient = "NewRESTClient"
	atResolve       = "Resolve"
	atNewClientFor  = "NewClientFor"
	atSend          = "Send"
	atSubscribe     = "Subscribe"
	atResume        = "Resume"
	atGetTask       = "GetTask"
	atCancel        = "Cancel"
	atSendFor       = "Send of a Client of NewClientFor"
	atSubscribeFor  = "Subscribe of a Client of NewClientFor"
	atResumeFor     = "Resume of a Client of NewClientFor"
	atGetTaskFor    = "GetTask of a Client of NewClientFor"
	atCancelFor     = "Cancel of a Client of NewClientFor"
)

// scopedOption is an option with a good value and the entry points where
// it applies: everywhere else it is refused.
type scopedOption struct {
	name    string
	option  stream.Option
	applies []string
}

// scopedOptions is every option of the package, with where it applies.
func scopedOptions(t *testing.T, hc *http.Client) []scopedOption {
	t.Helper()
	httpConstructors := []string{atNewClient, atNewRESTClient, atResolve}
	constructors := append(slices.Clone(httpConstructors), atNewClientFor)
	streams := []string{atSend, atSubscribe, atResume, atSendFor, atSubscribeFor, atResumeFor}
	httpCalls := []string{atSend, atSubscribe, atResume, atGetTask, atCancel}
	everywhere := slices.Concat(constructors, httpCalls, []string{atSendFor, atSubscribeFor, atResumeFor, atGetTaskFor, atCancelFor})
	driver := slices.Concat(constructors, streams)
	recv, err := push.NewReceiver("http://127.0.0.1:8080/hooks/a2a")
	require.NoError(t, err)
	return []scopedOption{
		{"WithHTTPClient", stream.WithHTTPClient(hc), httpConstructors},
		{"WithVersion", stream.WithVersion(a2a.V10), constructors},
		{"WithTrustedOrigins", stream.WithTrustedOrigins("http://other.test"), httpConstructors},
		{"WithBreaker", stream.WithBreaker(allowAll{}), httpConstructors},
		{"WithBinding", stream.WithBinding(a2a.BindingJSONRPC), []string{atResolve}},
		{"WithCardCache", stream.WithCardCache(agentcard.NewCache()), []string{atResolve}},
		{"WithExtendedCard", stream.WithExtendedCard(), []string{atResolve}},
		{"WithHeader", stream.WithHeader("X-Team", "travel"), everywhere},
		{"WithMaxEventSize", stream.WithMaxEventSize(1 << 20), slices.Concat(httpConstructors, httpCalls)},
		{"WithConnectTimeout", stream.WithConnectTimeout(time.Second), slices.Concat(httpConstructors, httpCalls)},
		{"WithIdleTimeout", stream.WithIdleTimeout(time.Minute), slices.Concat(driver, []string{atGetTask, atCancel})},
		{"WithLogger", stream.WithLogger(slog.New(slog.DiscardHandler)), slices.Concat(driver, []string{atGetTask, atCancel})},
		{"WithReconnect", stream.WithReconnect(reconnect.Never()), driver},
		{"WithPollInterval", stream.WithPollInterval(time.Second), driver},
		{"WithStallTimeout", stream.WithStallTimeout(time.Minute), driver},
		{"WithIdempotentSends", stream.WithIdempotentSends(), driver},
		{"WithHumanInput", stream.WithHumanInput(hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) { return hitl.Text("yes"), nil })), driver},
		{"WithInputTimeout", stream.WithInputTimeout(time.Minute), driver},
		{"WithCheckpointBeforeReply", stream.WithCheckpointBeforeReply(func(context.Context, *stream.Checkpoint) error { return nil }), driver},
		{"WithNotify", stream.WithNotify(func(stream.Notice) {}), driver},
		{"WithCredentials", stream.WithCredentials(credentials.Func(func(context.Context, *credentials.Request) (http.Header, error) { return nil, nil })), driver},
		{"WithFailureReader", stream.WithFailureReader(terminal.ReadStructured), driver},
		{"WithPush", stream.WithPush(recv), driver},
		{"WithPushPollInterval", stream.WithPushPollInterval(time.Minute), driver},
		{"WithTrace", stream.WithTrace(&stream.Trace{}), driver},
	}
}

// allowAll is a Breaker that lets every request through.
type allowAll struct{}

func (allowAll) Allow() (func(error), error) { return func(error) {}, nil }

// countingBinding is a Transport of another module that counts its calls and
// answers each with method-not-found.
type countingBinding struct{ calls *atomic.Int64 }

func (b countingBinding) SendStream(context.Context, transport.Call, *a2a.Message) (transport.EventReader, error) {
	b.calls.Add(1)
	return nil, errNoMethod
}

func (b countingBinding) SendUnary(context.Context, transport.Call, *a2a.Message) (a2a.Event, error) {
	b.calls.Add(1)
	return nil, errNoMethod
}

func (b countingBinding) Subscribe(context.Context, transport.Call, string) (transport.EventReader, error) {
	b.calls.Add(1)
	return nil, errNoMethod
}

func (b countingBinding) GetTask(context.Context, transport.Call, string) (*a2a.Task, error) {
	b.calls.Add(1)
	return nil, errNoMethod
}

func (b countingBinding) Cancel(context.Context, transport.Call, string) (*a2a.Task, error) {
	b.calls.Add(1)
	return nil, errNoMethod
}

// Every option is refused, with ErrInvalidOption naming the option and the
// entry point, wherever it does not apply (a constructor, Resolve, or a
// call of either kind of Client), before anything is sent;
// where it applies it is accepted.
func TestOptionsAreRefusedWhereTheyDoNotApply(t *testing.T) {
	var sent atomic.Int64 // requests and calls of a binding, all entry points together
	hc := &http.Client{Transport: a2atest.NewTransport(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.Add(1)
		http.NotFound(w, r)
	}))}
	client, err := stream.NewClient(endpoint, stream.WithHTTPClient(hc), stream.WithVersion(a2a.V10))
	require.NoError(t, err)
	foreign, err := stream.NewClientFor(countingBinding{&sent}, stream.WithVersion(a2a.V10))
	require.NoError(t, err)
	ctx := background()
	streamErr := func(s *stream.Stream) error { // its refusal, without reading it
		defer s.Close()
		return s.Err()
	}
	entries := map[string]func(stream.Option) error{
		atNewClient: func(o stream.Option) error { _, err := stream.NewClient(endpoint, o); return err },
		atNewRESTClient: func(o stream.Option) error {
			_, err := stream.NewRESTClient(endpoint, o)
			return err
		},
		atResolve: func(o stream.Option) error {
			_, err := stream.Resolve(ctx, endpoint, stream.WithHTTPClient(hc), o)
			return err
		},
		atNewClientFor: func(o stream.Option) error {
			_, err := stream.NewClientFor(countingBinding{&sent}, o)
			return err
		},
		atSend:         func(o stream.Option) error { return streamErr(client.Send(ctx, hello(), o)) },
		atSubscribe:    func(o stream.Option) error { return streamErr(client.Subscribe(ctx, "t-1", o)) },
		atResume:       func(o stream.Option) error { return streamErr(client.Resume(ctx, nil, o)) },
		atGetTask:      func(o stream.Option) error { _, err := client.GetTask(ctx, "t-1", o); return err },
		atCancel:       func(o stream.Option) error { _, err := client.Cancel(ctx, "t-1", o); return err },
		atSendFor:      func(o stream.Option) error { return streamErr(foreign.Send(ctx, hello(), o)) },
		atSubscribeFor: func(o stream.Option) error { return streamErr(foreign.Subscribe(ctx, "t-1", o)) },
		atResumeFor:    func(o stream.Option) error { return streamErr(foreign.Resume(ctx, nil, o)) },
		atGetTaskFor:   func(o stream.Option) error { _, err := foreign.GetTask(ctx, "t-1", o); return err },
		atCancelFor:    func(o stream.Option) error { _, err := foreign.Cancel(ctx, "t-1", o); return err },
	}
	for _, so := range scopedOptions(t, hc) {
		for at, run := range entries {
			t.Run(so.name+" to "+at, func(t *testing.T) {
				before := sent.Load()
				err := run(so.option)
				if slices.Contains(so.applies, at) {
					require.NotErrorIs(t, err, stream.ErrInvalidOption, "%s applies to %s", so.name, at)
					return
				}
				require.ErrorIs(t, err, stream.ErrInvalidOption, "%s does not apply to %s", so.name, at)
				require.Contains(t, err.Error(), so.name+" does not apply to "+at)
				require.NotContains(t, err.Error(), "places", "the refusal says where %s applies", so.name)
				require.Equal(t, before, sent.Load(), "nothing sent")
			})
		}
	}
}
