package a2a_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// The skills, modes and capabilities of the captured cards.
func TestAgentCardModelFromCaptures(t *testing.T) {
	for _, file := range []string{"a2a-go-agent-card.json", "js-0.3.14-agent-card.json", "js-1.3.0-agent-card.json"} {
		t.Run(file, func(t *testing.T) {
			var card a2a.AgentCard
			require.NoError(t, json.Unmarshal(readCapture(t, file), &card))
			require.Equal(t, []string{"text/plain"}, card.DefaultInputModes)
			require.Equal(t, []string{"text/plain"}, card.DefaultOutputModes)
			require.Len(t, card.Skills, 1)
			require.Equal(t, "script", card.Skills[0].ID)
			require.Equal(t, "scripted", card.Skills[0].Name)
			require.Equal(t, []string{"test"}, card.Skills[0].Tags)
			require.Empty(t, card.Requirements())
		})
	}
	var card a2a.AgentCard
	require.NoError(t, json.Unmarshal(readCapture(t, "js-1.3.0-agent-card.json"), &card))
	require.JSONEq(t, `[]`, string(card.Signatures), "signatures kept as sent")
	require.NotNil(t, card.Capabilities.Extensions)
}

// Security in both versions' shapes reads into the same model.
func TestAgentCardSecurityBothVersions(t *testing.T) {
	v03 := `{"name":"a","securitySchemes":{
		"key":{"type":"apiKey","in":"header","name":"X-Key","description":"d"},
		"bearer":{"type":"http","scheme":"Bearer","bearerFormat":"JWT"},
		"oidc":{"type":"openIdConnect","openIdConnectUrl":"https://id.example/.well-known/openid-configuration"},
		"oauth":{"type":"oauth2","flows":{"clientCredentials":{"tokenUrl":"https://id.example/token","scopes":{}}}},
		"tls":{"type":"mutualTLS"}},
		"security":[{"key":[]},{"oauth":["read","write"]}],
		"skills":[{"id":"s","name":"s","security":[{"bearer":[]}]}],
		"capabilities":{"stateTransitionHistory":true,"extensions":[{"uri":"https://ext.example/x","required":true,"params":{"k":1}}]},
		"supportsAuthenticatedExtendedCard":true,
		"provider":{"organization":"Example","url":"https://example.com"}}`
	v10 := `{"name":"a","securitySchemes":{
		"key":{"apiKeySecurityScheme":{"location":"header","name":"X-Key","description":"d"}},
		"bearer":{"httpAuthSecurityScheme":{"scheme":"Bearer","bearerFormat":"JWT"}},
		"oidc":{"openIdConnectSecurityScheme":{"openIdConnectUrl":"https://id.example/.well-known/openid-configuration"}},
		"oauth":{"oauth2SecurityScheme":{"flows":{"clientCredentials":{"tokenUrl":"https://id.example/token","scopes":{}}}}},
		"tls":{"mtlsSecurityScheme":{}}},
		"securityRequirements":[{"schemes":{"key":{"list":[]}}},{"schemes":{"oauth":{"list":["read","write"]}}}],
		"skills":[{"id":"s","name":"s","securityRequirements":[{"schemes":{"bearer":{"list":[]}}}]}],
		"capabilities":{"extendedAgentCard":true,"extensions":[{"uri":"https://ext.example/x","required":true,"params":{"k":1}}]},
		"provider":{"organization":"Example","url":"https://example.com"}}`
	for name, raw := range map[string]string{"0.3": v03, "1.0": v10} {
		t.Run(name, func(t *testing.T) {
			var card a2a.AgentCard
			require.NoError(t, json.Unmarshal([]byte(raw), &card))
			s := card.SecuritySchemes
			require.Equal(t, a2a.SecurityScheme{Type: "apiKey", Description: "d", Name: "X-Key", Location: "header"}, s["key"])
			require.Equal(t, a2a.SecurityScheme{Type: "http", Scheme: "Bearer", BearerFormat: "JWT"}, s["bearer"])
			require.Equal(t, "openIdConnect", s["oidc"].Type)
			require.Equal(t, "https://id.example/.well-known/openid-configuration", s["oidc"].OpenIDConnectURL)
			require.Equal(t, "oauth2", s["oauth"].Type)
			require.JSONEq(t, `{"clientCredentials":{"tokenUrl":"https://id.example/token","scopes":{}}}`, string(s["oauth"].Flows))
			require.Equal(t, "mutualTLS", s["tls"].Type)
			reqs := card.Requirements()
			require.Len(t, reqs, 2)
			require.Contains(t, reqs[0], "key")
			require.Equal(t, []string{"read", "write"}, reqs[1]["oauth"])
			require.Contains(t, card.Skills[0].Requirements()[0], "bearer")
			require.Equal(t, "https://ext.example/x", card.Capabilities.Extensions[0].URI)
			require.True(t, card.Capabilities.Extensions[0].Required)
			require.Equal(t, "Example", card.Provider.Organization)
			require.True(t, card.Capabilities.StateTransitionHistory || card.Capabilities.ExtendedAgentCard)
		})
	}
}

// A scheme written back comes out in the 0.3 shape and reads the same; a
// kind neither version knows reads as nothing, not as an error.
func TestSecuritySchemeRoundTripAndUnknownKinds(t *testing.T) {
	in := a2a.SecurityScheme{Type: "apiKey", Name: "X-Key", Location: "query"}
	raw, err := json.Marshal(in)
	require.NoError(t, err)
	require.JSONEq(t, `{"type":"apiKey","name":"X-Key","in":"query"}`, string(raw))
	var out a2a.SecurityScheme
	require.NoError(t, json.Unmarshal(raw, &out))
	require.Equal(t, in, out)

	var card a2a.AgentCard
	require.NoError(t, json.Unmarshal([]byte(`{"name":"a","securitySchemes":{"x":{"quantumSecurityScheme":{}}}}`), &card))
	require.Equal(t, a2a.SecurityScheme{}, card.SecuritySchemes["x"])
	require.Error(t, json.Unmarshal([]byte(`{"name":"a","securitySchemes":{"x":[1]}}`), &card), "not an object")
}

// @a2a-js/sdk 1.3.0 serves its well-known 1.0 card with the one-of of each
// security scheme in the SDK's in-memory form ({"scheme":{"$case":…,
// "value":…}}), not proto JSON (push/README.md §4): the card reads, and the
// scheme reads as the proto JSON one the extended card call returns. Any
// other object (an unknown kind, a field of the wrong type) reads as
// nothing, never as an error that loses the whole card.
func TestSecuritySchemeOfTheJSSDKWellKnownCard(t *testing.T) {
	for _, file := range []string{"card-1.0-public-card-no-legacy.json", "card-1.0-public-card-legacy.json"} {
		t.Run(file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", "cards", file))
			require.NoError(t, err)
			var capture struct {
				Exchanges []struct {
					Request  struct{ Headers map[string]string }
					Response struct{ Body json.RawMessage }
				}
			}
			require.NoError(t, json.Unmarshal(raw, &capture))
			var v10 json.RawMessage
			for _, e := range capture.Exchanges {
				if e.Request.Headers["A2A-Version"] == "1.0" {
					v10 = e.Response.Body
				}
			}
			require.Contains(t, string(v10), `"$case"`)
			var card a2a.AgentCard
			require.NoError(t, json.Unmarshal(v10, &card))
			require.True(t, card.Capabilities.ExtendedAgentCard)
			require.Equal(t, a2a.SecurityScheme{Type: "http", Description: "probe token", Scheme: "Bearer"}, card.SecuritySchemes["bearer"])
		})
	}
	var card a2a.AgentCard
	require.NoError(t, json.Unmarshal([]byte(`{"name":"a","securitySchemes":{
		"t":{"type":5},
		"c":{"scheme":{"$case":"httpAuthSecurityScheme","value":"x"}},
		"n":{"scheme":{"$case":"","value":{}}},
		"w":{"httpAuthSecurityScheme":[1]}}}`), &card))
	for _, name := range []string{"t", "c", "n", "w"} {
		require.Equal(t, a2a.SecurityScheme{}, card.SecuritySchemes[name], name)
	}
}
