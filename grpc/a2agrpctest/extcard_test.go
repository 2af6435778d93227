package a2agrpctest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	"github.com/a2astream/a2astream/grpc/a2agrpctest"
	"github.com/a2astream/a2astream/transport"
)

// The extended card calls over gRPC (issue 33 item 2): 1.0
// GetExtendedAgentCard and 0.3 GetAgentCard reach a handler as the
// JSON-RPC GetExtendedAgentCard and agent/getAuthenticatedExtendedCard, and
// its card, its A2A errors and its 401 come back as gRPC's.

// cardHandler answers the extended card calls of JSON-RPC: 401 without
// the right token, the card of the call's version with it, or refusal
// (an A2A error) when set; it records each call.
type cardHandler struct {
	refusal *a2a.RPCError

	mu    sync.Mutex
	calls []cardCall
}

type cardCall struct {
	method, auth string
	params       json.RawMessage
}

func (h *cardHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage
		Method string
		Params json.RawMessage
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad", http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.calls = append(h.calls, cardCall{method: req.Method, auth: r.Header.Get("Authorization"), params: req.Params})
	h.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer s3cret" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="a2a"`)
		http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
		return
	}
	var body any
	switch {
	case h.refusal != nil:
		body = map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": h.refusal}
	case req.Method == "GetExtendedAgentCard":
		body = map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": json.RawMessage(`{"name":"g","description":"extended",` +
			`"supportedInterfaces":[{"url":"g.example:443","protocolBinding":"GRPC","protocolVersion":"1.0"}],` +
			`"capabilities":{"extendedAgentCard":true},"securitySchemes":{"bearer":{"httpAuthSecurityScheme":{"scheme":"Bearer"}}},` +
			`"securityRequirements":[{"schemes":{"bearer":{"list":[]}}}],"skills":[{"id":"payroll","name":"Payroll","tags":["hr"]}]}`)}
	case req.Method == "agent/getAuthenticatedExtendedCard":
		body = map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": json.RawMessage(`{"name":"g","description":"extended",` +
			`"url":"g.example:443","preferredTransport":"GRPC","protocolVersion":"0.3.0","supportsAuthenticatedExtendedCard":true,` +
			`"capabilities":{"streaming":true},"securitySchemes":{"bearer":{"type":"http","scheme":"Bearer"}},` +
			`"security":[{"bearer":[]}],"skills":[{"id":"payroll","name":"Payroll","tags":["hr"]}]}`)}
	default:
		body = map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": &a2a.RPCError{Code: a2a.CodeMethodNotFound, Message: "Method not found"}}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(body)
}

func (h *cardHandler) seen() []cardCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]cardCall(nil), h.calls...)
}

// transportOf returns a Transport to srv, both closed when the test ends.
func transportOf(t *testing.T, srv *a2agrpctest.Server, opts ...a2agrpc.Option) *a2agrpc.Transport {
	t.Helper()
	t.Cleanup(srv.Close)
	tr, err := srv.Transport(opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, tr.Close()) })
	return tr
}

func TestExtendedCardCalls(t *testing.T) {
	methods := map[a2a.Version]string{a2a.V10: "GetExtendedAgentCard", a2a.V03: "agent/getAuthenticatedExtendedCard"}
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			h := &cardHandler{}
			tr := transportOf(t, a2agrpctest.NewHandlerServer(h), a2agrpc.WithTenant("acme"))
			ctx := context.Background()
			signedIn := transport.Call{Version: v, Header: http.Header{"Authorization": {"Bearer s3cret"}}}

			card, err := tr.ExtendedCard(ctx, signedIn)
			require.NoError(t, err)
			require.Equal(t, "extended", card.Description)
			require.Equal(t, []a2a.AgentSkill{{ID: "payroll", Name: "Payroll", Tags: []string{"hr"}}}, card.Skills)
			require.Equal(t, a2a.SecurityScheme{Type: "http", Scheme: "Bearer"}, card.SecuritySchemes["bearer"])
			require.Equal(t, []map[string][]string{{"bearer": {}}}, card.Requirements())
			if v == a2a.V10 {
				require.True(t, card.Capabilities.ExtendedAgentCard)
				require.Equal(t, "g.example:443", card.SupportedInterfaces[0].URL)
			} else {
				require.True(t, card.SupportsAuthenticatedExtendedCard)
				require.Equal(t, "GRPC", card.PreferredTransport)
			}

			// 401 is UNAUTHENTICATED.
			_, err = tr.ExtendedCard(ctx, transport.Call{Version: v})
			require.ErrorIs(t, err, transport.ErrNotAuthenticated)

			calls := h.seen()
			require.Len(t, calls, 2)
			for _, c := range calls {
				require.Equal(t, methods[v], c.method)
			}
			require.Equal(t, "Bearer s3cret", calls[0].auth)
			require.Empty(t, calls[1].auth)
			if v == a2a.V10 {
				require.JSONEq(t, `{"tenant":"acme"}`, string(calls[0].params))
			} else {
				require.Empty(t, calls[0].params, "0.3: no params")
			}

			// -32007: 1.0's reason, 0.3's bare FAILED_PRECONDITION.
			h.refusal = &a2a.RPCError{Code: a2a.CodeExtendedAgentCardNotConfigured, Message: "Extended card not configured."}
			_, err = tr.ExtendedCard(ctx, signedIn)
			want := a2a.CodeExtendedAgentCardNotConfigured
			if v == a2a.V03 {
				want = a2a.CodeUnsupportedOperation
			}
			require.ErrorIs(t, err, &a2a.RPCError{Code: want})
		})
	}
}

// An a2atest.Agent serves no extended card: method not found.
func TestExtendedCardOfAnAgent(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v))
			t.Cleanup(agent.Close)
			tr := transportOf(t, a2agrpctest.NewServer(agent))
			_, err := tr.ExtendedCard(context.Background(), transport.Call{Version: v})
			require.ErrorIs(t, err, &a2a.RPCError{Code: a2a.CodeMethodNotFound})
		})
	}
}
