package a2agrpc

import (
	"context"

	"github.com/a2astream/a2astream/a2a"
	pbv03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	pbv1 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
	"github.com/a2astream/a2astream/grpc/internal/convert"
	"github.com/a2astream/a2astream/transport"
)

// The Transport asks for the extended card of stream.WithExtendedCard.
var _ transport.ExtendedCarder = (*Transport)(nil)

// ExtendedCard returns the agent card the agent shows the caller of call:
// in 1.0 GetExtendedAgentCard (lf.a2a.v1.A2AService, with the tenant of
// WithTenant), in 0.3 GetAgentCard (a2a.v1.A2AService, an empty request).
// It makes the Transport a transport.ExtendedCarder, with which
// stream.Resolve's WithExtendedCard asks for the extended card over a gRPC
// interface.
//
// The call is made as GetTask is: the call's headers as metadata (the
// caller's credentials), its breaker, its connect and idle timers (see
// Transport); its errors are GetTask's (see StatusError): UNAUTHENTICATED
// matches transport.ErrNotAuthenticated (it reaches stream's credentials
// hook), PERMISSION_DENIED transport.ErrPermissionDenied; an agent without
// an extended card answers FAILED_PRECONDITION (1.0 with reason
// EXTENDED_AGENT_CARD_NOT_CONFIGURED, a2a.CodeExtendedAgentCardNotConfigured;
// 0.3 bare, unsupported operation) or UNIMPLEMENTED (method not found, or
// unsupported operation). The card is read with what the JSON bindings
// keep of a card (name, description, version, provider, interfaces,
// capabilities, modes, skills, security schemes and requirements,
// signatures); an answer that is no card (one without a name) is a
// *transport.ProtocolError. Whether the card is the public one again is
// the caller's to tell (stream compares them).
func (t *Transport) ExtendedCard(ctx context.Context, call transport.Call) (*a2a.AgentCard, error) {
	if v03(call) {
		var resp pbv03.AgentCard
		if err := t.unary(ctx, call, opCard, pbv03.A2AService_GetAgentCard_FullMethodName, &pbv03.GetAgentCardRequest{}, &resp); err != nil {
			return nil, err
		}
		return convert.AgentCardOf03(&resp)
	}
	var resp pbv1.AgentCard
	req := &pbv1.GetExtendedAgentCardRequest{Tenant: t.cfg.tenant}
	if err := t.unary(ctx, call, opCard, pbv1.A2AService_GetExtendedAgentCard_FullMethodName, req, &resp); err != nil {
		return nil, err
	}
	return convert.AgentCardOf10(&resp)
}
