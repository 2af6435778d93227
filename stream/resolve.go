package stream

import (
	"context"
	"fmt"
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
// LegacyCardPath on 404, with baseURL's query), picks an interface, and
// returns a Client for it. A baseURL whose path ends in ".json" is taken as
// the URL of the card itself, query included, for agents that serve it
// elsewhere. A card with no protocol
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
// Headers set with WithHeader, given to Resolve or to one call of the
// Client, go only to the origin of baseURL (its scheme, host and port): the
// card request carries Resolve's, and the calls carry them only when the
// chosen endpoint has that origin. A card that names another host, another
// port, or http where baseURL is https gets no header at all.
func Resolve(ctx context.Context, baseURL string, opts ...Option) (*Client, error) {
	base, cfg, err := cardConfig(baseURL, opts, atResolve, "Resolve")
	if err != nil {
		return nil, err
	}
	card, cardURL, err := readCard(ctx, base, cfg)
	if err != nil {
		return nil, err
	}
	in, err := pickInterface(card, cfg.version, cfg.binding, base)
	if err != nil {
		return nil, &InvalidCardError{URL: cardURL, Reason: err.Error()}
	}
	learned := &fromCard{origin: origin(base), version: in.v, tenant: in.tenant, card: card}
	if s := card.Capabilities.Streaming; s != nil {
		learned.streaming = streamingNo
		if *s {
			learned.streaming = streamingYes
		}
	}
	return newClient(in.endpoint.String(), in.binding, opts, learned, "Resolve")
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
			skipped = redactURL(u)
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
