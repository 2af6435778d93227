package stream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/credentials"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// cardCapture is one file of ../a2a/testdata/cards (see its README): a
// peer's public card and its answers to the extended card call, per
// binding and caller.
type cardCapture struct {
	Exchanges []struct {
		Label   string
		Request struct {
			Method  string
			URL     string
			Headers map[string]string
		}
		Response struct {
			Status  int
			Headers map[string]string
			Body    json.RawMessage
		}
	}
}

func readCardCapture(t *testing.T, file string) cardCapture {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "a2a", "testdata", "cards", file))
	require.NoError(t, err)
	var c cardCapture
	require.NoError(t, json.Unmarshal(raw, &c))
	return c
}

// capturedPeer replays a capture: the public card at the well-known path,
// and, for an extended card call, the answer the peer gave the caller with
// the same Authorization header (none, "Bearer wrong" or "Bearer s3cret")
// on the same route, with the request's JSON-RPC ID. "PORT" in the
// capture becomes the server's address.
type capturedPeer struct {
	t       *testing.T
	capture cardCapture
	// public is the public card's body, replacing the capture's when set
	// (the 1.0 card a 1.3.0 peer serves given A2A-Version: 1.0).
	public json.RawMessage
	// jsonrpcToo lists JSON-RPC at "/" in the public card: a 0.3.14 peer
	// serves it there, but its card names only its REST interface.
	jsonrpcToo bool
	host       string

	mu    sync.Mutex
	calls []http.Header // the headers of each extended card call
}

func (p *capturedPeer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fix := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte("127.0.0.1:PORT"), []byte(p.host)) }
	if r.URL.Path == agentcard.Path {
		body := []byte(p.capture.Exchanges[0].Response.Body)
		if p.public != nil {
			body = p.public
		}
		if p.jsonrpcToo {
			var card map[string]any
			require.NoError(p.t, json.Unmarshal(body, &card))
			card["additionalInterfaces"] = []any{map[string]any{"url": "http://127.0.0.1:PORT/", "transport": "JSONRPC"}}
			body, _ = json.Marshal(card)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(fix(body))
		return
	}
	p.mu.Lock()
	p.calls = append(p.calls, r.Header.Clone())
	p.mu.Unlock()
	who := "(no credentials)"
	switch r.Header.Get("Authorization") {
	case "Bearer wrong":
		who = "(wrong token)"
	case "Bearer s3cret":
		who = "(valid token)"
	}
	var id json.RawMessage
	if r.Method == http.MethodPost {
		var req struct {
			ID json.RawMessage
		}
		require.NoError(p.t, json.NewDecoder(r.Body).Decode(&req))
		id = req.ID
	}
	for _, e := range p.capture.Exchanges {
		if e.Request.Method != r.Method || e.Request.URL != r.URL.Path || !strings.HasSuffix(e.Label, who) {
			continue
		}
		for k, v := range e.Response.Headers {
			if k == "content-type" || k == "www-authenticate" {
				w.Header().Set(k, v)
			}
		}
		body := []byte(e.Response.Body)
		if id != nil {
			var env map[string]json.RawMessage
			require.NoError(p.t, json.Unmarshal(body, &env))
			env["id"] = id
			body, _ = json.Marshal(env)
		}
		w.WriteHeader(e.Response.Status)
		w.Write(fix(body))
		return
	}
	http.NotFound(w, r)
}

func (p *capturedPeer) extendedCalls() []http.Header {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls
}

// servePeer starts a capturedPeer on a loopback server, closed at the end
// of the test.
func servePeer(t *testing.T, p *capturedPeer) string {
	p.t = t
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	p.host = strings.TrimPrefix(srv.URL, "http://")
	return srv.URL
}

// public10 is the 1.0 card js 1.3.0 serves given A2A-Version: 1.0 (with its
// security scheme in the SDK's $case form), as agentcard.Fetch asks.
func public10(t *testing.T) json.RawMessage {
	c := readCardCapture(t, "card-1.0-public-card-legacy.json")
	for _, e := range c.Exchanges {
		if e.Request.Headers["A2A-Version"] == "1.0" {
			return e.Response.Body
		}
	}
	t.Fatal("no 1.0 card in the capture")
	return nil
}

// resolveKept resolves base with opts and WithExtendedCard, and returns
// the Client and the causes of the PublicCardKept notices told.
func resolveKept(t *testing.T, base string, opts ...stream.Option) (*stream.Client, []error) {
	t.Helper()
	var causes []error
	opts = append(opts, stream.WithExtendedCard(), stream.WithNotify(func(n stream.Notice) {
		require.Equal(t, stream.PublicCardKept, n.Kind)
		causes = append(causes, n.Cause)
	}))
	c, err := stream.Resolve(context.Background(), base, opts...)
	require.NoError(t, err, "the extended card never fails Resolve")
	return c, causes
}

// Each answer of push/README.md §4's table, from the captures of
// @a2a-js/sdk 1.3.0 (1.0, and 0.3 through its compat layer) and 0.3.14,
// over JSON-RPC and REST, for a caller with no credentials, a wrong token
// and the right one: the right token gets the extended card; otherwise the
// Client keeps the public card and one notice says why.
func TestExtendedCardAnswersOfTheJSPeers(t *testing.T) {
	type want struct {
		extended bool
		cause    func(t *testing.T, err error)
	}
	isPublic := func(t *testing.T, err error) { require.ErrorIs(t, err, stream.ErrExtendedCardPublic) }
	notOffered := func(t *testing.T, err error) { require.ErrorIs(t, err, stream.ErrExtendedCardNotOffered) }
	rpc := func(code int) func(t *testing.T, err error) {
		return func(t *testing.T, err error) {
			var re *a2a.RPCError
			require.ErrorAs(t, err, &re, "%v", err)
			require.Equal(t, code, re.Code, "%v", err)
		}
	}
	notAuthenticated := func(t *testing.T, err error) {
		require.ErrorIs(t, err, transport.ErrNotAuthenticated)
		var he *transport.HTTPError
		require.ErrorAs(t, err, &he)
		require.Equal(t, http.StatusUnauthorized, he.StatusCode)
	}
	status := func(code int, inner func(*testing.T, error)) func(t *testing.T, err error) {
		return func(t *testing.T, err error) {
			var he *transport.HTTPError
			require.ErrorAs(t, err, &he, "%v", err)
			require.Equal(t, code, he.StatusCode)
			inner(t, err)
		}
	}
	extended := want{extended: true}
	type mode struct {
		anonymous, wrong, right want
		called                  bool // the card offers the extended card: Resolve asks
	}
	same := func(w want) mode { return mode{w, w, w, true} }
	modes := map[string]func(b a2a.Binding, js0314 bool) mode{
		"static": func(a2a.Binding, bool) mode {
			return mode{want{cause: isPublic}, want{cause: isPublic}, extended, true}
		},
		"fn": func(b a2a.Binding, _ bool) mode {
			c := rpc(-32004)
			if b == a2a.BindingHTTPJSON {
				c = status(400, c)
			}
			return mode{want{cause: c}, want{cause: c}, extended, true}
		},
		"static-401": func(a2a.Binding, bool) mode {
			return mode{want{cause: notAuthenticated}, want{cause: notAuthenticated}, extended, true}
		},
		"none": func(b a2a.Binding, js0314 bool) mode {
			c := rpc(-32007)
			switch {
			case b == a2a.BindingHTTPJSON && js0314:
				c = status(500, c) // 0.3.14 answers 500
			case b == a2a.BindingHTTPJSON:
				c = status(400, c)
			}
			return same(want{cause: c})
		},
		"unadvertised": func(a2a.Binding, bool) mode { m := same(want{cause: notOffered}); m.called = false; return m },
		"off":          func(a2a.Binding, bool) mode { m := same(want{cause: notOffered}); m.called = false; return m },
	}
	peers := []struct {
		prefix  string
		version a2a.Version
		js0314  bool
	}{
		{"card-1.0-", a2a.V10, false},
		{"card-0.3-js1.3.0-legacy-", a2a.V03, false},
		{"card-0.3-js0.3.14-", a2a.V03, true},
	}
	callers := []struct {
		name   string
		header []stream.Option
		pick   func(mode) want
	}{
		{"anonymous", nil, func(m mode) want { return m.anonymous }},
		{"wrong token", []stream.Option{stream.WithHeader("Authorization", "Bearer wrong")}, func(m mode) want { return m.wrong }},
		{"right token", []stream.Option{stream.WithHeader("Authorization", "Bearer s3cret")}, func(m mode) want { return m.right }},
	}
	for _, peer := range peers {
		for name, modeOf := range modes {
			for _, b := range []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
				for _, caller := range callers {
					t.Run(peer.prefix+name+"/"+string(b)+"/"+caller.name, func(t *testing.T) {
						p := &capturedPeer{capture: readCardCapture(t, peer.prefix+name+".json"), jsonrpcToo: peer.js0314}
						if peer.version == a2a.V10 && name != "unadvertised" && name != "off" {
							p.public = public10(t)
						}
						base := servePeer(t, p)
						opts := append([]stream.Option{stream.WithBinding(b), stream.WithVersion(peer.version)}, caller.header...)
						c, causes := resolveKept(t, base, opts...)
						require.Equal(t, b, c.Binding())
						require.Equal(t, peer.version, c.Version())
						m := modeOf(b, peer.js0314)
						w := caller.pick(m)
						if m.called {
							calls := p.extendedCalls()
							require.Len(t, calls, 1)
							sent := map[string]string{"anonymous": "", "wrong token": "Bearer wrong", "right token": "Bearer s3cret"}[caller.name]
							require.Equal(t, sent, calls[0].Get("Authorization"))
						} else {
							require.Empty(t, p.extendedCalls(), "not offered: not asked")
						}
						require.Equal(t, w.extended, c.CardExtended())
						if w.extended {
							require.Empty(t, causes)
							require.True(t, strings.HasSuffix(c.Card().Name, "[EXTENDED]"), c.Card().Name)
							require.Len(t, c.Card().Skills, 2)
							return
						}
						require.Len(t, causes, 1)
						w.cause(t, causes[0])
						require.False(t, strings.HasSuffix(c.Card().Name, "[EXTENDED]"))
						require.Len(t, c.Card().Skills, 1)
					})
				}
			}
		}
	}
}

// The extended card call carries the caller's headers, in the version's
// shape: 1.0 GetExtendedAgentCard with params {} and A2A-Version: 1.0, 0.3
// agent/getAuthenticatedExtendedCard with no params.
func TestExtendedCardCallShape(t *testing.T) {
	for _, tc := range []struct {
		v      a2a.Version
		method string
		params string
	}{
		{a2a.V10, "GetExtendedAgentCard", `{}`},
		{a2a.V03, "agent/getAuthenticatedExtendedCard", ``},
	} {
		t.Run(string(tc.v), func(t *testing.T) {
			var got struct {
				Method string
				Params json.RawMessage
			}
			var header http.Header
			card := `{"name":"a","supportsAuthenticatedExtendedCard":true,"capabilities":{"extendedAgentCard":true},` +
				`"supportedInterfaces":[{"url":"/rpc","protocolBinding":"JSONRPC","protocolVersion":"` + string(tc.v) + `"}]}`
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == agentcard.Path {
					w.Write([]byte(card))
					return
				}
				header = r.Header.Clone()
				require.NoError(t, json.NewDecoder(r.Body).Decode(&got))
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32004,"message":"no"}}`))
			}))
			defer srv.Close()
			var logged bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
			_, causes := resolveKept(t, srv.URL, stream.WithHeader("X-Key", "k1"), stream.WithLogger(logger))
			require.Len(t, causes, 1)
			require.Contains(t, logged.String(), `msg="a2a: keeping the public agent card"`)
			require.Contains(t, logged.String(), "-32004")
			require.NotContains(t, logged.String(), "k1", "no header value is logged")
			require.Equal(t, tc.method, got.Method)
			require.Equal(t, tc.params, string(got.Params))
			require.Equal(t, "k1", header.Get("X-Key"))
			if tc.v == a2a.V10 {
				require.Equal(t, "1.0", header.Get("A2A-Version"))
			}
		})
	}
}

// A 401 to the extended card call calls the credentials hook once, with
// the refusal and no task, and the call is made again with what it gave;
// a hook that fails keeps the public card, with the 401 and the failure.
func TestExtendedCardAsksTheCredentialsHookOn401(t *testing.T) {
	p := &capturedPeer{capture: readCardCapture(t, "card-1.0-static-401.json"), public: public10(t)}
	base := servePeer(t, p)
	var reqs []*credentials.Request
	hook := credentials.Func(func(_ context.Context, req *credentials.Request) (http.Header, error) {
		reqs = append(reqs, req)
		return http.Header{"Authorization": {"Bearer s3cret"}}, nil
	})
	c, causes := resolveKept(t, base, stream.WithCredentials(hook))
	require.Empty(t, causes)
	require.True(t, c.CardExtended())
	require.Len(t, reqs, 1)
	require.Nil(t, reqs[0].Task)
	require.Equal(t, 1, reqs[0].Attempt)
	require.ErrorIs(t, reqs[0].Cause, transport.ErrNotAuthenticated)
	calls := p.extendedCalls()
	require.Len(t, calls, 2)
	require.Empty(t, calls[0].Get("Authorization"))
	require.Equal(t, "Bearer s3cret", calls[1].Get("Authorization"))

	failed := errors.New("no sign-in")
	c, causes = resolveKept(t, base, stream.WithCredentials(credentials.Func(func(context.Context, *credentials.Request) (http.Header, error) {
		return nil, failed
	})))
	require.False(t, c.CardExtended())
	require.Len(t, causes, 1)
	require.ErrorIs(t, causes[0], failed)
	require.ErrorIs(t, causes[0], transport.ErrNotAuthenticated)
}

// Headers go with the extended card call only where they go with every
// call: an interface on another origin than the one named, or http where
// the base is https, gets no call at all, and the notice says why.
func TestExtendedCardFollowsTheOriginRule(t *testing.T) {
	var asked sync.Map
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Store(r.URL.Path, r.Header.Get("Authorization"))
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer other.Close()
	cardNaming := func(endpoint string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != agentcard.Path {
				asked.Store(r.URL.Path, r.Header.Get("Authorization"))
				http.Error(w, "no", http.StatusTeapot)
				return
			}
			w.Write([]byte(`{"name":"a","capabilities":{"extendedAgentCard":true},"supportedInterfaces":[{"url":"` +
				endpoint + `","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`))
		})
	}
	t.Run("another origin", func(t *testing.T) {
		srv := httptest.NewServer(cardNaming(other.URL + "/elsewhere"))
		defer srv.Close()
		c, causes := resolveKept(t, srv.URL, stream.WithHeader("Authorization", "Bearer s3cret"))
		require.False(t, c.CardExtended())
		require.Len(t, causes, 1)
		require.ErrorIs(t, causes[0], stream.ErrExtendedCardWithheld)
	})
	t.Run("https base, http interface", func(t *testing.T) {
		srv := httptest.NewUnstartedServer(nil)
		srv.StartTLS()
		defer srv.Close()
		plain := "http://" + srv.Listener.Addr().String() + "/rpc"
		srv.Config.Handler = cardNaming(plain)
		c, causes := resolveKept(t, srv.URL, stream.WithHTTPClient(srv.Client()), stream.WithHeader("Authorization", "Bearer s3cret"))
		require.False(t, c.CardExtended())
		require.Len(t, causes, 1)
		require.ErrorIs(t, causes[0], stream.ErrExtendedCardWithheld)
	})
	asked.Range(func(k, v any) bool {
		t.Errorf("asked %v with Authorization %q", k, v)
		return true
	})
}

// cachedPeer serves a cacheable public card offering an extended card, and
// an extended card per bearer token (named for it), the public card to
// anyone else; it counts the extended card calls.
type cachedPeer struct {
	mu    sync.Mutex
	calls map[string]int
}

func (p *cachedPeer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	const public = `{"name":"agent","capabilities":{"extendedAgentCard":true},"skills":[{"id":"s","name":"s"}],` +
		`"supportedInterfaces":[{"url":"/","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`
	if r.URL.Path == agentcard.Path {
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Write([]byte(public))
		return
	}
	var req struct{ ID json.RawMessage }
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad", http.StatusBadRequest)
		return
	}
	who := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	p.mu.Lock()
	p.calls[who]++
	p.mu.Unlock()
	card := public
	if who == "alice" || who == "bob" {
		card = `{"name":"agent for ` + who + `","skills":[{"id":"s","name":"s"},{"id":"` + who + `","name":"` + who + `"}]}`
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + card + `}`))
}

// One cache, two callers: each gets the extended card of its own
// credentials, asked for once and then kept; a caller with other
// credentials, or none, never gets another's; and the public card in the
// cache is not replaced by either.
func TestExtendedCardCacheKeysByCredentials(t *testing.T) {
	p := &cachedPeer{calls: map[string]int{}}
	srv := httptest.NewServer(p)
	defer srv.Close()
	cache := agentcard.NewCache()
	as := func(token string) *stream.Client {
		var opts []stream.Option
		if token != "" {
			opts = append(opts, stream.WithHeader("Authorization", "Bearer "+token))
		}
		c, _ := resolveKept(t, srv.URL, append(opts, stream.WithCardCache(cache))...)
		return c
	}
	for range 2 {
		a, b, anon, mallory := as("alice"), as("bob"), as(""), as("mallory")
		require.True(t, a.CardExtended())
		require.Equal(t, "agent for alice", a.Card().Name)
		require.True(t, b.CardExtended())
		require.Equal(t, "agent for bob", b.Card().Name)
		for _, c := range []*stream.Client{anon, mallory} {
			require.False(t, c.CardExtended())
			require.Equal(t, "agent", c.Card().Name)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	require.Equal(t, map[string]int{"alice": 1, "bob": 1, "": 2, "mallory": 2}, p.calls,
		"the extended cards kept, the public card answered to others never")
}

// What is not an extended card keeps the public card: a body over 1 MiB,
// malformed JSON, null, a card with no name, a result that is not an
// object. A card naming another agent is the agent's answer, taken as the
// extended card: it changes nothing of where the Client connects.
func TestExtendedCardHostileAnswers(t *testing.T) {
	const public = `{"name":"agent","capabilities":{"extendedAgentCard":true},` +
		`"supportedInterfaces":[{"url":"/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`
	for _, tc := range []struct {
		name     string
		result   string
		extended bool
	}{
		{"huge", `{"name":"x","description":"` + strings.Repeat("a", 2<<20) + `"}`, false},
		{"bad JSON", `{"name":`, false},
		{"null", `null`, false},
		{"no name", `{"description":"d"}`, false},
		{"a string", `"card"`, false},
		{"an array", `[{"name":"x"}]`, false},
		{"another agent", `{"name":"someone else","supportedInterfaces":[{"url":"http://evil.example/","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == agentcard.Path {
					w.Write([]byte(public))
					return
				}
				var req struct{ ID json.RawMessage }
				require.NoError(t, json.NewDecoder(r.Body).Decode(&req))
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + tc.result + `}`))
			}))
			defer srv.Close()
			c, causes := resolveKept(t, srv.URL)
			require.Equal(t, tc.extended, c.CardExtended())
			require.Equal(t, srv.URL+"/rpc", c.Endpoint(), "the interface is the public card's")
			if tc.extended {
				require.Empty(t, causes)
				require.Equal(t, "someone else", c.Card().Name)
				return
			}
			require.Equal(t, "agent", c.Card().Name)
			require.Len(t, causes, 1)
			var pe *transport.ProtocolError
			require.ErrorAs(t, causes[0], &pe)
		})
	}
}

// A network failure of the extended card call keeps the public card; the
// context's end during the call fails Resolve with its error.
func TestExtendedCardNetworkFailureAndContext(t *testing.T) {
	hang := make(chan struct{})
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == agentcard.Path {
			w.Write([]byte(`{"name":"agent","capabilities":{"extendedAgentCard":true},` +
				`"supportedInterfaces":[{"url":"/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`))
			return
		}
		select {
		case <-hang:
			// Read the body first: the server notices the client's
			// cancel only then.
			io.Copy(io.Discard, r.Body)
			arrived <- struct{}{}
			<-r.Context().Done()
		default:
			conn, _, err := w.(http.Hijacker).Hijack()
			require.NoError(t, err)
			conn.Close()
		}
	}))
	defer srv.Close()
	c, causes := resolveKept(t, srv.URL)
	require.False(t, c.CardExtended())
	require.Equal(t, "agent", c.Card().Name)
	require.Len(t, causes, 1)

	close(hang)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := stream.Resolve(ctx, srv.URL, stream.WithExtendedCard())
		done <- err
	}()
	<-arrived
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
}

// WithExtendedCard applies to Resolve only.
func TestExtendedCardIsResolvesOption(t *testing.T) {
	_, err := stream.NewClient("http://agent.test/", stream.WithExtendedCard())
	require.ErrorIs(t, err, stream.ErrInvalidOption)
	c, err := stream.NewClient("http://agent.test/")
	require.NoError(t, err)
	require.False(t, c.CardExtended())
	require.Equal(t, "public-card-kept", stream.PublicCardKept.String())
}

// A 403 keeps the public card, and does not call the credentials hook:
// only a 401 asks for credentials.
func TestExtendedCardForbidden(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == agentcard.Path {
			w.Write([]byte(`{"name":"agent","capabilities":{"extendedAgentCard":true},` +
				`"supportedInterfaces":[{"url":"/rest","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}]}`))
			return
		}
		require.Equal(t, "/rest/extendedAgentCard", r.URL.Path)
		http.Error(w, `{"error":"forbidden"}`, http.StatusForbidden)
	}))
	defer srv.Close()
	hook := credentials.Func(func(context.Context, *credentials.Request) (http.Header, error) {
		t.Error("the hook was called on a 403")
		return nil, nil
	})
	c, causes := resolveKept(t, srv.URL, stream.WithCredentials(hook))
	require.False(t, c.CardExtended())
	require.Len(t, causes, 1)
	var he *transport.HTTPError
	require.ErrorAs(t, causes[0], &he)
	require.Equal(t, http.StatusForbidden, he.StatusCode)
}
