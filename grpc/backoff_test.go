package a2agrpc_test

import (
	"context"
	"net"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/a2astream/a2astream/a2a"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	"github.com/a2astream/a2astream/transport"
)

// An agent that came back is reached at the latest on the call after the
// one that found grpc-go waiting out its dial backoff: that call has it
// dial at once, so the stream's reconnect policy, not grpc-go's backoff
// (1 s and growing), spaces the attempts. The bubble's clock never moves here: no backoff is
// waited out.
func TestAgentBackAfterRefusedDial(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newAgent(t, true, false, handlers{get: func(_ context.Context, id string) (*a2a.Task, error) { return working(id), nil }})
		var down atomic.Bool
		down.Store(true)
		tr, err := a2agrpc.New("passthrough:///agent", a2agrpc.WithInsecure(),
			a2agrpc.WithDialOptions(grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
				if down.Load() {
					return nil, &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
				}
				return a.lis.DialContext(ctx)
			})))
		require.NoError(t, err)
		defer tr.Close()
		call := transport.Call{Version: a2a.V10}

		_, err = tr.GetTask(context.Background(), call, "t-1")
		require.Equal(t, codes.Unavailable, status.Code(err))
		synctest.Wait()

		down.Store(false) // the agent is back
		got, err := tr.GetTask(context.Background(), call, "t-1")
		if err != nil {
			// This call found grpc-go in its backoff. Whether it fails as
			// the last dial did, or waits on the dial it started, depends
			// on whether grpc-go's picker saw that dial begin before the
			// call picked: a race inside grpc-go, so both are allowed.
			require.Equal(t, codes.Unavailable, status.Code(err), "this call found grpc-go in its backoff")
			synctest.Wait() // the dial it started is done
			got, err = tr.GetTask(context.Background(), call, "t-1")
		}
		require.NoError(t, err)
		require.Equal(t, "t-1", got.ID)
	})
}
