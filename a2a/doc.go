// Package a2a is the version-neutral model of the A2A (Agent2Agent) protocol
// that every other package of a2astream shares: tasks, messages, artifacts,
// the four stream events, JSON-RPC errors and agent cards, and the codecs
// of their JSON.
//
// The model does not depend on a wire version. A [Codec] names one wire, a
// [Version] over a [Binding], and translates between the model and its
// JSON: [Codec.DecodeEvent] and [Codec.EncodeEvent] for stream results,
// DecodeTask and EncodeTask, DecodeMessage and EncodeMessage; and an
// [EventDecoder] reads a stream's results one after another. Two dialects of
// JSON are deployed today:
//
//   - A2A 0.3: flat objects told apart by a "kind" field, kebab-case task
//     states ("input-required"), roles "user" and "agent", a "final" flag on
//     status updates, and file parts as {"file":{"bytes"|"uri"}}.
//   - A2A 1.0: results wrapped as {"task"|"message"|"statusUpdate"|"artifactUpdate": …},
//     enum names such as "TASK_STATE_WORKING" and "ROLE_AGENT", one Part shape
//     with "text", "data", "url" or "raw", and no "final".
//
// Decoding is lenient in the ways real servers require: missing "append",
// "lastChunk" and timestamps, the British "TASK_STATE_CANCELLED", empty
// "metadata" objects everywhere, a message's parts under "content", and
// unknown fields are all accepted; and it reads either version's shapes,
// so the zero Codec decodes for a caller that does not know the version.
// Encoding is exact to the version asked for.
//
// The HTTP+JSON (REST) binding carries the same JSON as JSON-RPC in 1.0.
// In 0.3 it carries the proto-JSON of the v0.3 proto instead, which differs
// in ways a lenient decoder cannot always tell apart ({"data":{"data":…}} is
// a data part there): a Codec of 0.3 over HTTP+JSON reads and writes it
// exactly. [ParseHTTPError] and [MarshalHTTPError] translate the error
// bodies of that binding.
//
// Why a Codec value: the package had one function per shape and per wire
// (MarshalEvent and MarshalEventFor, and so on for tasks and messages, each
// way), whose names did not say that "For" meant a binding. The binding
// changes the JSON only for 0.3 over HTTP+JSON, and code that learns a wire
// from an agent card holds its version and binding together anyway; so the
// wire is one value, and six methods say what they read and write.
//
// What this package does not hold is framing: how a binding carries a
// result (the JSON-RPC envelope around it, with its id, or an SSE event) is
// the binding's. A binding that wraps each result in an object of its own
// reads the object with the result kept raw, then the result with an
// [EventDecoder]; this module's JSON-RPC binding keeps its envelope in an
// internal package.
package a2a
