// Package stream is the runtime of a2astream: a client that sends a message
// to an A2A agent and hands back one uninterrupted stream of its task, whatever
// happens to the connections underneath.
//
// A Client speaks A2A 0.3 and 1.0 over JSON-RPC ([NewClient]) or HTTP+JSON
// ([NewRESTClient]), with Server-Sent Events; [Resolve] picks the binding and
// the version from the agent card. [Client.Send] returns a [Stream], a pull
// iterator (Next, Event, Err, Close, plus All for range loops and Wait to
// drain it):
//
//   - Drops are healed: a transport error, an unexpected EOF, a clean EOF
//     before the task settled, or silence longer than the idle timeout makes
//     the stream wait the backoff and resubscribe by task ID. The user's
//     message is never sent twice.
//   - Replays are deduplicated and gaps recovered: whether a server resends
//     nothing (a2a-go), a snapshot first (a2a-js, 1.0) or everything from the
//     start, each message and artifact part reaches the application once,
//     and output missed during a gap is fetched with get-task.
//   - Agents that cannot stream, and servers that cannot resubscribe, are
//     followed by polling get-task ([WithPollInterval]), with the same
//     guarantees and a stall limit ([WithStallTimeout]).
//   - input-required prompts go to a human-input hook (package hitl) and the
//     task continues on the same Stream.
//   - The stream ends in nil (completed, or a message answer) or in a typed
//     error that carries the final task: terminal.Error, *reconnect.Error,
//     *hitl.Error, *a2a.RPCError, *ProtocolError, *HTTPError, *StalledError,
//     ErrInvalidMessage, or ctx.Err().
//
// The Stream yields deltas only (*a2a.StatusUpdate, *a2a.ArtifactUpdate,
// *a2a.Message, and *a2a.MessageRevision when an agent sends a message
// again with other parts): applying them in order rebuilds
// Task().Artifacts exactly.
//
// The package starts no goroutine of its own per stream: all work happens in
// Next, on the consumer's goroutine.
package stream
