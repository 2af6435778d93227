package stream_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

func TestClientCardAndFetchCard(t *testing.T) {
	agent := a2atest.NewAgent(a2atest.WithName("travel agent"))
	c, err := stream.Resolve(background(), "http://agent.test/", stream.WithHTTPClient(agent.Client()))
	require.NoError(t, err)
	require.NotNil(t, c.Card())
	require.Equal(t, "travel agent", c.Card().Name)

	card, err := stream.FetchCard(background(), "http://agent.test/", stream.WithHTTPClient(agent.Client()))
	require.NoError(t, err)
	require.Equal(t, "travel agent", card.Name)
	require.Equal(t, 2, agent.CardRequests(), "no cache: one request each")

	plain, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
	require.NoError(t, err)
	require.Nil(t, plain.Card(), "no card was read")

	_, err = stream.FetchCard(background(), "http://agent.test/", stream.WithMaxEventSize(0))
	require.ErrorIs(t, err, stream.ErrInvalidOption)
	_, err = drain(t, c.Send(background(), hello(), stream.WithCardCache(stream.NewCardCache())))
	require.ErrorIs(t, err, stream.ErrInvalidOption, "the cache is Client-wide")
}

// a2atest serves its card with Cache-Control: public, max-age=3600 and no
// ETag: Clients sharing a cache read it once an hour.
func TestCardCacheMaxAge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent()
		cache := stream.NewCardCache()
		opts := []stream.Option{stream.WithHTTPClient(agent.Client()), stream.WithCardCache(cache)}
		for range 3 {
			_, err := stream.Resolve(background(), "http://agent.test/", opts...)
			require.NoError(t, err)
		}
		require.Equal(t, 1, agent.CardRequests())
		<-time.After(time.Hour) // fake time: the bubble's clock
		_, err := stream.FetchCard(background(), "http://agent.test/", opts...)
		require.NoError(t, err)
		require.Equal(t, 2, agent.CardRequests(), "stale after max-age")
	})
}

// cardServer serves a card with the given Cache-Control and ETag headers,
// answering 304 to a matching If-None-Match, and counts what it answered.
type cardServer struct {
	mu                 sync.Mutex
	cacheControl, etag string
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
	if s.etag != "" {
		w.Header().Set("ETag", s.etag)
		if r.Header.Get("If-None-Match") == s.etag {
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
	cache := stream.NewCardCache()
	opts := []stream.Option{stream.WithHTTPClient(a2atest.NewClient(srv)), stream.WithCardCache(cache)}
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
	_, err := stream.FetchCard(context.Background(), "http://agent.test/", opts...)
	require.NoError(t, err)
	require.Equal(t, 2, srv.full)
}

func TestCardCacheKeepsNothingUncacheable(t *testing.T) {
	for _, cc := range []string{"no-store", "", "max-age=0"} {
		t.Run(cc, func(t *testing.T) {
			srv := &cardServer{cacheControl: cc}
			opts := []stream.Option{stream.WithHTTPClient(a2atest.NewClient(srv)), stream.WithCardCache(stream.NewCardCache())}
			for range 2 {
				_, err := stream.FetchCard(context.Background(), "http://agent.test/", opts...)
				require.NoError(t, err)
			}
			require.Equal(t, 2, srv.full)
			require.Equal(t, []string{"", ""}, srv.conditional, "no ETag, nothing to revalidate")
		})
	}
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
			card, err := stream.FetchCard(background(), c.base, opts...)
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

// TestCardCacheKeysOnTheWholeURL: cards under the same path with other
// queries (other keys) are other cards.
func TestCardCacheKeysOnTheWholeURL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &cardServer{cacheControl: "max-age=60"}
		rec := &targetRecorder{h: srv}
		opts := []stream.Option{stream.WithHTTPClient(a2atest.NewClient(rec)), stream.WithCardCache(stream.NewCardCache())}
		for _, base := range []string{"http://agent.test/?code=A", "http://agent.test/?code=B", "http://agent.test/?code=A", "http://agent.test/"} {
			_, err := stream.FetchCard(background(), base, opts...)
			require.NoError(t, err)
		}
		require.Equal(t, []string{
			"GET /.well-known/agent-card.json?code=A",
			"GET /.well-known/agent-card.json?code=B",
			"GET /.well-known/agent-card.json",
		}, rec.since(0))
	})
}
