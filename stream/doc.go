// Package stream is the runtime of a2astream: a client that sends a message
// to an A2A agent and hands back one uninterrupted stream of its task, whatever
// happens to the connections underneath.
//
// A Client speaks A2A 0.3 and 1.0 over JSON-RPC ([NewClient]) or HTTP+JSON
// ([NewRESTClient]), with Server-Sent Events, or over a [Binding] of another
// module ([NewClientFor]); [Resolve] picks the binding and the version from
// the agent card. [Client.Send] returns a [Stream], a pull
// iterator (Next, Event, Err, Close, plus All for range loops and Wait to
// drain it):
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
//     [ErrCircuitOpen]) and quorums ([FanOut], [QuorumError]), and
//     [ChainError] turns any of the errors below into the error object an
//     agent answers its own caller with.
//   - The stream ends in nil (completed, or a message answer) or in a typed
//     error that carries the final task: terminal.Error, *reconnect.Error,
//     *hitl.Error, *a2a.RPCError, *ProtocolError, *HTTPError, *StalledError,
//     ErrInvalidMessage, ErrCircuitOpen, or ctx.Err(). terminal.FailureOf
//     reads a structured failure ([WithFailureReader] for other conventions),
//     and [Stream.Ending] reads all of it in one value.
//   - [Screen] turns each yielded event into the text it adds to a chat
//     screen, so that a UI prints each word once without a type switch.
//
// The Stream yields deltas only (*a2a.StatusUpdate, *a2a.ArtifactUpdate,
// *a2a.Message, and *a2a.MessageRevision when an agent sends a message
// again with other parts): applying them in order rebuilds
// Task().Artifacts exactly.
//
// The package starts no goroutine of its own per stream: all work happens in
// Next, on the consumer's goroutine. FanOut runs each of its calls on a
// goroutine of its own, and waits for all of them before it returns.
//
// # How the driver works
//
// A Stream is a phase machine (driver.go). Next yields the deltas queued so
// far and, when none is left, calls step, which runs the handler of the
// current phase. Each phase has one meaning and one handler; the handler
// makes at most one call to the agent (or one wait) and sets the next
// phase:
//
//   - phaseBegin chooses the route: the streaming one, or the polling one
//     when the agent card says the agent cannot stream. A route is the
//     phases that send, reply and resume: phaseSend, phaseReply and
//     phaseSubscribe while streaming; phasePollSend, phasePollReply and
//     phaseCatchUp once polling (startPolling switches, for good).
//   - phaseRead reads the next event of the open leg (a streaming send or a
//     subscription). phaseFetch fetches the task once for a reason
//     (fetchRefused, fetchNoStream, fetchProbe, fetchQuiet, fetchSilent,
//     fetchGap, fetchAfterError), which decides what follows; the reason
//     comes from classify's outcome, and fetch reads no error itself.
//     phasePollWait and phasePoll poll.
//     phaseBackoff waits one attempt of the reconnect budget, then enters
//     the phase that makes the call again. phaseHalted acts on a task that
//     ended or asks something (the human-input or credentials hook).
//
// A failed call, or the end of a leg, goes to handle with the phase that
// made it. classify (outcome.go) decides, in one place, what it means:
// classifyCall sorts the error itself (a drop, a refusal, unsupported,
// busy, fatal...), and classify adds what the stream's situation says
// (the task is known, the stream polls, the card says it streams, sends
// are idempotent, the call asks about an earlier error). handle then only
// acts on the outcome.
//
// Everything the server sends reaches the application through deliver
// (stream.go), which folds it into the ledger (package dedupe): the
// ledger keeps the task as the application has seen it, and turns each
// event or whole task into the deltas not yet delivered, so replays and
// snapshots after a reconnect are deduplicated and gaps filled.
//
// Next folds each delta it yields into the stream's seen record: counts
// and digests, no content, which Checkpoint copies. Resume starts a stream
// in phaseResume, which every call phase becomes until it succeeds: it
// fetches the task, builds from it the task as the checkpoint says the
// application holds it, folds that into a new ledger without delivering
// anything, then delivers the task fetched as a get-task result, so the
// ledger hands over only the rest.
//
// # Where things are
//
// One concept per file:
//
//   - client.go: the Client, its constructors, GetTask and Cancel.
//   - resolve.go: Resolve, reading the card and picking an interface.
//   - card.go, cardcache.go: fetching an agent card; caching it by HTTP
//     freshness.
//   - options.go, validate.go: the options and their defaults; checking
//     them (ErrInvalidOption).
//   - stream.go: the Stream as the application sees it (Next, Err, Task,
//     Close, Cancel) and deliver, the one way events reach it.
//   - view.go: the artifacts as yielded so far, while one fold's deltas are
//     being yielded.
//   - text.go: Screen, what each yielded event adds to a chat screen;
//     ending.go: Ending, how a stream ended, in one value.
//   - driver.go: the phases, step, handle and read.
//   - outcome.go: classify, where a new error rule goes.
//   - recovery.go: healing a drop: backoff, subscribe, fetch and its
//     reasons.
//   - budget.go: counting reconnect attempts against the policy.
//   - poll.go: following a task by polling: unary sends and get-task.
//   - prompt.go: input-required: the human-input hook and its reply.
//   - auth.go: auth-required and 401: the credentials hook.
//   - binding.go: Binding, EventReader and NotSent, what a binding must
//     return, and NewClientFor; jsonrpc.go and rest.go: the JSON-RPC and
//     HTTP+JSON bindings, where a new server quirk of a binding goes;
//     leg.go: a streaming call as the driver reads it (leg), and the
//     EventReader of both HTTP bindings, one SSE response (sseReader).
//   - call.go: one HTTP exchange of a binding; reach.go: whether a request
//     left, and the connect timeout; headers.go: headers go only to the
//     origin named, redirects included; redact.go: secrets kept out of
//     error texts and logs.
//   - errors.go: HTTPError, ProtocolError, InvalidCardError and the
//     sentinels; taskof.go: TaskError and TaskOf; task_failure.go:
//     WithFailureReader.
//   - breaker.go: WithBreaker and ErrCircuitOpen; fanout.go: FanOut and
//     quorums; chain.go: ChainError, an error for one's own caller.
//   - sleep.go: the default sleep the driver waits with.
//   - checkpoint.go: Checkpoint and CheckpointError; checkpoint_format.go:
//     its binary form (format 2 written, format 1 read too); seen.go: what
//     the events yielded hold, folded one at a time (a checkpoint's
//     substance); digest.go: the content digests a checkpoint holds;
//     resume.go: Resume, seeding the ledger from a checkpoint and the task
//     fetched, and giving a replaced artifact its place in Task.
//
// # Adding a binding
//
// A binding of another wire (gRPC, say) is a type that implements [Binding]
// in a module of its own, handed to [NewClientFor]; nothing in this package
// changes. Its streaming calls return an [EventReader]; a call whose request
// never left is wrapped with [NotSent]; the agent's errors are *a2a.RPCError
// with A2A's JSON-RPC codes, so that classify sorts them as it sorts the
// bindings' of this package (binding.go lists what each failure must be).
// [a2a.Codec] of the binding reads and writes its JSON where the wire
// carries JSON. The headers of WithHeader, of a call's options and of a
// WithCredentials hook reach it through [CallHeader], and it sends them to
// its agent only; the HTTP client of WithHTTPClient and the breaker of
// WithBreaker are for this package's HTTP bindings only. [Resolve] does not
// choose it from a card.
package stream
