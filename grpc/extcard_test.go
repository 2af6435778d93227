package a2agrpc_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/credentials"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	pbv1 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
	"github.com/a2astream/a2astream/internal/callmark"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// The extended card over gRPC (issue 33 item 2): a2agrpc.Transport's
// transport.ExtendedCarder (1.0 GetExtendedAgentCard, 0.3 GetAgentCard),
// and stream.Resolve's WithExtendedCard through it, in both versions.

// cardMethods are the extended card calls of each version.
var cardMethods = map[a2a.Version]string{
	a2a.V10: "/lf.a2a.v1.A2AService/GetExtendedAgentCard",
	a2a.V03: "/a2a.v1.A2AService/GetAgentCard",
}

// publicGRPCCards are the public cards of a gRPC agent at target that
// offer an extended card (or not, with offer false).
func publicGRPCCard(v a2a.Version, target string, offer bool) string {
	if v == a2a.V10 {
		return fmt.Sprintf(`{"name":"g","description":"public","capabilities":{"streaming":true,"extendedAgentCard":%v},`+
			`"supportedInterfaces":[{"url":%q,"protocolBinding":"GRPC","protocolVersion":"1.0","tenant":"acme"}]}`, offer, target)
	}
	return fmt.Sprintf(`{"name":"g","description":"public","url":%q,"preferredTransport":"GRPC","protocolVersion":"0.3.0",`+
		`"capabilities":{"streaming":true},"supportsAuthenticatedExtendedCard":%v}`, target, offer)
}

// extendedCard is the card the agent shows a signed-in caller.
func extendedCard() *a2a.AgentCard {
	return &a2a.AgentCard{Name: "g", Description: "public", Version: "2",
		Provider:     &a2a.AgentProvider{Organization: "Acme", URL: "https://acme.example"},
		Capabilities: a2a.AgentCapabilities{PushNotifications: true},
		Skills: []a2a.AgentSkill{{ID: "payroll", Name: "Payroll", Description: "for staff", Tags: []string{"hr"},
			Security: []map[string][]string{{"bearer": {}}}}},
		SecuritySchemes: map[string]a2a.SecurityScheme{"bearer": {Type: "http", Scheme: "Bearer", BearerFormat: "JWT"}},
		Security:        []map[string][]string{{"bearer": {}}},
	}
}

// authorization is the Authorization metadata of the call ctx serves.
func authorization(ctx context.Context) string {
	md, _ := metadata.FromIncomingContext(ctx)
	if v := md.Get("authorization"); len(v) > 0 {
		return v[0]
	}
	return ""
}

// signedIn answers the extended card to a caller with the right token, and
// UNAUTHENTICATED to any other.
func signedIn(ctx context.Context) (*a2a.AgentCard, error) {
	if authorization(ctx) != "Bearer s3cret" {
		return nil, status.Error(codes.Unauthenticated, "sign in")
	}
	return extendedCard(), nil
}

// resolveCard resolves the card a (newly served) card server serves for
// agent a, on the server's host and port when same is set, with
// WithExtendedCard and opts, and returns the Client and the causes of its
// PublicCardKept notices.
func resolveCard(t *testing.T, a *agent, v a2a.Version, same, offer bool, opts ...stream.Option) (*stream.Client, []error) {
	t.Helper()
	srv := cardServer(t, func(hostport string) string {
		target := "127.0.0.1:1" // another port: no header goes there
		if same {
			target = hostport
		}
		return publicGRPCCard(v, target, offer)
	})
	var causes []error
	c, err := stream.Resolve(context.Background(), srv.URL, append([]stream.Option{
		stream.WithTransportFor(a2a.BindingGRPC, a.opener()), noWait, stream.WithExtendedCard(),
		stream.WithNotify(func(n stream.Notice) {
			if n.Kind == stream.PublicCardKept {
				causes = append(causes, n.Cause)
			}
		}),
	}, opts...)...)
	require.NoError(t, err, "the extended card never fails Resolve")
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	require.Equal(t, v, c.Version())
	return c, causes
}

// cardCalls returns the extended card calls the agent got.
func cardCalls(a *agent, v a2a.Version) []seenCall {
	var out []seenCall
	for _, c := range a.seen() {
		if c.method == cardMethods[v] {
			out = append(out, c)
		}
	}
	return out
}

// requirePublic checks that c kept the public card.
func requirePublic(t *testing.T, c *stream.Client) {
	t.Helper()
	require.False(t, c.CardExtended())
	require.Equal(t, "g", c.Card().Name)
	require.Empty(t, c.Card().Skills)
}

// The card the agent answers a signed-in caller becomes the Client's
// Card, read with what the JSON bindings keep of a card; the call carries
// the caller's headers and, in 1.0, the card's tenant.
func TestExtendedCardOverGRPCTaken(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			a := newAgent(t, true, true, handlers{card: signedIn})
			c, causes := resolveCard(t, a, v, true, true, stream.WithHeader("Authorization", "Bearer s3cret"))
			require.Empty(t, causes)
			require.True(t, c.CardExtended())
			got := c.Card()
			require.Equal(t, "2", got.Version)
			require.Equal(t, &a2a.AgentProvider{Organization: "Acme", URL: "https://acme.example"}, got.Provider)
			require.Len(t, got.Skills, 1)
			require.Equal(t, "Payroll", got.Skills[0].Name)
			require.Equal(t, []string{"hr"}, got.Skills[0].Tags)
			require.Equal(t, []map[string][]string{{"bearer": {}}}, got.Skills[0].Requirements())
			require.Equal(t, a2a.SecurityScheme{Type: "http", Scheme: "Bearer", BearerFormat: "JWT"}, got.SecuritySchemes["bearer"])
			require.Equal(t, []map[string][]string{{"bearer": {}}}, got.Requirements())
			require.True(t, got.Capabilities.PushNotifications)

			calls := cardCalls(a, v)
			require.Len(t, calls, 1)
			require.Equal(t, []string{"Bearer s3cret"}, calls[0].md.Get("authorization"))
			if v == a2a.V10 {
				require.Equal(t, []string{"1.0"}, calls[0].md.Get("a2a-version"))
				require.Equal(t, "acme", calls[0].req.(*pbv1.GetExtendedAgentCardRequest).GetTenant())
			} else {
				require.Empty(t, calls[0].md.Get("a2a-version"), "0.3 calls name no version, as every other")
			}
			require.Len(t, a.seen(), 1, "one call: the card's")
		})
	}
}

// A public card that offers no extended card is not asked for one.
func TestExtendedCardOverGRPCNotOffered(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			a := newAgent(t, true, true, handlers{card: signedIn})
			c, causes := resolveCard(t, a, v, true, false, stream.WithHeader("Authorization", "Bearer s3cret"))
			requirePublic(t, c)
			require.Len(t, causes, 1)
			require.ErrorIs(t, causes[0], stream.ErrExtendedCardNotOffered)
			require.Empty(t, a.seen())
		})
	}
}

// An agent that refuses keeps the public card, with the refusal as the
// notice's cause: UNIMPLEMENTED (no such method, or 0.3's unsupported),
// FAILED_PRECONDITION (1.0 -32007 with its reason; 0.3 bare),
// PERMISSION_DENIED, UNAUTHENTICATED without a hook.
func TestExtendedCardOverGRPCRefused(t *testing.T) {
	notConfigured := func() error {
		st, err := status.New(codes.FailedPrecondition, "Extended card not configured.").
			WithDetails(&errdetails.ErrorInfo{Reason: "EXTENDED_AGENT_CARD_NOT_CONFIGURED", Domain: "a2a-protocol.org"})
		if err != nil {
			panic(err)
		}
		return st.Err()
	}
	tests := []struct {
		name   string
		answer error // nil: no handler (the generated UNIMPLEMENTED)
		check  func(t *testing.T, v a2a.Version, cause error)
	}{
		{"the generated stub", nil, func(t *testing.T, _ a2a.Version, cause error) {
			// "method … not implemented": a handler's answer, not gRPC's
			// for a method the server lacks.
			require.ErrorIs(t, cause, &a2a.RPCError{Code: a2a.CodeUnsupportedOperation})
		}},
		{"no such method", status.Error(codes.Unimplemented, "unknown method GetExtendedAgentCard"), func(t *testing.T, _ a2a.Version, cause error) {
			require.ErrorIs(t, cause, &a2a.RPCError{Code: a2a.CodeMethodNotFound})
		}},
		{"unsupported", status.Error(codes.Unimplemented, "Agent does not support authenticated extended card."), func(t *testing.T, _ a2a.Version, cause error) {
			require.ErrorIs(t, cause, &a2a.RPCError{Code: a2a.CodeUnsupportedOperation})
		}},
		{"not configured", notConfigured(), func(t *testing.T, _ a2a.Version, cause error) {
			require.ErrorIs(t, cause, &a2a.RPCError{Code: a2a.CodeExtendedAgentCardNotConfigured})
		}},
		{"failed precondition, bare", status.Error(codes.FailedPrecondition, "Extended card not configured."), func(t *testing.T, _ a2a.Version, cause error) {
			require.ErrorIs(t, cause, &a2a.RPCError{Code: a2a.CodeUnsupportedOperation})
		}},
		{"permission denied", status.Error(codes.PermissionDenied, "no"), func(t *testing.T, _ a2a.Version, cause error) {
			require.ErrorIs(t, cause, transport.ErrPermissionDenied)
		}},
		{"unauthenticated, no hook", status.Error(codes.Unauthenticated, "sign in"), func(t *testing.T, _ a2a.Version, cause error) {
			require.ErrorIs(t, cause, transport.ErrNotAuthenticated)
		}},
	}
	for _, v := range versions {
		for _, tt := range tests {
			t.Run(string(v)+"/"+tt.name, func(t *testing.T) {
				var h handlers
				if tt.answer != nil {
					h.card = func(context.Context) (*a2a.AgentCard, error) { return nil, tt.answer }
				}
				a := newAgent(t, true, true, h)
				c, causes := resolveCard(t, a, v, true, true, stream.WithHeader("Authorization", "Bearer s3cret"))
				requirePublic(t, c)
				require.Len(t, causes, 1)
				var se *a2agrpc.StatusError
				require.ErrorAs(t, causes[0], &se)
				require.Equal(t, cardMethods[v], se.Method)
				tt.check(t, v, causes[0])
				require.Len(t, cardCalls(a, v), 1, "asked once")
			})
		}
	}
}

// UNAUTHENTICATED reaches the credentials hook once, as a 401 does over
// HTTP: the call is made again with the headers it gave, and the card
// taken. A hook that fails keeps the public card.
func TestExtendedCardOverGRPCAsksTheCredentialsHook(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			a := newAgent(t, true, true, handlers{card: signedIn})
			var reqs []*credentials.Request
			hook := credentials.Func(func(_ context.Context, req *credentials.Request) (http.Header, error) {
				reqs = append(reqs, req)
				return http.Header{"Authorization": {"Bearer s3cret"}}, nil
			})
			c, causes := resolveCard(t, a, v, true, true, stream.WithCredentials(hook))
			require.Empty(t, causes)
			require.True(t, c.CardExtended())
			require.Equal(t, "Payroll", c.Card().Skills[0].Name)
			require.Len(t, reqs, 1)
			require.Nil(t, reqs[0].Task)
			require.Nil(t, reqs[0].Message)
			require.Equal(t, 1, reqs[0].Attempt)
			require.ErrorIs(t, reqs[0].Cause, transport.ErrNotAuthenticated)
			calls := cardCalls(a, v)
			require.Len(t, calls, 2)
			require.Empty(t, calls[0].md.Get("authorization"))
			require.Equal(t, []string{"Bearer s3cret"}, calls[1].md.Get("authorization"))

			failed := errors.New("no sign-in")
			c, causes = resolveCard(t, a, v, true, true, stream.WithCredentials(credentials.Func(func(context.Context, *credentials.Request) (http.Header, error) {
				return nil, failed
			})))
			requirePublic(t, c)
			require.Len(t, causes, 1)
			require.ErrorIs(t, causes[0], failed)
			require.ErrorIs(t, causes[0], transport.ErrNotAuthenticated)
			require.Len(t, cardCalls(a, v), 3, "asked once more, not again after the hook failed")
		})
	}
}

// An answer that is no card (no name), or the public card again, keeps
// the public card.
func TestExtendedCardOverGRPCWrongAnswers(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v)+"/no name", func(t *testing.T) {
			a := newAgent(t, true, true, handlers{card: func(context.Context) (*a2a.AgentCard, error) { return nil, nil }})
			c, causes := resolveCard(t, a, v, true, true)
			requirePublic(t, c)
			require.Len(t, causes, 1)
			var pe *transport.ProtocolError
			require.ErrorAs(t, causes[0], &pe)
			require.Contains(t, causes[0].Error(), "without a name")
		})
		t.Run(string(v)+"/the public card", func(t *testing.T) {
			a := newAgent(t, true, true, handlers{card: func(context.Context) (*a2a.AgentCard, error) {
				// What the public card tells, written as the gRPC answer
				// writes it (no interfaces, other capabilities).
				return &a2a.AgentCard{Name: "g", Description: "public"}, nil
			}})
			c, causes := resolveCard(t, a, v, true, true)
			requirePublic(t, c)
			require.Len(t, causes, 1)
			require.ErrorIs(t, causes[0], stream.ErrExtendedCardPublic)
			require.Len(t, cardCalls(a, v), 1)
		})
	}
}

// A gRPC interface on another host and port than the one named gets no
// headers, so it is not asked for the extended card at all.
func TestExtendedCardOverGRPCFollowsTheOriginRule(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			a := newAgent(t, true, true, handlers{card: signedIn})
			hooked := false
			c, causes := resolveCard(t, a, v, false, true, stream.WithHeader("Authorization", "Bearer s3cret"),
				stream.WithCredentials(credentials.Func(func(context.Context, *credentials.Request) (http.Header, error) {
					hooked = true
					return nil, errors.New("not asked")
				})))
			requirePublic(t, c)
			require.Len(t, causes, 1)
			require.ErrorIs(t, causes[0], stream.ErrExtendedCardWithheld)
			require.Empty(t, a.seen(), "no call")
			require.False(t, hooked)
		})
	}
}

// With WithCardCache, the extended card is kept per caller: the same
// headers get it from the cache, others ask again.
func TestExtendedCardOverGRPCCache(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			a := newAgent(t, true, true, handlers{card: signedIn})
			var hostport string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Connection", "close")
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Cache-Control", "max-age=3600")
				io.WriteString(w, publicGRPCCard(v, hostport, true))
			}))
			t.Cleanup(srv.Close)
			hostport = strings.TrimPrefix(srv.URL, "http://")
			cache := agentcard.NewCache()
			resolve := func(token string) *stream.Client {
				c, err := stream.Resolve(context.Background(), srv.URL, stream.WithTransportFor(a2a.BindingGRPC, a.opener()),
					noWait, stream.WithExtendedCard(), stream.WithCardCache(cache), stream.WithHeader("Authorization", token))
				require.NoError(t, err)
				t.Cleanup(func() { require.NoError(t, c.Close()) })
				return c
			}
			require.True(t, resolve("Bearer s3cret").CardExtended())
			require.True(t, resolve("Bearer s3cret").CardExtended())
			require.Len(t, cardCalls(a, v), 1, "the second from the cache")
			require.False(t, resolve("Bearer other").CardExtended())
			require.Len(t, cardCalls(a, v), 2, "other credentials ask")
		})
	}
}

// The Transport's ExtendedCard: its request in each version, its marks
// (an agent's answer is no sign the call went further; an open circuit
// sends nothing), and an answer with no name refused.
func TestTransportExtendedCard(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			a := newAgent(t, true, true, handlers{card: signedIn})
			tr := a.client(t, a2agrpc.WithTenant("acme"))
			call := transport.Call{Version: v, Header: http.Header{"Authorization": {"Bearer s3cret"}}}
			card, err := tr.ExtendedCard(context.Background(), call)
			require.NoError(t, err)
			require.Equal(t, "Payroll", card.Skills[0].Name)

			_, err = tr.ExtendedCard(context.Background(), transport.Call{Version: v})
			require.ErrorIs(t, err, transport.ErrNotAuthenticated)
			require.False(t, callmark.IsUnsent(err))
			require.False(t, callmark.IsResponded(err))

			calls := cardCalls(a, v)
			require.Len(t, calls, 2)
			if v == a2a.V10 {
				require.Equal(t, "acme", calls[0].req.(*pbv1.GetExtendedAgentCardRequest).GetTenant())
			}

			open := &countingBreaker{refuse: errors.New("open")}
			_, err = a.client(t, a2agrpc.WithBreaker(open)).ExtendedCard(context.Background(), call)
			require.ErrorIs(t, err, transport.ErrCircuitOpen)
			require.True(t, callmark.IsUnsent(err))
			require.Len(t, cardCalls(a, v), 2)

			b := newAgent(t, true, true, handlers{card: func(context.Context) (*a2a.AgentCard, error) { return nil, nil }})
			_, err = b.client(t).ExtendedCard(context.Background(), call)
			var pe *transport.ProtocolError
			require.ErrorAs(t, err, &pe)
			require.True(t, strings.Contains(err.Error(), "without a name"), err.Error())
		})
	}
}
