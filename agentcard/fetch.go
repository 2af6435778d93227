package agentcard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/httpx"
)

// The well-known paths of an agent card: the current one first, then the
// one A2A 0.2 used.
const (
	Path       = "/.well-known/agent-card.json"
	LegacyPath = "/.well-known/agent.json"
)

// maxCardSize bounds the agent card Fetch reads.
const maxCardSize = 1 << 20

// Fetch reads the agent card under baseURL: at Path under baseURL's path,
// then at LegacyPath when that answers 404; at baseURL itself when its path
// ends in ".json" (for agents that serve their card elsewhere, such as
// /.well-known/<agent-id>/agent-card.json). The card request keeps
// baseURL's query either way: a card's own URL may be signed, and the key
// of a keyed base URL guards the card under it as it guards the agent's
// calls. The card must not be modified.
//
// Headers set with WithHeader go to the origin of baseURL only (its scheme,
// host and port): a redirect to another origin, or from https to http,
// carries none of them, nor a Referer.
//
// Errors: a base URL that is not an absolute http or https URL, or an
// option refused, each matching ErrInvalidOption, before the card is asked
// for; the context's error; an error that matches
// reconnect.ErrCouldNotConnect when the dial failed; an *HTTPError for a
// status other than 2xx (and than 404 at Path); an *InvalidError when no
// card was found (every card URL answered 404) or what came is not a card,
// or when the check of WithCheck refused it. No error text holds a header
// value, a password or a query value.
func Fetch(ctx context.Context, baseURL string, opts ...Option) (*a2a.AgentCard, error) {
	base, err := httpx.ParseBase(baseURL)
	if err != nil {
		return nil, refusedURL{err}
	}
	cfg := defaultConfig()
	for _, o := range opts {
		if o == nil {
			cfg.refuse("a nil Option")
			continue
		}
		o.apply(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	card, cardURL, err := read(ctx, base, &cfg)
	if err != nil {
		return nil, err
	}
	if cfg.checkCard != nil {
		if err := cfg.checkCard(card); err != nil {
			return nil, &InvalidError{URL: cardURL, Reason: err.Error()}
		}
	}
	return card, nil
}

// read reads the card under base and returns it with its URL, redacted
// for error texts.
func read(ctx context.Context, base *url.URL, cfg *config) (*a2a.AgentCard, string, error) {
	named := httpx.Origin(base)
	hc := httpx.OriginOnlyHeaders(cfg.httpClient, httpx.Origins{named}, cfg.header)
	var urls []*url.URL
	if strings.HasSuffix(base.Path, ".json") {
		// The URL of a card itself, such as /.well-known/<agent-id>/agent-card.json.
		urls = append(urls, httpx.Under(base))
	} else {
		for _, p := range []string{Path, LegacyPath} {
			urls = append(urls, httpx.Under(base, strings.Split(p[1:], "/")...))
		}
	}
	var (
		card    *a2a.AgentCard
		cardURL string
		err     error
	)
	var tried []string
	for _, u := range urls {
		cardURL = httpx.RedactURL(u)
		tried = append(tried, cardURL)
		card, err = fetch(ctx, hc, cfg.cache, u.String(), cardURL, named, cfg.header)
		var httpErr *HTTPError
		if errors.As(err, &httpErr) && httpErr.StatusCode == http.StatusNotFound {
			continue
		}
		return card, cardURL, err
	}
	// Every card URL answered 404: not an agent, or not its base URL.
	return nil, cardURL, &InvalidError{URL: cardURL, Reason: "no agent card", Err: err, Tried: tried, status: http.StatusNotFound}
}

// fetch reads the card at cardURL, through cache when it is not nil;
// shownURL is the same URL redacted, for error texts.
func fetch(ctx context.Context, hc *http.Client, cache *Cache, cardURL, shownURL, baseOrigin string, h http.Header) (*a2a.AgentCard, error) {
	held, fresh := cache.lookup(cardURL)
	if fresh {
		return held.card, nil
	}
	for {
		requested := time.Now()
		resp, err := get(ctx, hc, cardURL, shownURL, baseOrigin, h, held.etag)
		if err != nil {
			return nil, err
		}
		received := time.Now()
		if resp.StatusCode != http.StatusNotModified || held.etag == "" {
			card, err := readBody(resp, shownURL)
			resp.Body.Close()
			if err == nil {
				cache.store(cardURL, cacheEntry(card, resp.Header.Get("ETag"), resp.Header.Values("Cache-Control"), resp.Header, requested, received))
			}
			return card, err
		}
		resp.Body.Close()
		if etag := resp.Header.Get("ETag"); etag == "" || weakMatch(etag, held.etag) {
			// The 304's header fields replace the card's (RFC 9111 §4.3.4),
			// and the card is as old as the 304.
			cc := resp.Header.Values("Cache-Control")
			if len(cc) == 0 {
				cc = held.cacheControl
			}
			cache.store(cardURL, cacheEntry(held.card, held.etag, cc, resp.Header, requested, received))
			return held.card, nil
		}
		// A 304 for another representation updates nothing (RFC 9111
		// §4.3.4): ask for the card whole.
		cache.store(cardURL, cachedCard{})
		held = cachedCard{}
	}
}

// get sends the card request, conditional on etag when it is not "";
// shownURL is cardURL redacted, for error texts.
func get(ctx context.Context, hc *http.Client, cardURL, shownURL, baseOrigin string, h http.Header, etag string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		return nil, fmt.Errorf("agentcard: building card request: %w", httpx.RedactError(err))
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("A2A-Version", string(a2a.V10))
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	httpx.AddHeaders(req, httpx.Origins{baseOrigin}, h)
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if httpx.DialFailed(err) {
			return nil, &httpx.ConnectError{Pkg: "agentcard", URL: shownURL, Err: httpx.RedactError(err)}
		}
		return nil, httpx.RedactError(err)
	}
	return resp, nil
}

// readBody reads the card a 2xx response carries, or the *HTTPError of any
// other status.
func readBody(resp *http.Response, shownURL string) (*a2a.AgentCard, error) {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, _ := httpx.ReadLimited(resp.Body, maxErrorBody)
		return nil, &HTTPError{StatusCode: resp.StatusCode, Status: resp.Status, Header: resp.Header, Body: b,
			Method: http.MethodGet, URL: shownURL}
	}
	raw, err := httpx.ReadLimited(resp.Body, maxCardSize)
	if err != nil {
		return nil, &InvalidError{URL: shownURL, Reason: "reading the card", Err: err}
	}
	var card a2a.AgentCard
	if err := json.Unmarshal(raw, &card); err != nil {
		reason := "malformed JSON"
		if mt := httpx.MediaType(resp); mt == "text/html" || len(bytes.TrimSpace(raw)) > 0 && bytes.TrimSpace(raw)[0] == '<' {
			reason = "an HTML page, not a card: " + notAnAgent
		}
		return nil, &InvalidError{URL: shownURL, Reason: reason, Err: err}
	}
	return &card, nil
}
