package transport

import (
	"context"
	"net/http"
	"time"

	"github.com/a2astream/a2astream/a2a"
)

// Transport makes the calls of one A2A protocol binding for a
// stream.Client: the seam between the driver, which is the same for every
// binding, and the wire. Package stream has two, JSON-RPC (stream.NewClient)
// and HTTP+JSON (stream.NewRESTClient), both over HTTP with Server-Sent
// Events; another one, gRPC for one, is a type in a module of its own that
// implements Transport, handed to stream.NewClientFor. Nothing in the interface assumes HTTP or SSE:
// a streaming call returns an [EventReader].
//
// Every method takes the context of the call first, then the [Call]: the
// protocol version to speak, which the Client negotiates (1.0 first, then
// 0.3 when the agent refuses 1.0, unless stream.WithVersion fixes it), and the
// headers of the call. A binding that speaks one version only refuses the
// other as an agent would (see below). The context of a call is the
// caller's, and carries nothing of the Client's: a binding stops the call
// when it is done and returns its error.
//
// What a binding must return, so that the driver sorts each failure as it
// does for stream's own bindings (a drop is followed by a
// resubscribe or a fetch of the task, a refusal by a fetch; a fatal error
// ends the stream):
//
//   - The agent's own error, whatever the wire spells it as: an
//     *a2a.RPCError with the JSON-RPC code A2A gives it (gRPC's NOT_FOUND
//     with reason TASK_NOT_FOUND is a2a.CodeTaskNotFound, -32001) and its
//     data, so that its retry hint is read (a2a.RPCError.Retryable). The
//     codes carry meaning: -32004 (unsupported operation) or -32601 (method
//     not found) on SendStream say the agent cannot stream, and the Client
//     sends with SendUnary and polls GetTask; on Subscribe, -32601 says it
//     cannot subscribe, and -32001, -32004 and -32602 are refusals of a
//     task it will not stream now, which the Client fetches instead. An
//     agent that refuses the version answers -32009 (version not
//     supported), or -32601 for a method of the other version. Such a
//     refusal may come from SendStream or Subscribe, or from the first
//     Next of its reader: either is sorted as an error before any event.
//   - The agent's "not authenticated" (gRPC's UNAUTHENTICATED): an error
//     wrapping [ErrNotAuthenticated]. Once the task is known, it asks the
//     stream.WithCredentials hook on a call other than a send; otherwise it ends
//     the stream.
//   - A call whose request never reached the agent: its error wrapped with
//     [CouldNotConnect] when no connection to the agent could be made (a
//     refused or timed-out dial; gRPC's error of ClientConn.NewStream), or
//     with [NotSent] for another reason (a refusal of the binding's own
//     circuit breaker). Only then is a send made again without the
//     caller's leave (stream.WithIdempotentSends): a message the agent may have
//     taken is never sent twice. A stream none of whose calls could
//     connect ends in a *reconnect.Error that matches
//     reconnect.ErrCouldNotConnect and names CouldNotConnect's address.
//   - A connection lost after the request left, or an idle stream: any
//     other error, wrapping ErrIdleTimeout for silence; it is a drop. A
//     reader whose stream ends cleanly returns io.EOF from Next: a drop too,
//     unless the task had ended.
//   - A server that breaks the protocol (a result that does not decode, an
//     event of another task): a *ProtocolError, fatal. A message the binding
//     cannot encode: an error wrapping ErrInvalidMessage, fatal.
//   - The context's error when the caller's context is done.
//
// Whether the agent got a message: SendStream may return its reader once
// the request is sent, before any answer; a nil error then counts the
// message as taken. A binding that waits for the agent's first answer
// (gRPC's response headers) before it returns, and fails after that
// answer, marks its error with [Responded]: a reply to a prompt whose send
// failed so is never sent again, where one whose send failed with no word
// of an answer is sent again if a resubscribe still shows the prompt.
//
// An HTTP-based binding returns an *HTTPError for a response that is not a
// success, with the A2A error of its body in Err, as the bindings of this
// package do; the driver reads its status (429 and 503 are busy, 405, 501
// and a 404 on a subscribe say the call is unsupported; 401 matches
// ErrNotAuthenticated).
//
// Credentials and origins: the headers that stream.WithHeader, a call's
// headers and a credentials hook give reach a binding made for
// stream.NewClientFor in
// [Call.Header] of each call; it sends them to its agent only (as gRPC
// metadata, say), never to another host. The options of stream's
// HTTP bindings (WithHTTPClient, WithBreaker, WithTrustedOrigins,
// WithConnectTimeout, WithMaxEventSize) reach them only: NewClientFor, and
// the calls of its Client, refuse them.
//
// What such a binding does itself, since the Client cannot do it for it:
// time out a silent stream after [Call.IdleTimeout] (return an error
// wrapping ErrIdleTimeout from Next; the Client's own timer times only the
// readers of stream's own bindings), bound the making of its
// connections, and return from Next when the call's context ends (the
// driver reads and closes a reader on one goroutine, so Close is not
// called while Next blocks). Nor can it report the Retry-After of a
// get-task that succeeded, which stream's own bindings read to
// wait longer before the next poll.
type Transport interface {
	// SendStream sends a message with a streaming call and returns the
	// reader of its events.
	SendStream(ctx context.Context, call Call, m *a2a.Message) (EventReader, error)
	// SendUnary sends a message with a non-streaming call that returns at
	// once, and returns its result: a *a2a.Task or a *a2a.Message.
	SendUnary(ctx context.Context, call Call, m *a2a.Message) (a2a.Event, error)
	// Subscribe opens a stream of an existing task.
	Subscribe(ctx context.Context, call Call, taskID string) (EventReader, error)
	// GetTask fetches a task, with its whole history.
	GetTask(ctx context.Context, call Call, taskID string) (*a2a.Task, error)
	// Cancel asks the agent to cancel a task and returns the task.
	Cancel(ctx context.Context, call Call, taskID string) (*a2a.Task, error)
}

// Call is what one call of a [Transport] is made with, besides its context
// and its message or task ID.
type Call struct {
	// Version is the protocol version to speak.
	Version a2a.Version
	// Header holds the headers to send to the agent, for its origin only
	// (never to another host, nor across a redirect to one): those of
	// stream.WithHeader given to the Client and to the call (whose values
	// replace the Client's of the same names), with those a credentials hook
	// gave the stream replacing both. It is nil when there are none. It is
	// the call's own copy: the binding may keep it, and change it.
	Header http.Header
	// IdleTimeout is the longest silence of a streaming call's reader:
	// after it, Next returns an error wrapping ErrIdleTimeout. It is
	// stream.WithIdleTimeout's, given to the Client or to the stream; zero means
	// none. GetTask and Cancel get the Client's (they take no per-call
	// WithIdleTimeout).
	IdleTimeout time.Duration
}

// EventReader reads the events of one streaming call. The driver calls
// Next until it returns an error, and Close once it is done with the call,
// from one goroutine.
type EventReader interface {
	// Next returns the next event (a *a2a.Task, *a2a.Message,
	// *a2a.StatusUpdate or *a2a.ArtifactUpdate), io.EOF at the stream's
	// clean end, or the error that ended it (see Transport for which).
	Next() (a2a.Event, error)
	// Close stops the call and releases what it holds. It is idempotent.
	// The driver calls it after Next has returned, never while Next
	// blocks: Next must itself return when the call's context ends.
	Close()
}
