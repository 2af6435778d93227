package stream

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/internal/httpx"
	"github.com/a2astream/a2astream/transport"
)

// Resolve reads the agent card under baseURL as agentcard.Fetch does
// (agentcard.Path, falling back to agentcard.LegacyPath on 404, with
// baseURL's query; baseURL itself, query included, when its path ends in
// ".json", for agents that serve the card elsewhere), picks an interface,
// and returns a Client for it. A card with no protocol version and no
// preferred transport is read as a 0.3 JSON-RPC card.
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
// *agentcard.InvalidError.
//
// The card's errors are agentcard.Fetch's, except that an answer with a
// status other than 2xx is a *transport.HTTPError, as every other answer of an
// agent is, inside the *agentcard.InvalidError when no card was found.
//
// Headers set with WithHeader, given to Resolve or to one call of the
// Client, go only to the origin of baseURL (its scheme, host and port): the
// card request carries Resolve's, and the calls carry them only when the
// chosen endpoint has that origin. A card that names another host, another
// port, or http where baseURL is https gets no header at all.
func Resolve(ctx context.Context, baseURL string, opts ...Option) (*Client, error) {
	base, err := httpx.ParseBase(baseURL)
	if err != nil {
		return nil, fmt.Errorf("stream: %w", err)
	}
	cfg := defaultConfig()
	cfg.applyOptions(opts, atResolve, "Resolve")
	if err := cfg.check(); err != nil {
		return nil, err
	}
	// Refused before the card is asked for, as every bad option is: an http
	// origin trusted where the origin named is https.
	if _, err := headerOrigins(httpx.Origin(base), cfg.trusted); err != nil {
		return nil, err
	}
	var in iface
	pick := func(card *a2a.AgentCard) (err error) {
		in, err = pickInterface(card, cfg.version, cfg.binding, base)
		return err
	}
	fetchOpts := []agentcard.Option{agentcard.WithHTTPClient(cfg.httpClient), agentcard.WithCache(cfg.cardCache), agentcard.WithCheck(pick)}
	for k, vs := range cfg.header {
		for _, v := range vs {
			fetchOpts = append(fetchOpts, agentcard.WithHeader(k, v))
		}
	}
	card, err := agentcard.Fetch(ctx, baseURL, fetchOpts...)
	if err != nil {
		return nil, cardError(err)
	}
	learned := &fromCard{origin: httpx.Origin(base), version: in.v, tenant: in.tenant, card: card}
	if s := card.Capabilities.Streaming; s != nil {
		learned.streaming = streamingNo
		if *s {
			learned.streaming = streamingYes
		}
	}
	return newClient(in.endpoint.String(), in.binding, opts, learned, "Resolve")
}

// cardError is an error of agentcard.Fetch as Resolve returns it: an
// *agentcard.HTTPError, alone or as the Err of an *agentcard.InvalidError,
// becomes a *transport.HTTPError with the same fields, and a card it could not
// connect for reads "stream: could not connect to ...".
func cardError(err error) error {
	var ce *httpx.ConnectError
	if errors.As(err, &ce) && err == error(ce) {
		return &httpx.ConnectError{Pkg: "stream", URL: ce.URL, Err: ce.Err}
	}
	var ae *agentcard.HTTPError
	if !errors.As(err, &ae) {
		return err
	}
	he := &transport.HTTPError{StatusCode: ae.StatusCode, Status: ae.Status, Header: ae.Header, Body: ae.Body, Method: ae.Method, URL: ae.URL}
	if ie, ok := err.(*agentcard.InvalidError); ok && ie.Err == error(ae) {
		c := *ie
		c.Err = he
		return &c
	}
	if err == error(ae) {
		return he
	}
	return err
}

// Card returns the agent card Resolve read to make this Client, or nil for
// a Client made with NewClient or NewRESTClient. It must not be modified.
func (c *Client) Card() *a2a.AgentCard { return c.cfg.card }

// WithCardCache makes Resolve read and keep agent cards in cache; see
// agentcard.Cache. Without it every call fetches the card. It applies to
// Resolve only, which reads cards.
func WithCardCache(cache *agentcard.Cache) Option {
	return option{"WithCardCache", atResolve, func(cfg *config) { cfg.cardCache = cache }}
}

// fromCard is what Resolve learned from the agent card for the Client it
// makes: settings that no Option sets, applied over the caller's options.
type fromCard struct {
	// origin is the origin the caller named (baseURL's), to which alone
	// headers go: credentials are not for wherever the card points.
	origin    string
	version   a2a.Version // the chosen interface's
	tenant    string      // the chosen 1.0 interface's, sent with every request
	streaming streaming   // what capabilities.streaming says
	card      *a2a.AgentCard
}

// iface is one usable interface of an agent card.
type iface struct {
	url      string
	endpoint *url.URL // url resolved against the card's base URL
	v        a2a.Version
	binding  a2a.Binding
	tenant   string
}

// pickInterface chooses the interface to use from a card: of those with a
// binding and version this module speaks (restricted to version want, when
// set), the first with the preferred binding when one is set, else the first
// JSON-RPC one, else the first HTTP+JSON one, in the card's order.
func pickInterface(card *a2a.AgentCard, want a2a.Version, prefer a2a.Binding, base *url.URL) (iface, error) {
	var (
		all     []iface
		skipped string // the first unusable URL, redacted, for the error
	)
	for _, in := range cardInterfaces(card, want) {
		// An interface whose URL does not resolve to an absolute http or
		// https URL (ftp://…, http:///…, host:port/… with no scheme) is
		// unusable: skip it for the next.
		ref, err := url.Parse(in.url)
		if err != nil {
			continue
		}
		u := base.ResolveReference(ref)
		if (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
			in.endpoint = u
			all = append(all, in)
		} else if skipped == "" {
			skipped = httpx.RedactURL(u)
		}
	}
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
	if skipped != "" {
		return iface{}, fmt.Errorf("no JSON-RPC or HTTP+JSON interface of protocol version %s with an http or https URL (%q is not one)", what, skipped)
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
