package a2a

// AgentCard is the subset of an A2A agent card needed to pick an endpoint and
// a protocol version. It decodes 0.3 cards (top-level url, preferredTransport,
// protocolVersion, additionalInterfaces), 1.0 cards (supportedInterfaces) and
// hybrid cards that carry both. Unknown fields are ignored.
type AgentCard struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version,omitempty"`

	// A2A 0.3 fields.
	URL                  string           `json:"url,omitempty"`
	PreferredTransport   string           `json:"preferredTransport,omitempty"`
	ProtocolVersion      string           `json:"protocolVersion,omitempty"`
	AdditionalInterfaces []AgentInterface `json:"additionalInterfaces,omitempty"`

	// A2A 1.0: the interfaces in order of preference.
	SupportedInterfaces []AgentInterface `json:"supportedInterfaces,omitempty"`

	Capabilities AgentCapabilities `json:"capabilities"`
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
}

// TransportJSONRPC is the binding name of the JSON-RPC transport in both
// versions' cards, as a string for comparing with the card's fields. See
// [Binding] and [ParseBinding] for every binding.
const TransportJSONRPC = string(BindingJSONRPC)
