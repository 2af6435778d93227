package a2agrpc_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/a2astream/a2astream/a2a"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	"github.com/a2astream/a2astream/internal/callmark"
	"github.com/a2astream/a2astream/transport"
)

// How far each failed call got, as the marks the driver reads say it (the
// test reads them with the library's internal package, which the driver
// uses): never sent, could not connect (with the target), or answered.
func TestHowFarACallGot(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	refused, err := a2agrpc.New(addr, a2agrpc.WithInsecure())
	require.NoError(t, err)
	defer refused.Close()
	blackhole, err := a2agrpc.New("passthrough:///blackhole", a2agrpc.WithInsecure(),
		a2agrpc.WithConnectTimeout(20*time.Millisecond),
		a2agrpc.WithDialOptions(grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})))
	require.NoError(t, err)
	defer blackhole.Close()

	a := newAgent(t, true, false, handlers{
		stream: func(ctx context.Context, _ *a2a.Message, send func(a2a.Event) error) error {
			if err := send(working("t-1")); err != nil {
				return err
			}
			<-ctx.Done()
			return ctx.Err()
		},
		get: func(context.Context, string) (*a2a.Task, error) { return nil, status.Error(codes.NotFound, "no") },
	})
	open := &countingBreaker{refuse: errors.New("open")}
	call := transport.Call{Version: a2a.V10}

	t.Run("refused dial", func(t *testing.T) {
		_, err := refused.SendStream(context.Background(), call, hello())
		require.True(t, callmark.IsUnsent(err))
		got, ok := callmark.Addr(err)
		require.True(t, ok)
		require.Equal(t, addr, got)
		require.False(t, callmark.IsResponded(err))
	})
	t.Run("connect timeout", func(t *testing.T) {
		_, err := blackhole.SendStream(context.Background(), call, hello())
		require.ErrorIs(t, err, transport.ErrConnectTimeout)
		require.True(t, callmark.IsUnsent(err))
		got, _ := callmark.Addr(err)
		require.Equal(t, "passthrough:///blackhole", got)
	})
	t.Run("open circuit", func(t *testing.T) {
		_, err := a.client(t, a2agrpc.WithBreaker(open)).GetTask(context.Background(), call, "t-1")
		require.ErrorIs(t, err, transport.ErrCircuitOpen)
		require.True(t, callmark.IsUnsent(err))
		_, ok := callmark.Addr(err)
		require.False(t, ok)
	})
	t.Run("the agent's error", func(t *testing.T) {
		_, err := a.client(t).GetTask(context.Background(), call, "t-1")
		require.ErrorIs(t, err, &a2a.RPCError{Code: a2a.CodeTaskNotFound})
		require.False(t, callmark.IsUnsent(err))
		require.False(t, callmark.IsResponded(err), "a refusal is no sign the agent took the message")
	})
	t.Run("a status alone, with no A2A meaning", func(t *testing.T) {
		// A trailers-only INTERNAL: the server answered, so the request
		// may have reached the agent, and a reply is not sent again.
		// (Before, only response headers counted, and a reply answered so
		// was sent again when the task still showed the prompt.)
		b := newAgent(t, true, false, handlers{stream: func(context.Context, *a2a.Message, func(a2a.Event) error) error {
			return status.Error(codes.Internal, "boom")
		}})
		_, err := b.client(t).SendStream(context.Background(), call, hello())
		require.Equal(t, codes.Internal, status.Code(err))
		require.True(t, callmark.IsResponded(err))
		require.False(t, callmark.IsUnsent(err))
	})
	t.Run("lost after the headers", func(t *testing.T) {
		r, err := a.client(t).SendStream(context.Background(), call, hello())
		require.NoError(t, err)
		defer r.Close()
		_, err = r.Next()
		require.NoError(t, err)
		a.cut()
		_, err = r.Next()
		require.True(t, callmark.IsResponded(err))
		require.False(t, callmark.IsUnsent(err))
		require.Equal(t, codes.Unavailable, status.Code(err))
	})
}
