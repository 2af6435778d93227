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
// LegacyCardPath on 404), picks an interface, and returns a Client for it.
// A baseURL whose path ends in ".json" is taken as the URL of the card
// itself, for agents that serve it elsewhere. A card with no protocol
// version and no preferred transport is read as a 0.3 JSON-RPC card.
//
// The interfaces considered are the card's 1.0 supportedInterfaces, then a
// 0.3 card's url (in its preferredTransport, JSON-RPC when absent) and its
// additionalInterfaces, each with a binding (JSON-RPC or HTTP+JSON) and a
// version (1.0 or 0.3) this module speaks. Resolve takes the first JSON-RPC
// one, else the first HTTP+JSON one, in the card's order; WithBinding puts a
// binding first, and WithVersion considers only interfaces of that version.
// A 1.0 interface's tenant goes with every request. A card whose
// capabilities say streaming false makes the Client poll (see
// WithPollInterval). A card with no usable interface ends in an
// *InvalidCardError.
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
	if err := cfg.check(nil); err != nil {
		return nil, err
	}
	hc := originOnlyHeaders(cfg.httpClient, origin(base), cfg.header)
	var (
		card    *a2a.AgentCard
		cardURL string
	)
	paths := []string{strings.TrimSuffix(base.Path, "/") + CardPath, strings.TrimSuffix(base.Path, "/") + LegacyCardPath}
	if strings.HasSuffix(base.Path, ".json") {
		// The URL of a card itself, such as /.well-known/<agent-id>/agent-card.json.
		paths = []string{base.Path}
	}
	for _, p := range paths {
		u := *base
		u.Path = p
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
	in, err := pickInterface(card, cfg.version, cfg.binding)
	if err != nil {
		return nil, &InvalidCardError{URL: cardURL, Reason: err.Error()}
	}
	ref, err := url.Parse(in.url)
	if err != nil {
		return nil, &InvalidCardError{URL: cardURL, Reason: "interface URL does not parse", Err: err}
	}
	endpointURL := base.ResolveReference(ref)
	all := append(append([]Option{}, opts...), WithVersion(in.v), withTenant(in.tenant))
	if s := card.Capabilities.Streaming; s != nil {
		streams := *s
		all = append(all, optionFunc(func(c *config) { c.noStreaming, c.canStream = !streams, streams }))
	}
	if endpointURL.Scheme+"://"+endpointURL.Host != origin(base) {
		// Credentials belong to the origin the caller named, not to wherever
		// the card points.
		all = append(all, optionFunc(func(c *config) { c.header = http.Header{} }))
	}
	return newClient(endpointURL.String(), in.binding, all)
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

// iface is one usable interface of an agent card.
type iface struct {
	url     string
	v       a2a.Version
	binding a2a.Binding
	tenant  string
}

// pickInterface chooses the interface to use from a card: of those with a
// binding and version this module speaks (restricted to version want, when
// set), the first with the preferred binding when one is set, else the first
// JSON-RPC one, else the first HTTP+JSON one, in the card's order.
func pickInterface(card *a2a.AgentCard, want a2a.Version, prefer a2a.Binding) (iface, error) {
	all := cardInterfaces(card, want)
	order := []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON}
	if prefer != "" {
		order = append([]a2a.Binding{prefer}, order...)
	}
	for _, b := range order {
		for _, in := range all {
			if in.binding == b {
				return in, nil
			}
		}
	}
	what := "0.3 or 1.0"
	if want != "" {
		what = string(want)
	}
	return iface{}, fmt.Errorf("no JSON-RPC or HTTP+JSON interface of protocol version %s", what)
}

// cardInterfaces lists the usable interfaces of a card in its order: the
// 1.0 supportedInterfaces first, then a 0.3 card's url (with its
// preferredTransport, JSON-RPC when absent) and additionalInterfaces.
func cardInterfaces(card *a2a.AgentCard, want a2a.Version) []iface {
	ok := func(v a2a.Version) bool { return want == "" || v == want }
	var out []iface
	for _, in := range card.SupportedInterfaces {
		b, known := a2a.ParseBinding(in.ProtocolBinding)
		if v, vok := a2a.ParseVersion(in.ProtocolVersion); known && vok && ok(v) && in.URL != "" {
			out = append(out, iface{url: in.URL, v: v, binding: b, tenant: in.Tenant})
		}
	}
	if card.URL == "" && len(card.AdditionalInterfaces) == 0 {
		return out
	}
	v03 := card.ProtocolVersion == "" || strings.HasPrefix(card.ProtocolVersion, "0.2") || strings.HasPrefix(card.ProtocolVersion, "0.3")
	if v, known := a2a.ParseVersion(card.ProtocolVersion); known {
		v03 = v == a2a.V03
	}
	if !v03 || !ok(a2a.V03) {
		return out
	}
	if card.URL != "" {
		b, known := a2a.BindingJSONRPC, true
		if card.PreferredTransport != "" {
			b, known = a2a.ParseBinding(card.PreferredTransport)
		}
		if known {
			out = append(out, iface{url: card.URL, v: a2a.V03, binding: b})
		}
	}
	for _, in := range card.AdditionalInterfaces {
		if b, known := a2a.ParseBinding(in.Transport); known && in.URL != "" {
			out = append(out, iface{url: in.URL, v: a2a.V03, binding: b})
		}
	}
	return out
}
