package stream_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

func TestClientCardAndFetchCard(t *testing.T) {
	agent := a2atest.NewAgent(a2atest.WithName("travel agent"))
	c, err := stream.Resolve(background(), "http://agent.test/", stream.WithHTTPClient(agent.Client()))
	require.NoError(t, err)
	require.NotNil(t, c.Card())
	require.Equal(t, "travel agent", c.Card().Name)

	card, err := agentcard.Fetch(background(), "http://agent.test/", agentcard.WithHTTPClient(agent.Client()))
	require.NoError(t, err)
	require.Equal(t, "travel agent", card.Name)
	require.Equal(t, 2, agent.CardRequests(), "no cache: one request each")

	plain, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
	require.NoError(t, err)
	require.Nil(t, plain.Card(), "no card was read")

	_, err = agentcard.Fetch(background(), "http://agent.test/", nil)
	require.ErrorIs(t, err, agentcard.ErrInvalidOption)
	_, err = drain(t, c.Send(background(), hello(), stream.WithCardCache(agentcard.NewCache())))
	require.ErrorIs(t, err, stream.ErrInvalidOption, "the cache is Client-wide")
}

// a2atest serves its card with Cache-Control: public, max-age=3600 and no
// ETag: Clients sharing a cache read it once an hour.
func TestCardCacheMaxAge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent()
		cache := agentcard.NewCache()
		opts := []stream.Option{stream.WithHTTPClient(agent.Client()), stream.WithCardCache(cache)}
		fopts := []agentcard.Option{agentcard.WithHTTPClient(agent.Client()), agentcard.WithCache(cache)}
		for range 3 {
			_, err := stream.Resolve(background(), "http://agent.test/", opts...)
			require.NoError(t, err)
		}
		require.Equal(t, 1, agent.CardRequests())
		<-time.After(time.Hour) // fake time: the bubble's clock
		_, err := agentcard.Fetch(background(), "http://agent.test/", fopts...)
		require.NoError(t, err)
		require.Equal(t, 2, agent.CardRequests(), "stale after max-age")
	})
}

// cardServer serves a card with the given Cache-Control and ETag headers
// and header's lines, answering 304 to a matching If-None-Match (with the
// ETag etag304 when set), and counts what it answered.
type cardServer struct {
	mu                 sync.Mutex
	cacheControl, etag string
	header             http.Header
	etag304            string
	full, notModified  int
	conditional        []string
}

func (s *cardServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conditional = append(s.conditional, r.Header.Get("If-None-Match"))
	if s.cacheControl != "" {
		w.Header().Set("Cache-Control", s.cacheControl)
	}
	for k, vs := range s.header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if s.etag != "" {
		w.Header().Set("ETag", s.etag)
		if r.Header.Get("If-None-Match") == s.etag {
			if s.etag304 != "" {
				w.Header().Set("ETag", s.etag304)
			}
			s.notModified++
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	s.full++
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"name":"etag agent","url":"http://agent.test/","protocolVersion":"0.3.0","capabilities":{"streaming":true}}`))
}

func TestCardCacheRevalidatesWithETag(t *testing.T) {
	srv := &cardServer{cacheControl: "no-cache", etag: `"v1"`}
	cache := agentcard.NewCache()
	opts := []stream.Option{stream.WithHTTPClient(a2atest.NewClient(srv)), stream.WithCardCache(cache)}
	fopts := []agentcard.Option{agentcard.WithHTTPClient(a2atest.NewClient(srv)), agentcard.WithCache(cache)}
	for range 3 {
		c, err := stream.Resolve(context.Background(), "http://agent.test/", opts...)
		require.NoError(t, err)
		require.Equal(t, "etag agent", c.Card().Name)
		require.Equal(t, a2a.V03, c.Version())
	}
	require.Equal(t, 1, srv.full)
	require.Equal(t, 2, srv.notModified, "revalidated each time (no-cache), and kept on 304")
	require.Equal(t, []string{"", `"v1"`, `"v1"`}, srv.conditional)

	srv.etag = `"v2"` // the agent changed its card
	_, err := agentcard.Fetch(context.Background(), "http://agent.test/", fopts...)
	require.NoError(t, err)
	require.Equal(t, 2, srv.full)
}

// keyedCard serves a JSON-RPC card at path, only to requests whose query is
// query (a key or a signature): others get 403, as a keyed endpoint or a
// signed URL answers; other paths get 404.
func keyedCard(path, query string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.EscapedPath() != path:
			http.NotFound(w, r)
		case r.URL.RawQuery != query:
			http.Error(w, "forbidden", http.StatusForbidden)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, cardFor(a2a.V10, "http://agent.test/rpc"))
		}
	})
}

// TestCardURLKeepsItsQuery: the query of the URL given to Resolve and
// FetchCard goes with the card request: a card's own URL (one ending in
// .json) may be signed, and a base URL's key (Azure Functions' ?code=, an
// API gateway's key) guards the well-known paths under it too. The base's
// path keeps its escapes.
func TestCardURLKeepsItsQuery(t *testing.T) {
	cases := []struct {
		name, base string
		serve      http.Handler
		want       []string // the targets the server saw
	}{
		{"a signed card URL", "http://agent.test/cards/x.json?sig=S%2B1&se=2030",
			keyedCard("/cards/x.json", "sig=S%2B1&se=2030"),
			[]string{"GET /cards/x.json?sig=S%2B1&se=2030"}},
		{"a keyed base URL", "http://agent.test/api?code=K",
			keyedCard("/api/.well-known/agent-card.json", "code=K"),
			[]string{"GET /api/.well-known/agent-card.json?code=K"}},
		{"a keyed base URL with a trailing slash", "http://agent.test/api/?code=K",
			keyedCard("/api/.well-known/agent-card.json", "code=K"),
			[]string{"GET /api/.well-known/agent-card.json?code=K"}},
		{"a keyed base URL, the legacy path", "http://agent.test/api?code=K",
			keyedCard("/api/.well-known/agent.json", "code=K"),
			[]string{"GET /api/.well-known/agent-card.json?code=K", "GET /api/.well-known/agent.json?code=K"}},
		{"a keyed base URL with an escaped path", "http://agent.test/a%2Fb?code=K",
			keyedCard("/a%2Fb/.well-known/agent-card.json", "code=K"),
			[]string{"GET /a%2Fb/.well-known/agent-card.json?code=K"}},
		{"a base URL with a fragment", "http://agent.test/api?code=K#top",
			keyedCard("/api/.well-known/agent-card.json", "code=K"),
			[]string{"GET /api/.well-known/agent-card.json?code=K"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := &targetRecorder{h: c.serve}
			opts := []stream.Option{stream.WithHTTPClient(a2atest.NewClient(rec))}
			fopts := []agentcard.Option{agentcard.WithHTTPClient(a2atest.NewClient(rec))}
			card, err := agentcard.Fetch(background(), c.base, fopts...)
			require.NoError(t, err)
			require.Equal(t, "x", card.Name)
			require.Equal(t, c.want, rec.since(0))

			client, err := stream.Resolve(background(), c.base, opts...)
			require.NoError(t, err)
			require.Equal(t, "http://agent.test/rpc", client.Endpoint())
			require.Equal(t, append(c.want, c.want...), rec.since(0))
		})
	}
}

// A base URL that is not an A2A agent's (a wrong path, a web site) gives an
// *InvalidCardError that names the card URLs tried and asks whether this is
// an A2A agent; the HTTP error stays reachable through it.

func TestResolveOfANonAgentNamesTheCardURLsTried(t *testing.T) {
	notFound := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "404 page not found", http.StatusNotFound)
	})
	_, err := stream.Resolve(context.Background(), "http://site.test/app?key=k-secret", stream.WithHTTPClient(a2atest.NewClient(notFound)))
	var ce *agentcard.InvalidError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, []string{"http://site.test/app/.well-known/agent-card.json?key=xxxxx", "http://site.test/app/.well-known/agent.json?key=xxxxx"}, ce.Tried)
	var he *transport.HTTPError
	require.ErrorAs(t, err, &he, "the HTTP error stays reachable")
	require.Equal(t, http.StatusNotFound, he.StatusCode)
	require.Contains(t, err.Error(), "is this the base URL of an A2A agent?")
	require.Contains(t, err.Error(), strings.Join(ce.Tried, " or "))
	require.NotContains(t, err.Error(), "k-secret")
}

func TestResolveOfAWebPageSaysItIsNotACard(t *testing.T) {
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!DOCTYPE html><html><body>Welcome</body></html>"))
	})
	_, err := stream.Resolve(context.Background(), "http://site.test/", stream.WithHTTPClient(a2atest.NewClient(page)))
	var ce *agentcard.InvalidError
	require.ErrorAs(t, err, &ce)
	require.Contains(t, ce.Reason, "HTML")
	require.Contains(t, err.Error(), "is this the base URL of an A2A agent?")
}

// The agent card cache against RFC 9111 (a private cache), in synctest
// bubbles: the fake clock starts at 2000-01-01T00:00:00Z, so durations are
// exact and a Date header needs no rounding.

// cardOrigin serves an agent card whose response headers a test sets for
// each request, and records the card requests.
type cardOrigin struct {
	mu     sync.Mutex
	reqs   []*http.Request
	answer func(n int, r *http.Request, w http.ResponseWriter) // n counts card requests from 0
}

func (o *cardOrigin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	n := len(o.reqs)
	o.reqs = append(o.reqs, r.Clone(context.Background()))
	o.mu.Unlock()
	o.answer(n, r, w)
}

func (o *cardOrigin) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.reqs)
}

// namedCard is the body of a card named name.
func namedCard(name string) []byte {
	return []byte(`{"name":"` + name + `","description":"d","version":"1","supportedInterfaces":[{"url":"http://agent.test/","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{"streaming":true},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[]}`)
}

// serveNamedCard answers with the card and the header lines given ("Name:
// value" each, repeated names making several field lines).
func serveNamedCard(w http.ResponseWriter, name string, lines ...string) {
	for _, l := range lines {
		k, v, _ := strings.Cut(l, ":")
		w.Header().Add(k, strings.TrimSpace(v))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(namedCard(name))
}

// TestCardCacheConcurrent: many Resolve and FetchCard calls share
// one cache from many goroutines (run with -race); each gets the card.
func TestCardCacheConcurrent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &cardOrigin{answer: func(n int, r *http.Request, w http.ResponseWriter) {
			serveNamedCard(w, "card", "Cache-Control: max-age=1", `ETag: "v"`)
		}}
		cache := agentcard.NewCache()
		hc := newOriginRouter().serve("http://agent.test", o).client()
		var wg sync.WaitGroup
		for i := range 32 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range 5 {
					waitFake(time.Duration(i*j) * 100 * time.Millisecond)
					c, err := stream.Resolve(context.Background(), "http://agent.test", stream.WithHTTPClient(hc), stream.WithCardCache(cache))
					if err != nil || c.Card() == nil || c.Card().Name != "card" {
						t.Errorf("resolve: %v", err)
					}
					card, err := agentcard.Fetch(context.Background(), "http://agent.test/x.json?k="+string(rune('a'+i%3)), agentcard.WithHTTPClient(hc), agentcard.WithCache(cache))
					if err != nil || card.Name != "card" {
						t.Errorf("fetch: %v", err)
					}
				}
			}()
		}
		wg.Wait()
		require.Positive(t, o.count())
	})
}

var _ = a2a.V10

// TestCardCacheResolveKeyedByQuery: Resolve under base URLs that
// differ only in their query reads two cards, each cached on its own.
func TestCardCacheResolveKeyedByQuery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &cardOrigin{answer: func(n int, r *http.Request, w http.ResponseWriter) {
			serveNamedCard(w, "for-"+r.URL.Query().Get("code"), "Cache-Control: max-age=60")
		}}
		cache := agentcard.NewCache()
		hc := newOriginRouter().serve("http://agent.test", o).client()
		for _, code := range []string{"a", "b", "a", "b"} {
			c, err := stream.Resolve(context.Background(), "http://agent.test/?code="+code, stream.WithHTTPClient(hc), stream.WithCardCache(cache))
			require.NoError(t, err)
			require.Equal(t, "for-"+code, c.Card().Name)
		}
		require.Equal(t, 2, o.count())
	})
}
