package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a2astream/a2astream/a2a"
)

// FetchCard reads the agent card under baseURL as Resolve does (CardPath,
// then LegacyCardPath on 404, under baseURL's path; baseURL itself when its
// path ends in ".json"; with baseURL's query either way), without choosing
// an interface or making a Client. WithHTTPClient, WithHeader and
// WithCardCache apply; the other options are checked and have no effect.
// The card must not be modified.
func FetchCard(ctx context.Context, baseURL string, opts ...Option) (*a2a.AgentCard, error) {
	base, cfg, err := cardConfig(baseURL, opts)
	if err != nil {
		return nil, err
	}
	card, _, err := readCard(ctx, base, cfg)
	return card, err
}

// Card returns the agent card Resolve read to make this Client, or nil for
// a Client made with NewClient or NewRESTClient. It must not be modified.
func (c *Client) Card() *a2a.AgentCard { return c.cfg.card }

// cardConfig checks a base URL and the options of Resolve or FetchCard.
func cardConfig(baseURL string, opts []Option) (*url.URL, *config, error) {
	base, err := url.Parse(baseURL)
	if err != nil {
		return nil, nil, errors.New("stream: invalid base URL: the URL does not parse")
	}
	if (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, nil, fmt.Errorf("stream: invalid base URL %q: want an absolute http or https URL", redactURL(base))
	}
	cfg := defaultConfig()
	for _, o := range opts {
		if o != nil {
			o.apply(&cfg)
		}
	}
	if err := cfg.check(); err != nil {
		return nil, nil, err
	}
	return base, &cfg, nil
}

// readCard reads the card under base and returns it with its URL, redacted
// for error texts. The card request keeps base's query: a card's own URL
// may be signed, and the key of a keyed base URL guards the card under it
// as it guards the agent's calls.
func readCard(ctx context.Context, base *url.URL, cfg *config) (*a2a.AgentCard, string, error) {
	hc := originOnlyHeaders(cfg.httpClient, origin(base), func(context.Context) http.Header { return cfg.header })
	var urls []*url.URL
	if strings.HasSuffix(base.Path, ".json") {
		// The URL of a card itself, such as /.well-known/<agent-id>/agent-card.json.
		urls = append(urls, under(base))
	} else {
		for _, p := range []string{CardPath, LegacyCardPath} {
			urls = append(urls, under(base, strings.Split(p[1:], "/")...))
		}
	}
	var (
		card    *a2a.AgentCard
		cardURL string
		err     error
	)
	for _, u := range urls {
		cardURL = redactURL(u)
		card, err = fetchCard(ctx, hc, cfg.cardCache, u.String(), cardURL, origin(base), cfg.header)
		var httpErr *HTTPError
		if errors.As(err, &httpErr) && httpErr.StatusCode == http.StatusNotFound {
			continue
		}
		break
	}
	return card, cardURL, err
}

// fetchCard reads the card at cardURL, through cache when it is not nil;
// shownURL is the same URL redacted (redactURL), for error texts.
func fetchCard(ctx context.Context, hc *http.Client, cache *CardCache, cardURL, shownURL, baseOrigin string, h http.Header) (*a2a.AgentCard, error) {
	held, fresh := cache.lookup(cardURL)
	if fresh {
		return held.card, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		return nil, fmt.Errorf("stream: building card request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("A2A-Version", string(a2a.V10))
	if held.etag != "" {
		req.Header.Set("If-None-Match", held.etag)
	}
	addHeaders(req, baseOrigin, h)
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, redactError(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotModified && held.card != nil {
		cache.store(cardURL, held.card, held.etag, resp.Header)
		return held.card, nil
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, _ := readLimited(resp.Body, maxErrorBody)
		return nil, &HTTPError{StatusCode: resp.StatusCode, Status: resp.Status, Header: resp.Header, Body: b}
	}
	raw, err := readLimited(resp.Body, maxCardSize)
	if err != nil {
		return nil, &InvalidCardError{URL: shownURL, Reason: "reading the card", Err: err}
	}
	var card a2a.AgentCard
	if err := json.Unmarshal(raw, &card); err != nil {
		return nil, &InvalidCardError{URL: shownURL, Reason: "malformed JSON", Err: err}
	}
	cache.store(cardURL, &card, resp.Header.Get("ETag"), resp.Header)
	return &card, nil
}

// CardCache keeps agent cards for the Resolve and FetchCard calls that are
// given it with WithCardCache, as HTTP caching allows (A2A 1.0 §8.6.2 asks
// clients to honour it): a card is used again without a request while its
// Cache-Control max-age lasts, and after that revalidated with
// If-None-Match when it came with an ETag (a 304 keeps it). Responses with
// no-store are not kept, and those with no-cache or without max-age are
// always revalidated. Cards are keyed by URL only: give Clients that send
// different credentials, and may see different cards, caches of their own.
// A CardCache is safe for concurrent use; its zero value is not: use
// NewCardCache.
type CardCache struct {
	mu      sync.Mutex
	entries map[string]cachedCard
}

type cachedCard struct {
	card    *a2a.AgentCard
	etag    string
	expires time.Time
}

// NewCardCache returns an empty cache.
func NewCardCache() *CardCache { return &CardCache{entries: map[string]cachedCard{}} }

// WithCardCache makes Resolve and FetchCard read and keep agent cards in
// cache; see CardCache. Without it every call fetches the card. It is
// Client-wide.
func WithCardCache(cache *CardCache) Option {
	return clientOption{"WithCardCache", func(cfg *config) { cfg.cardCache = cache }}
}

// lookup returns what the cache holds for u, and whether it is fresh.
func (c *CardCache) lookup(u string) (cachedCard, bool) {
	if c == nil {
		return cachedCard{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[u]
	return e, ok && time.Now().Before(e.expires)
}

// store keeps card as the response's Cache-Control allows.
func (c *CardCache) store(u string, card *a2a.AgentCard, etag string, h http.Header) {
	if c == nil {
		return
	}
	maxAge, noStore := cacheControl(h.Get("Cache-Control"))
	c.mu.Lock()
	defer c.mu.Unlock()
	if noStore || (maxAge <= 0 && etag == "") {
		delete(c.entries, u)
		return
	}
	c.entries[u] = cachedCard{card: card, etag: etag, expires: time.Now().Add(maxAge)}
}

// cacheControl reads the directives of a Cache-Control header that matter
// here: max-age (0 when absent, or with no-cache) and no-store.
func cacheControl(v string) (maxAge time.Duration, noStore bool) {
	noCache := false
	for _, d := range strings.Split(v, ",") {
		name, val, _ := strings.Cut(strings.TrimSpace(d), "=")
		switch strings.ToLower(name) {
		case "no-store":
			noStore = true
		case "no-cache":
			noCache = true
		case "max-age":
			if n, err := strconv.Atoi(strings.Trim(val, `"`)); err == nil && n > 0 {
				maxAge = time.Duration(n) * time.Second
			}
		}
	}
	if noCache {
		maxAge = 0
	}
	return maxAge, noStore
}
