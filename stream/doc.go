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
//     message is never sent again once it may have reached the agent; a send
//     that provably never left (refused or timed-out dial) is made again.
//   - An agent that fails is treated as A2A's error-handling guidance asks:
//     errors it marks retryable ([a2a.RPCError.Retryable]) are failed
//     attempts that wait the delay asked for; busy sends are made again only
//     with [WithIdempotentSends]; the connect, idle and stall timeouts
//     ([WithConnectTimeout], [WithIdleTimeout], [WithStallTimeout]) bound
//     each layer, and the caller's context the whole.
//   - Replays are deduplicated and gaps recovered: whether a server resends
//     nothing (a2a-go), a snapshot first (a2a-js, 1.0) or everything from the
//     start, each message and artifact part reaches the application once,
//     and output missed during a gap is fetched with get-task.
//   - Agents that cannot stream, and servers that cannot resubscribe, are
//     followed by polling get-task ([WithPollInterval]), with the same
//     guarantees and a stall limit ([WithStallTimeout]).
//   - input-required prompts go to a human-input hook (package hitl) and the
//     task continues on the same Stream; auth-required goes to a credentials
//     hook ([WithCredentials]) whose headers the stream adds to its later
//     calls, to the origin named only, and the task continues too.
//   - Callers that fan out get circuit breaking ([WithBreaker],
//     [ErrCircuitOpen]) and quorums ([FanOut], [QuorumError]), and
//     [ChainError] turns any of the errors below into the error object an
//     agent answers its own caller with.
//   - The stream ends in nil (completed, or a message answer) or in a typed
//     error that carries the final task: terminal.Error, *reconnect.Error,
//     *hitl.Error, *a2a.RPCError, *ProtocolError, *HTTPError, *StalledError,
//     ErrInvalidMessage, ErrCircuitOpen, or ctx.Err(). terminal.FailureOf
//     reads a structured failure ([WithFailureReader] for other conventions).
//
// The Stream yields deltas only (*a2a.StatusUpdate, *a2a.ArtifactUpdate,
// *a2a.Message, and *a2a.MessageRevision when an agent sends a message
// again with other parts): applying them in order rebuilds
// Task().Artifacts exactly.
//
// The package starts no goroutine of its own per stream: all work happens in
// Next, on the consumer's goroutine. FanOut runs each of its calls on a
// goroutine of its own, and waits for all of them before it returns.
package stream
