package a2agrpc_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"

	"github.com/a2astream/a2astream/a2a"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	pbv1 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// cardServer serves on a loopback port the agent card card returns, given
// the server's host:port. Its connections are not kept alive, so no
// goroutine of http.DefaultClient's, with which Resolve reads it, outlives
// the test.
func cardServer(t *testing.T, card func(hostport string) string) *httptest.Server {
	t.Helper()
	var hostport string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Connection", "close")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, card(hostport))
	}))
	t.Cleanup(srv.Close)
	hostport = strings.TrimPrefix(srv.URL, "http://")
	return srv
}

// opener opens the agent's gRPC interface whatever target the card names:
// its connections go to the agent's bufconn listener.
func (a *agent) opener(opts ...a2agrpc.Option) func(a2a.AgentInterface) (transport.Transport, error) {
	return a2agrpc.Opener(append([]a2agrpc.Option{
		a2agrpc.WithInsecure(),
		a2agrpc.WithDialOptions(grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			return a.lis.DialContext(ctx)
		})),
	}, opts...)...)
}

// stream.Resolve end to end over gRPC: an agent card served over HTTP
// names the agent's gRPC interface (1.0 in supportedInterfaces with a
// tenant, 0.3 as its url in preferredTransport GRPC), Resolve opens it with
// Opener, the stream completes in the interface's version, and headers go
// only when the target is on the card's host and port. Client.Close closes
// the ClientConn (TestMain's goleak finds nothing left).
func TestResolveOverGRPC(t *testing.T) {
	cards := map[a2a.Version]func(target string) string{
		a2a.V10: func(target string) string {
			return fmt.Sprintf(`{"name":"g","capabilities":{"streaming":true},"supportedInterfaces":[`+
				`{"url":%q,"protocolBinding":"GRPC","protocolVersion":"1.0","tenant":"acme"}]}`, target)
		},
		a2a.V03: func(target string) string {
			return fmt.Sprintf(`{"name":"g","url":%q,"preferredTransport":"GRPC","protocolVersion":"0.3.0"}`, target)
		},
	}
	services := map[a2a.Version]string{a2a.V10: "/lf.a2a.v1.A2AService/", a2a.V03: "/a2a.v1.A2AService/"}
	for _, v := range versions {
		for _, same := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/same host and port %v", v, same), func(t *testing.T) {
				a := newAgent(t, true, true, handlers{
					stream: func(_ context.Context, _ *a2a.Message, send func(a2a.Event) error) error {
						return sendAll(send, working("t-1"), chunk("t-1", "Hello, ", false), chunk("t-1", "world", true), state("t-1", a2a.StateCompleted))
					},
					get: func(context.Context, string) (*a2a.Task, error) {
						t := working("t-1")
						t.Status.State = a2a.StateCompleted
						return t, nil
					},
				})
				srv := cardServer(t, func(hostport string) string {
					target := "127.0.0.1:1" // another port: headers withheld
					if same {
						target = hostport
					}
					return cards[v](target)
				})
				var withheld []stream.Notice
				c, err := stream.Resolve(context.Background(), srv.URL,
					stream.WithTransportFor(a2a.BindingGRPC, a.opener()), noWait,
					stream.WithHeader("Authorization", "Bearer s3cret"),
					stream.WithNotify(func(n stream.Notice) {
						if n.Kind == stream.HeadersWithheld {
							withheld = append(withheld, n)
						}
					}))
				require.NoError(t, err)
				require.Equal(t, v, c.Version())
				require.Equal(t, "g", c.Card().Name)
				s := c.Send(context.Background(), hello())
				text, err := play(s, nil)
				s.Close()
				require.NoError(t, err)
				require.Equal(t, "Hello, world", text)
				_, err = c.GetTask(context.Background(), "t-1")
				require.NoError(t, err)

				seen := a.seen()
				require.Len(t, seen, 2)
				require.Equal(t, services[v]+"SendStreamingMessage", seen[0].method, "the interface's version, no negotiation")
				require.Equal(t, services[v]+"GetTask", seen[1].method)
				if v == a2a.V10 {
					require.Equal(t, "acme", seen[1].req.(*pbv1.GetTaskRequest).GetTenant(), "the card's tenant")
				}
				for _, call := range seen {
					if same {
						require.Equal(t, []string{"Bearer s3cret"}, call.md.Get("authorization"), call.method)
					} else {
						require.Empty(t, call.md.Get("authorization"), call.method)
					}
				}
				if same {
					require.Empty(t, withheld)
				} else {
					require.Len(t, withheld, 1)
					require.Equal(t, "127.0.0.1:1", withheld[0].EndpointOrigin)
					require.Equal(t, []string{"Authorization"}, withheld[0].Headers)
				}

				require.NoError(t, c.Close())
				require.NoError(t, c.Close(), "idempotent")
				// After Close, calls fail as the Transport's do after its
				// Close, at once: transport.ErrClosed, not sent, and a
				// stream ends with it without a reconnect.
				_, err = c.GetTask(context.Background(), "t-1")
				require.ErrorIs(t, err, transport.ErrClosed)
				_, err = c.Send(context.Background(), hello()).Wait()
				require.ErrorIs(t, err, transport.ErrClosed)
				var re *reconnect.Error
				require.False(t, errors.As(err, &re), "no reconnect: %v", err)
			})
		}
	}
}

// The card's tenant goes with the requests unless WithTenant names one:
// the same one is taken, another is refused (no silent pick); a card
// without a tenant takes WithTenant's.
func TestOpenerTenant(t *testing.T) {
	a := newAgent(t, true, false, handlers{get: func(context.Context, string) (*a2a.Task, error) { return working("t-1"), nil }})
	cases := []struct {
		name, card, given, want string
		refused                 bool
	}{
		{"the card's", "acme", "", "acme", false},
		{"the same given", "acme", "acme", "acme", false},
		{"given, the card names none", "", "beta", "beta", false},
		{"none at all", "", "", "", false},
		{"another given", "acme", "beta", "", true},
		{"none given explicitly, the card names one", "acme", "\x00unset", "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var opts []a2agrpc.Option
			switch c.given {
			case "":
			case "\x00unset":
				opts = append(opts, a2agrpc.WithTenant(""))
			default:
				opts = append(opts, a2agrpc.WithTenant(c.given))
			}
			tr, err := a.opener(opts...)(a2a.AgentInterface{URL: "127.0.0.1:50051", ProtocolBinding: "GRPC", ProtocolVersion: "1.0", Tenant: c.card})
			if c.refused {
				require.ErrorIs(t, err, a2agrpc.ErrInvalidOption)
				var oe *a2agrpc.OptionError
				require.ErrorAs(t, err, &oe)
				require.Equal(t, "WithTenant", oe.Option)
				require.Nil(t, tr)
				return
			}
			require.NoError(t, err)
			defer tr.(io.Closer).Close()
			before := len(a.seen())
			_, err = tr.GetTask(context.Background(), transport.Call{Version: a2a.V10}, "t-1")
			require.NoError(t, err)
			seen := a.seen()
			require.Len(t, seen, before+1)
			require.Equal(t, c.want, seen[before].req.(*pbv1.GetTaskRequest).GetTenant())
		})
	}
}

// The target Opener gives New: the card's url, or a URL's host and port.
func TestOpenerTarget(t *testing.T) {
	for url, want := range map[string]string{
		"127.0.0.1:50051":             "127.0.0.1:50051",
		"dns:///agent.example:443":    "dns:///agent.example:443",
		"https://agent.example/a2a":   "agent.example:443",
		"http://agent.example":        "agent.example:80",
		"grpcs://agent.example:8443/": "agent.example:8443",
		"unix:///run/agent.sock":      "unix:///run/agent.sock",
	} {
		tr, err := a2agrpc.Opener(a2agrpc.WithInsecure())(a2a.AgentInterface{URL: url})
		require.NoError(t, err, url)
		require.Equal(t, want, tr.(*a2agrpc.Transport).Target(), url)
		require.NoError(t, tr.(io.Closer).Close())
	}
	_, err := a2agrpc.Opener()(a2a.AgentInterface{URL: "127.0.0.1:1"})
	require.ErrorIs(t, err, a2agrpc.ErrInvalidOption, "New's refusal: no transport credentials")
}
