package a2agrpctest_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/grpc/a2agrpctest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// client returns a stream client of srv fixed to v; the transport and the
// server close when the test ends.
func client(t *testing.T, srv *a2agrpctest.Server, v a2a.Version, opts ...stream.Option) *stream.Client {
	t.Helper()
	tr, err := srv.Transport()
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, tr.Close())
		srv.Close()
	})
	c, err := stream.NewClientFor(tr, append([]stream.Option{stream.WithVersion(v),
		stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 100 * time.Millisecond})}, opts...)...)
	require.NoError(t, err)
	return c
}

func TestCutIsHealed(t *testing.T) {
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithFaults(a2atest.CutAfterEvents(2)))
				s := client(t, a2agrpctest.NewServer(agent), v).Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hi"))
				defer s.Close()
				for s.Next() {
				}
				require.NoError(t, s.Err())
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
				require.Equal(t, agent.Task(s.Task().ID).Artifacts, s.Task().Artifacts)
				var methods []string
				for _, r := range agent.Requests() {
					methods = append(methods, r.Method)
				}
				want := []string{"SendStreamingMessage", "SubscribeToTask"}
				if v == a2a.V03 {
					want = []string{"message/stream", "tasks/resubscribe"}
				}
				require.Equal(t, want, methods[:2], "sent once, then resubscribed")
			})
		})
	}
}
