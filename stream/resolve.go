package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/a2astream/a2astream/a2a"
)

// The well-known paths of an agent card: the current one first, then the
// one A2A 0.2 used.
const (
	CardPath       = "/.well-known/agent-card.json"
	LegacyCardPath = "/.well-known/agent.json"
)

// maxCardSize bounds the agent card a Client reads.
const maxCardSize = 1 << 20

// Resolve reads the agent card under baseURL (CardPath, falling back to
// LegacyCardPath on 404), picks a JSON-RPC interface, and returns a Client
// for it.
//
// From a 1.0 or hybrid card it takes the first supportedInterfaces entry with
// the JSONRPC binding and a version this module speaks (1.0 or 0.3), and
// copies that interface's tenant into every request; from a 0.3 card it takes
// url (when preferredTransport is JSONRPC or absent) or a JSONRPC
// additionalInterfaces entry. When opts fix a version with WithVersion, only
// interfaces of that version are considered. A card with no usable interface
// ends in an *InvalidCardError.
//
// Headers set with WithHeader are sent with the card request, and later only
// to the chosen endpoint when it has the same origin as baseURL.
func Resolve(ctx context.Context, baseURL string, opts ...Option) (*Client, error) {
	base, err := url.Parse(baseURL)
	if err != nil {
		return nil, errors.New("stream: invalid base URL: the URL does not parse")
	}
	if (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("stream: invalid base URL %q: want an absolute http or https URL", redactURL(base))
	}
	cfg := defaultConfig()
	for _, o := range opts {
		if o != nil {
			o.apply(&cfg)
		}
	}
	hc := originOnlyHeaders(cfg.httpClient, origin(base), cfg.header)
	var (
		card    *a2a.AgentCard
		cardURL string
	)
	for _, p := range []string{CardPath, LegacyCardPath} {
		u := *base
		u.Path = strings.TrimSuffix(base.Path, "/") + p
		u.RawPath, u.RawQuery, u.Fragment = "", "", ""
		cardURL = redactURL(&u)
		fetchURL := u.String()
		card, err = fetchCard(ctx, hc, fetchURL, cardURL, origin(base), cfg.header)
		var httpErr *HTTPError
		if errors.As(err, &httpErr) && httpErr.StatusCode == http.StatusNotFound {
			continue
		}
		break
	}
	if err != nil {
		return nil, err
	}
	endpoint, v, tenant, err := pickInterface(card, cfg.version)
	if err != nil {
		return nil, &InvalidCardError{URL: cardURL, Reason: err.Error()}
	}
	ref, err := url.Parse(endpoint)
	if err != nil {
		return nil, &InvalidCardError{URL: cardURL, Reason: "interface URL does not parse", Err: err}
	}
	endpointURL := base.ResolveReference(ref)
	all := append(append([]Option{}, opts...), WithVersion(v), withTenant(tenant))
	if s := card.Capabilities.Streaming; s != nil && !*s {
		all = append(all, optionFunc(func(c *config) { c.noStreaming = true }))
	}
	if endpointURL.Scheme+"://"+endpointURL.Host != origin(base) {
		// Credentials belong to the origin the caller named, not to wherever
		// the card points.
		all = append(all, optionFunc(func(c *config) { c.header = http.Header{} }))
	}
	return NewClient(endpointURL.String(), all...)
}

// fetchCard reads the card at cardURL; shownURL is the same URL redacted
// (redactURL), for error texts.
func fetchCard(ctx context.Context, hc *http.Client, cardURL, shownURL, baseOrigin string, h http.Header) (*a2a.AgentCard, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		return nil, fmt.Errorf("stream: building card request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("A2A-Version", string(a2a.V10))
	addHeaders(req, baseOrigin, h)
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, redactError(err)
	}
	defer resp.Body.Close()
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
	return &card, nil
}

// pickInterface chooses the endpoint, version and tenant from a card. want,
// when set, restricts the choice to that version.
func pickInterface(card *a2a.AgentCard, want a2a.Version) (endpoint string, v a2a.Version, tenant string, err error) {
	ok := func(v a2a.Version) bool { return want == "" || v == want }
	for _, in := range card.SupportedInterfaces {
		if !strings.EqualFold(in.ProtocolBinding, a2a.TransportJSONRPC) || in.URL == "" {
			continue
		}
		if v, known := a2a.ParseVersion(in.ProtocolVersion); known && ok(v) {
			return in.URL, v, in.Tenant, nil
		}
	}
	if card.URL != "" || len(card.AdditionalInterfaces) > 0 {
		v03 := card.ProtocolVersion == "" || strings.HasPrefix(card.ProtocolVersion, "0.2") || strings.HasPrefix(card.ProtocolVersion, "0.3")
		if v, known := a2a.ParseVersion(card.ProtocolVersion); known {
			v03 = v == a2a.V03
		}
		if v03 && ok(a2a.V03) {
			if card.URL != "" && (card.PreferredTransport == "" || strings.EqualFold(card.PreferredTransport, a2a.TransportJSONRPC)) {
				return card.URL, a2a.V03, "", nil
			}
			for _, in := range card.AdditionalInterfaces {
				if strings.EqualFold(in.Transport, a2a.TransportJSONRPC) && in.URL != "" {
					return in.URL, a2a.V03, "", nil
				}
			}
		}
	}
	if want != "" {
		return "", "", "", fmt.Errorf("no JSON-RPC interface of protocol version %s", want)
	}
	return "", "", "", errors.New("no JSON-RPC interface of protocol version 0.3 or 1.0")
}
