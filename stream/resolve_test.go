package stream_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

func TestResolve(t *testing.T) {
	cases := []struct {
		name     string
		versions []a2a.Version
		want     a2a.Version
	}{
		{"0.3 card", []a2a.Version{a2a.V03}, a2a.V03},
		{"1.0 card", []a2a.Version{a2a.V10}, a2a.V10},
		{"hybrid card", []a2a.Version{a2a.V03, a2a.V10}, a2a.V10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(c.versions...))
				client, err := stream.Resolve(background(), "http://agent.test", stream.WithHTTPClient(agent.Client()))
				require.NoError(t, err)
				require.Equal(t, c.want, client.Version())
				require.Equal(t, "http://agent.test/", client.Endpoint())
				_, err = drain(t, client.Send(background(), hello()))
				require.NoError(t, err)
				require.Len(t, agent.Requests(), 1, "no negotiation round trip once the card told the version")
				require.Equal(t, 1, agent.CardRequests())
			})
		})
	}
}

func TestResolveRespectsAFixedVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03, a2a.V10))
		client, err := stream.Resolve(background(), "http://agent.test", stream.WithHTTPClient(agent.Client()), stream.WithVersion(a2a.V03))
		require.NoError(t, err)
		require.Equal(t, a2a.V03, client.Version())
		_, err = drain(t, client.Send(background(), hello()))
		require.NoError(t, err)
		require.Equal(t, "message/stream", agent.Requests()[0].Method)
	})
}

func TestResolveCopiesTheTenant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithTenant("acme"), a2atest.WithScript(wirematrix.Paced()...),
			a2atest.WithStyle(a2atest.LiveOnly), a2atest.WithFaults(a2atest.CutAfterEvents(wirematrix.PacedEvents-1)))
		client, err := stream.Resolve(background(), "http://agent.test/", stream.WithHTTPClient(agent.Client()))
		require.NoError(t, err)
		_, err = drain(t, client.Send(background(), hello()))
		require.NoError(t, err)
		reqs := agent.Requests()
		require.Len(t, reqs, 3, "send, subscribe, get")
		for _, r := range reqs {
			require.Equal(t, "acme", r.Tenant, "%s carries the tenant", r.Method)
		}
	})
}

func TestResolveFallsBackToTheLegacyPath(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03), a2atest.WithoutWellKnownCard())
		client, err := stream.Resolve(background(), "http://agent.test", stream.WithHTTPClient(agent.Client()))
		require.NoError(t, err)
		require.Equal(t, a2a.V03, client.Version())
		require.Equal(t, 1, agent.CardRequests(), "served once, from the legacy path")
	})
}

func TestResolvePicksABinding(t *testing.T) {
	hybrid := `{"name":"x","supportedInterfaces":[` +
		`{"url":"http://agent.test/rest","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"},` +
		`{"url":"http://agent.test/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`
	cases := []struct {
		name, card string
		opts       []stream.Option
		binding    a2a.Binding
		endpoint   string
		version    a2a.Version
	}{
		{"0.3 over REST", `{"name":"x","url":"http://agent.test/r","preferredTransport":"HTTP+JSON","protocolVersion":"0.3.0"}`,
			nil, a2a.BindingHTTPJSON, "http://agent.test/r", a2a.V03},
		{"0.3 REST in additionalInterfaces", `{"name":"x","url":"http://agent.test/g","preferredTransport":"GRPC","protocolVersion":"0.3.0",` +
			`"additionalInterfaces":[{"url":"http://agent.test/r","transport":"HTTP+JSON"}]}`, nil, a2a.BindingHTTPJSON, "http://agent.test/r", a2a.V03},
		{"JSON-RPC preferred over an earlier REST entry", hybrid, nil, a2a.BindingJSONRPC, "http://agent.test/rpc", a2a.V10},
		{"WithBinding puts REST first", hybrid, []stream.Option{stream.WithBinding(a2a.BindingHTTPJSON)}, a2a.BindingHTTPJSON, "http://agent.test/rest", a2a.V10},
		{"REST spelled REST", `{"name":"x","supportedInterfaces":[{"url":"http://agent.test/rest","protocolBinding":"rest","protocolVersion":"1.0"}]}`,
			nil, a2a.BindingHTTPJSON, "http://agent.test/rest", a2a.V10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithCardJSON([]byte(c.card)))
				opts := append([]stream.Option{stream.WithHTTPClient(agent.Client())}, c.opts...)
				client, err := stream.Resolve(background(), "http://agent.test", opts...)
				require.NoError(t, err)
				require.Equal(t, c.binding, client.Binding())
				require.Equal(t, c.endpoint, client.Endpoint())
				require.Equal(t, c.version, client.Version())
			})
		})
	}
}

func TestResolveTakesTheURLOfACard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// A card served only under an agent's own path, with no
		// protocolVersion and no preferredTransport: 0.3 JSON-RPC at its url.
		card := `{"name":"x","url":"http://agent.test/agents/a7/rpc"}`
		mux := http.NewServeMux()
		mux.HandleFunc("/.well-known/a7/agent-card.json", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, card)
		})
		client, err := stream.Resolve(background(), "http://agent.test/.well-known/a7/agent-card.json",
			stream.WithHTTPClient(a2atest.NewClient(mux)))
		require.NoError(t, err)
		require.Equal(t, "http://agent.test/agents/a7/rpc", client.Endpoint())
		require.Equal(t, a2a.V03, client.Version())
		require.Equal(t, a2a.BindingJSONRPC, client.Binding())
	})
}

func TestResolveInvalidCards(t *testing.T) {
	cards := map[string]string{
		"no interface":        `{"name":"x","capabilities":{}}`,
		"grpc only":           `{"name":"x","supportedInterfaces":[{"url":"http://agent.test/","protocolBinding":"GRPC","protocolVersion":"1.0"}]}`,
		"unsupported version": `{"name":"x","supportedInterfaces":[{"url":"http://agent.test/","protocolBinding":"JSONRPC","protocolVersion":"2.0"}]}`,
		"malformed":           `{"name":`,
	}
	for name, card := range cards {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithCardJSON([]byte(card)))
				_, err := stream.Resolve(background(), "http://agent.test", stream.WithHTTPClient(agent.Client()))
				var ice *agentcard.InvalidError
				require.ErrorAs(t, err, &ice)
				require.Equal(t, "http://agent.test/.well-known/agent-card.json", ice.URL)
			})
		})
	}
}

func TestResolvePicksAnAdditionalJSONRPCInterface(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		card := `{"name":"x","url":"http://agent.test/grpc","preferredTransport":"GRPC","protocolVersion":"0.3.0",
			"additionalInterfaces":[{"url":"http://agent.test/rpc","transport":"JSONRPC"}]}`
		agent := a2atest.NewAgent(a2atest.WithCardJSON([]byte(card)))
		client, err := stream.Resolve(background(), "http://agent.test", stream.WithHTTPClient(agent.Client()))
		require.NoError(t, err)
		require.Equal(t, "http://agent.test/rpc", client.Endpoint())
		require.Equal(t, a2a.V03, client.Version())
	})
}

func TestNewClientRejectsBadInput(t *testing.T) {
	for _, ep := range []string{"", "agent.test", "ftp://agent.test/", "http://"} {
		_, err := stream.NewClient(ep)
		require.ErrorIs(t, err, stream.ErrInvalidOption, fmt.Sprintf("endpoint %q", ep))
	}
	_, err := stream.NewClient(endpoint, stream.WithVersion("2.0"))
	require.ErrorIs(t, err, stream.ErrInvalidOption)
	_, err = stream.Resolve(background(), "not a url")
	require.ErrorIs(t, err, stream.ErrInvalidOption)

	c, err := stream.NewClient(endpoint)
	require.NoError(t, err)
	_, err = c.Send(background(), nil).Wait()
	require.ErrorIs(t, err, transport.ErrInvalidMessage)
	_, err = c.Send(background(), &a2a.Message{}).Wait()
	require.ErrorIs(t, err, transport.ErrInvalidMessage)
	_, err = c.Subscribe(background(), "").Wait()
	require.ErrorIs(t, err, stream.ErrInvalidOption)
}

// README: Resolve "considers every interface of a binding and version this
// module speaks ... It takes the first JSON-RPC one, else the first
// HTTP+JSON one, in the card's order. stream.WithBinding(a2a.BindingHTTPJSON)
// puts REST first; stream.WithVersion keeps only that version."
func TestResolvePicksTheInterfaceInTheCardsOrder(t *testing.T) {
	cases := []struct {
		name     string
		card     string
		opts     []stream.Option
		binding  a2a.Binding
		endpoint string
		version  a2a.Version
	}{
		{"unknown bindings and versions first",
			`{"name":"x","supportedInterfaces":[` +
				`{"url":"http://agent.test/g","protocolBinding":"GRPC","protocolVersion":"1.0"},` +
				`{"url":"http://agent.test/f","protocolBinding":"FOO","protocolVersion":"1.0"},` +
				`{"url":"http://agent.test/j2","protocolBinding":"JSONRPC","protocolVersion":"2.0"},` +
				`{"url":"http://agent.test/r","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}]}`,
			nil, a2a.BindingHTTPJSON, "http://agent.test/r", a2a.V10},
		{"duplicates: the first wins",
			`{"name":"x","supportedInterfaces":[` +
				`{"url":"http://agent.test/r1","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"},` +
				`{"url":"http://agent.test/r2","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"},` +
				`{"url":"http://agent.test/j1","protocolBinding":"JSONRPC","protocolVersion":"1.0"},` +
				`{"url":"http://agent.test/j2","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`,
			nil, a2a.BindingJSONRPC, "http://agent.test/j1", a2a.V10},
		{"REST preferred, but only JSON-RPC in the version asked",
			`{"name":"x","supportedInterfaces":[` +
				`{"url":"http://agent.test/r","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"},` +
				`{"url":"http://agent.test/j","protocolBinding":"JSONRPC","protocolVersion":"0.3"}]}`,
			[]stream.Option{stream.WithBinding(a2a.BindingHTTPJSON), stream.WithVersion(a2a.V03)}, a2a.BindingJSONRPC, "http://agent.test/j", a2a.V03},
		{"0.3 card: REST in url, JSON-RPC in additionalInterfaces",
			`{"name":"x","url":"http://agent.test/r","preferredTransport":"HTTP+JSON","protocolVersion":"0.3.0",` +
				`"additionalInterfaces":[{"url":"http://agent.test/r","transport":"HTTP+JSON"},{"url":"http://agent.test/j","transport":"JSONRPC"}]}`,
			nil, a2a.BindingJSONRPC, "http://agent.test/j", a2a.V03},
		{"0.3 card: WithBinding REST",
			`{"name":"x","url":"http://agent.test/j","preferredTransport":"JSONRPC","protocolVersion":"0.3.0",` +
				`"additionalInterfaces":[{"url":"http://agent.test/j","transport":"JSONRPC"},{"url":"http://agent.test/r","transport":"HTTP+JSON"}]}`,
			[]stream.Option{stream.WithBinding(a2a.BindingHTTPJSON)}, a2a.BindingHTTPJSON, "http://agent.test/r", a2a.V03},
		{"hybrid card, REST in 0.3 asked",
			`{"name":"x","supportedInterfaces":[` +
				`{"url":"http://agent.test/j","protocolBinding":"JSONRPC","protocolVersion":"1.0"},` +
				`{"url":"http://agent.test/r","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}],` +
				`"url":"http://agent.test/j","preferredTransport":"JSONRPC","protocolVersion":"0.3.0",` +
				`"additionalInterfaces":[{"url":"http://agent.test/r03","transport":"HTTP+JSON"}]}`,
			[]stream.Option{stream.WithBinding(a2a.BindingHTTPJSON), stream.WithVersion(a2a.V03)}, a2a.BindingHTTPJSON, "http://agent.test/r03", a2a.V03},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithCardJSON([]byte(c.card)))
				client, err := stream.Resolve(background(), "http://agent.test", append([]stream.Option{stream.WithHTTPClient(agent.Client())}, c.opts...)...)
				require.NoError(t, err)
				require.Equal(t, c.binding, client.Binding())
				require.Equal(t, c.endpoint, client.Endpoint())
				require.Equal(t, c.version, client.Version())
			})
		})
	}
}

// A card whose interface URL is relative, or has no host, or another
// scheme: Resolve either makes it absolute against the card's URL or
// refuses the card with an *InvalidCardError; a Client must never be made
// for an endpoint it cannot reach.
func TestResolveMakesRelativeInterfaceURLsAbsolute(t *testing.T) {
	for _, u := range []string{"/rest", "rest", "", "//other.test/rest"} {
		for _, b := range []string{"HTTP+JSON", "JSONRPC"} {
			t.Run(b+"/"+u, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					card := fmt.Sprintf(`{"name":"x","supportedInterfaces":[{"url":%q,"protocolBinding":%q,"protocolVersion":"1.0"}]}`, u, b)
					agent := a2atest.NewAgent(a2atest.WithCardJSON([]byte(card)))
					client, err := stream.Resolve(background(), "http://agent.test", stream.WithHTTPClient(agent.Client()))
					if err != nil {
						var ic *agentcard.InvalidError
						require.ErrorAs(t, err, &ic)
						return
					}
					ep := client.Endpoint()
					require.True(t, strings.HasPrefix(ep, "http://agent.test/") || strings.HasPrefix(ep, "http://other.test/"),
						"an absolute http(s) endpoint, got %q", ep)
				})
			})
		}
	}
}

// A hybrid a2atest agent serving both versions over both bindings, REST
// first in its card: each (binding, version) picked by the options works
// end to end, cut and healed, the message sent once.
func TestResolveOfAHybridAgentWorksForEveryChoice(t *testing.T) {
	for _, b := range []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		for _, v := range versions {
			t.Run(string(b)+"/"+string(v), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03, a2a.V10),
						a2atest.WithBindings(a2a.BindingHTTPJSON, a2a.BindingJSONRPC), a2atest.WithRESTBase("/rest"),
						a2atest.WithScript(wirematrix.Paced()...), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
					c := resolveAgent(t, agent, stream.WithBinding(b), stream.WithVersion(v))
					require.Equal(t, b, c.Binding())
					require.Equal(t, v, c.Version())
					s := c.Send(background(), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					wirematrix.RequireSameAsServer(t, agent, s, got.fold)
					require.Equal(t, 1, wirematrix.Sends(agent))
					for _, r := range agent.Requests() {
						require.Equal(t, b, r.Binding)
					}
				})
			})
		}
	}
}

// DEFECT. Resolve: "A card with no usable interface ends in an
// *InvalidCardError"; README, Errors: "unusable agent card (from Resolve)
// | *agentcard.InvalidError"; "Match them with errors.As ..., never by
// text". An interface whose URL is not an absolute http(s) URL (another
// scheme, no host, a host:port without a scheme as misconfigured cards
// carry) makes Resolve fail with an untyped error, and an unusable first
// interface hides a usable one after it.
// Observed: *errors.errorString "stream: invalid endpoint ...: want an
// absolute http or https URL", for the card alone and with a good
// interface after it. Expected: *agentcard.InvalidError when nothing is
// usable; the next usable interface otherwise.
func TestResolveSkipsAnUnusableInterfaceURL(t *testing.T) {
	for _, u := range []string{"ftp://agent.test/rest", "http:///rest", "agent.test:8080/rest"} {
		for _, b := range []string{"HTTP+JSON", "JSONRPC"} {
			t.Run(b+"/"+u+"/alone", func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					card := fmt.Sprintf(`{"name":"x","supportedInterfaces":[{"url":%q,"protocolBinding":%q,"protocolVersion":"1.0"}]}`, u, b)
					agent := a2atest.NewAgent(a2atest.WithCardJSON([]byte(card)))
					client, err := stream.Resolve(background(), "http://agent.test", stream.WithHTTPClient(agent.Client()))
					if err == nil {
						require.True(t, strings.HasPrefix(client.Endpoint(), "http://agent.test/"), client.Endpoint())
						return
					}
					var ic *agentcard.InvalidError
					require.ErrorAs(t, err, &ic, "%T: %v", err, err)
				})
			})
			t.Run(b+"/"+u+"/then a good one", func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					card := fmt.Sprintf(`{"name":"x","supportedInterfaces":[{"url":%q,"protocolBinding":%q,"protocolVersion":"1.0"},`+
						`{"url":"http://agent.test/","protocolBinding":%q,"protocolVersion":"1.0"}]}`, u, b, b)
					agent := a2atest.NewAgent(a2atest.WithBindings(a2a.BindingJSONRPC, a2a.BindingHTTPJSON), a2atest.WithCardJSON([]byte(card)))
					client, err := stream.Resolve(background(), "http://agent.test", stream.WithHTTPClient(agent.Client()))
					require.NoError(t, err)
					require.Equal(t, "http://agent.test/", client.Endpoint())
					_, err = drain(t, client.Send(background(), hello()))
					require.NoError(t, err)
				})
			})
		}
	}
}

// grpcStub is a Transport Resolve opens for a gRPC interface
// (WithTransportFor): it records each call's Call and its Close, and plays
// the two-chunk task of memWire to a streaming send.
type grpcStub struct {
	mu       sync.Mutex
	calls    []string
	headers  []http.Header
	versions []a2a.Version
	closed   int
	closeErr error
}

func (g *grpcStub) note(name string, call transport.Call) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls = append(g.calls, name)
	g.headers = append(g.headers, call.Header)
	g.versions = append(g.versions, call.Version)
}

func (g *grpcStub) SendStream(ctx context.Context, call transport.Call, m *a2a.Message) (transport.EventReader, error) {
	g.note("SendStream", call)
	return memWire{}.SendStream(ctx, call, m)
}

func (g *grpcStub) SendUnary(_ context.Context, call transport.Call, _ *a2a.Message) (a2a.Event, error) {
	g.note("SendUnary", call)
	return stubTask(a2a.StateCompleted), nil
}

func (g *grpcStub) Subscribe(_ context.Context, call transport.Call, _ string) (transport.EventReader, error) {
	g.note("Subscribe", call)
	return nil, &a2a.RPCError{Code: a2a.CodeTaskNotFound, Message: "no such task"}
}

func (g *grpcStub) GetTask(_ context.Context, call transport.Call, _ string) (*a2a.Task, error) {
	g.note("GetTask", call)
	return stubTask(a2a.StateCompleted), nil
}

func (g *grpcStub) Cancel(_ context.Context, call transport.Call, _ string) (*a2a.Task, error) {
	g.note("Cancel", call)
	return stubTask(a2a.StateCanceled), nil
}

func (g *grpcStub) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed++
	return g.closeErr
}

func stubTask(state a2a.TaskState) *a2a.Task {
	return &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: state}}
}

// opener is the open function of WithTransportFor in these tests: it
// records the interfaces it was given and opens the stub.
type opener struct {
	stub   *grpcStub
	err    error
	mu     sync.Mutex
	opened []a2a.AgentInterface
}

func (o *opener) open(in a2a.AgentInterface) (transport.Transport, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.opened = append(o.opened, in)
	if o.err != nil {
		return nil, o.err
	}
	return o.stub, nil
}

func newOpener() *opener { return &opener{stub: &grpcStub{}} }

// grpcCardServer serves on a loopback port the card card returns, given the
// server's host:port (a card names its gRPC target with it), and counts
// the card requests. Its connections are not kept alive, so that no
// goroutine of http.DefaultClient's outlives the test. The card is read
// with http.DefaultClient.
func grpcCardServer(t *testing.T, card func(hostport string) string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	var hostport string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		w.Header().Set("Connection", "close")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, card(hostport))
	}))
	t.Cleanup(srv.Close)
	hostport = strings.TrimPrefix(srv.URL, "http://")
	return srv, &n
}

// Resolve takes a card's gRPC interfaces only with WithTransportFor of
// gRPC: 1.0 supportedInterfaces of binding GRPC, a 0.3 card's url when its
// preferredTransport is GRPC, and 0.3 additionalInterfaces of transport
// GRPC; after JSON-RPC and HTTP+JSON in the card's order, first with
// WithBinding(GRPC), of the version WithVersion asks. The open function
// gets the interface as the card states it, its url never resolved against
// baseURL; the Client is NewClientFor's, in the interface's version.
func TestResolvePicksGRPCWithTransportFor(t *testing.T) {
	grpc10 := `{"url":"127.0.0.1:50051","protocolBinding":"GRPC","protocolVersion":"1.0","tenant":"acme"}`
	stated10 := a2a.AgentInterface{URL: "127.0.0.1:50051", ProtocolBinding: "GRPC", ProtocolVersion: "1.0", Tenant: "acme"}
	cases := []struct {
		name     string
		card     string
		opts     []stream.Option // besides WithTransportFor, unless noOpen
		noOpen   bool
		opened   *a2a.AgentInterface // the interface opened; nil: an HTTP binding picked
		endpoint string              // the HTTP binding's
		version  a2a.Version
	}{
		{"1.0 supportedInterfaces", `{"name":"x","supportedInterfaces":[` + grpc10 + `]}`,
			nil, false, &stated10, "", a2a.V10},
		{"0.3 url in GRPC", `{"name":"x","url":"dns:///agent.example:443","preferredTransport":"GRPC","protocolVersion":"0.3.0"}`,
			nil, false, &a2a.AgentInterface{URL: "dns:///agent.example:443", Transport: "GRPC", ProtocolVersion: "0.3.0"}, "", a2a.V03},
		{"0.3 additionalInterfaces", `{"name":"x","url":"ftp://agent.test/","protocolVersion":"0.3.0",` +
			`"additionalInterfaces":[{"url":"ftp://agent.test/","transport":"JSONRPC"},{"url":"127.0.0.1:50052","transport":"grpc"}]}`,
			nil, false, &a2a.AgentInterface{URL: "127.0.0.1:50052", Transport: "grpc"}, "", a2a.V03},
		{"JSON-RPC preferred over an earlier gRPC entry", `{"name":"x","supportedInterfaces":[` + grpc10 +
			`,{"url":"http://agent.test/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`,
			nil, false, nil, "http://agent.test/rpc", a2a.V10},
		{"HTTP+JSON preferred over an earlier gRPC entry", `{"name":"x","supportedInterfaces":[` + grpc10 +
			`,{"url":"http://agent.test/rest","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}]}`,
			nil, false, nil, "http://agent.test/rest", a2a.V10},
		{"WithBinding puts gRPC first", `{"name":"x","supportedInterfaces":[` +
			`{"url":"http://agent.test/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"},` + grpc10 + `]}`,
			[]stream.Option{stream.WithBinding(a2a.BindingGRPC)}, false, &stated10, "", a2a.V10},
		{"WithVersion keeps the 0.3 gRPC interface", `{"name":"x","supportedInterfaces":[` + grpc10 + `],` +
			`"url":"127.0.0.1:50053","preferredTransport":"GRPC","protocolVersion":"0.3.0"}`,
			[]stream.Option{stream.WithVersion(a2a.V03)}, false,
			&a2a.AgentInterface{URL: "127.0.0.1:50053", Transport: "GRPC", ProtocolVersion: "0.3.0"}, "", a2a.V03},
		{"WithVersion 1.0 passes the 0.3 gRPC interface over", `{"name":"x","supportedInterfaces":[` + grpc10 + `],` +
			`"url":"127.0.0.1:50053","preferredTransport":"GRPC","protocolVersion":"0.3.0"}`,
			[]stream.Option{stream.WithVersion(a2a.V10)}, false, &stated10, "", a2a.V10},
		{"without WithTransportFor gRPC is passed over", `{"name":"x","supportedInterfaces":[` + grpc10 +
			`,{"url":"http://agent.test/rest","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}]}`,
			nil, true, nil, "http://agent.test/rest", a2a.V10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, _ := grpcCardServer(t, func(string) string { return c.card })
			o := newOpener()
			opts := c.opts
			if !c.noOpen {
				opts = append([]stream.Option{stream.WithTransportFor(a2a.BindingGRPC, o.open)}, opts...)
			}
			client, err := stream.Resolve(background(), srv.URL, opts...)
			require.NoError(t, err)
			defer func() { require.NoError(t, client.Close()) }()
			require.Equal(t, c.version, client.Version())
			require.NotNil(t, client.Card())
			if c.opened == nil {
				require.Empty(t, o.opened, "no Transport opened")
				require.Equal(t, c.endpoint, client.Endpoint())
				require.NotEqual(t, a2a.Binding(""), client.Binding())
				return
			}
			require.Equal(t, []a2a.AgentInterface{*c.opened}, o.opened)
			require.Equal(t, "", client.Endpoint(), "as a Client of NewClientFor")
			require.Equal(t, a2a.Binding(""), client.Binding(), "as a Client of NewClientFor")
			task, err := client.Send(background(), hello()).Wait()
			require.NoError(t, err)
			require.Equal(t, a2a.StateCompleted, task.Status.State)
			require.Equal(t, []string{"SendStream"}, o.stub.calls)
			require.Equal(t, []a2a.Version{c.version}, o.stub.versions, "the interface's version, fixed: no negotiation")
		})
	}
}

// A card whose only usable interfaces are gRPC, resolved without
// WithTransportFor, ends in an *agentcard.InvalidError that says the card
// offers gRPC and how to use it.
func TestResolveOfAGRPCOnlyCardSaysHowToUseIt(t *testing.T) {
	cards := map[string]string{
		"1.0":                   `{"name":"x","supportedInterfaces":[{"url":"127.0.0.1:50051","protocolBinding":"GRPC","protocolVersion":"1.0"}]}`,
		"0.3 url":               `{"name":"x","url":"127.0.0.1:50051","preferredTransport":"GRPC","protocolVersion":"0.3.0"}`,
		"0.3 additional":        `{"name":"x","protocolVersion":"0.3.0","additionalInterfaces":[{"url":"127.0.0.1:50051","transport":"GRPC"}]}`,
		"with an unusable HTTP": `{"name":"x","supportedInterfaces":[{"url":"127.0.0.1:50051","protocolBinding":"GRPC","protocolVersion":"1.0"},{"url":"ftp://x/","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`,
	}
	for name, card := range cards {
		t.Run(name, func(t *testing.T) {
			srv, _ := grpcCardServer(t, func(string) string { return card })
			_, err := stream.Resolve(background(), srv.URL)
			var ice *agentcard.InvalidError
			require.ErrorAs(t, err, &ice)
			require.Contains(t, err.Error(), "the card offers gRPC: pass WithTransportFor")
		})
	}
	// A card with nothing usable and no gRPC says nothing of gRPC.
	srv, _ := grpcCardServer(t, func(string) string { return `{"name":"x","capabilities":{}}` })
	_, err := stream.Resolve(background(), srv.URL)
	require.Error(t, err)
	require.NotContains(t, err.Error(), "gRPC")
}

// WithTransportFor is Resolve's: refused with ErrInvalidOption for a
// binding this package speaks, an unknown one, a nil function, and by every
// other place options are taken, before any request. WithBinding of gRPC
// needs it.
func TestWithTransportForIsRefusedWhereItDoesNotApply(t *testing.T) {
	o := newOpener()
	srv, cards := grpcCardServer(t, func(string) string { return `{"name":"x"}` })
	for name, opt := range map[string]stream.Option{
		"JSON-RPC":                     stream.WithTransportFor(a2a.BindingJSONRPC, o.open),
		"HTTP+JSON":                    stream.WithTransportFor(a2a.BindingHTTPJSON, o.open),
		"REST spelled REST":            stream.WithTransportFor("REST", o.open),
		"unknown binding":              stream.WithTransportFor("FOO", o.open),
		"no binding":                   stream.WithTransportFor("", o.open),
		"nil open":                     stream.WithTransportFor(a2a.BindingGRPC, nil),
		"WithBinding GRPC without one": stream.WithBinding(a2a.BindingGRPC),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := stream.Resolve(background(), srv.URL, opt)
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.Contains(t, err.Error(), "WithTransportFor")
		})
	}
	require.Zero(t, cards.Load(), "refused before the card is asked for")
	require.Empty(t, o.opened)

	good := stream.WithTransportFor(a2a.BindingGRPC, o.open)
	_, err := stream.NewClient("http://agent.test/", good)
	require.ErrorIs(t, err, stream.ErrInvalidOption)
	_, err = stream.NewRESTClient("http://agent.test/", good)
	require.ErrorIs(t, err, stream.ErrInvalidOption)
	_, err = stream.NewClientFor(memWire{}, good)
	require.ErrorIs(t, err, stream.ErrInvalidOption)
	c, err := stream.NewClientFor(memWire{}, stream.WithVersion(a2a.V10))
	require.NoError(t, err)
	_, err = c.Send(background(), hello(), good).Wait()
	require.ErrorIs(t, err, stream.ErrInvalidOption)
	_, err = c.GetTask(background(), "t-1", good)
	require.ErrorIs(t, err, stream.ErrInvalidOption)
}

// When Resolve picks gRPC, the options of this package's HTTP bindings
// given to it are refused, as NewClientFor refuses them, and the Transport
// is not opened: they would not reach it. When it picks an HTTP binding of
// the same card, they apply. WithHTTPClient is the exception: Resolve reads
// the card with it (TestResolveOverGRPCReadsTheCardWithWithHTTPClient).
func TestResolveOverGRPCRefusesTheHTTPBindingsOptions(t *testing.T) {
	card := `{"name":"x","supportedInterfaces":[{"url":"127.0.0.1:50051","protocolBinding":"GRPC","protocolVersion":"1.0"},` +
		`{"url":"http://agent.test/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`
	srv, _ := grpcCardServer(t, func(string) string { return card })
	for name, opt := range map[string]stream.Option{
		"WithBreaker":        stream.WithBreaker(allowAll{}),
		"WithTrustedOrigins": stream.WithTrustedOrigins("http://other.test"),
		"WithConnectTimeout": stream.WithConnectTimeout(time.Second),
		"WithMaxEventSize":   stream.WithMaxEventSize(1 << 10),
	} {
		t.Run(name, func(t *testing.T) {
			o := newOpener()
			_, err := stream.Resolve(background(), srv.URL, stream.WithTransportFor(a2a.BindingGRPC, o.open), stream.WithBinding(a2a.BindingGRPC), opt)
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.Contains(t, err.Error(), name)
			require.Contains(t, err.Error(), "Resolve picked the GRPC interface 127.0.0.1:50051")
			require.Contains(t, err.Error(), "a2agrpc.Opener")
			require.Empty(t, o.opened, "nothing opened")

			c, err := stream.Resolve(background(), srv.URL, stream.WithTransportFor(a2a.BindingGRPC, o.open), opt)
			require.NoError(t, err, "JSON-RPC picked: the option applies")
			require.Equal(t, a2a.BindingJSONRPC, c.Binding())
			require.Empty(t, o.opened)
		})
	}
}

// WithHTTPClient given to Resolve reads the card, whichever interface it
// picks: a gRPC pick is not refused for it, and its calls go through the
// Transport opened, not the HTTP client.
func TestResolveOverGRPCReadsTheCardWithWithHTTPClient(t *testing.T) {
	card := `{"name":"x","supportedInterfaces":[{"url":"agent.test:443","protocolBinding":"GRPC","protocolVersion":"1.0"}]}`
	var asked atomic.Int32
	hc := &http.Client{Transport: roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		asked.Add(1)
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(card)), Request: r}, nil
	})}
	o := newOpener()
	c, err := stream.Resolve(background(), "https://agent.test", stream.WithTransportFor(a2a.BindingGRPC, o.open), stream.WithHTTPClient(hc))
	require.NoError(t, err)
	require.Equal(t, int32(1), asked.Load(), "the card was read with the HTTP client")
	require.Len(t, o.opened, 1)
	require.Equal(t, "agent.test:443", o.opened[0].URL)
	task, err := c.GetTask(background(), "t-1")
	require.NoError(t, err)
	require.Equal(t, a2a.StateCompleted, task.Status.State)
	require.Equal(t, int32(1), asked.Load(), "the call went through the Transport")
	require.Equal(t, []string{"GetTask"}, o.stub.calls)
	require.NoError(t, c.Close())
}

// An error of the open function is Resolve's, wrapped; a nil Transport is
// an error too.
func TestResolveReturnsTheOpenFunctionsError(t *testing.T) {
	srv, _ := grpcCardServer(t, func(string) string {
		return `{"name":"x","supportedInterfaces":[{"url":"127.0.0.1:50051","protocolBinding":"GRPC","protocolVersion":"1.0"}]}`
	})
	bad := errors.New("no credentials for this target")
	o := newOpener()
	o.err = bad
	_, err := stream.Resolve(background(), srv.URL, stream.WithTransportFor(a2a.BindingGRPC, o.open))
	require.ErrorIs(t, err, bad)
	require.Contains(t, err.Error(), "opening the GRPC interface 127.0.0.1:50051")

	none := func(a2a.AgentInterface) (transport.Transport, error) { return nil, nil }
	_, err = stream.Resolve(background(), srv.URL, stream.WithTransportFor(a2a.BindingGRPC, none))
	require.ErrorContains(t, err, "nil Transport")
}

// Headers go to a gRPC interface's Transport only when its target is on
// baseURL's host and port; otherwise every call's Call.Header is empty, a
// credentials hook's and a per-call header's too, and each stream says so
// with the HeadersWithheld notice the HTTP bindings give.
func TestResolveOverGRPCSendsHeadersToBaseURLsHostAndPortOnly(t *testing.T) {
	cases := []struct {
		name   string
		target func(hostport string) string
		sent   bool
		named  string // the EndpointOrigin of the notice
	}{
		{"same host and port", func(hp string) string { return hp }, true, ""},
		{"same, through dns", func(hp string) string { return "dns:///" + hp }, true, ""},
		{"same, as a URL", func(hp string) string { return "http://" + hp + "/" }, true, ""},
		{"another port", func(string) string { return "127.0.0.1:1" }, false, "127.0.0.1:1"},
		{"another host", func(hp string) string { return "localhost:" + strings.Split(hp, ":")[1] }, false, "localhost:"},
		{"no port: 443", func(string) string { return "127.0.0.1" }, false, "127.0.0.1:443"},
		{"a Unix socket", func(string) string { return "unix:///tmp/agent.sock" }, false, "unix:///tmp/agent.sock"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv, _ := grpcCardServer(t, func(hp string) string {
				return fmt.Sprintf(`{"name":"x","supportedInterfaces":[{"url":%q,"protocolBinding":"GRPC","protocolVersion":"1.0"}]}`, c.target(hp))
			})
			o := newOpener()
			var notices []stream.Notice
			client, err := stream.Resolve(background(), srv.URL, stream.WithTransportFor(a2a.BindingGRPC, o.open),
				stream.WithHeader("Authorization", "Bearer s3cret"),
				stream.WithNotify(func(n stream.Notice) { notices = append(notices, n) }))
			require.NoError(t, err)
			_, err = client.Send(background(), hello(), stream.WithHeader("X-User", "u1")).Wait()
			require.NoError(t, err)
			_, err = client.GetTask(background(), "t-1")
			require.NoError(t, err)
			require.Equal(t, []string{"SendStream", "GetTask"}, o.stub.calls)
			withheld := withheldNotices(notices)
			if c.sent {
				require.Equal(t, "Bearer s3cret", o.stub.headers[0].Get("Authorization"))
				require.Equal(t, "u1", o.stub.headers[0].Get("X-User"))
				require.Equal(t, "Bearer s3cret", o.stub.headers[1].Get("Authorization"))
				require.Empty(t, withheld)
				return
			}
			for i, h := range o.stub.headers {
				require.Empty(t, h, "call %s carries no header", o.stub.calls[i])
			}
			require.Len(t, withheld, 1)
			require.Equal(t, []string{"Authorization", "X-User"}, withheld[0].Headers)
			require.Equal(t, srv.URL, withheld[0].NamedOrigin)
			require.True(t, strings.HasPrefix(withheld[0].EndpointOrigin, c.named), withheld[0].EndpointOrigin)
		})
	}
}

// The host and port of a gRPC target against baseURL's, with the default
// ports: 443 for https and for a target that names none, 80 for http.
func TestSameHostPortOfAGRPCTarget(t *testing.T) {
	parse := func(s string) *url.URL {
		u, err := url.Parse(s)
		require.NoError(t, err)
		return u
	}
	https, http80 := parse("https://agent.example/a2a"), parse("http://agent.example")
	for target, want := range map[string]bool{
		"agent.example:443":                true,
		"AGENT.example:443":                true,
		"agent.example":                    true,
		"dns:///agent.example:443":         true,
		"dns:///agent.example":             true,
		"https://agent.example/x":          true,
		"grpcs://agent.example":            true,
		"agent.example:8443":               false,
		"other.example:443":                false,
		"http://agent.example/":            false,
		"unix:///run/agent.sock":           false,
		"xds:///agent.example:443":         false,
		"":                                 false,
		"agent.example:443:1":              false,
		"dns://8.8.8.8/other:443":          false,
		"passthrough:///agent.example:443": true,
	} {
		require.Equal(t, want, stream.SameHostPort(target, https), "%q against %s", target, https)
	}
	require.True(t, stream.SameHostPort("agent.example:80", http80))
	require.True(t, stream.SameHostPort("http://agent.example", http80))
	require.False(t, stream.SameHostPort("agent.example", http80), "a target without a port is on 443")
	require.True(t, stream.SameHostPort("[::1]:8080", parse("http://[::1]:8080/")))
}

// The Client of a gRPC pick follows the card's streaming capability (false:
// it polls, with a unary send), keeps the card, and Close closes the
// Transport Resolve opened, once, returning its error each time.
func TestResolveOverGRPCClientPollsKeepsTheCardAndCloses(t *testing.T) {
	srv, _ := grpcCardServer(t, func(string) string {
		return `{"name":"poller","capabilities":{"streaming":false},` +
			`"supportedInterfaces":[{"url":"127.0.0.1:50051","protocolBinding":"GRPC","protocolVersion":"1.0"}]}`
	})
	o := newOpener()
	o.stub.closeErr = errors.New("close failed")
	client, err := stream.Resolve(background(), srv.URL, stream.WithTransportFor(a2a.BindingGRPC, o.open), stream.WithPollInterval(time.Millisecond))
	require.NoError(t, err)
	require.Equal(t, "poller", client.Card().Name)
	task, err := client.Send(background(), hello()).Wait()
	require.NoError(t, err)
	require.Equal(t, a2a.StateCompleted, task.Status.State)
	require.Equal(t, "SendUnary", o.stub.calls[0], "the card says it cannot stream")
	require.NotContains(t, o.stub.calls, "SendStream")
	require.Zero(t, o.stub.closed)
	require.EqualError(t, client.Close(), "close failed")
	require.EqualError(t, client.Close(), "close failed", "the same answer")
	require.Equal(t, 1, o.stub.closed, "closed once")
}

// Close of a Client that opened nothing does nothing: a Transport given to
// NewClientFor stays the caller's.
func TestCloseOfAClientThatOpenedNothing(t *testing.T) {
	stub := &grpcStub{}
	c, err := stream.NewClientFor(stub)
	require.NoError(t, err)
	require.NoError(t, c.Close())
	require.NoError(t, c.Close())
	require.Zero(t, stub.closed)
	for _, mk := range []func(string, ...stream.Option) (*stream.Client, error){stream.NewClient, stream.NewRESTClient} {
		c, err := mk("http://agent.test/")
		require.NoError(t, err)
		require.NoError(t, c.Close())
	}
}

// secureStub is a grpcStub whose Transport says whether its connections
// are encrypted.
type secureStub struct {
	*grpcStub
	secure bool
}

func (s secureStub) Secure() bool { return s.secure }

// From an https base URL, headers reach a gRPC Transport on its host and
// port only when the Transport says its connections are encrypted: never
// from https down to plaintext. A Transport that says nothing is taken for
// plaintext. (A stranger's red-team found the credentials sent over a
// plaintext gRPC connection from an https base.)
func TestResolveOverGRPCFromHTTPSSendsHeadersOnlyOverEncryption(t *testing.T) {
	var hostport string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"name":"x","supportedInterfaces":[{"url":%q,"protocolBinding":"GRPC","protocolVersion":"1.0"}]}`, hostport)
	}))
	defer srv.Close()
	hostport = strings.TrimPrefix(srv.URL, "https://")
	for _, c := range []struct {
		name string
		tr   func(*grpcStub) transport.Transport
		sent bool
	}{
		{"says nothing", func(g *grpcStub) transport.Transport { return g }, false},
		{"says plaintext", func(g *grpcStub) transport.Transport { return secureStub{g, false} }, false},
		{"says encrypted", func(g *grpcStub) transport.Transport { return secureStub{g, true} }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			stub := &grpcStub{}
			var notices []stream.Notice
			client, err := stream.Resolve(background(), srv.URL, stream.WithHTTPClient(srv.Client()),
				stream.WithTransportFor(a2a.BindingGRPC, func(a2a.AgentInterface) (transport.Transport, error) { return c.tr(stub), nil }),
				stream.WithHeader("Authorization", "Bearer s3cret"),
				stream.WithNotify(func(n stream.Notice) { notices = append(notices, n) }))
			require.NoError(t, err)
			_, err = client.Send(background(), hello()).Wait()
			require.NoError(t, err)
			require.Equal(t, []string{"SendStream"}, stub.calls)
			if c.sent {
				require.Equal(t, "Bearer s3cret", stub.headers[0].Get("Authorization"))
				require.Empty(t, withheldNotices(notices))
				return
			}
			require.Empty(t, stub.headers[0])
			require.Len(t, withheldNotices(notices), 1)
		})
	}
}
