// Package transport is the seam between a stream and the wire: what a
// binding of A2A implements, and the errors every binding reports.
//
// Package stream follows a task through a [Transport]. It has two of its
// own, JSON-RPC and HTTP+JSON over Server-Sent Events; a binding of
// another wire (gRPC, say) is a type in a module of its own that
// implements Transport and is handed to stream.NewClientFor. Each call
// gets its [Call]: the protocol version, the headers for the agent's
// origin, the idle timeout. A streaming call returns an [EventReader].
//
// A program matches the errors of this package with errors.As and
// errors.Is, whichever binding it uses:
//
//   - [*HTTPError]: the agent answered with a status other than 2xx;
//   - [*ProtocolError]: the server broke the protocol (never retried);
//   - [ErrIdleTimeout], [ErrEndedEarly]: a stream went silent, or closed
//     before its task settled. The runtime reconnects; a stream whose drops
//     spend its attempts ends in a *reconnect.Error with this cause, and one
//     whose task the agent still shows working ends in a *stream.StalledError
//     at the stall limit;
//   - [ErrConnectTimeout], [ErrCircuitOpen]: a call never left;
//   - [ErrNotAuthenticated]: the agent refused the credentials;
//   - [ErrInvalidMessage]: the caller's message cannot be sent.
//
// A binding tells the runtime how far a failed call got with [NotSent],
// [CouldNotConnect] and [Responded], so that a message the agent may have
// taken is never sent twice. [Transport] says what a binding must return
// for each failure.
//
// The errors' texts begin with "stream:": they are what a stream's error
// reads, whichever binding made it.
package transport
