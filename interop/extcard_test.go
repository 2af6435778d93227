package interop_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/credentials"
	"github.com/a2astream/a2astream/interop/proxy"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// cardToken is the bearer token the card peers take for their one
// authenticated user (--token).
const cardToken = "interop-s3cret"

// optionalPeer is a JS peer with the flags of the optional features (the
// extended card, push), not one of the matrix's: dir is js03 or js10, and
// the HTTP+JSON binding adds --rest.
func optionalPeer(name, dir string, v a2a.Version, b a2a.Binding, args ...string) peerDef {
	if b == a2a.BindingHTTPJSON {
		args = append([]string{"--rest"}, args...)
	}
	return peerDef{name: name, version: v, binding: b, command: nodePeer(dir, args...)}
}

// cardServer is a JS server and binding the extended card tests run on.
type cardServer struct {
	name, dir string
	v         a2a.Version
	b         a2a.Binding
	args      []string
}

func (s cardServer) rest() bool { return s.b == a2a.BindingHTTPJSON }

var cardServers = []cardServer{
	{"js-1.3.0", "js10", a2a.V10, a2a.BindingJSONRPC, nil},
	{"js-1.3.0-rest", "js10", a2a.V10, a2a.BindingHTTPJSON, nil},
	{"js-0.3.14", "js03", a2a.V03, a2a.BindingJSONRPC, nil},
	{"js-0.3.14-rest", "js03", a2a.V03, a2a.BindingHTTPJSON, nil},
	// 0.3 through the 1.3.0 SDK's legacyCompat.
	{"js-1.3.0-legacy", "js10", a2a.V03, a2a.BindingJSONRPC, []string{"--legacy"}},
}

// cardMode is a way the agent serves its extended card (the peers'
// --extended-card and --auth-401).
type cardMode struct {
	name string
	args []string
	// serves says the right token gets the extended card.
	serves bool
}

var cardModes = []cardMode{
	{"static", []string{"--extended-card", "static"}, true},
	{"fn", []string{"--extended-card", "fn"}, true},
	{"static-401", []string{"--extended-card", "static", "--auth-401"}, true},
	{"none", []string{"--extended-card", "none"}, false},
	{"unadvertised", []string{"--extended-card", "unadvertised"}, false},
}

// cardCreds is what the client brings: a bearer token in every call
// (WithHeader), or a credentials hook (WithCredentials) that Resolve asks on
// a 401 only.
type cardCreds struct {
	name   string
	header string // the token of an Authorization header, or ""
	hook   string // the token the hook gives, or "" for no hook
}

var cardCredCases = []cardCreds{
	{name: "no-token"},
	{name: "wrong-token", header: "wrong-token"},
	{name: "right-token", header: cardToken},
	{name: "hook-right-token", hook: cardToken},
	{name: "hook-wrong-token", hook: "wrong-token"},
}

// isExtendedCardCall reports whether the proxy's request r asked for the
// extended card: 1.0 GetExtendedAgentCard or GET …/extendedAgentCard, 0.3
// agent/getAuthenticatedExtendedCard or GET …/v1/card.
func isExtendedCardCall(r proxy.Request) bool {
	path, _, _ := strings.Cut(r.Path, "?")
	return r.RPC == "GetExtendedAgentCard" || r.RPC == "agent/getAuthenticatedExtendedCard" ||
		r.Method == http.MethodGet && (strings.HasSuffix(path, "/extendedAgentCard") || strings.HasSuffix(path, "/v1/card"))
}

func skillIDs(c *a2a.AgentCard) []string {
	var ids []string
	for _, s := range c.Skills {
		ids = append(ids, s.ID)
	}
	return ids
}

// TestExtendedCardAgainstJSPeers resolves each JS peer's card with
// stream.WithExtendedCard, per way the agent serves the extended card, with
// no token, a wrong one and the right one (in an Authorization header on
// every call, or from a credentials hook, which Resolve asks on a 401 only),
// over JSON-RPC and HTTP+JSON, in 1.0 (js-1.3.0) and 0.3 (js-0.3.14; and
// js-1.3.0's legacyCompat over JSON-RPC).
// Resolve never fails; CardExtended is true only with the right token where
// the agent serves one, and the card then has the extended skill; otherwise
// the Client keeps the public card and one PublicCardKept notice says why,
// with the cause stream's docs give for that answer.
func TestExtendedCardAgainstJSPeers(t *testing.T) {
	for _, srv := range cardServers {
		for _, mode := range cardModes {
			def := optionalPeer(srv.name+"-"+mode.name, srv.dir, srv.v, srv.b, slices.Concat(srv.args, []string{"--token", cardToken}, mode.args)...)
			eachPeerOf(t, []peerDef{def}, func(peerDef) bool { return true }, func(t *testing.T, p *peer) {
				for _, cred := range cardCredCases {
					t.Run(cred.name, func(t *testing.T) {
						checkExtendedCard(t, p, srv, mode, cred)
					})
				}
			})
		}
	}
}

// checkExtendedCard resolves p's card through a fresh proxy with cred and
// checks what the Client holds and was told (see
// TestExtendedCardAgainstJSPeers).
func checkExtendedCard(t *testing.T, p *peer, srv cardServer, mode cardMode, cred cardCreds) {
	px := newProxy(t, p, nil)
	var (
		mu       sync.Mutex
		notices  []stream.Notice
		hookReqs []*credentials.Request
	)
	opts := []stream.Option{
		stream.WithExtendedCard(),
		stream.WithNotify(func(n stream.Notice) {
			mu.Lock()
			defer mu.Unlock()
			notices = append(notices, n)
		}),
	}
	if cred.header != "" {
		opts = append(opts, stream.WithHeader("Authorization", "Bearer "+cred.header))
	}
	if cred.hook != "" {
		opts = append(opts, stream.WithCredentials(credentials.Func(func(_ context.Context, req *credentials.Request) (http.Header, error) {
			mu.Lock()
			defer mu.Unlock()
			hookReqs = append(hookReqs, req)
			return http.Header{"Authorization": {"Bearer " + cred.hook}}, nil
		})))
	}
	c := resolve(t, px, p, opts...) // fails the test if Resolve fails
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("requests:\n%s", requestLog(px))
		}
	})
	require.NotNil(t, c.Card())

	// A 401 is the only answer that asks the hook, once.
	asked := mode.name == "static-401" && cred.hook != ""
	right := cred.header == cardToken || asked && cred.hook == cardToken
	mu.Lock()
	defer mu.Unlock()
	if asked {
		require.Len(t, hookReqs, 1, "the hook is asked once, on the 401")
		require.ErrorIs(t, hookReqs[0].Cause, transport.ErrNotAuthenticated)
		require.Nil(t, hookReqs[0].Task)
		require.Nil(t, hookReqs[0].Message)
		require.Equal(t, 1, hookReqs[0].Attempt)
	} else {
		require.Empty(t, hookReqs, "no 401, so the hook is not asked")
	}

	calls := 0
	for _, r := range px.Requests() {
		if isExtendedCardCall(r) {
			calls++
		}
	}
	switch {
	case mode.name == "unadvertised":
		require.Zero(t, calls, "the card offers no extended card: Resolve does not ask")
	case asked:
		require.Equal(t, 2, calls, "asked, refused 401, asked again with the hook's headers")
	default:
		require.Equal(t, 1, calls)
	}

	if mode.serves && right {
		require.True(t, c.CardExtended(), "the right token where the agent serves an extended card")
		require.Equal(t, []string{"script", "extended"}, skillIDs(c.Card()))
		require.Empty(t, notices)
		return
	}
	require.False(t, c.CardExtended())
	require.Equal(t, []string{"script"}, skillIDs(c.Card()), "the public card is kept")
	require.Len(t, notices, 1, "one notice: %v", notices)
	n := notices[0]
	require.Equal(t, stream.PublicCardKept, n.Kind)
	cause := n.Cause
	require.Error(t, cause)
	t.Logf("public card kept: %v", cause)

	var (
		rpc     *a2a.RPCError
		httpErr *transport.HTTPError
	)
	switch mode.name {
	case "unadvertised":
		require.ErrorIs(t, cause, stream.ErrExtendedCardNotOffered)
	case "static":
		// The SDK's own rule answers a caller it does not know with its
		// public card and 200.
		require.ErrorIs(t, cause, stream.ErrExtendedCardPublic)
	case "static-401":
		require.ErrorIs(t, cause, transport.ErrNotAuthenticated)
		require.ErrorAs(t, cause, &httpErr)
		require.Equal(t, http.StatusUnauthorized, httpErr.StatusCode)
		require.Equal(t, `Bearer realm="a2a-probe"`, httpErr.Header.Get("WWW-Authenticate"))
	case "fn":
		// The provider throws the SDK's unsupported-operation error.
		require.ErrorAs(t, cause, &rpc, "%v", cause)
		require.Equal(t, a2a.CodeUnsupportedOperation, rpc.Code, "%v", cause)
		if srv.rest() {
			require.ErrorAs(t, cause, &httpErr)
			require.Equal(t, http.StatusBadRequest, httpErr.StatusCode, "%v", cause)
		}
	case "none":
		// Advertised with no provider: not configured, whatever the token.
		require.ErrorAs(t, cause, &rpc, "%v", cause)
		require.Equal(t, a2a.CodeExtendedAgentCardNotConfigured, rpc.Code, "%v", cause)
		if srv.rest() {
			want := http.StatusBadRequest
			if srv.v == a2a.V03 {
				want = http.StatusInternalServerError // @a2a-js/sdk 0.3.14
			}
			require.ErrorAs(t, cause, &httpErr)
			require.Equal(t, want, httpErr.StatusCode, "%v", cause)
		}
	default:
		t.Fatalf("no expectation for mode %s", mode.name)
	}
	if !errors.Is(cause, stream.ErrExtendedCardNotOffered) && !errors.Is(cause, stream.ErrExtendedCardPublic) {
		// The agent's refusal is its own answer, not a failed call.
		require.NotErrorIs(t, cause, context.DeadlineExceeded)
	}
}
