// Package stream is the runtime of a2astream: a client that sends a message
// to an A2A agent and hands back one uninterrupted stream of its task, whatever
// happens to the connections underneath.
//
// A Client speaks A2A 0.3 and 1.0 over JSON-RPC ([NewClient]) or HTTP+JSON
// ([NewRESTClient]), with Server-Sent Events, or over a [transport.Transport] of another
// module ([NewClientFor]); [Resolve] picks the binding and the version from
// the agent card, which it reads with package agentcard (which also reads a
// card alone, and keeps cards in a cache). [Client.Send] returns a [Stream], a pull
// iterator (Next, Event, Err, Close, plus All for range loops and Wait to
// drain it) with one consumer; Close alone may also be called from another
// goroutine, to stop a Next that waits:
//
//   - Drops are healed: a transport error, an unexpected EOF, a clean EOF
//     before the task settled, or silence longer than the idle timeout makes
//     the stream wait the backoff and resubscribe by task ID. The user's
//     message is never sent again once it may have reached the agent; a send
//     that provably never left (refused or timed-out dial) is made again,
//     and a stream none of whose calls could connect ends in a
//     *reconnect.Error matching reconnect.ErrCouldNotConnect that names the
//     agent's URL.
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
//     [transport.ErrCircuitOpen]); package fanout runs their calls with a quorum,
//     and package chain turns any of the errors below into the error
//     object an agent answers its own caller with.
//   - The stream ends in nil (completed, or a message answer) or in a typed
//     error that carries the final task: terminal.Error, *reconnect.Error,
//     *hitl.Error, *a2a.RPCError, *transport.ProtocolError, *transport.HTTPError, *StalledError,
//     transport.ErrInvalidMessage, transport.ErrCircuitOpen, or ctx.Err(). [Stream.Ending] reads
//     how it ended in one value: the state, the task, a message answer and
//     the structured failure ([WithFailureReader] for other conventions).
//   - Package chatview turns each yielded event into the text it adds to a
//     chat screen, so that a UI prints each word once without a type switch.
//
// The Stream yields deltas only (*a2a.StatusUpdate, *a2a.ArtifactUpdate,
// *a2a.Message, and *a2a.MessageRevision when an agent sends a message
// again with other parts): applying them in order rebuilds
// Task().Artifacts exactly.
//
// The package starts no goroutine of its own per stream: all work happens in
// Next, on the consumer's goroutine.
//
// How the driver decides and acts, and which file holds what, is mapped for
// maintainers in DESIGN.md at the repository's root.
//
// # Adding a binding
//
// A binding of another wire (gRPC, say) is a type that implements [transport.Transport]
// in a module of its own, handed to [NewClientFor]; nothing in this package
// changes. Its streaming calls return a [transport.EventReader]; a call whose request
// never left is wrapped with [transport.NotSent] or [transport.CouldNotConnect], one the agent
// answered before it failed with [transport.Responded], and the agent's "not
// authenticated" wraps [transport.ErrNotAuthenticated]; its other errors are *a2a.RPCError
// with A2A's JSON-RPC codes, so that classify sorts them as it sorts the
// bindings' of this package ([transport.Transport] lists what each failure
// must be).
// [a2a.Codec] of the binding reads and writes its JSON where the wire
// carries JSON. The headers of WithHeader, of a call's options and of a
// WithCredentials hook reach it in each call's [transport.Call], and it sends them to
// its agent only; the HTTP client of WithHTTPClient and the breaker of
// WithBreaker are for this package's HTTP bindings only, and NewClientFor
// refuses them (see [Option]). [Resolve] does not
// choose it from a card.
package stream
