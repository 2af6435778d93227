package a2a

import "encoding/json"

// AgentCard is an A2A agent card, as either version writes it: a 0.3 card
// (top-level url, preferredTransport, protocolVersion, additionalInterfaces),
// a 1.0 card (supportedInterfaces), or a hybrid card that carries both.
// Fields of one version only say so; where the versions name one thing
// differently (the security requirements) both fields are kept, and
// Requirements reads either. Unknown fields are ignored.
type AgentCard struct {
	Name             string         `json:"name"`
	Description      string         `json:"description,omitempty"`
	Version          string         `json:"version,omitempty"`
	Provider         *AgentProvider `json:"provider,omitempty"`
	IconURL          string         `json:"iconUrl,omitempty"`
	DocumentationURL string         `json:"documentationUrl,omitempty"`

	// A2A 0.3 fields.
	URL                               string           `json:"url,omitempty"`
	PreferredTransport                string           `json:"preferredTransport,omitempty"`
	ProtocolVersion                   string           `json:"protocolVersion,omitempty"`
	AdditionalInterfaces              []AgentInterface `json:"additionalInterfaces,omitempty"`
	SupportsAuthenticatedExtendedCard bool             `json:"supportsAuthenticatedExtendedCard,omitempty"`

	// A2A 1.0: the interfaces in order of preference.
	SupportedInterfaces []AgentInterface `json:"supportedInterfaces,omitempty"`

	Capabilities       AgentCapabilities `json:"capabilities"`
	DefaultInputModes  []string          `json:"defaultInputModes,omitempty"`
	DefaultOutputModes []string          `json:"defaultOutputModes,omitempty"`
	Skills             []AgentSkill      `json:"skills,omitempty"`

	// SecuritySchemes are the ways to authenticate, by name, read from
	// either version's shape (see SecurityScheme).
	SecuritySchemes map[string]SecurityScheme `json:"securitySchemes,omitempty"`
	// Security is the 0.3 list of requirements: each maps scheme names to
	// the scopes it needs, and any one requirement suffices.
	Security []map[string][]string `json:"security,omitempty"`
	// SecurityRequirements is the same list in 1.0's shape.
	SecurityRequirements []SecurityRequirement `json:"securityRequirements,omitempty"`

	// Signatures are the card's JWS signatures, kept as sent (1.0 and late
	// 0.3); this module does not verify them.
	Signatures json.RawMessage `json:"signatures,omitempty"`
}

// Requirements returns the card's security requirements from whichever
// version's field holds them: each maps scheme names to scopes.
func (c *AgentCard) Requirements() []map[string][]string {
	return requirements(c.Security, c.SecurityRequirements)
}

// AgentProvider is the organization that offers the agent.
type AgentProvider struct {
	Organization string `json:"organization"`
	URL          string `json:"url,omitempty"`
}

// AgentSkill is one thing the agent can do.
type AgentSkill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	Examples    []string `json:"examples,omitempty"`
	InputModes  []string `json:"inputModes,omitempty"`
	OutputModes []string `json:"outputModes,omitempty"`
	// Security (0.3) and SecurityRequirements (1.0) are the skill's own
	// requirements; see AgentCard.
	Security             []map[string][]string `json:"security,omitempty"`
	SecurityRequirements []SecurityRequirement `json:"securityRequirements,omitempty"`
}

// Requirements returns the skill's security requirements from whichever
// version's field holds them.
func (s *AgentSkill) Requirements() []map[string][]string {
	return requirements(s.Security, s.SecurityRequirements)
}

// AgentExtension is a protocol extension the agent supports.
type AgentExtension struct {
	URI         string         `json:"uri"`
	Description string         `json:"description,omitempty"`
	Required    bool           `json:"required,omitempty"`
	Params      map[string]any `json:"params,omitempty"`
}

// AgentInterface is one endpoint of an agent. A 1.0 interface names its
// binding in ProtocolBinding and its version in ProtocolVersion; a 0.3
// additional interface names its binding in Transport.
type AgentInterface struct {
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocolBinding,omitempty"`
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	Tenant          string `json:"tenant,omitempty"`
	Transport       string `json:"transport,omitempty"`
}

// AgentCapabilities lists optional features an agent supports.
type AgentCapabilities struct {
	// Streaming says whether the agent offers streaming calls; nil when the
	// card does not say. Only an explicit false means it cannot stream.
	Streaming         *bool `json:"streaming,omitempty"`
	PushNotifications bool  `json:"pushNotifications,omitempty"`
	// StateTransitionHistory is a 0.3 field.
	StateTransitionHistory bool `json:"stateTransitionHistory,omitempty"`
	// ExtendedAgentCard is 1.0's flag for an extended card (0.3 has
	// AgentCard.SupportsAuthenticatedExtendedCard).
	ExtendedAgentCard bool             `json:"extendedAgentCard,omitempty"`
	Extensions        []AgentExtension `json:"extensions,omitempty"`
}
