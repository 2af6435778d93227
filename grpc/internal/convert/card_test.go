package convert

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/a2astream/a2astream/a2a"
	pb03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	pb10 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
	"github.com/a2astream/a2astream/transport"
)

// card10 and card03 are cards of each version with every field the proto
// carries, as agentcard's JSON decoding reads them.
func card10() *a2a.AgentCard {
	no := false
	return &a2a.AgentCard{Name: "g", Description: "d", Version: "2", IconURL: "https://g.example/i.png",
		DocumentationURL: "https://g.example/doc", Provider: &a2a.AgentProvider{Organization: "Acme", URL: "https://acme.example"},
		SupportedInterfaces: []a2a.AgentInterface{{URL: "g.example:443", ProtocolBinding: "GRPC", ProtocolVersion: "1.0", Tenant: "acme"}},
		Capabilities: a2a.AgentCapabilities{Streaming: &no, PushNotifications: true, ExtendedAgentCard: true,
			Extensions: []a2a.AgentExtension{{URI: "urn:x", Description: "x", Required: true, Params: map[string]any{"n": 1.0, "s": "v"}}}},
		DefaultInputModes: []string{"text/plain"}, DefaultOutputModes: []string{"text/plain", "application/json"},
		Skills: []a2a.AgentSkill{{ID: "s", Name: "S", Description: "sd", Tags: []string{"t"}, Examples: []string{"e"},
			InputModes: []string{"text/plain"}, OutputModes: []string{"text/plain"},
			SecurityRequirements: []a2a.SecurityRequirement{{Schemes: map[string]a2a.ScopeList{"oauth": {List: []string{"read"}}}}}}},
		SecuritySchemes: map[string]a2a.SecurityScheme{
			"key":    {Type: "apiKey", Description: "k", Name: "X-Key", Location: "header"},
			"bearer": {Type: "http", Scheme: "Bearer", BearerFormat: "JWT"},
			"oauth": {Type: "oauth2", OAuth2MetadataURL: "https://g.example/.well-known/oauth",
				Flows: json.RawMessage(`{"clientCredentials":{"tokenUrl":"https://g.example/token","scopes":{"read":"r"}}}`)},
			"oidc": {Type: "openIdConnect", OpenIDConnectURL: "https://g.example/.well-known/openid-configuration"},
			"mtls": {Type: "mutualTLS", Description: "m"},
		},
		SecurityRequirements: []a2a.SecurityRequirement{{Schemes: map[string]a2a.ScopeList{"bearer": {List: []string{}}}}},
		Signatures:           json.RawMessage(`[{"protected":"p","signature":"s","header":{"kid":"k1"}}]`),
	}
}

func card03() *a2a.AgentCard {
	yes := true
	return &a2a.AgentCard{Name: "g", Description: "d", Version: "2", DocumentationURL: "https://g.example/doc",
		Provider: &a2a.AgentProvider{Organization: "Acme"},
		URL:      "g.example:443", PreferredTransport: "GRPC", ProtocolVersion: "0.3.0",
		AdditionalInterfaces:              []a2a.AgentInterface{{URL: "https://g.example/a2a", Transport: "JSONRPC"}},
		SupportsAuthenticatedExtendedCard: true,
		Capabilities:                      a2a.AgentCapabilities{Streaming: &yes, PushNotifications: true},
		DefaultInputModes:                 []string{"text/plain"},
		Skills: []a2a.AgentSkill{{ID: "s", Name: "S", Tags: []string{"t"},
			Security: []map[string][]string{{"oauth": {"read", "write"}}}}},
		SecuritySchemes: map[string]a2a.SecurityScheme{
			"bearer": {Type: "http", Scheme: "Bearer"},
			"oauth": {Type: "oauth2",
				Flows: json.RawMessage(`{"authorizationCode":{"authorizationUrl":"https://g.example/auth","tokenUrl":"https://g.example/token","scopes":{"read":"r"}}}`)},
		},
		Security: []map[string][]string{{"bearer": {}}, {"oauth": {"read"}}},
	}
}

// requireSameCard compares cards, the flows of their schemes as JSON.
func requireSameCard(t *testing.T, want, got *a2a.AgentCard) {
	t.Helper()
	for name, s := range want.SecuritySchemes {
		g := got.SecuritySchemes[name]
		if s.Flows != nil {
			require.JSONEq(t, string(s.Flows), string(g.Flows), name)
		}
		s.Flows, g.Flows = nil, nil
		require.Equal(t, s, g, name)
	}
	require.Len(t, got.SecuritySchemes, len(want.SecuritySchemes))
	w, g := *want, *got
	w.SecuritySchemes, g.SecuritySchemes = nil, nil
	if w.Signatures != nil {
		require.JSONEq(t, string(w.Signatures), string(g.Signatures))
	}
	w.Signatures, g.Signatures = nil, nil
	require.Equal(t, w, g)
}

func TestAgentCardRoundTrip(t *testing.T) {
	p10, err := AgentCard10(card10())
	require.NoError(t, err)
	got, err := AgentCardOf10(p10)
	require.NoError(t, err)
	requireSameCard(t, card10(), got)

	p03, err := AgentCard03(card03())
	require.NoError(t, err)
	got, err = AgentCardOf03(p03)
	require.NoError(t, err)
	requireSameCard(t, card03(), got)
}

// What the gRPC answer reads into is what the card's JSON reads into.
func TestAgentCardReadsAsItsJSON(t *testing.T) {
	for _, card := range []*a2a.AgentCard{card10(), card03()} {
		raw, err := json.Marshal(card)
		require.NoError(t, err)
		var fromJSON a2a.AgentCard
		require.NoError(t, json.Unmarshal(raw, &fromJSON))
		var got *a2a.AgentCard
		if card.ProtocolVersion == "" {
			p, err := AgentCard10(card)
			require.NoError(t, err)
			got, err = AgentCardOf10(p)
			require.NoError(t, err)
		} else {
			p, err := AgentCard03(card)
			require.NoError(t, err)
			got, err = AgentCardOf03(p)
			require.NoError(t, err)
		}
		requireSameCard(t, &fromJSON, got)
	}
}

// An answer that is no card is a *transport.ProtocolError; a scheme of no
// kind reads as the zero scheme, as the JSON of a kind unknown does; a
// 0.3 streaming false reads as not said.
func TestAgentCardRefused(t *testing.T) {
	nan := &structpb.Struct{Fields: map[string]*structpb.Value{"n": structpb.NewNumberValue(math.NaN())}}
	for name, read := range map[string]func() (*a2a.AgentCard, error){
		"1.0 none":    func() (*a2a.AgentCard, error) { return AgentCardOf10(nil) },
		"1.0 no name": func() (*a2a.AgentCard, error) { return AgentCardOf10(&pb10.AgentCard{Description: "d"}) },
		"1.0 NaN": func() (*a2a.AgentCard, error) {
			return AgentCardOf10(&pb10.AgentCard{Name: "g", Capabilities: &pb10.AgentCapabilities{
				Extensions: []*pb10.AgentExtension{{Uri: "urn:x", Params: nan}}}})
		},
		"0.3 none":    func() (*a2a.AgentCard, error) { return AgentCardOf03(nil) },
		"0.3 no name": func() (*a2a.AgentCard, error) { return AgentCardOf03(&pb03.AgentCard{Url: "g:443"}) },
		"0.3 NaN signature header": func() (*a2a.AgentCard, error) {
			return AgentCardOf03(&pb03.AgentCard{Name: "g", Signatures: []*pb03.AgentCardSignature{{Protected: "p", Header: nan}}})
		},
	} {
		card, err := read()
		require.Nil(t, card, name)
		var pe *transport.ProtocolError
		require.ErrorAs(t, err, &pe, name)
	}

	got, err := AgentCardOf10(&pb10.AgentCard{Name: "g", SecuritySchemes: map[string]*pb10.SecurityScheme{"x": {}}})
	require.NoError(t, err)
	require.Equal(t, a2a.SecurityScheme{}, got.SecuritySchemes["x"])
	require.Nil(t, got.Capabilities.Streaming, "1.0: not said")
	got, err = AgentCardOf03(&pb03.AgentCard{Name: "g", Capabilities: &pb03.AgentCapabilities{}})
	require.NoError(t, err)
	require.Nil(t, got.Capabilities.Streaming, "0.3: false is not said")

	_, err = AgentCard10(&a2a.AgentCard{Name: "g", SecuritySchemes: map[string]a2a.SecurityScheme{"x": {}}})
	require.ErrorIs(t, err, transport.ErrInvalidMessage)
	_, err = AgentCard03(&a2a.AgentCard{Name: "g", Signatures: json.RawMessage(`{"not":"a list"}`)})
	require.ErrorIs(t, err, transport.ErrInvalidMessage)
}
