package a2agrpc_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// Close from another goroutine, while Next waits on a gRPC stream, ends
// that Next with no error and cancels the call: the agent's handler sees
// its context end.
func TestCloseFromAnotherGoroutineCancelsTheCall(t *testing.T) {
	for name, opts := range versionOpts {
		t.Run(name, func(t *testing.T) {
			ended := make(chan struct{})
			a := newAgent(t, true, true, handlers{stream: func(ctx context.Context, _ *a2a.Message, send func(a2a.Event) error) error {
				defer close(ended)
				if err := sendAll(send, working("t-1")); err != nil {
					return err
				}
				<-ctx.Done()
				return ctx.Err()
			}})
			s := newClient(t, a.client(t), opts...).Send(context.Background(), hello())
			require.True(t, s.Next())
			done := make(chan bool, 1)
			go func() { done <- s.Next() }()
			require.NoError(t, s.Close())
			require.False(t, <-done, "the Next that waited returned false")
			require.NoError(t, s.Err())
			<-ended // the call was canceled: the handler returned
			require.False(t, s.Next())
		})
	}
}
