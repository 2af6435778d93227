package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
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
// gRPC interfaces (protocolBinding GRPC in 1.0; a 0.3 card's url when its
// preferredTransport is GRPC, and additionalInterfaces of transport GRPC)
// are considered only with WithTransportFor(a2a.BindingGRPC, open), after
// HTTP+JSON (first with WithBinding(a2a.BindingGRPC)); without it they are
// passed over, and the error of a card that offers nothing else says so. A
// gRPC interface's url is a target ("127.0.0.1:50051",
// "dns:///agent.example:443"), never resolved against baseURL. Resolve opens
// its Transport with open, and the Client is then as NewClientFor's of that
// Transport (Endpoint and Binding return ""), in the interface's version,
// following the card's streaming capability, with Card; Client.Close
// closes the Transport. Resolve refuses the options of the HTTP bindings
// then, but WithHTTPClient, with which it read the card (see
// WithTransportFor).
//
// The card's errors are agentcard.Fetch's, except that an answer with a
// status other than 2xx is a *transport.HTTPError, as every other answer of an
// agent is, inside the *agentcard.InvalidError when no card was found.
//
// Headers set with WithHeader, given to Resolve or to one call of the
// Client, go only to the origin of baseURL (its scheme, host and port): the
// card request carries Resolve's, and the calls carry them only when the
// chosen endpoint has that origin. A card that names another host, another
// port, or http where baseURL is https gets no header at all. A gRPC
// interface's Transport gets them in Call.Header only when its target's host
// and port are baseURL's (its port 443 for https and 80 for http when it
// names none; a target's, 443) and, when baseURL is https, the Transport
// says its connections are encrypted (a method Secure() bool that returns
// true, as a2agrpc's does given TLS credentials): headers never go from
// https down to plaintext. Otherwise each stream tells a HeadersWithheld
// notice, whose EndpointOrigin is the target's host:port.
//
// A baseURL that is not an absolute http or https URL is refused before
// anything is sent, with an error matching ErrInvalidOption that quotes it
// (redacted) and, for one typed without its scheme ("localhost:9999"),
// gives the URL to write.
//
// WithExtendedCard makes Resolve fetch the authenticated extended card the
// public card offers, with the caller's credentials, over the interface
// picked; on any failure it keeps the public card, with a PublicCardKept
// notice.
func Resolve(ctx context.Context, baseURL string, opts ...Option) (*Client, error) {
	base, err := httpx.ParseBase(baseURL)
	if err != nil {
		return nil, refusal(err.Error())
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
		in, err = pickInterface(card, cfg.version, cfg.binding, cfg.openFor, base)
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
	var c *Client
	if in.binding == a2a.BindingGRPC {
		c, err = clientOver(cfg, in, opts, learned, base)
	} else {
		c, err = newClient(in.endpoint.String(), in.binding, opts, learned, "Resolve")
	}
	if err != nil || !cfg.extendedCard {
		return c, err
	}
	if err := c.useExtendedCard(ctx, cfg.cardCache); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// clientOver makes the Client of an interface of WithTransportFor's binding
// that Resolve picked: cfg is Resolve's, checked. It refuses the options
// of this package's HTTP bindings among opts, as NewClientFor does (but
// WithHTTPClient, with which Resolve read the card), then
// opens the Transport with cfg.open, and makes a Client of it as
// NewClientFor does, with what the card told (learned). Headers go with
// its calls only when the interface is on base's host and port.
func clientOver(cfg config, in iface, opts []Option, learned *fromCard, base *url.URL) (*Client, error) {
	where := interfaceName(in.url)
	var refused []error
	for _, o := range opts {
		if o == nil {
			continue // refused by check already
		}
		// WithHTTPClient read the card: it applied.
		if o := o.option(); o.at&atNewClientFor == 0 && o.at != atResolve && o.name != "WithHTTPClient" {
			refused = append(refused, invalidOption("%s does not reach the Transport Resolve opened: Resolve picked the %s interface %s, "+
				"whose Transport (WithTransportFor) makes its own requests, with options of its own (a2agrpc.Opener's for gRPC)",
				o.name, in.binding, where))
		}
	}
	if err := errors.Join(refused...); err != nil {
		return nil, err
	}
	tr, err := cfg.open(in.card)
	if err != nil {
		return nil, fmt.Errorf("stream: Resolve: opening the %s interface %s: %w", in.binding, where, err)
	}
	if tr == nil {
		return nil, fmt.Errorf("stream: Resolve: opening the %s interface %s: the open function of WithTransportFor returned a nil Transport", in.binding, where)
	}
	cfg.version, cfg.tenant, cfg.streaming, cfg.card = learned.version, learned.tenant, learned.streaming, learned.card
	c := &Client{origin: learned.origin, headerOrigins: httpx.Origins{learned.origin}, cfg: cfg, version: cfg.version, madeBy: "Resolve",
		transportBinding: bindingOf(tr)}
	c.endpointOrigin = learned.origin
	// Headers never go from https down to plaintext: over an https base,
	// only to a Transport that says its connections are encrypted.
	withhold := !sameHostPort(in.url, base) || strings.EqualFold(base.Scheme, "https") && !encrypted(tr)
	if withhold {
		c.endpointOrigin = where
	}
	c.calls = seam{b: tr, withhold: withhold, iface: string(in.binding) + " " + in.url}
	if cl, ok := tr.(io.Closer); ok {
		c.closer = cl
	}
	return c, nil
}

// encrypted reports whether tr says its connections are encrypted, with a
// method Secure() bool (a2agrpc's Transport has one); a Transport that
// says nothing is taken for plaintext.
func encrypted(tr transport.Transport) bool {
	s, ok := tr.(interface{ Secure() bool })
	return ok && s.Secure()
}

// grpcHostPort returns the host and port of a gRPC target as a card names
// it: "host:port"; "host" alone, on gRPC's default port 443;
// "dns:///host:port" or "passthrough:///host:port"; or a URL
// ("https://host:port/") whose host and port are taken, the port by its
// scheme when it has none (80 for http, else 443). ok is false for a
// target that names no host and port so (a Unix socket, another resolver).
func grpcHostPort(target string) (host, port string, ok bool) {
	hp := target
	if strings.Contains(target, "://") {
		u, err := url.Parse(target)
		if err != nil {
			return "", "", false
		}
		switch strings.ToLower(u.Scheme) {
		case "dns", "passthrough":
			hp = strings.TrimPrefix(u.Path, "/")
		case "http":
			hp = u.Host
			if u.Port() == "" {
				hp = net.JoinHostPort(u.Hostname(), "80")
			}
		case "https", "grpc", "grpcs":
			hp = u.Host
			if u.Port() == "" {
				hp = net.JoinHostPort(u.Hostname(), "443")
			}
		default:
			return "", "", false
		}
	}
	if hp == "" {
		return "", "", false
	}
	host, port, err := net.SplitHostPort(hp)
	switch {
	case err == nil:
	case !strings.Contains(hp, ":"):
		host, port = hp, "443"
	case strings.HasPrefix(hp, "[") && strings.HasSuffix(hp, "]"):
		host, port = hp[1:len(hp)-1], "443"
	default:
		return "", "", false
	}
	if host == "" || port == "" {
		return "", "", false
	}
	return host, port, true
}

// sameHostPort reports whether a gRPC target is on base's host and port
// (base's port by its scheme when it names none: 443 for https, 80 for
// http), to which alone Resolve's headers go.
func sameHostPort(target string, base *url.URL) bool {
	host, port, ok := grpcHostPort(target)
	if !ok {
		return false
	}
	bport := base.Port()
	if bport == "" {
		bport = "80"
		if strings.EqualFold(base.Scheme, "https") {
			bport = "443"
		}
	}
	return strings.EqualFold(host, base.Hostname()) && port == bport
}

// interfaceName is how errors and the HeadersWithheld notice name the
// interface of a gRPC target: its host and port, or the target redacted
// when it names none.
func interfaceName(target string) string {
	if host, port, ok := grpcHostPort(target); ok {
		return net.JoinHostPort(host, port)
	}
	if strings.Contains(target, "://") {
		return httpx.RedactRawURL(target)
	}
	return target
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

// Card returns the agent card Resolve read to make this Client: its
// public card, or, given WithExtendedCard, its extended card when Resolve
// got one (CardExtended says which). It is nil for a Client made with
// NewClient, NewRESTClient or NewClientFor. It must not be modified.
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
	url string
	// endpoint is url resolved against the card's base URL; nil for an
	// interface of WithTransportFor's binding, whose url is its Transport's.
	endpoint *url.URL
	v        a2a.Version
	binding  a2a.Binding
	tenant   string
	card     a2a.AgentInterface // the interface as the card states it
}

// pickInterface chooses the interface to use from a card: of those with a
// binding and version this module speaks, or of binding openFor
// (WithTransportFor), restricted to version want when set, the first with
// the preferred binding when one is set, else the first JSON-RPC one, else
// the first HTTP+JSON one, else the first of binding openFor, in the card's
// order.
func pickInterface(card *a2a.AgentCard, want a2a.Version, prefer, openFor a2a.Binding, base *url.URL) (iface, error) {
	var (
		all     []iface
		skipped string // the first unusable URL, redacted, for the error
		grpc    bool   // the card offers gRPC, and no Transport opens it
	)
	for _, in := range cardInterfaces(card, want) {
		if in.binding == a2a.BindingGRPC {
			// A gRPC URL is a target, never resolved against the base.
			if openFor == a2a.BindingGRPC {
				all = append(all, in)
			} else {
				grpc = true
			}
			continue
		}
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
	if openFor == a2a.BindingGRPC {
		order = append(order, a2a.BindingGRPC)
	}
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
	bindings := "JSON-RPC or HTTP+JSON"
	if openFor == a2a.BindingGRPC {
		bindings = "JSON-RPC, HTTP+JSON or gRPC"
	}
	msg := fmt.Sprintf("no %s interface of protocol version %s", bindings, what)
	if skipped != "" {
		msg += fmt.Sprintf(" with an http or https URL (%q is not one)", skipped)
	}
	if grpc {
		msg += "; the card offers gRPC: pass WithTransportFor(a2a.BindingGRPC, ...) to use it"
	}
	return iface{}, errors.New(msg)
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
			out = append(out, iface{url: in.URL, v: v, binding: b, tenant: in.Tenant, card: in})
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
			stated := a2a.AgentInterface{URL: card.URL, Transport: card.PreferredTransport, ProtocolVersion: card.ProtocolVersion}
			out = append(out, iface{url: card.URL, v: a2a.V03, binding: b, card: stated})
		}
	}
	for _, in := range card.AdditionalInterfaces {
		if b, known := a2a.ParseBinding(in.Transport); known && in.URL != "" {
			out = append(out, iface{url: in.URL, v: a2a.V03, binding: b, card: in})
		}
	}
	return out
}
