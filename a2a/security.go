package a2a

import "encoding/json"

// SecurityScheme is one way to authenticate to an agent, read from either
// version's card. A 0.3 card writes it as an OpenAPI security scheme
// ({"type":"apiKey","in":"header","name":"X-Key"}); a 1.0 card as a one-of
// wrapper ({"apiKeySecurityScheme":{"location":"header","name":"X-Key"}}).
// Both read into the same fields; it is written back in the 0.3 shape. A
// scheme of a kind neither version defines, or of a shape this module
// cannot read, reads as the zero value (see UnmarshalJSON).
type SecurityScheme struct {
	// Type is the 0.3 name of the kind of scheme: "apiKey", "http",
	// "oauth2", "openIdConnect" or "mutualTLS".
	Type        string
	Description string
	// Name and Location (apiKey): the parameter that carries the key, and
	// where: "header", "query" or "cookie".
	Name, Location string
	// Scheme and BearerFormat (http): for example "Bearer" and "JWT".
	Scheme, BearerFormat string
	// OAuth2MetadataURL and Flows (oauth2); the flows are kept as sent.
	OAuth2MetadataURL string
	Flows             json.RawMessage
	// OpenIDConnectURL (openIdConnect).
	OpenIDConnectURL string
}

// securityScheme03 is the 0.3 shape, which holds every field of every kind.
type securityScheme03 struct {
	Type              string          `json:"type"`
	Description       string          `json:"description,omitempty"`
	Name              string          `json:"name,omitempty"`
	In                string          `json:"in,omitempty"`
	Scheme            string          `json:"scheme,omitempty"`
	BearerFormat      string          `json:"bearerFormat,omitempty"`
	OAuth2MetadataURL string          `json:"oauth2MetadataUrl,omitempty"`
	Flows             json.RawMessage `json:"flows,omitempty"`
	OpenIDConnectURL  string          `json:"openIdConnectUrl,omitempty"`
}

// securityScheme10 is the 1.0 one-of: one member is set.
type securityScheme10 struct {
	APIKey *struct {
		Description string `json:"description"`
		Location    string `json:"location"`
		Name        string `json:"name"`
	} `json:"apiKeySecurityScheme"`
	HTTP *struct {
		Description  string `json:"description"`
		Scheme       string `json:"scheme"`
		BearerFormat string `json:"bearerFormat"`
	} `json:"httpAuthSecurityScheme"`
	OAuth2 *struct {
		Description       string          `json:"description"`
		Flows             json.RawMessage `json:"flows"`
		OAuth2MetadataURL string          `json:"oauth2MetadataUrl"`
	} `json:"oauth2SecurityScheme"`
	OpenIDConnect *struct {
		Description      string `json:"description"`
		OpenIDConnectURL string `json:"openIdConnectUrl"`
	} `json:"openIdConnectSecurityScheme"`
	MTLS *struct {
		Description string `json:"description"`
	} `json:"mtlsSecurityScheme"`
}

// UnmarshalJSON reads either version's shape, and the form @a2a-js/sdk
// 1.3.0 serves on its well-known card, where the one-of is written as the
// SDK holds it in memory: {"scheme":{"$case":"httpAuthSecurityScheme",
// "value":{...}}}. A scheme must be a JSON object; an object of any other
// shape (an unknown kind, a field of the wrong type) reads as the zero
// value, so that one scheme the module cannot read never fails the whole
// card.
func (s *SecurityScheme) UnmarshalJSON(b []byte) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return err
	}
	*s = readSecurityScheme(b, probe)
	return nil
}

// readSecurityScheme reads the scheme b, a JSON object whose members are
// probe, in any shape UnmarshalJSON takes, or returns the zero value.
func readSecurityScheme(b []byte, probe map[string]json.RawMessage) SecurityScheme {
	if _, ok := probe["type"]; ok {
		var w securityScheme03
		if json.Unmarshal(b, &w) != nil {
			return SecurityScheme{}
		}
		return SecurityScheme{Type: w.Type, Description: w.Description, Name: w.Name, Location: w.In,
			Scheme: w.Scheme, BearerFormat: w.BearerFormat, OAuth2MetadataURL: w.OAuth2MetadataURL,
			Flows: w.Flows, OpenIDConnectURL: w.OpenIDConnectURL}
	}
	if raw, ok := probe["scheme"]; ok && len(probe) == 1 {
		// The SDK's in-memory one-of: {"$case": member, "value": {...}}.
		var c struct {
			Case  string          `json:"$case"`
			Value json.RawMessage `json:"value"`
		}
		if json.Unmarshal(raw, &c) != nil || c.Case == "" || len(c.Value) == 0 {
			return SecurityScheme{}
		}
		wrapped, err := json.Marshal(map[string]json.RawMessage{c.Case: c.Value})
		if err != nil {
			return SecurityScheme{}
		}
		b = wrapped
	}
	var w securityScheme10
	if json.Unmarshal(b, &w) != nil {
		return SecurityScheme{}
	}
	switch {
	case w.APIKey != nil:
		return SecurityScheme{Type: "apiKey", Description: w.APIKey.Description, Name: w.APIKey.Name, Location: w.APIKey.Location}
	case w.HTTP != nil:
		return SecurityScheme{Type: "http", Description: w.HTTP.Description, Scheme: w.HTTP.Scheme, BearerFormat: w.HTTP.BearerFormat}
	case w.OAuth2 != nil:
		return SecurityScheme{Type: "oauth2", Description: w.OAuth2.Description, Flows: w.OAuth2.Flows, OAuth2MetadataURL: w.OAuth2.OAuth2MetadataURL}
	case w.OpenIDConnect != nil:
		return SecurityScheme{Type: "openIdConnect", Description: w.OpenIDConnect.Description, OpenIDConnectURL: w.OpenIDConnect.OpenIDConnectURL}
	case w.MTLS != nil:
		return SecurityScheme{Type: "mutualTLS", Description: w.MTLS.Description}
	}
	// A kind added after this module was written: kept as nothing
	// rather than failing the whole card.
	return SecurityScheme{}
}

// MarshalJSON writes the 0.3 (OpenAPI) shape.
func (s SecurityScheme) MarshalJSON() ([]byte, error) {
	return json.Marshal(securityScheme03{Type: s.Type, Description: s.Description, Name: s.Name, In: s.Location,
		Scheme: s.Scheme, BearerFormat: s.BearerFormat, OAuth2MetadataURL: s.OAuth2MetadataURL,
		Flows: s.Flows, OpenIDConnectURL: s.OpenIDConnectURL})
}

// SecurityRequirement is one security requirement in 1.0's shape: the
// schemes it needs, by name, each with its scopes.
type SecurityRequirement struct {
	Schemes map[string]ScopeList `json:"schemes"`
}

// ScopeList is the scopes a 1.0 security requirement needs of one scheme.
type ScopeList struct {
	List []string `json:"list"`
}

// requirements merges the 0.3 and 1.0 lists into the 0.3 shape.
func requirements(v03 []map[string][]string, v10 []SecurityRequirement) []map[string][]string {
	out := make([]map[string][]string, 0, len(v03)+len(v10))
	out = append(out, v03...)
	for _, r := range v10 {
		m := make(map[string][]string, len(r.Schemes))
		for name, scopes := range r.Schemes {
			m[name] = scopes.List
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
