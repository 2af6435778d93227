package agentcard_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/agentcard"
)

// The agent card cache against RFC 9111 (a private cache), through Fetch,
// in synctest bubbles: the fake clock starts at 2000-01-01T00:00:00Z, so
// durations are exact and a Date header needs no rounding.

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
					card, err := agentcard.Fetch(context.Background(), "http://agent.test/", opts...)
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

// fetchCardName reads the card through cache and returns its name.
func fetchCardName(t *testing.T, o *cardOrigin, cache *agentcard.Cache, url string) string {
	t.Helper()
	card, err := agentcard.Fetch(context.Background(), url, agentcard.WithHTTPClient(a2atest.NewClient(o)), agentcard.WithCache(cache))
	require.NoError(t, err)
	return card.Name
}

// requireReusedFor asserts that a card fetched now is reused for exactly d: one
// request now, none at d minus 1 ns, one more at d.
func requireReusedFor(t *testing.T, d time.Duration, lines ...string) {
	t.Helper()
	o := fixedCard(lines...)
	cache := agentcard.NewCache()
	fetchCardName(t, o, cache, "http://agent.test")
	require.Equal(t, 1, o.count(), "the first read fetches")
	waitFake(d - time.Nanosecond)
	fetchCardName(t, o, cache, "http://agent.test")
	require.Equal(t, 1, o.count(), "still fresh 1 ns before %s (%v)", d, lines)
	waitFake(time.Nanosecond)
	fetchCardName(t, o, cache, "http://agent.test")
	require.Equal(t, 2, o.count(), "stale at %s (%v)", d, lines)
}

// requireNeverReused asserts that every read of the card fetches it (the
// response is not kept, or is revalidated each time without a validator).
func requireNeverReused(t *testing.T, lines ...string) {
	t.Helper()
	o := fixedCard(lines...)
	cache := agentcard.NewCache()
	for i := 1; i <= 3; i++ {
		fetchCardName(t, o, cache, "http://agent.test")
		require.Equal(t, i, o.count(), "read %d fetches (%v)", i, lines)
		waitFake(time.Second)
	}
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

// TestCardCacheKeysOnTheWholeURL: cards under the same path with other
// queries (other keys) are other cards.
func TestCardCacheKeysOnTheWholeURL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &cardServer{cacheControl: "max-age=60"}
		rec := &targetRecorder{h: srv}
		opts := []agentcard.Option{agentcard.WithHTTPClient(a2atest.NewClient(rec)), agentcard.WithCache(agentcard.NewCache())}
		for _, base := range []string{"http://agent.test/?code=A", "http://agent.test/?code=B", "http://agent.test/?code=A", "http://agent.test/"} {
			_, err := agentcard.Fetch(context.Background(), base, opts...)
			require.NoError(t, err)
		}
		require.Equal(t, []string{
			"GET /.well-known/agent-card.json?code=A",
			"GET /.well-known/agent-card.json?code=B",
			"GET /.well-known/agent-card.json",
		}, rec.since(0))
	})
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
			card, err := agentcard.Fetch(context.Background(), "http://agent.test/", opts...)
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
				card, err := agentcard.Fetch(context.Background(), "http://agent.test/", opts...)
				require.NoError(t, err)
				require.Equal(t, "etag agent", card.Name)
			}
			require.Equal(t, c.full, srv.full)
			require.Equal(t, c.conditional, srv.conditional)
		})
	}
}

func TestCardCacheFreshForMaxAge(t *testing.T) {
	for name, tc := range map[string]struct {
		fresh time.Duration
		lines []string
	}{
		"max-age":                 {60 * time.Second, []string{"Cache-Control: max-age=60"}},
		"upper-case":              {60 * time.Second, []string{"Cache-Control: MAX-AGE=60"}},
		"with-public":             {60 * time.Second, []string{"Cache-Control: public, max-age=60"}},
		"with-private":            {60 * time.Second, []string{"Cache-Control: private, max-age=60"}},
		"leading-zeros":           {60 * time.Second, []string{"Cache-Control: max-age=060"}},
		"two-lines":               {60 * time.Second, []string{"Cache-Control: public", "Cache-Control: max-age=60"}},
		"same-twice":              {60 * time.Second, []string{"Cache-Control: max-age=60", "Cache-Control: max-age=60"}},
		"age":                     {10 * time.Second, []string{"Cache-Control: max-age=60", "Age: 50"}},
		"date":                    {30 * time.Second, []string{"Cache-Control: max-age=60", "Date: Fri, 31 Dec 1999 23:59:30 GMT"}},
		"date-future":             {60 * time.Second, []string{"Cache-Control: max-age=60", "Date: Sat, 01 Jan 2000 00:10:00 GMT"}},
		"age-beats-date":          {10 * time.Second, []string{"Cache-Control: max-age=60", "Age: 50", "Date: Fri, 31 Dec 1999 23:59:30 GMT"}},
		"date-beats-age":          {10 * time.Second, []string{"Cache-Control: max-age=60", "Age: 20", "Date: Fri, 31 Dec 1999 23:59:10 GMT"}},
		"s-maxage-ignored":        {10 * time.Second, []string{"Cache-Control: max-age=10, s-maxage=600"}},
		"s-maxage-first":          {10 * time.Second, []string{"Cache-Control: s-maxage=600, max-age=10"}},
		"quoted-other-directive":  {60 * time.Second, []string{`Cache-Control: ext="a, b", max-age=60`}},
		"overflow-max-age":        {1 << 31 * time.Second, []string{"Cache-Control: max-age=99999999999999999999999"}},
		"max-age-2^31":            {1 << 31 * time.Second, []string{"Cache-Control: max-age=2147483648"}},
		"max-age-over-2^31":       {1 << 31 * time.Second, []string{"Cache-Control: max-age=2147483649"}},
		"max-age-2^31-1":          {(1<<31 - 1) * time.Second, []string{"Cache-Control: max-age=2147483647"}},
		"overflow-age-under-cap":  {1 * time.Second, []string{"Cache-Control: max-age=99999999999999999999999", "Age: 2147483647"}},
		"unknown-directive-value": {60 * time.Second, []string{"Cache-Control: foo=bar, max-age=60, baz"}},
		"spaces":                  {60 * time.Second, []string{"Cache-Control:   max-age=60  ,  public  "}},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { requireReusedFor(t, tc.fresh, tc.lines...) })
		})
	}
}

// TestCardCacheNotReused: responses a private cache must not
// reuse without a request (RFC 9111 §3, §4.2.1, §5.2.2).
func TestCardCacheNotReused(t *testing.T) {
	for name, lines := range map[string][]string{
		"no-cache-control":         nil,
		"no-store":                 {"Cache-Control: no-store"},
		"no-store-and-max-age":     {"Cache-Control: max-age=60, no-store"},
		"no-store-on-second-line":  {"Cache-Control: max-age=60", "Cache-Control: no-store"},
		"no-cache-and-max-age":     {"Cache-Control: max-age=60, no-cache"},
		"no-cache-on-second-line":  {"Cache-Control: max-age=60", "Cache-Control: no-cache"},
		"upper-case-no-store":      {"Cache-Control: max-age=60, NO-STORE"},
		"max-age-0":                {"Cache-Control: max-age=0"},
		"s-maxage-only":            {"Cache-Control: s-maxage=600"},
		"expires-only":             {"Expires: Sat, 01 Jan 2000 01:00:00 GMT"},
		"last-modified-only":       {"Last-Modified: Fri, 01 Jan 1999 00:00:00 GMT"},
		"max-age-not-a-number":     {"Cache-Control: max-age=abc"},
		"max-age-negative":         {"Cache-Control: max-age=-60"},
		"max-age-plus-sign":        {"Cache-Control: max-age=+60"},
		"max-age-fraction":         {"Cache-Control: max-age=60.5"},
		"max-age-empty":            {"Cache-Control: max-age="},
		"max-age-hex":              {"Cache-Control: max-age=0x3c"},
		"max-age-twice-differing":  {"Cache-Control: max-age=60, max-age=120"},
		"max-age-differing-lines":  {"Cache-Control: max-age=60", "Cache-Control: max-age=120"},
		"age-overflow":             {"Cache-Control: max-age=60", "Age: 99999999999999999999999"},
		"age-and-max-age-overflow": {"Cache-Control: max-age=99999999999999999999999", "Age: 99999999999999999999999"},
		"age-2^31-max-age-cap":     {"Cache-Control: max-age=2147483648", "Age: 2147483648"},
		"old-date":                 {"Cache-Control: max-age=60", "Date: Fri, 31 Dec 1999 23:58:00 GMT"},
		// A quoted string that holds an escaped quote: the no-store after it
		// is a directive of its own (RFC 9110 §5.6.4 quoted-pair).
		"no-store-after-escaped-quote": {`Cache-Control: max-age=60, ext="\"", no-store`},
		// A comma inside a quoted string does not end the directive, but the
		// no-store after the string does count.
		"no-store-after-quoted-comma": {`Cache-Control: ext="a, max-age=600", no-store, max-age=60`},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { requireNeverReused(t, lines...) })
		})
	}
}

// TestCardCacheRequestDelayCountsInAge: the age of a card is its
// Age plus the time its request took (RFC 9111 §4.2.3,
// corrected_age_value = age_value + response_delay).
func TestCardCacheRequestDelayCountsInAge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &cardOrigin{answer: func(n int, r *http.Request, w http.ResponseWriter) {
			waitFake(5 * time.Second)
			serveNamedCard(w, "card", "Cache-Control: max-age=60", "Age: 10")
		}}
		cache := agentcard.NewCache()
		fetchCardName(t, o, cache, "http://agent.test")
		// Received at 5 s with a corrected age of 15 s: fresh until 50 s.
		waitFake(45*time.Second - time.Nanosecond)
		fetchCardName(t, o, cache, "http://agent.test")
		require.Equal(t, 1, o.count(), "fresh 1 ns before 45 s after receipt")
		waitFake(time.Nanosecond)
		fetchCardName(t, o, cache, "http://agent.test")
		require.Equal(t, 2, o.count(), "stale 45 s after receipt")
	})
}

// TestCardCacheRevalidation: a stale card with an ETag is
// revalidated with If-None-Match; a 304 keeps it, fresh again for the
// 304's max-age (or the stored one when the 304 has none), and the card
// read is the stored one.
func TestCardCacheRevalidation(t *testing.T) {
	for name, tc := range map[string]struct {
		etag       string   // the card's ETag
		notMod     []string // the 304's header lines
		freshAfter time.Duration
	}{
		"strong":              {`"v1"`, []string{`ETag: "v1"`, "Cache-Control: max-age=30"}, 30 * time.Second},
		"weak":                {`W/"v1"`, []string{`ETag: W/"v1"`, "Cache-Control: max-age=30"}, 30 * time.Second},
		"304-without-cc":      {`"v1"`, []string{`ETag: "v1"`}, 60 * time.Second},
		"304-with-age":        {`"v1"`, []string{`ETag: "v1"`, "Cache-Control: max-age=30", "Age: 20"}, 10 * time.Second},
		"304-with-date":       {`"v1"`, []string{`ETag: "v1"`, "Cache-Control: max-age=30", "Date: Sat, 01 Jan 2000 00:00:50 GMT"}, 20 * time.Second},
		"304-without-etag":    {`"v1"`, []string{"Cache-Control: max-age=30"}, 30 * time.Second},
		"304-two-cc-lines":    {`"v1"`, []string{`ETag: "v1"`, "Cache-Control: public", "Cache-Control: max-age=30"}, 30 * time.Second},
		"304-overflow-maxage": {`"v1"`, []string{`ETag: "v1"`, "Cache-Control: max-age=999999999999999999999"}, 1 << 31 * time.Second},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				o := &cardOrigin{answer: func(n int, r *http.Request, w http.ResponseWriter) {
					if n == 0 {
						serveNamedCard(w, "v1", "ETag: "+tc.etag, "Cache-Control: max-age=60")
						return
					}
					for _, l := range tc.notMod {
						k, v, _ := strings.Cut(l, ":")
						w.Header().Add(k, strings.TrimSpace(v))
					}
					w.WriteHeader(http.StatusNotModified)
				}}
				cache := agentcard.NewCache()
				require.Equal(t, "v1", fetchCardName(t, o, cache, "http://agent.test"))
				require.Empty(t, o.last().Header.Get("If-None-Match"))
				waitFake(60 * time.Second) // stale now
				require.Equal(t, "v1", fetchCardName(t, o, cache, "http://agent.test"), "the 304 keeps the stored card")
				require.Equal(t, 2, o.count())
				require.Equal(t, tc.etag, o.last().Header.Get("If-None-Match"), "revalidated with the card's ETag")
				waitFake(tc.freshAfter - time.Nanosecond)
				require.Equal(t, "v1", fetchCardName(t, o, cache, "http://agent.test"))
				require.Equal(t, 2, o.count(), "fresh again after the 304, 1 ns before %s", tc.freshAfter)
				waitFake(time.Nanosecond)
				require.Equal(t, "v1", fetchCardName(t, o, cache, "http://agent.test"))
				require.Equal(t, 3, o.count(), "stale %s after the 304", tc.freshAfter)
			})
		})
	}
}

// TestCardCacheNoCacheRevalidatesEachTime: no-cache (or no
// freshness) with an ETag: every read revalidates, and a 304 serves the
// stored card; a 200 replaces it.
func TestCardCacheNoCacheRevalidatesEachTime(t *testing.T) {
	for name, cc := range map[string]string{
		"no-cache":  "Cache-Control: no-cache",
		"max-age-0": "Cache-Control: max-age=0",
		"none":      "X-None: 1",
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				o := &cardOrigin{answer: func(n int, r *http.Request, w http.ResponseWriter) {
					switch n {
					case 0:
						serveNamedCard(w, "v1", `ETag: "v1"`, cc)
					case 1, 2:
						w.Header().Set("ETag", `"v1"`)
						w.WriteHeader(http.StatusNotModified)
					default:
						serveNamedCard(w, "v2", `ETag: "v2"`, cc)
					}
				}}
				cache := agentcard.NewCache()
				for i, want := range []string{"v1", "v1", "v1", "v2"} {
					require.Equal(t, want, fetchCardName(t, o, cache, "http://agent.test"), "read %d", i)
					require.Equal(t, i+1, o.count(), "read %d asks the server", i)
					if i > 0 {
						require.Equal(t, `"v1"`, o.last().Header.Get("If-None-Match"))
					}
				}
			})
		})
	}
}

// TestCardCacheNoStoreNeverRevalidates: a card served with
// no-store is not kept at all, so no later request is conditional.
func TestCardCacheNoStoreNeverRevalidates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := fixedCard(`ETag: "v1"`, "Cache-Control: no-store, max-age=60")
		cache := agentcard.NewCache()
		fetchCardName(t, o, cache, "http://agent.test")
		fetchCardName(t, o, cache, "http://agent.test")
		require.Equal(t, 2, o.count())
		require.Empty(t, o.last().Header.Get("If-None-Match"), "nothing was kept to revalidate")
	})
}

// TestCardCacheKeyedByQuery: a card URL with a query is its own
// cache entry: another query is another card.
func TestCardCacheKeyedByQuery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &cardOrigin{answer: func(n int, r *http.Request, w http.ResponseWriter) {
			serveNamedCard(w, "for-"+r.URL.Query().Get("tenant"), "Cache-Control: max-age=60")
		}}
		cache := agentcard.NewCache()
		require.Equal(t, "for-a", fetchCardName(t, o, cache, "http://agent.test/?tenant=a"))
		require.Equal(t, "for-b", fetchCardName(t, o, cache, "http://agent.test/?tenant=b"))
		require.Equal(t, "for-a", fetchCardName(t, o, cache, "http://agent.test/?tenant=a"))
		require.Equal(t, "for-b", fetchCardName(t, o, cache, "http://agent.test/?tenant=b"))
		require.Equal(t, 2, o.count())
		require.Equal(t, "for-a", fetchCardName(t, o, cache, "http://agent.test/cards/x.json?tenant=a"))
		require.Equal(t, "for-c", fetchCardName(t, o, cache, "http://agent.test/cards/x.json?tenant=c"))
		require.Equal(t, 4, o.count())
	})
}

// TestCardCacheErrorsNotKept: a 404, a 500 and a card that is not
// JSON are not kept, whatever their Cache-Control.
func TestCardCacheErrorsNotKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := &cardOrigin{answer: func(n int, r *http.Request, w http.ResponseWriter) {
			w.Header().Set("Cache-Control", "max-age=600")
			switch n {
			case 0, 1:
				w.WriteHeader(http.StatusInternalServerError)
			case 2:
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte("{not json"))
			default:
				serveNamedCard(w, "good")
			}
		}}
		cache := agentcard.NewCache()
		hc := a2atest.NewClient(o)
		_, err := agentcard.Fetch(context.Background(), "http://agent.test/card.json", agentcard.WithHTTPClient(hc), agentcard.WithCache(cache))
		require.Error(t, err)
		_, err = agentcard.Fetch(context.Background(), "http://agent.test/card.json", agentcard.WithHTTPClient(hc), agentcard.WithCache(cache))
		require.Error(t, err)
		_, err = agentcard.Fetch(context.Background(), "http://agent.test/card.json", agentcard.WithHTTPClient(hc), agentcard.WithCache(cache))
		require.Error(t, err)
		card, err := agentcard.Fetch(context.Background(), "http://agent.test/card.json", agentcard.WithHTTPClient(hc), agentcard.WithCache(cache))
		require.NoError(t, err)
		require.Equal(t, "good", card.Name)
		require.Equal(t, 4, o.count())
	})
}

// TestCardCacheRevalidationEdges: a 304 with no-store leaves
// nothing kept; a 304 whose strong ETag names another representation does
// not make the stored card fresh (RFC 9111 §4.3.4); a 200 to a
// revalidation replaces the card.
func TestCardCacheRevalidationEdges(t *testing.T) {
	t.Run("304-no-store", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			o := &cardOrigin{answer: func(n int, r *http.Request, w http.ResponseWriter) {
				if n == 0 {
					serveNamedCard(w, "v1", `ETag: "v1"`, "Cache-Control: max-age=60")
					return
				}
				if r.Header.Get("If-None-Match") != "" {
					w.Header().Set("ETag", `"v1"`)
					w.Header().Set("Cache-Control", "no-store, max-age=60")
					w.WriteHeader(http.StatusNotModified)
					return
				}
				serveNamedCard(w, "v1", `ETag: "v1"`, "Cache-Control: no-store")
			}}
			cache := agentcard.NewCache()
			fetchCardName(t, o, cache, "http://agent.test")
			waitFake(time.Minute)
			require.Equal(t, "v1", fetchCardName(t, o, cache, "http://agent.test"))
			require.Equal(t, 2, o.count())
			waitFake(time.Second)
			fetchCardName(t, o, cache, "http://agent.test")
			require.Equal(t, 3, o.count(), "a card whose 304 said no-store is not reused")
		})
	})
	t.Run("304-other-strong-etag", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			o := &cardOrigin{answer: func(n int, r *http.Request, w http.ResponseWriter) {
				switch {
				case n == 0:
					serveNamedCard(w, "v1", `ETag: "v1"`, "Cache-Control: max-age=60")
				case r.Header.Get("If-None-Match") != "":
					w.Header().Set("ETag", `"v2"`)
					w.Header().Set("Cache-Control", "max-age=600")
					w.WriteHeader(http.StatusNotModified)
				default:
					serveNamedCard(w, "v2", `ETag: "v2"`, "Cache-Control: max-age=600")
				}
			}}
			cache := agentcard.NewCache()
			fetchCardName(t, o, cache, "http://agent.test")
			waitFake(time.Minute)
			got := fetchCardName(t, o, cache, "http://agent.test")
			if got == "v1" {
				// The 304 validated another representation: v1 must not be
				// fresh for the 304's ten minutes.
				waitFake(time.Second)
				fetchCardName(t, o, cache, "http://agent.test")
				require.Greater(t, o.count(), 2, "a 304 for ETag v2 renewed the card stored under v1")
			}
		})
	})
	t.Run("200-replaces", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			o := &cardOrigin{answer: func(n int, r *http.Request, w http.ResponseWriter) {
				if n == 0 {
					serveNamedCard(w, "v1", `ETag: "v1"`, "Cache-Control: max-age=60")
					return
				}
				serveNamedCard(w, "v2", "Cache-Control: max-age=60")
			}}
			cache := agentcard.NewCache()
			require.Equal(t, "v1", fetchCardName(t, o, cache, "http://agent.test"))
			waitFake(time.Minute)
			require.Equal(t, "v2", fetchCardName(t, o, cache, "http://agent.test"))
			require.Equal(t, "v2", fetchCardName(t, o, cache, "http://agent.test"))
			require.Equal(t, 2, o.count())
			waitFake(time.Minute)
			fetchCardName(t, o, cache, "http://agent.test")
			require.Empty(t, o.last().Header.Get("If-None-Match"), "v2 came with no ETag")
		})
	})
	t.Run("304-date-renews", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			o := &cardOrigin{answer: func(n int, r *http.Request, w http.ResponseWriter) {
				if n == 0 {
					serveNamedCard(w, "v1", `ETag: "v1"`, "Cache-Control: max-age=60", "Date: Sat, 01 Jan 2000 00:00:00 GMT")
					return
				}
				w.Header().Set("ETag", `"v1"`)
				w.Header().Set("Date", time.Now().UTC().Format(http.TimeFormat))
				w.WriteHeader(http.StatusNotModified)
			}}
			cache := agentcard.NewCache()
			fetchCardName(t, o, cache, "http://agent.test")
			waitFake(time.Minute)
			fetchCardName(t, o, cache, "http://agent.test")
			require.Equal(t, 2, o.count())
			waitFake(time.Minute - time.Nanosecond)
			fetchCardName(t, o, cache, "http://agent.test")
			require.Equal(t, 2, o.count(), "the 304's Date renews the card for the stored max-age")
		})
	})
}
