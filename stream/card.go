package stream

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
	"github.com/a2astream/a2astream/reconnect"
)

// FetchCard reads the agent card under baseURL as Resolve does (CardPath,
// then LegacyCardPath on 404, under baseURL's path; baseURL itself when its
// path ends in ".json"; with baseURL's query either way), without choosing
// an interface or making a Client. WithHTTPClient, WithHeader and
// WithCardCache apply; any other option is refused with ErrInvalidOption
// (see Option), before the card is asked for. The card must not be
// modified.
func FetchCard(ctx context.Context, baseURL string, opts ...Option) (*a2a.AgentCard, error) {
	base, cfg, err := cardConfig(baseURL, opts, atFetchCard, "FetchCard")
	if err != nil {
		return nil, err
	}
	card, _, err := readCard(ctx, base, cfg)
	return card, err
}

// Card returns the agent card Resolve read to make this Client, or nil for
// a Client made with NewClient or NewRESTClient. It must not be modified.
func (c *Client) Card() *a2a.AgentCard { return c.cfg.card }

// cardConfig checks a base URL and the options of Resolve or FetchCard,
// given at at and named name.
func cardConfig(baseURL string, opts []Option, at where, name string) (*url.URL, *config, error) {
	base, err := url.Parse(baseURL)
	if err != nil {
		return nil, nil, errors.New("stream: invalid base URL: the URL does not parse")
	}
	if (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, nil, fmt.Errorf("stream: invalid base URL %q: want an absolute http or https URL", redactURL(base))
	}
	cfg := defaultConfig()
	cfg.applyOptions(opts, at, name)
	if err := cfg.check(); err != nil {
		return nil, nil, err
	}
	// Refused before the card is asked for, as every bad option is: an http
	// origin trusted where the origin named is https.
	if _, err := headerOrigins(origin(base), cfg.trusted); err != nil {
		return nil, nil, err
	}
	return base, &cfg, nil
}

// readCard reads the card under base and returns it with its URL, redacted
// for error texts. The card request keeps base's query: a card's own URL
// may be signed, and the key of a keyed base URL guards the card under it
// as it guards the agent's calls.
func readCard(ctx context.Context, base *url.URL, cfg *config) (*a2a.AgentCard, string, error) {
	hc := originOnlyHeaders(cfg.httpClient, origins{origin(base)}, cfg.header)
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
	var tried []string
	for _, u := range urls {
		cardURL = redactURL(u)
		tried = append(tried, cardURL)
		card, err = fetchCard(ctx, hc, cfg.cardCache, u.String(), cardURL, origin(base), cfg.header)
		var httpErr *HTTPError
		if errors.As(err, &httpErr) && httpErr.StatusCode == http.StatusNotFound && httpErr.Err == nil {
			continue
		}
		return card, cardURL, err
	}
	// Every card URL answered 404: not an agent, or not its base URL.
	return nil, cardURL, &InvalidCardError{URL: cardURL, Reason: "no agent card", Err: err, Tried: tried}
}

// fetchCard reads the card at cardURL, through cache when it is not nil;
// shownURL is the same URL redacted (redactURL), for error texts.
func fetchCard(ctx context.Context, hc *http.Client, cache *CardCache, cardURL, shownURL, baseOrigin string, h http.Header) (*a2a.AgentCard, error) {
	held, fresh := cache.lookup(cardURL)
	if fresh {
		return held.card, nil
	}
	for {
		requested := time.Now()
		resp, err := getCard(ctx, hc, cardURL, shownURL, baseOrigin, h, held.etag)
		if err != nil {
			return nil, err
		}
		received := time.Now()
		if resp.StatusCode != http.StatusNotModified || held.etag == "" {
			card, err := readCardBody(resp, shownURL)
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

// getCard sends the card request, conditional on etag when it is not "";
// shownURL is cardURL redacted, for error texts.
func getCard(ctx context.Context, hc *http.Client, cardURL, shownURL, baseOrigin string, h http.Header, etag string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		return nil, fmt.Errorf("stream: building card request: %w", redactError(err))
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("A2A-Version", string(a2a.V10))
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	addHeaders(req, origins{baseOrigin}, h)
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if dialFailed(err) {
			return nil, &cardConnectError{url: shownURL, err: redactError(err)}
		}
		return nil, redactError(err)
	}
	return resp, nil
}

// cardConnectError is a card request that could not connect to the agent
// (a refused dial, a failed name resolution): the agent is down or the URL
// names no host that answers. It matches reconnect.ErrCouldNotConnect, as
// the error of a stream that could not connect does.
type cardConnectError struct {
	url string // the card URL, redacted
	err error
}

// Error reads like "stream: could not connect to URL: dial tcp …: connect:
// connection refused": the URL once, without the request net/http's
// *url.Error names again ("Get "URL": ").
func (e *cardConnectError) Error() string {
	cause := e.err
	var ue *url.Error
	if errors.As(cause, &ue) {
		cause = ue.Err
	}
	return "stream: could not connect to " + e.url + ": " + cause.Error()
}

func (e *cardConnectError) Unwrap() []error { return []error{reconnect.ErrCouldNotConnect, e.err} }

// readCardBody reads the card a 2xx response carries, or the *HTTPError of
// any other status.
func readCardBody(resp *http.Response, shownURL string) (*a2a.AgentCard, error) {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b, _ := readLimited(resp.Body, maxErrorBody)
		return nil, &HTTPError{StatusCode: resp.StatusCode, Status: resp.Status, Header: resp.Header, Body: b,
			Method: http.MethodGet, URL: shownURL}
	}
	raw, err := readLimited(resp.Body, maxCardSize)
	if err != nil {
		return nil, &InvalidCardError{URL: shownURL, Reason: "reading the card", Err: err}
	}
	var card a2a.AgentCard
	if err := json.Unmarshal(raw, &card); err != nil {
		reason := "malformed JSON"
		if mt := mediaType(resp); mt == "text/html" || len(bytes.TrimSpace(raw)) > 0 && bytes.TrimSpace(raw)[0] == '<' {
			reason = "an HTML page, not a card: " + notAnAgent
		}
		return nil, &InvalidCardError{URL: shownURL, Reason: reason, Err: err}
	}
	return &card, nil
}
