package stream_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/agentcard"
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
		agent := a2atest.NewAgent(a2atest.WithTenant("acme"), a2atest.WithScript(paced()...),
			a2atest.WithStyle(a2atest.LiveOnly), a2atest.WithFaults(a2atest.CutAfterEvents(pacedEvents-1)))
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
		require.Error(t, err, fmt.Sprintf("endpoint %q", ep))
	}
	_, err := stream.NewClient(endpoint, stream.WithVersion("2.0"))
	require.Error(t, err)
	_, err = stream.Resolve(background(), "not a url")
	require.Error(t, err)

	c, err := stream.NewClient(endpoint)
	require.NoError(t, err)
	_, err = c.Send(background(), nil).Wait()
	require.ErrorIs(t, err, transport.ErrInvalidMessage)
	_, err = c.Send(background(), &a2a.Message{}).Wait()
	require.ErrorIs(t, err, transport.ErrInvalidMessage)
	_, err = c.Subscribe(background(), "").Wait()
	require.Error(t, err)
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
						a2atest.WithScript(paced()...), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
					c := resolveAgent(t, agent, stream.WithBinding(b), stream.WithVersion(v))
					require.Equal(t, b, c.Binding())
					require.Equal(t, v, c.Version())
					s := c.Send(background(), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					requireSameAsServer(t, agent, s, got)
					require.Equal(t, 1, sends(agent))
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
