package agentcard

import (
	"crypto/sha256"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/httpx"
)

// Cache keeps agent cards for the calls of Fetch (and stream.Resolve) that
// are given it, as a private HTTP cache does (RFC 9111; A2A 1.0 §8.6.2
// asks clients to honour HTTP caching). A card is used again without a
// request while it is fresh: for its Cache-Control max-age less its age
// when received, the larger of its Age plus the time the request took and
// the time since its Date. After that it is revalidated with If-None-Match
// when it came with an ETag: a 304 keeps it, fresh again as the 304's
// Cache-Control, Age and Date say (the card's Cache-Control when the 304
// has none). Every Cache-Control field line counts. A response with
// no-store is not kept; one with no-cache, without max-age, or whose
// max-age is not a number of seconds or is given twice with different
// values, is revalidated each time. A max-age or Age over 2^31 seconds
// counts as 2^31. s-maxage (for shared caches), Expires and heuristic
// freshness are not used, and Vary is not read: cards are keyed by URL
// (query included) only, so give callers that send different credentials,
// and may see different cards, caches of their own. Authenticated
// extended cards (stream.WithExtendedCard) are kept apart, keyed by the
// caller's credentials too: see Extended. A Cache is safe for concurrent
// use; its zero value is not: use NewCache.
type Cache struct {
	mu      sync.Mutex
	entries map[string]cachedCard
	// extended are the extended cards kept, by extendedKey.
	extended    map[[sha256.Size]byte]extendedCard
	extendedSeq uint64 // counts the extended cards kept
}

// cachedCard is a card kept, with what revalidating it needs; the zero
// value is no card.
type cachedCard struct {
	card         *a2a.AgentCard
	etag         string
	cacheControl []string // the Cache-Control field lines that apply to it
	expires      time.Time
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{entries: map[string]cachedCard{}} }

// lookup returns what the cache holds for u, and whether it is fresh.
func (c *Cache) lookup(u string) (cachedCard, bool) {
	if c == nil {
		return cachedCard{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[u]
	return e, ok && time.Now().Before(e.expires)
}

// store keeps e under u, or drops what u held when e holds no card.
func (c *Cache) store(u string, e cachedCard) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.card == nil {
		delete(c.entries, u)
		return
	}
	c.entries[u] = e
}

// cacheEntry returns card as the cache may keep it, or no card when it may
// not: etag is its ETag, cc the Cache-Control field lines that apply, h the
// header of the response that brought or revalidated it, requested and
// received the times its request was sent and its response received.
func cacheEntry(card *a2a.AgentCard, etag string, cc []string, h http.Header, requested, received time.Time) cachedCard {
	lifetime, noStore := freshnessLifetime(cc)
	if noStore || (lifetime == 0 && etag == "") {
		return cachedCard{}
	}
	return cachedCard{card: card, etag: etag, cacheControl: cc, expires: received.Add(lifetime - initialAge(h, requested, received))}
}

// freshnessLifetime reads the Cache-Control field lines cc (RFC 9111 §5.2.2)
// as a private cache: the freshness lifetime max-age gives, and whether the
// response has no-store. The lifetime is 0 (revalidate at once) with
// no-cache (qualified or not), without max-age, or when a max-age is not
// delta-seconds or differs from another (§4.2.1: such a response is stale).
func freshnessLifetime(cc []string) (lifetime time.Duration, noStore bool) {
	var seen, noCache, invalid bool
	for _, d := range cacheDirectives(cc) {
		switch d.name {
		case "no-store":
			noStore = true
		case "no-cache":
			noCache = true
		case "max-age":
			n, ok := deltaSeconds(d.value)
			if !ok || d.malformed || (seen && n != lifetime) {
				invalid = true
			}
			lifetime, seen = n, true
		}
	}
	if noCache || invalid {
		lifetime = 0
	}
	return lifetime, noStore
}

// initialAge is the age of a response when received (RFC 9111 §4.2.3,
// corrected_initial_age): the larger of its Age plus the time its request
// took, and the time since its Date (0 for a Date in the future).
func initialAge(h http.Header, requested, received time.Time) time.Duration {
	age := ageValue(h) + received.Sub(requested)
	if date, err := http.ParseTime(h.Get("Date")); err == nil {
		age = max(age, received.Sub(date))
	}
	return age
}

// ageValue reads the Age field: its first member (RFC 9111 §5.1), as
// delta-seconds; 0 when it is absent or invalid.
func ageValue(h http.Header) time.Duration {
	first, _, _ := strings.Cut(h.Get("Age"), ",")
	age, ok := deltaSeconds(strings.Trim(first, " \t"))
	if !ok {
		return 0
	}
	return age
}

// deltaSeconds reads delta-seconds, one or more digits (RFC 9111 §1.2.2); a
// value over 2^31 seconds counts as 2^31.
func deltaSeconds(s string) (time.Duration, bool) {
	const limit = 1 << 31
	var n int64
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		if n < limit {
			n = n*10 + int64(s[i]-'0')
		}
	}
	return time.Duration(min(n, limit)) * time.Second, s != ""
}

// weakMatch compares two entity tags by the weak comparison of RFC 9110
// §8.8.3.2: equal once any W/ is taken off.
func weakMatch(a, b string) bool {
	return strings.TrimPrefix(a, "W/") == strings.TrimPrefix(b, "W/")
}

// cacheDirective is one member of a Cache-Control list.
type cacheDirective struct {
	name      string // lower-cased
	value     string // unquoted
	malformed bool   // not token [ "=" ( token / quoted-string ) ]
}

// cacheDirectives splits Cache-Control field lines into their directives
// (RFC 9111 §5.2, RFC 9110 §5.3 and §5.6): the lines are one list, commas
// inside a quoted string separate nothing, and empty members are skipped.
func cacheDirectives(lines []string) []cacheDirective {
	s := strings.Join(lines, ",")
	var out []cacheDirective
	for i := 0; i < len(s); {
		if s[i] == ',' || s[i] == ' ' || s[i] == '\t' {
			i++
			continue
		}
		start := i
		for i < len(s) && httpx.IsTokenChar(s[i]) {
			i++
		}
		d := cacheDirective{name: strings.ToLower(s[start:i])}
		if i < len(s) && s[i] == '=' {
			i++
			if i < len(s) && s[i] == '"' {
				d.value, i, d.malformed = quotedString(s, i)
			} else {
				start = i
				for i < len(s) && httpx.IsTokenChar(s[i]) {
					i++
				}
				d.value = s[start:i]
			}
		}
		for ; i < len(s) && s[i] != ','; i++ {
			if s[i] != ' ' && s[i] != '\t' {
				d.malformed = true
			}
		}
		out = append(out, d)
	}
	return out
}

// quotedString reads the quoted string that starts at s[i], a '"', and
// returns its content unescaped, the index after it, and whether it lacks
// its closing quote.
func quotedString(s string, i int) (string, int, bool) {
	var b strings.Builder
	for i++; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return b.String(), i + 1, false
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), i, true
}
