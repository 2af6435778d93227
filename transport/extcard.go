package transport

import (
	"context"

	"github.com/a2astream/a2astream/a2a"
)

// ExtendedCarder is a [Transport] that can also ask for the agent's
// authenticated extended card (1.0 GetExtendedAgentCard, 0.3 the card call
// of its binding). It is optional, as [PushConfigurer] is, so that
// Transport keeps its methods: stream.Resolve with stream.WithExtendedCard
// calls ExtendedCard when the Transport of the interface it picked (opened
// with stream.WithTransportFor) implements ExtendedCarder, and otherwise
// keeps the public card, with a notice whose cause matches
// errors.ErrUnsupported, sending nothing.
//
// ExtendedCard makes one call in the version of [Call], with its headers
// (the caller's credentials). It returns the card the agent answered with,
// or a *ProtocolError when the answer is no agent card (none, or one
// without a name); the caller compares it with the public card (an agent
// may answer a caller it does not recognise with its public card). The
// errors are those of GetTask (see Transport): an agent that refuses the
// caller answers as a Transport reports an unauthenticated call (an error
// matching [ErrNotAuthenticated], which reaches the credentials hook) or
// a forbidden one ([ErrPermissionDenied]); an agent without an extended
// card answers -32007 (a2a.CodeExtendedAgentCardNotConfigured), -32004
// unsupported operation or -32601 method not found.
type ExtendedCarder interface {
	Transport
	ExtendedCard(ctx context.Context, call Call) (*a2a.AgentCard, error)
}
