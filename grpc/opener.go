package a2agrpc

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/transport"
)

// Opener returns the function that opens an agent card's gRPC interface,
// for stream.WithTransportFor(a2a.BindingGRPC, ...): given the interface
// stream.Resolve picked, it returns New(target, opts...), the Transport
// the Client then calls through, which Client.Close closes.
//
// The target is the interface's url as the card writes it ("127.0.0.1:50051",
// as @a2a-js/sdk writes it, or "dns:///agent.example:443"), except that a
// URL of scheme http, https, grpc or grpcs gives its host and port (80 for
// http, 443 for the others when it names none; its path is dropped: gRPC
// has none). The interface's tenant (A2A 1.0) goes with its requests, as
// WithTenant sets it; WithTenant among opts wins when the interface names
// none or the same one, and a WithTenant that names another is refused
// with an *OptionError (Option "WithTenant"), which Resolve returns: one
// tenant is never picked over the other silently.
//
// opts are New's: WithTransportCredentials or WithInsecure is needed, as
// New says, and an invalid one is refused when the interface is opened.
// stream's HTTP options (stream.WithHTTPClient, stream.WithBreaker,
// stream.WithConnectTimeout, ...) do not reach this Transport, and Resolve
// refuses them when it picks gRPC; its own options (WithBreaker,
// WithConnectTimeout, WithMaxMessageSize) go here.
func Opener(opts ...Option) func(a2a.AgentInterface) (transport.Transport, error) {
	opts = append([]Option(nil), opts...) // the caller's slice may change
	return func(in a2a.AgentInterface) (transport.Transport, error) {
		var given config
		for _, o := range opts {
			if o != nil {
				o(&given)
			}
		}
		all := opts
		switch {
		case in.Tenant == "", given.tenantSet && given.tenant == in.Tenant:
		case !given.tenantSet:
			all = append(append([]Option(nil), opts...), WithTenant(in.Tenant))
		default:
			return nil, &OptionError{Option: "WithTenant",
				Reason: fmt.Sprintf("tenant %q given, and the card's interface names tenant %q", given.tenant, in.Tenant)}
		}
		tr, err := New(targetOf(in.URL), all...)
		if err != nil {
			return nil, err
		}
		return tr, nil
	}
}

// targetOf returns the gRPC target of a card's interface url: the url,
// or the host and port of a URL of scheme http, https, grpc or grpcs.
func targetOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		if u.Port() == "" {
			return net.JoinHostPort(u.Hostname(), "80")
		}
	case "https", "grpc", "grpcs":
		if u.Port() == "" {
			return net.JoinHostPort(u.Hostname(), "443")
		}
	default:
		return raw
	}
	return u.Host
}
