// Package a2a is the version-neutral model of the A2A (Agent2Agent) protocol
// that every other package of a2astream shares: tasks, messages, artifacts,
// the four stream events, JSON-RPC errors and agent cards.
//
// The model does not depend on a wire version. The codecs in this package
// ([UnmarshalEvent], [MarshalEvent], [UnmarshalTask], [MarshalTask],
// [MarshalMessage], [UnmarshalMessage]) translate between it and the two
// JSON-RPC dialects that are deployed today:
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
// unknown fields are all accepted. Encoding is exact to the version asked
// for.
//
// The HTTP+JSON (REST) binding carries the same JSON as JSON-RPC in 1.0,
// without the JSON-RPC envelope. In 0.3 it carries the proto-JSON of the
// v0.3 proto instead, which differs in ways a lenient decoder cannot always
// tell apart ({"data":{"data":…}} is a data part there). The codecs that
// take a [Binding] as well as a [Version] ([MarshalEventFor],
// [UnmarshalEventFor], [NewEventDecoder], and those for tasks and messages)
// read and write each pair exactly. [ParseHTTPError] and [MarshalHTTPError]
// translate the error bodies of that binding.
package a2a
