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
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/stream"
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

func TestCardCacheKeepsNothingUncacheable(t *testing.T) {
	for _, cc := range []string{"no-store", "", "max-age=0"} {
		t.Run(cc, func(t *testing.T) {
			srv := &cardServer{cacheControl: cc}
			opts := []agentcard.Option{agentcard.WithHTTPClient(a2atest.NewClient(srv)), agentcard.WithCache(agentcard.NewCache())}
			for range 2 {
				_, err := agentcard.Fetch(context.Background(), "http://agent.test/", opts...)
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

// TestCardCacheKeysOnTheWholeURL: cards under the same path with other
// queries (other keys) are other cards.
func TestCardCacheKeysOnTheWholeURL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &cardServer{cacheControl: "max-age=60"}
		rec := &targetRecorder{h: srv}
		opts := []agentcard.Option{agentcard.WithHTTPClient(a2atest.NewClient(rec)), agentcard.WithCache(agentcard.NewCache())}
		for _, base := range []string{"http://agent.test/?code=A", "http://agent.test/?code=B", "http://agent.test/?code=A", "http://agent.test/"} {
			_, err := agentcard.Fetch(background(), base, opts...)
			require.NoError(t, err)
		}
		require.Equal(t, []string{
			"GET /.well-known/agent-card.json?code=A",
			"GET /.well-known/agent-card.json?code=B",
			"GET /.well-known/agent-card.json",
		}, rec.since(0))
	})
}

// capped is the largest delta-seconds a cache uses (RFC 9111 §1.2.2).
const capped = (1 << 31) * time.Second

// freshnessCase is a card answered with header, which the cache must reuse
// without a request for exactly fresh (0: every call asks again).
type freshnessCase struct {
	name   string
	header http.Header
	fresh  time.Duration
}

// requireFreshFor runs each case in a bubble: the card is fetched, then
// fetched again just before its freshness ends (no request) and when it
// ends (a request).
func requireFreshFor(t *testing.T, cases []freshnessCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := &cardServer{header: c.header}
				opts := []agentcard.Option{agentcard.WithHTTPClient(a2atest.NewClient(srv)), agentcard.WithCache(agentcard.NewCache())}
				fetch := func() {
					t.Helper()
					card, err := agentcard.Fetch(background(), "http://agent.test/", opts...)
					require.NoError(t, err)
					require.Equal(t, "etag agent", card.Name)
				}
				fetch()
				require.Equal(t, 1, srv.full)
				if c.fresh > 0 {
					<-time.After(c.fresh - time.Nanosecond) // fake time: the bubble's clock
					fetch()
					require.Equal(t, 1, srv.full, "fresh for %v", c.fresh)
					<-time.After(time.Nanosecond)
				}
				fetch()
				require.Equal(t, 2, srv.full, "stale after %v", c.fresh)
			})
		})
	}
}

// cc is a header of Cache-Control lines.
func cc(lines ...string) http.Header { return http.Header{"Cache-Control": lines} }

// with adds the lines of header key to h.
func with(h http.Header, key string, lines ...string) http.Header {
	h = h.Clone()
	for _, l := range lines {
		h.Add(key, l)
	}
	return h
}

// TestCardCacheReadsEveryCacheControlLine: Cache-Control is a list whose
// members may come on several field lines (RFC 9110 §5.3); a directive on
// the second line counts as on the first.
func TestCardCacheReadsEveryCacheControlLine(t *testing.T) {
	requireFreshFor(t, []freshnessCase{
		{"no-store on a second line", cc("max-age=3600", "no-store"), 0},
		{"no-cache on a second line", cc("public, max-age=3600", "no-cache"), 0},
		{"max-age on a second line", cc("public", "max-age=60"), 60 * time.Second},
		{"the same max-age on two lines", cc("max-age=60", "max-age=60"), 60 * time.Second},
		{"other max-ages on two lines", cc("max-age=60", "max-age=3600"), 0},
	})
}

// TestCardCacheCountsTheAge: a card is fresh for its max-age less its age
// when received (RFC 9111 §4.2.3): the larger of the Age a cache on the way
// reports and the time since its Date.
func TestCardCacheCountsTheAge(t *testing.T) {
	// A bubble's clock starts at 2000-01-01 00:00:00 UTC.
	const before, after = "Fri, 31 Dec 1999 23:43:20 GMT", "Sat, 01 Jan 2000 00:16:40 GMT" // 1000 s either way
	hour := cc("max-age=3600")
	requireFreshFor(t, []freshnessCase{
		{"Age", with(hour, "Age", "3000"), 600 * time.Second},
		{"Age of the whole max-age", with(hour, "Age", "3600"), 0},
		{"Age past max-age", with(hour, "Age", "4000"), 0},
		{"Age as a list", with(hour, "Age", "3000, 5"), 600 * time.Second},
		{"Age on two lines", with(hour, "Age", "3000", "5"), 600 * time.Second},
		{"Age invalid", with(hour, "Age", "soon"), time.Hour},
		{"Age negative", with(hour, "Age", "-5"), time.Hour},
		{"Date in the past", with(hour, "Date", before), 2600 * time.Second},
		{"Date in the future", with(hour, "Date", after), time.Hour},
		{"Date older than Age", with(with(hour, "Date", before), "Age", "500"), 2600 * time.Second},
		{"Age older than Date", with(with(hour, "Date", before), "Age", "3000"), 600 * time.Second},
		{"Date invalid", with(hour, "Date", "yesterday"), time.Hour},
	})
}

// TestCardCacheCapsDeltaSeconds: a max-age or Age too large to represent
// counts as 2^31 seconds (RFC 9111 §1.2.2), never as an overflowed value.
func TestCardCacheCapsDeltaSeconds(t *testing.T) {
	requireFreshFor(t, []freshnessCase{
		{"max-age=2147483647", cc("max-age=2147483647"), capped - time.Second},
		{"max-age=2147483648", cc("max-age=2147483648"), capped},
		{"max-age=2147483649", cc("max-age=2147483649"), capped},
		{"max-age=9223372037", cc("max-age=9223372037"), capped},
		{"max-age=18446744074", cc("max-age=18446744074"), capped},
		{"max-age of 30 digits", cc("max-age=100000000000000000000000000000"), capped},
		{"Age=9223372037", with(cc("max-age=3600"), "Age", "9223372037"), 0},
		{"Age of 30 digits", with(cc("max-age=9223372037"), "Age", "100000000000000000000000000000"), 0},
		{"Age=2147483647", with(cc("max-age=9223372037"), "Age", "2147483647"), time.Second},
	})
}

// TestCardCacheDirectives: the Cache-Control directives a private cache
// honours (RFC 9111 §5.2.2), read as the grammar says: names in any case,
// values as tokens or quoted strings, and a max-age that is not
// delta-seconds makes the card stale (§4.2.1).
func TestCardCacheDirectives(t *testing.T) {
	requireFreshFor(t, []freshnessCase{
		{"max-age", cc("max-age=60"), 60 * time.Second},
		{"in any case", cc("Max-Age=60"), 60 * time.Second},
		{"quoted", cc(`max-age="60"`), 60 * time.Second},
		{"leading zeros", cc("max-age=0060"), 60 * time.Second},
		{"beside public, private and immutable", cc("public, max-age=60, private, immutable"), 60 * time.Second},
		{"white space and empty members", cc(" , max-age=60 ,,\tpublic"), 60 * time.Second},
		{"a comma in a quoted value", cc(`ext="a,no-store,b", max-age=60`), 60 * time.Second},
		{"an escaped quote in a quoted value", cc(`ext="a\",no-store", max-age=60`), 60 * time.Second},
		{"s-maxage is for shared caches", cc("s-maxage=3600"), 0},
		{"s-maxage beside max-age", cc("max-age=60, s-maxage=3600"), 60 * time.Second},
		{"max-age=0", cc("max-age=0"), 0},
		{"no-store", cc("max-age=60, no-store"), 0},
		{"NO-STORE", cc("max-age=60, NO-STORE"), 0},
		{"no-cache", cc("max-age=60, no-cache"), 0},
		{"qualified no-cache", cc(`no-cache="Set-Cookie", max-age=60`), 0},
		{"no Cache-Control", nil, 0},
		{"max-age=-1", cc("max-age=-1"), 0},
		{"max-age=1.5", cc("max-age=1.5"), 0},
		{"max-age=", cc("max-age="), 0},
		{"max-age without a value", cc("max-age"), 0},
		{"max-age=+60", cc("max-age=+60"), 0},
		{"max-age=60s", cc("max-age=60s"), 0},
		{"max-age = 60", cc("max-age = 60"), 0},
		{"max-age with an unterminated quote", cc(`max-age="60`), 0},
		{`max-age=""`, cc(`max-age=""`), 0},
	})
}

// TestCardCacheRevalidationRenewsFreshness: a 304 makes the card fresh
// again as its own Cache-Control, Age and Date say; a 304 without
// Cache-Control keeps the directives the card came with (RFC 9111 §4.3.4),
// and a 304 with no-store drops the card.
func TestCardCacheRevalidationRenewsFreshness(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &cardServer{cacheControl: "max-age=60", etag: `"v1"`}
		opts := []agentcard.Option{agentcard.WithHTTPClient(a2atest.NewClient(srv)), agentcard.WithCache(agentcard.NewCache())}
		fetch := func() {
			t.Helper()
			card, err := agentcard.Fetch(background(), "http://agent.test/", opts...)
			require.NoError(t, err)
			require.Equal(t, "etag agent", card.Name)
		}
		requests := func() int { return srv.full + srv.notModified }
		// freshFor checks that the card is reused for exactly d, then
		// revalidated.
		freshFor := func(d time.Duration) {
			t.Helper()
			n := requests()
			<-time.After(d - time.Nanosecond)
			fetch()
			require.Equal(t, n, requests(), "fresh for %v", d)
			<-time.After(time.Nanosecond)
			fetch()
			require.Equal(t, n+1, requests(), "stale after %v", d)
		}
		fetch()
		srv.cacheControl = "max-age=120"
		freshFor(60 * time.Second) // the 304 says max-age=120
		srv.cacheControl = ""
		freshFor(120 * time.Second) // the 304 says nothing: the card's max-age=120 holds
		srv.cacheControl, srv.header = "max-age=120", http.Header{"Age": {"100"}}
		freshFor(120 * time.Second) // the 304 is 100 s old
		srv.cacheControl, srv.header = "no-store", nil
		freshFor(20 * time.Second)
		fetch()
		require.Equal(t, 2, srv.full, "no-store on the 304: the card was dropped")
		require.Equal(t, 4, srv.notModified)
		require.Equal(t, []string{"", `"v1"`, `"v1"`, `"v1"`, `"v1"`, ""}, srv.conditional)
	})
}

// TestCardCache304ForAnotherETag: a 304 whose ETag is not the one asked
// about (weakly compared) updates nothing (RFC 9111 §4.3.4): the card is
// asked for again, whole.
func TestCardCache304ForAnotherETag(t *testing.T) {
	cases := []struct {
		etag304     string
		full        int
		conditional []string
	}{
		{`"v0"`, 2, []string{"", `"v1"`, ""}},
		{`W/"v0"`, 2, []string{"", `"v1"`, ""}},
		{`W/"v1"`, 1, []string{"", `"v1"`}},
	}
	for _, c := range cases {
		t.Run(c.etag304, func(t *testing.T) {
			srv := &cardServer{cacheControl: "no-cache", etag: `"v1"`, etag304: c.etag304}
			opts := []agentcard.Option{agentcard.WithHTTPClient(a2atest.NewClient(srv)), agentcard.WithCache(agentcard.NewCache())}
			for range 2 {
				card, err := agentcard.Fetch(background(), "http://agent.test/", opts...)
				require.NoError(t, err)
				require.Equal(t, "etag agent", card.Name)
			}
			require.Equal(t, c.full, srv.full)
			require.Equal(t, c.conditional, srv.conditional)
		})
	}
}
