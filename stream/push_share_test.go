package stream_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/push"
	"github.com/a2astream/a2astream/stream"
)

// unreachableShare is a push.Share that cannot be reached.
type unreachableShare struct{}

var errUnreachable = errors.New("share unreachable")

func (unreachableShare) PutRegistration(context.Context, string, push.SharedRegistration, time.Duration) (bool, error) {
	return false, errUnreachable
}

func (unreachableShare) GetRegistration(context.Context, string) (push.SharedRegistration, bool, error) {
	return push.SharedRegistration{}, false, errUnreachable
}

func (unreachableShare) AdoptRegistration(context.Context, string, string, string, time.Duration) (push.SharedRegistration, bool, error) {
	return push.SharedRegistration{}, false, errUnreachable
}

func (unreachableShare) DeleteRegistration(context.Context, string, string) error {
	return errUnreachable
}

func (unreachableShare) RefreshRegistrations(context.Context, string, time.Duration, ...string) ([]string, error) {
	return nil, errUnreachable
}

func (unreachableShare) RingRegistration(context.Context, string) error { return errUnreachable }

func (unreachableShare) ListenRings(context.Context) (push.Rings, error) { return nil, errUnreachable }

// TestPushShareDownIsTriedAgain: a receiver whose Share cannot be reached
// fails the stream's registration as a failed push-config call does: no
// PushUnavailable notice, the stream resubscribes after the drop, and
// finishes with every part once; no push config reaches the agent.
func TestPushShareDownIsTriedAgain(t *testing.T) {
	w := pushWires()[0]
	synctest.Test(t, func(t *testing.T) {
		recv, err := push.NewReceiver(pushBase, push.WithShare(unreachableShare{}))
		require.NoError(t, err)
		agent := w.agent(a2atest.WithPushClient(a2atest.NewClient(recv)), a2atest.WithPush(), slowScript(),
			a2atest.WithFaults(a2atest.CutAfterEvents(3)))
		t.Cleanup(agent.Close)
		notices := &noticeLog{}
		c := reconnectingClient(t, w, agent, stream.WithPush(recv), notices.option())
		col, err := drain(t, c.Send(context.Background(), hello()))
		require.NoError(t, err)
		require.Equal(t, "one two three", col.text("a1"))
		require.Empty(t, notices.of(stream.PushUnavailable))
		require.Empty(t, notices.of(stream.Pushing))
		require.Zero(t, countRequests(agent, "PushNotificationConfig"))
		require.Equal(t, 1, countRequests(agent, "subscribe"))
	})
}
