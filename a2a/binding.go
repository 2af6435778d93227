package a2a

import "strings"

// Binding is an A2A protocol binding: how requests and results travel. Agent
// cards name it in supportedInterfaces[].protocolBinding (1.0), and in
// preferredTransport and additionalInterfaces[].transport (0.3).
//
// The binding matters to the codecs only in 0.3: its HTTP+JSON binding
// carries the proto-JSON of the v0.3 proto, not the JSON-RPC shapes (see
// [Codec]). In 1.0 every binding uses the same JSON. To compare with a
// card's string fields, use [ParseBinding], which reads the spellings
// deployed cards use.
type Binding string

// The bindings of A2A 0.3 and 1.0, spelled as agent cards spell them.
//
// BindingGRPC is recognised, not spoken, by this module: [ParseBinding]
// reads it, so that a client choosing among a card's interfaces knows a
// gRPC interface for what it is, and a [Codec] of it reads and writes the
// JSON of the gRPC proto's messages, as HTTP+JSON carries them; but no
// package of this module makes gRPC calls. The module
// github.com/a2astream/a2astream/grpc does; stream.Resolve picks a gRPC
// interface when given its opener (stream.WithTransportFor).
const (
	BindingJSONRPC  Binding = "JSONRPC"
	BindingHTTPJSON Binding = "HTTP+JSON"
	BindingGRPC     Binding = "GRPC"
)

// ParseBinding maps a binding name from an agent card to a [Binding]. It
// ignores case and surrounding space, and reads "REST", which some deployed
// cards use although both specs say "HTTP+JSON", as [BindingHTTPJSON]. It
// reports false for any other name.
func ParseBinding(s string) (Binding, bool) {
	s = strings.TrimSpace(s)
	switch {
	case strings.EqualFold(s, string(BindingJSONRPC)):
		return BindingJSONRPC, true
	case strings.EqualFold(s, string(BindingHTTPJSON)), strings.EqualFold(s, "REST"):
		return BindingHTTPJSON, true
	case strings.EqualFold(s, string(BindingGRPC)):
		return BindingGRPC, true
	}
	return "", false
}

// String returns the binding's name as agent cards write it.
func (b Binding) String() string { return string(b) }

// dialect is the JSON that one (version, binding) pair reads and writes.
type dialect uint8

const (
	// dialectRPC is the JSON of the JSON-RPC binding of 0.3 and of every
	// binding of 1.0. Decoding in it is lenient: it reads both versions.
	dialectRPC dialect = iota
	// dialectProto03 is the proto-JSON of the v0.3 proto, which the 0.3
	// HTTP+JSON binding carries: message parts under "content", parts
	// without "kind", {"data":{"data":…}} and {"file":{"fileWithUri"…}}.
	dialectProto03
)

// dialectOf returns the dialect of version v over binding b. An unknown
// binding (or version) reads as the lenient JSON-RPC dialect; ok is false
// for it so that encoders can refuse it.
func dialectOf(v Version, b Binding) (d dialect, ok bool) {
	switch b {
	case BindingJSONRPC, BindingHTTPJSON, BindingGRPC:
	default:
		if b, ok = ParseBinding(string(b)); !ok {
			return dialectRPC, false
		}
	}
	if v == V03 && b != BindingJSONRPC {
		return dialectProto03, true
	}
	return dialectRPC, true
}
