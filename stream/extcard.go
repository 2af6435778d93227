package stream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/credentials"
	"github.com/a2astream/a2astream/internal/callmark"
	"github.com/a2astream/a2astream/internal/httpx"
	"github.com/a2astream/a2astream/transport"
)

// maxExtendedCardSize bounds the extended card Resolve reads, as
// agentcard.Fetch bounds the public one (1 MiB), or WithMaxEventSize when
// it is smaller.
const maxExtendedCardSize = 1 << 20

// The causes of a PublicCardKept notice that are not the agent's answer.
var (
	// ErrExtendedCardNotOffered: the public card does not offer an
	// extended card (1.0 capabilities.extendedAgentCard, 0.3
	// supportsAuthenticatedExtendedCard), so Resolve did not ask.
	ErrExtendedCardNotOffered = errors.New("stream: the agent card offers no extended card")
	// ErrExtendedCardPublic: the agent answered the extended card call
	// with a card that tells the same as its public card, as the
	// @a2a-js/sdk default does with 200 for a caller it does not
	// recognise: that is no extended card.
	ErrExtendedCardPublic = errors.New("stream: the agent answered the extended card call with its public card")
	// ErrExtendedCardWithheld: the interface Resolve picked is not on an
	// origin headers go to (the origin named, or WithTrustedOrigins'), so
	// no credentials may go with the call, and Resolve did not make it.
	ErrExtendedCardWithheld = errors.New("stream: the extended card's endpoint is not on the origin named: no credentials go there")
)

// WithExtendedCard makes Resolve fetch the agent's authenticated extended
// card when its public card offers one (1.0 capabilities.extendedAgentCard,
// 0.3 supportsAuthenticatedExtendedCard), and use it as the Client's Card,
// which CardExtended then reports. Resolve asks over the interface it
// picked from the public card, in its version: 1.0 GetExtendedAgentCard,
// or GET extendedAgentCard under the HTTP+JSON base URL; 0.3
// agent/getAuthenticatedExtendedCard, or GET v1/card. Over an interface
// of WithTransportFor's binding (gRPC), Resolve asks through the
// Transport it opened when that implements transport.ExtendedCarder (the
// Transport of a2agrpc.Opener does: 1.0 GetExtendedAgentCard, 0.3
// GetAgentCard). The call carries Resolve's headers (WithHeader) as every
// call of the Client does: only when the interface is on the origin named
// or a trusted one (never from https down to http; a gRPC interface only
// on the host and port named, as Resolve says); else Resolve does not ask. When the agent answers 401
// (gRPC: UNAUTHENTICATED) and a credentials hook is set (WithCredentials),
// Resolve calls it once, with a credentials.Request whose Cause is the
// agent's refusal and whose Task and Message are nil (there is no task
// yet), and asks again with the headers it gave, for this call only.
//
// The extended card never fails Resolve: when the card offers none, when
// the agent refuses (-32004 unsupported, -32007 not configured, 401, 403,
// their gRPC statuses, or any other error), when the call fails (a network
// error, a timeout), or when what comes is not an agent card (malformed
// JSON, no name, over 1 MiB), the Client keeps the public card, and a
// PublicCardKept notice (WithNotify, and an Info line of WithLogger) says
// why. Only the context's end makes Resolve fail, with its error.
//
// A 200 is no proof: the @a2a-js/sdk default answers a caller it does not
// recognise with its public card. Resolve takes the answer for the
// extended card only when it differs from the public card in its name,
// description, version, provider, default modes or skills; otherwise it
// keeps the public card, with ErrExtendedCardPublic. Fields that only
// differ in how each endpoint writes them (interfaces, capabilities, the
// shape of security schemes) are not compared.
//
// The extended card changes nothing of how the Client connects: the
// interface, version and streaming capability are the public card's,
// which Resolve picked from; an extended card's interfaces are not used,
// which is also why an extended card naming another agent is kept as the
// agent's answer (it came from the endpoint and origin the caller chose,
// with the caller's credentials). With WithTransportFor's binding, a
// Transport that does not implement transport.ExtendedCarder is not asked
// (a notice wrapping errors.ErrUnsupported).
//
// With WithCardCache, an extended card is kept in the cache apart from the
// public card, keyed by the interface and the headers sent (see
// agentcard.Cache.Extended): a caller with other credentials never gets
// it. It applies to Resolve only.
func WithExtendedCard() Option {
	return option{"WithExtendedCard", atResolve, func(cfg *config) { cfg.extendedCard = true }}
}

// CardExtended reports whether Card is the agent's authenticated extended
// card (see WithExtendedCard), and not its public card.
func (c *Client) CardExtended() bool { return c.cfg.cardExtended }

// useExtendedCard fetches the extended card the public card in use offers
// (WithExtendedCard), through cache when it is not nil, and makes it the
// Client's card; or keeps the public card and tells why. It returns an
// error only when ctx ended, which Resolve then returns.
func (c *Client) useExtendedCard(ctx context.Context, cache *agentcard.Cache) error {
	public := c.cfg.card
	got, err := c.fetchExtendedCard(ctx, cache, public)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if err == nil && sameCardContent(public, got) {
		err = ErrExtendedCardPublic
	}
	if err != nil {
		c.cfg.logger.Info("a2a: keeping the public agent card", "reason", err)
		if f := c.cfg.notify; f != nil {
			f(Notice{Kind: PublicCardKept, Cause: err})
		}
		return nil
	}
	c.cfg.logger.Debug("a2a: using the agent's extended card")
	c.cfg.card, c.cfg.cardExtended = got, true
	return nil
}

// fetchExtendedCard returns the extended card public offers, from cache or
// asked for (see WithExtendedCard), or the reason there is none. A card
// asked for and got is kept in cache unless it is the public card again.
func (c *Client) fetchExtendedCard(ctx context.Context, cache *agentcard.Cache, public *a2a.AgentCard) (*a2a.AgentCard, error) {
	key := c.endpoint
	s, overSeam := c.calls.(seam)
	if overSeam {
		key = s.iface
	}
	switch {
	case !public.Capabilities.ExtendedAgentCard && !public.SupportsAuthenticatedExtendedCard:
		return nil, ErrExtendedCardNotOffered
	case key == "":
		return nil, fmt.Errorf("stream: the extended card is not asked for over a Transport of NewClientFor: %w", errors.ErrUnsupported)
	case overSeam && !isExtendedCarder(s.b):
		return nil, fmt.Errorf("stream: the extended card is not asked for over a Transport of WithTransportFor that does not implement transport.ExtendedCarder: %w", errors.ErrUnsupported)
	case !c.headerOrigins.HasOrigin(c.endpointOrigin):
		return nil, ErrExtendedCardWithheld
	}
	header := c.cfg.header
	if card := cache.Extended(public, key, header); card != nil {
		return card, nil
	}
	card, err := c.extendedCardCall(ctx, header)
	if errors.Is(err, transport.ErrNotAuthenticated) && c.cfg.credentials != nil && ctx.Err() == nil {
		var given http.Header
		if given, err = c.extendedCardCredentials(ctx, err); err == nil {
			header = withHeaders(header, given)
			card, err = c.extendedCardCall(ctx, header)
		}
	}
	if err != nil {
		return nil, err
	}
	if !sameCardContent(public, card) {
		cache.KeepExtended(public, key, header, card)
	}
	return card, nil
}

// extendedCardCredentials asks the credentials hook for the headers of an
// extended card call the agent refused with 401 (refusal), under ctx
// bounded by WithInputTimeout. It returns the headers, or an error that
// wraps refusal and the hook's failure.
func (c *Client) extendedCardCredentials(ctx context.Context, refusal error) (http.Header, error) {
	if d := c.cfg.inputTimeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	h, err := c.cfg.credentials.Credentials(ctx, &credentials.Request{Cause: refusal, Attempt: 1})
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		err = httpx.CheckHeader(h)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: stream: credentials hook: %w", refusal, err)
	}
	return h, nil
}

// tenantOnly is the params of a 1.0 GetExtendedAgentCard: {} with the
// interface's tenant, if any.
type tenantOnly struct {
	Tenant string `json:"tenant,omitempty"`
}

// extendedCardCall asks for the extended card over the Client's binding,
// in its version, with header, and decodes it.
func (c *Client) extendedCardCall(ctx context.Context, header http.Header) (*a2a.AgentCard, error) {
	k := c.cfg.call(c.cfg.version, header)
	k.maxEventSize = min(k.maxEventSize, maxExtendedCardSize)
	var (
		raw []byte
		err error
	)
	switch b := c.calls.(type) {
	case jsonrpcBinding:
		var params any // 0.3: none
		if k.v == a2a.V10 {
			params = tenantOnly{Tenant: b.tenant(k.v)}
		}
		raw, _, err = b.unary(ctx, k, rpcExtendedCard, params)
	case restBinding:
		seg := "extendedAgentCard"
		if k.v == a2a.V03 {
			seg = "card" // under v1/
		}
		raw, _, err = b.unary(ctx, k, http.MethodGet, resource{segs: []string{seg}}, nil)
	case seam:
		ec, ok := b.b.(transport.ExtendedCarder)
		if !ok {
			return nil, fmt.Errorf("stream: the Transport does not implement transport.ExtendedCarder: %w", errors.ErrUnsupported)
		}
		card, err := ec.ExtendedCard(ctx, b.call(k))
		if err != nil {
			err, _ = callmark.UnwrapResponded(err)
			return nil, err
		}
		return checkExtendedCard(card)
	default:
		return nil, fmt.Errorf("stream: the extended card is not asked for over this binding: %w", errors.ErrUnsupported)
	}
	if err != nil {
		err, _ = callmark.UnwrapResponded(err)
		return nil, err
	}
	return decodeExtendedCard(raw)
}

// isExtendedCarder reports whether tr can ask for the extended card.
func isExtendedCarder(tr transport.Transport) bool {
	_, ok := tr.(transport.ExtendedCarder)
	return ok
}

// checkExtendedCard checks the card a transport.ExtendedCarder returned,
// as decodeExtendedCard checks one read from JSON: a card with a name;
// anything else is a *transport.ProtocolError.
func checkExtendedCard(card *a2a.AgentCard) (*a2a.AgentCard, error) {
	switch {
	case card == nil:
		return nil, &transport.ProtocolError{Reason: "the Transport returned no extended card"}
	case card.Name == "":
		return nil, &transport.ProtocolError{Reason: "the extended card has no name"}
	}
	return card, nil
}

// decodeExtendedCard reads the extended card an agent answered with: a
// JSON object with a name, in either version's shape; anything else is a
// *transport.ProtocolError.
func decodeExtendedCard(raw []byte) (*a2a.AgentCard, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, &transport.ProtocolError{Reason: "the extended card is not a JSON object"}
	}
	var card a2a.AgentCard
	if err := json.Unmarshal(raw, &card); err != nil {
		return nil, &transport.ProtocolError{Reason: "malformed extended card", Err: err}
	}
	if card.Name == "" {
		return nil, &transport.ProtocolError{Reason: "the extended card has no name"}
	}
	return &card, nil
}

// cardContent is what compares two cards as the same card (see
// WithExtendedCard): what an agent tells a caller about itself, not how
// each endpoint writes its interfaces, capabilities and schemes.
type cardContent struct {
	Name               string             `json:"name"`
	Description        string             `json:"description,omitempty"`
	Version            string             `json:"version,omitempty"`
	Provider           *a2a.AgentProvider `json:"provider,omitempty"`
	DefaultInputModes  []string           `json:"defaultInputModes,omitempty"`
	DefaultOutputModes []string           `json:"defaultOutputModes,omitempty"`
	Skills             []a2a.AgentSkill   `json:"skills,omitempty"`
}

// sameCardContent reports whether a and b tell the same (see cardContent):
// their content written as JSON, where an empty list and no list are one.
func sameCardContent(a, b *a2a.AgentCard) bool {
	content := func(c *a2a.AgentCard) []byte {
		raw, err := json.Marshal(cardContent{Name: c.Name, Description: c.Description, Version: c.Version, Provider: c.Provider,
			DefaultInputModes: c.DefaultInputModes, DefaultOutputModes: c.DefaultOutputModes, Skills: c.Skills})
		if err != nil {
			return nil
		}
		return raw
	}
	ca, cb := content(a), content(b)
	return ca != nil && bytes.Equal(ca, cb)
}
