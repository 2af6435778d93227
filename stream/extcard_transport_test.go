package stream_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// carderStub is a grpcStub that is also a transport.ExtendedCarder,
// answering card and err.
type carderStub struct {
	*grpcStub
	card *a2a.AgentCard
	err  error
}

func (c *carderStub) ExtendedCard(_ context.Context, call transport.Call) (*a2a.AgentCard, error) {
	c.note("ExtendedCard", call)
	return c.card, c.err
}

// grpcExtendedCard is a 1.0 card of a gRPC interface on hostport that
// offers an extended card.
func grpcExtendedCard(hostport string) string {
	return fmt.Sprintf(`{"name":"g","capabilities":{"extendedAgentCard":true},`+
		`"supportedInterfaces":[{"url":%q,"protocolBinding":"GRPC","protocolVersion":"1.0"}]}`, hostport)
}

// Over WithTransportFor's binding, Resolve asks for the extended card
// through transport.ExtendedCarder, with the Client's headers, and checks
// what it returns as it checks a card read from JSON; a Transport that is
// no ExtendedCarder is not asked.
func TestExtendedCardThroughATransport(t *testing.T) {
	srv, _ := grpcCardServer(t, grpcExtendedCard)

	o := newOpener()
	c, causes := resolveKept(t, srv.URL, stream.WithTransportFor(a2a.BindingGRPC, o.open), stream.WithHeader("Authorization", "Bearer s3cret"))
	require.False(t, c.CardExtended())
	require.Len(t, causes, 1)
	require.ErrorIs(t, causes[0], errors.ErrUnsupported)
	require.Empty(t, o.stub.calls)
	require.NoError(t, c.Close())

	for _, tt := range []struct {
		name  string
		card  *a2a.AgentCard
		err   error
		taken bool
		check func(t *testing.T, cause error)
	}{
		{name: "taken", card: &a2a.AgentCard{Name: "g", Skills: []a2a.AgentSkill{{ID: "s", Name: "s"}}}, taken: true},
		{name: "no card", check: func(t *testing.T, cause error) {
			var pe *transport.ProtocolError
			require.ErrorAs(t, cause, &pe)
		}},
		{name: "no name", card: &a2a.AgentCard{Description: "d"}, check: func(t *testing.T, cause error) {
			var pe *transport.ProtocolError
			require.ErrorAs(t, cause, &pe)
		}},
		{name: "the public card", card: &a2a.AgentCard{Name: "g"}, check: func(t *testing.T, cause error) {
			require.ErrorIs(t, cause, stream.ErrExtendedCardPublic)
		}},
		{name: "refused", err: &a2a.RPCError{Code: a2a.CodeExtendedAgentCardNotConfigured}, check: func(t *testing.T, cause error) {
			require.ErrorIs(t, cause, &a2a.RPCError{Code: a2a.CodeExtendedAgentCardNotConfigured})
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stub := &carderStub{grpcStub: &grpcStub{}, card: tt.card, err: tt.err}
			open := func(a2a.AgentInterface) (transport.Transport, error) { return stub, nil }
			c, causes := resolveKept(t, srv.URL, stream.WithTransportFor(a2a.BindingGRPC, open), stream.WithHeader("Authorization", "Bearer s3cret"))
			defer c.Close()
			require.Equal(t, []string{"ExtendedCard"}, stub.calls)
			require.Equal(t, "Bearer s3cret", stub.headers[0].Get("Authorization"))
			require.Equal(t, a2a.V10, stub.versions[0])
			require.Equal(t, tt.taken, c.CardExtended())
			if tt.taken {
				require.Empty(t, causes)
				require.Equal(t, tt.card, c.Card())
				return
			}
			require.Len(t, causes, 1)
			tt.check(t, causes[0])
		})
	}
}
