package agentcard

import (
	"crypto/sha256"
	"encoding/binary"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/a2astream/a2astream/a2a"
)

// maxExtended is how many extended cards a Cache keeps at most; past it,
// the one kept longest goes first.
const maxExtended = 256

// extendedCard is an extended card a Cache keeps: for one caller's
// credentials, under one public card.
type extendedCard struct {
	public *a2a.AgentCard // the public card it was fetched under
	card   *a2a.AgentCard
	seq    uint64 // the order in which it was kept
}

// Extended returns the authenticated extended card kept for the agent
// whose endpoint is endpoint (its JSON-RPC URL or HTTP+JSON base URL, or
// any other key of one interface: stream keys a gRPC one by its url) and
// a caller who sends header (the headers that went with the extended card
// call: names and values, all of them), or nil. It is kept apart from the
// public cards (never returned by Fetch), and keyed by the credentials: a
// caller with other headers, or with none, never gets it. It is returned
// only while public is the public card it was kept under: the card this
// cache returned for the agent, still the same one (fresh, or revalidated
// with a 304). Once the public card changes or leaves the cache, the
// extended card is asked for again. stream.Resolve keeps the extended
// cards of WithExtendedCard this way (see KeepExtended); nil for a nil
// cache. The card must not be modified.
func (c *Cache) Extended(public *a2a.AgentCard, endpoint string, header http.Header) *a2a.AgentCard {
	if c == nil || public == nil {
		return nil
	}
	key := extendedKey(endpoint, header)
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.extended[key]
	if !ok || e.public != public {
		return nil
	}
	return e.card
}

// KeepExtended keeps card, the authenticated extended card of the agent at
// endpoint as a caller who sent header got it, under public, the public
// card this cache returned for that agent: see Extended. Only a hash of
// endpoint and header is kept, never the header values. A cache keeps 256
// extended cards at most, dropping the one kept longest. It does nothing
// on a nil cache or with a nil card.
func (c *Cache) KeepExtended(public *a2a.AgentCard, endpoint string, header http.Header, card *a2a.AgentCard) {
	if c == nil || public == nil || card == nil {
		return
	}
	key := extendedKey(endpoint, header)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.extended == nil {
		c.extended = map[[sha256.Size]byte]extendedCard{}
	}
	if _, ok := c.extended[key]; !ok && len(c.extended) >= maxExtended {
		var oldest [sha256.Size]byte
		first := true
		for k, e := range c.extended {
			if first || e.seq < c.extended[oldest].seq {
				oldest, first = k, false
			}
		}
		delete(c.extended, oldest)
	}
	c.extendedSeq++
	c.extended[key] = extendedCard{public: public, card: card, seq: c.extendedSeq}
}

// extendedKey is the key of an extended card: a SHA-256 of the endpoint
// and of every header, names canonical and sorted, values in order, each
// length-prefixed so that no two different sets read the same.
func extendedKey(endpoint string, header http.Header) [sha256.Size]byte {
	h := sha256.New()
	put := func(s string) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	put(endpoint)
	// The names canonical (a header set by hand may hold "authorization"),
	// the values of names that differ only in case in the order of the
	// names as given.
	raw := slices.Sorted(maps.Keys(header))
	values := map[string][]string{}
	var names []string
	for _, k := range raw {
		if len(header[k]) == 0 {
			continue
		}
		name := http.CanonicalHeaderKey(k)
		if _, seen := values[name]; !seen {
			names = append(names, name)
		}
		values[name] = append(values[name], header[k]...)
	}
	slices.Sort(names)
	for _, k := range names {
		put(k)
		put(strconv.Itoa(len(values[k])))
		for _, v := range values[k] {
			put(v)
		}
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key
}
