package convert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/a2astream/a2astream/a2a"
	pb03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	pb "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
)

// The agent card, as 1.0's GetExtendedAgentCard and 0.3's GetAgentCard
// answer it: read into a2a.AgentCard with what agentcard's JSON decoding
// keeps of a card (its name, description, version, provider, URLs, the
// interfaces, capabilities, default modes, skills, security schemes and
// requirements, signatures). An OAuth2 scheme's flows and the signatures
// are kept as the JSON the card's JSON carries (the proto JSON of the
// message, compacted), as a2a.AgentCard keeps them. An answer that is no
// card (none, or one without a name) is a *transport.ProtocolError.
//
// proto3 has no "unsaid" for 0.3's plain bool capabilities: a 0.3 card's
// streaming false reads as not said (nil), which a caller takes as
// streaming; the flags of 1.0 are optional and read as sent.

// cardName refuses an answer that is no card.
func cardName(name string, none bool) error {
	switch {
	case none:
		return malformed("no agent card")
	case name == "":
		return malformed("an agent card without a name")
	}
	return nil
}

// protoJSON is m as compact proto JSON (protojson's output is not stable in
// its spacing), or nil when m is nil or does not encode.
func protoJSON(m proto.Message) json.RawMessage {
	if m == nil || !m.ProtoReflect().IsValid() {
		return nil
	}
	b, err := protojson.Marshal(m)
	if err != nil {
		return nil
	}
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return nil
	}
	return out.Bytes()
}

// signature is one JWS signature of a card, as its JSON writes it.
type signature struct {
	Protected string         `json:"protected"`
	Signature string         `json:"signature"`
	Header    map[string]any `json:"header,omitempty"`
}

// signaturesJSON writes a card's signatures as its JSON does, nil for none.
func signaturesJSON(sigs []signature) (json.RawMessage, error) {
	if len(sigs) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(sigs)
	if err != nil {
		return nil, malformed("card signatures: %v", err)
	}
	return b, nil
}

// signaturesOf reads a card's signatures JSON back, for the proto: none
// when there are none.
func signaturesOf(raw json.RawMessage) ([]signature, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var sigs []signature
	if err := json.Unmarshal(raw, &sigs); err != nil {
		return nil, invalid("card signatures: %v", err)
	}
	return sigs, nil
}

// sortedKeys returns m's keys in order, so that conversions are stable.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// scopes returns a requirement's scopes of one scheme: a list, empty for
// none, as a card's JSON always writes it ("bearer": []).
func scopes(l []string) []string {
	return append([]string{}, l...)
}

// nilIfEmpty returns s, or nil when it is empty, as the JSON decoders read
// an absent list.
func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// --- 1.0 ---

// AgentCardOf10 reads 1.0's AgentCard, the answer of GetExtendedAgentCard.
func AgentCardOf10(c *pb.AgentCard) (*a2a.AgentCard, error) {
	if err := cardName(c.GetName(), c == nil); err != nil {
		return nil, err
	}
	out := &a2a.AgentCard{Name: c.GetName(), Description: c.GetDescription(), Version: c.GetVersion(),
		IconURL: c.GetIconUrl(), DocumentationURL: c.GetDocumentationUrl(),
		DefaultInputModes: nilIfEmpty(c.GetDefaultInputModes()), DefaultOutputModes: nilIfEmpty(c.GetDefaultOutputModes())}
	if p := c.GetProvider(); p != nil {
		out.Provider = &a2a.AgentProvider{Organization: p.GetOrganization(), URL: p.GetUrl()}
	}
	for _, in := range c.GetSupportedInterfaces() {
		out.SupportedInterfaces = append(out.SupportedInterfaces, a2a.AgentInterface{URL: in.GetUrl(),
			ProtocolBinding: in.GetProtocolBinding(), ProtocolVersion: in.GetProtocolVersion(), Tenant: in.GetTenant()})
	}
	if caps := c.GetCapabilities(); caps != nil {
		if caps.Streaming != nil {
			out.Capabilities.Streaming = proto.Bool(caps.GetStreaming())
		}
		out.Capabilities.PushNotifications = caps.GetPushNotifications()
		out.Capabilities.ExtendedAgentCard = caps.GetExtendedAgentCard()
		for i, e := range caps.GetExtensions() {
			params, err := mapOf(e.GetParams())
			if err != nil {
				return nil, within(fmt.Sprintf("card extension %d", i), err)
			}
			out.Capabilities.Extensions = append(out.Capabilities.Extensions,
				a2a.AgentExtension{URI: e.GetUri(), Description: e.GetDescription(), Required: e.GetRequired(), Params: params})
		}
	}
	if len(c.GetSecuritySchemes()) > 0 {
		out.SecuritySchemes = make(map[string]a2a.SecurityScheme, len(c.GetSecuritySchemes()))
		for name, s := range c.GetSecuritySchemes() {
			out.SecuritySchemes[name] = securitySchemeOf10(s)
		}
	}
	out.SecurityRequirements = requirementsOf10(c.GetSecurityRequirements())
	for _, s := range c.GetSkills() {
		out.Skills = append(out.Skills, a2a.AgentSkill{ID: s.GetId(), Name: s.GetName(), Description: s.GetDescription(),
			Tags: nilIfEmpty(s.GetTags()), Examples: nilIfEmpty(s.GetExamples()),
			InputModes: nilIfEmpty(s.GetInputModes()), OutputModes: nilIfEmpty(s.GetOutputModes()),
			SecurityRequirements: requirementsOf10(s.GetSecurityRequirements())})
	}
	var sigs []signature
	for i, s := range c.GetSignatures() {
		h, err := mapOf(s.GetHeader())
		if err != nil {
			return nil, within(fmt.Sprintf("card signature %d", i), err)
		}
		sigs = append(sigs, signature{Protected: s.GetProtected(), Signature: s.GetSignature(), Header: h})
	}
	var err error
	if out.Signatures, err = signaturesJSON(sigs); err != nil {
		return nil, err
	}
	return out, nil
}

// requirementsOf10 reads 1.0's security requirements.
func requirementsOf10(rs []*pb.SecurityRequirement) []a2a.SecurityRequirement {
	var out []a2a.SecurityRequirement
	for _, r := range rs {
		m := make(map[string]a2a.ScopeList, len(r.GetSchemes()))
		for name, l := range r.GetSchemes() {
			m[name] = a2a.ScopeList{List: scopes(l.GetList())}
		}
		out = append(out, a2a.SecurityRequirement{Schemes: m})
	}
	return out
}

// securitySchemeOf10 reads one scheme; one of no kind is the zero value,
// as a2a.SecurityScheme reads a kind it does not know.
func securitySchemeOf10(s *pb.SecurityScheme) a2a.SecurityScheme {
	switch k := s.GetScheme().(type) {
	case *pb.SecurityScheme_ApiKeySecurityScheme:
		v := k.ApiKeySecurityScheme
		return a2a.SecurityScheme{Type: "apiKey", Description: v.GetDescription(), Name: v.GetName(), Location: v.GetLocation()}
	case *pb.SecurityScheme_HttpAuthSecurityScheme:
		v := k.HttpAuthSecurityScheme
		return a2a.SecurityScheme{Type: "http", Description: v.GetDescription(), Scheme: v.GetScheme(), BearerFormat: v.GetBearerFormat()}
	case *pb.SecurityScheme_Oauth2SecurityScheme:
		v := k.Oauth2SecurityScheme
		s := a2a.SecurityScheme{Type: "oauth2", Description: v.GetDescription(), OAuth2MetadataURL: v.GetOauth2MetadataUrl()}
		if f := v.GetFlows(); f != nil {
			s.Flows = protoJSON(f)
		}
		return s
	case *pb.SecurityScheme_OpenIdConnectSecurityScheme:
		v := k.OpenIdConnectSecurityScheme
		return a2a.SecurityScheme{Type: "openIdConnect", Description: v.GetDescription(), OpenIDConnectURL: v.GetOpenIdConnectUrl()}
	case *pb.SecurityScheme_MtlsSecurityScheme:
		return a2a.SecurityScheme{Type: "mutualTLS", Description: k.MtlsSecurityScheme.GetDescription()}
	}
	return a2a.SecurityScheme{}
}

// AgentCard10 writes card as 1.0's AgentCard, as an agent answers
// GetExtendedAgentCard (an in-process agent for tests). What the proto
// cannot carry (a scheme of no kind, flows that are not OAuthFlows'
// JSON, signatures of another shape) is an error wrapping
// transport.ErrInvalidMessage.
func AgentCard10(card *a2a.AgentCard) (*pb.AgentCard, error) {
	out := &pb.AgentCard{Name: card.Name, Description: card.Description, Version: card.Version,
		DefaultInputModes: card.DefaultInputModes, DefaultOutputModes: card.DefaultOutputModes}
	if card.IconURL != "" {
		out.IconUrl = proto.String(card.IconURL)
	}
	if card.DocumentationURL != "" {
		out.DocumentationUrl = proto.String(card.DocumentationURL)
	}
	if p := card.Provider; p != nil {
		out.Provider = &pb.AgentProvider{Organization: p.Organization, Url: p.URL}
	}
	for _, in := range card.SupportedInterfaces {
		out.SupportedInterfaces = append(out.SupportedInterfaces, &pb.AgentInterface{Url: in.URL,
			ProtocolBinding: in.ProtocolBinding, ProtocolVersion: in.ProtocolVersion, Tenant: in.Tenant})
	}
	caps := card.Capabilities
	out.Capabilities = &pb.AgentCapabilities{}
	if caps.Streaming != nil {
		out.Capabilities.Streaming = proto.Bool(*caps.Streaming)
	}
	if caps.PushNotifications {
		out.Capabilities.PushNotifications = proto.Bool(true)
	}
	if caps.ExtendedAgentCard {
		out.Capabilities.ExtendedAgentCard = proto.Bool(true)
	}
	for _, e := range caps.Extensions {
		params, err := structOf(e.Params)
		if err != nil {
			return nil, err
		}
		out.Capabilities.Extensions = append(out.Capabilities.Extensions,
			&pb.AgentExtension{Uri: e.URI, Description: e.Description, Required: e.Required, Params: params})
	}
	if len(card.SecuritySchemes) > 0 {
		out.SecuritySchemes = make(map[string]*pb.SecurityScheme, len(card.SecuritySchemes))
		for _, name := range sortedKeys(card.SecuritySchemes) {
			s, err := securityScheme10(card.SecuritySchemes[name])
			if err != nil {
				return nil, err
			}
			out.SecuritySchemes[name] = s
		}
	}
	out.SecurityRequirements = requirements10(card.Requirements())
	for _, s := range card.Skills {
		out.Skills = append(out.Skills, &pb.AgentSkill{Id: s.ID, Name: s.Name, Description: s.Description,
			Tags: s.Tags, Examples: s.Examples, InputModes: s.InputModes, OutputModes: s.OutputModes,
			SecurityRequirements: requirements10(s.Requirements())})
	}
	sigs, err := signaturesOf(card.Signatures)
	if err != nil {
		return nil, err
	}
	for _, s := range sigs {
		h, err := structOf(s.Header)
		if err != nil {
			return nil, err
		}
		out.Signatures = append(out.Signatures, &pb.AgentCardSignature{Protected: s.Protected, Signature: s.Signature, Header: h})
	}
	return out, nil
}

// requirements10 writes requirements in 1.0's shape.
func requirements10(rs []map[string][]string) []*pb.SecurityRequirement {
	var out []*pb.SecurityRequirement
	for _, r := range rs {
		m := make(map[string]*pb.StringList, len(r))
		for name, scopes := range r {
			m[name] = &pb.StringList{List: scopes}
		}
		out = append(out, &pb.SecurityRequirement{Schemes: m})
	}
	return out
}

// securityScheme10 writes one scheme in 1.0's shape.
func securityScheme10(s a2a.SecurityScheme) (*pb.SecurityScheme, error) {
	switch s.Type {
	case "apiKey":
		return &pb.SecurityScheme{Scheme: &pb.SecurityScheme_ApiKeySecurityScheme{ApiKeySecurityScheme: &pb.APIKeySecurityScheme{
			Description: s.Description, Name: s.Name, Location: s.Location}}}, nil
	case "http":
		return &pb.SecurityScheme{Scheme: &pb.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &pb.HTTPAuthSecurityScheme{
			Description: s.Description, Scheme: s.Scheme, BearerFormat: s.BearerFormat}}}, nil
	case "oauth2":
		o := &pb.OAuth2SecurityScheme{Description: s.Description, Oauth2MetadataUrl: s.OAuth2MetadataURL}
		if len(s.Flows) > 0 {
			o.Flows = new(pb.OAuthFlows)
			if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(s.Flows, o.Flows); err != nil {
				return nil, invalid("oauth2 flows: %v", err)
			}
		}
		return &pb.SecurityScheme{Scheme: &pb.SecurityScheme_Oauth2SecurityScheme{Oauth2SecurityScheme: o}}, nil
	case "openIdConnect":
		return &pb.SecurityScheme{Scheme: &pb.SecurityScheme_OpenIdConnectSecurityScheme{OpenIdConnectSecurityScheme: &pb.OpenIdConnectSecurityScheme{
			Description: s.Description, OpenIdConnectUrl: s.OpenIDConnectURL}}}, nil
	case "mutualTLS":
		return &pb.SecurityScheme{Scheme: &pb.SecurityScheme_MtlsSecurityScheme{MtlsSecurityScheme: &pb.MutualTlsSecurityScheme{
			Description: s.Description}}}, nil
	}
	return nil, invalid("security scheme of type %q", s.Type)
}

// --- 0.3 ---

// AgentCardOf03 reads 0.3's AgentCard, the answer of GetAgentCard.
func AgentCardOf03(c *pb03.AgentCard) (*a2a.AgentCard, error) {
	if err := cardName(c.GetName(), c == nil); err != nil {
		return nil, err
	}
	out := &a2a.AgentCard{Name: c.GetName(), Description: c.GetDescription(), Version: c.GetVersion(),
		DocumentationURL: c.GetDocumentationUrl(), URL: c.GetUrl(), PreferredTransport: c.GetPreferredTransport(),
		ProtocolVersion: c.GetProtocolVersion(), SupportsAuthenticatedExtendedCard: c.GetSupportsAuthenticatedExtendedCard(),
		DefaultInputModes: nilIfEmpty(c.GetDefaultInputModes()), DefaultOutputModes: nilIfEmpty(c.GetDefaultOutputModes())}
	if p := c.GetProvider(); p != nil {
		out.Provider = &a2a.AgentProvider{Organization: p.GetOrganization(), URL: p.GetUrl()}
	}
	for _, in := range c.GetAdditionalInterfaces() {
		out.AdditionalInterfaces = append(out.AdditionalInterfaces, a2a.AgentInterface{URL: in.GetUrl(), Transport: in.GetTransport()})
	}
	if caps := c.GetCapabilities(); caps != nil {
		if caps.GetStreaming() {
			out.Capabilities.Streaming = proto.Bool(true)
		}
		out.Capabilities.PushNotifications = caps.GetPushNotifications()
		for i, e := range caps.GetExtensions() {
			params, err := mapOf(e.GetParams())
			if err != nil {
				return nil, within(fmt.Sprintf("card extension %d", i), err)
			}
			out.Capabilities.Extensions = append(out.Capabilities.Extensions,
				a2a.AgentExtension{URI: e.GetUri(), Description: e.GetDescription(), Required: e.GetRequired(), Params: params})
		}
	}
	if len(c.GetSecuritySchemes()) > 0 {
		out.SecuritySchemes = make(map[string]a2a.SecurityScheme, len(c.GetSecuritySchemes()))
		for name, s := range c.GetSecuritySchemes() {
			out.SecuritySchemes[name] = securitySchemeOf03(s)
		}
	}
	out.Security = securityOf03(c.GetSecurity())
	for _, s := range c.GetSkills() {
		out.Skills = append(out.Skills, a2a.AgentSkill{ID: s.GetId(), Name: s.GetName(), Description: s.GetDescription(),
			Tags: nilIfEmpty(s.GetTags()), Examples: nilIfEmpty(s.GetExamples()),
			InputModes: nilIfEmpty(s.GetInputModes()), OutputModes: nilIfEmpty(s.GetOutputModes()),
			Security: securityOf03(s.GetSecurity())})
	}
	var sigs []signature
	for i, s := range c.GetSignatures() {
		h, err := mapOf(s.GetHeader())
		if err != nil {
			return nil, within(fmt.Sprintf("card signature %d", i), err)
		}
		sigs = append(sigs, signature{Protected: s.GetProtected(), Signature: s.GetSignature(), Header: h})
	}
	var err error
	if out.Signatures, err = signaturesJSON(sigs); err != nil {
		return nil, err
	}
	return out, nil
}

// securityOf03 reads 0.3's security requirements into the 0.3 JSON shape.
func securityOf03(rs []*pb03.Security) []map[string][]string {
	var out []map[string][]string
	for _, r := range rs {
		m := make(map[string][]string, len(r.GetSchemes()))
		for name, l := range r.GetSchemes() {
			m[name] = scopes(l.GetList())
		}
		out = append(out, m)
	}
	return out
}

// securitySchemeOf03 reads one scheme, as securitySchemeOf10.
func securitySchemeOf03(s *pb03.SecurityScheme) a2a.SecurityScheme {
	switch k := s.GetScheme().(type) {
	case *pb03.SecurityScheme_ApiKeySecurityScheme:
		v := k.ApiKeySecurityScheme
		return a2a.SecurityScheme{Type: "apiKey", Description: v.GetDescription(), Name: v.GetName(), Location: v.GetLocation()}
	case *pb03.SecurityScheme_HttpAuthSecurityScheme:
		v := k.HttpAuthSecurityScheme
		return a2a.SecurityScheme{Type: "http", Description: v.GetDescription(), Scheme: v.GetScheme(), BearerFormat: v.GetBearerFormat()}
	case *pb03.SecurityScheme_Oauth2SecurityScheme:
		v := k.Oauth2SecurityScheme
		s := a2a.SecurityScheme{Type: "oauth2", Description: v.GetDescription(), OAuth2MetadataURL: v.GetOauth2MetadataUrl()}
		if f := v.GetFlows(); f != nil {
			s.Flows = protoJSON(f)
		}
		return s
	case *pb03.SecurityScheme_OpenIdConnectSecurityScheme:
		v := k.OpenIdConnectSecurityScheme
		return a2a.SecurityScheme{Type: "openIdConnect", Description: v.GetDescription(), OpenIDConnectURL: v.GetOpenIdConnectUrl()}
	case *pb03.SecurityScheme_MtlsSecurityScheme:
		return a2a.SecurityScheme{Type: "mutualTLS", Description: k.MtlsSecurityScheme.GetDescription()}
	}
	return a2a.SecurityScheme{}
}

// AgentCard03 writes card as 0.3's AgentCard, as AgentCard10 does for 1.0.
func AgentCard03(card *a2a.AgentCard) (*pb03.AgentCard, error) {
	out := &pb03.AgentCard{Name: card.Name, Description: card.Description, Version: card.Version,
		DocumentationUrl: card.DocumentationURL, Url: card.URL, PreferredTransport: card.PreferredTransport,
		ProtocolVersion: card.ProtocolVersion, SupportsAuthenticatedExtendedCard: card.SupportsAuthenticatedExtendedCard,
		DefaultInputModes: card.DefaultInputModes, DefaultOutputModes: card.DefaultOutputModes}
	if p := card.Provider; p != nil {
		out.Provider = &pb03.AgentProvider{Organization: p.Organization, Url: p.URL}
	}
	for _, in := range card.AdditionalInterfaces {
		out.AdditionalInterfaces = append(out.AdditionalInterfaces, &pb03.AgentInterface{Url: in.URL, Transport: in.Transport})
	}
	caps := card.Capabilities
	out.Capabilities = &pb03.AgentCapabilities{Streaming: caps.Streaming != nil && *caps.Streaming, PushNotifications: caps.PushNotifications}
	for _, e := range caps.Extensions {
		params, err := structOf(e.Params)
		if err != nil {
			return nil, err
		}
		out.Capabilities.Extensions = append(out.Capabilities.Extensions,
			&pb03.AgentExtension{Uri: e.URI, Description: e.Description, Required: e.Required, Params: params})
	}
	if len(card.SecuritySchemes) > 0 {
		out.SecuritySchemes = make(map[string]*pb03.SecurityScheme, len(card.SecuritySchemes))
		for _, name := range sortedKeys(card.SecuritySchemes) {
			s, err := securityScheme03(card.SecuritySchemes[name])
			if err != nil {
				return nil, err
			}
			out.SecuritySchemes[name] = s
		}
	}
	out.Security = security03(card.Requirements())
	for _, s := range card.Skills {
		out.Skills = append(out.Skills, &pb03.AgentSkill{Id: s.ID, Name: s.Name, Description: s.Description,
			Tags: s.Tags, Examples: s.Examples, InputModes: s.InputModes, OutputModes: s.OutputModes,
			Security: security03(s.Requirements())})
	}
	sigs, err := signaturesOf(card.Signatures)
	if err != nil {
		return nil, err
	}
	for _, s := range sigs {
		var h *structpb.Struct
		if h, err = structOf(s.Header); err != nil {
			return nil, err
		}
		out.Signatures = append(out.Signatures, &pb03.AgentCardSignature{Protected: s.Protected, Signature: s.Signature, Header: h})
	}
	return out, nil
}

// security03 writes requirements in 0.3's proto shape.
func security03(rs []map[string][]string) []*pb03.Security {
	var out []*pb03.Security
	for _, r := range rs {
		m := make(map[string]*pb03.StringList, len(r))
		for name, scopes := range r {
			m[name] = &pb03.StringList{List: scopes}
		}
		out = append(out, &pb03.Security{Schemes: m})
	}
	return out
}

// securityScheme03 writes one scheme in 0.3's proto shape.
func securityScheme03(s a2a.SecurityScheme) (*pb03.SecurityScheme, error) {
	switch s.Type {
	case "apiKey":
		return &pb03.SecurityScheme{Scheme: &pb03.SecurityScheme_ApiKeySecurityScheme{ApiKeySecurityScheme: &pb03.APIKeySecurityScheme{
			Description: s.Description, Name: s.Name, Location: s.Location}}}, nil
	case "http":
		return &pb03.SecurityScheme{Scheme: &pb03.SecurityScheme_HttpAuthSecurityScheme{HttpAuthSecurityScheme: &pb03.HTTPAuthSecurityScheme{
			Description: s.Description, Scheme: s.Scheme, BearerFormat: s.BearerFormat}}}, nil
	case "oauth2":
		o := &pb03.OAuth2SecurityScheme{Description: s.Description, Oauth2MetadataUrl: s.OAuth2MetadataURL}
		if len(s.Flows) > 0 {
			o.Flows = new(pb03.OAuthFlows)
			if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(s.Flows, o.Flows); err != nil {
				return nil, invalid("oauth2 flows: %v", err)
			}
		}
		return &pb03.SecurityScheme{Scheme: &pb03.SecurityScheme_Oauth2SecurityScheme{Oauth2SecurityScheme: o}}, nil
	case "openIdConnect":
		return &pb03.SecurityScheme{Scheme: &pb03.SecurityScheme_OpenIdConnectSecurityScheme{OpenIdConnectSecurityScheme: &pb03.OpenIdConnectSecurityScheme{
			Description: s.Description, OpenIdConnectUrl: s.OpenIDConnectURL}}}, nil
	case "mutualTLS":
		return &pb03.SecurityScheme{Scheme: &pb03.SecurityScheme_MtlsSecurityScheme{MtlsSecurityScheme: &pb03.MutualTlsSecurityScheme{
			Description: s.Description}}}, nil
	}
	return nil, invalid("security scheme of type %q", s.Type)
}
