package stream

import (
	"context"

	"github.com/a2astream/a2astream/a2a"
)

// binding is how a Client speaks to its agent: one implementation per A2A
// protocol binding (JSON-RPC today). The driver above it is the same for
// every binding; a binding only makes calls and maps their failures onto the
// errors the driver classifies (*HTTPError, *a2a.RPCError, *ProtocolError,
// ErrInvalidMessage, ErrIdleTimeout, ErrEndedEarly, transport errors and
// the context's). Every method takes the protocol version to speak.
type binding interface {
	// sendStream sends a message with a streaming call.
	sendStream(ctx context.Context, v a2a.Version, m *a2a.Message) (*leg, error)
	// sendUnary sends a message with a non-streaming call that returns at
	// once, and returns its result: a *a2a.Task or a *a2a.Message.
	sendUnary(ctx context.Context, v a2a.Version, m *a2a.Message) (a2a.Event, error)
	// subscribe opens a stream of an existing task.
	subscribe(ctx context.Context, v a2a.Version, taskID string) (*leg, error)
	// getTask fetches a task.
	getTask(ctx context.Context, v a2a.Version, taskID string) (*a2a.Task, error)
	// cancel asks the agent to cancel a task.
	cancel(ctx context.Context, v a2a.Version, taskID string) (*a2a.Task, error)
}
