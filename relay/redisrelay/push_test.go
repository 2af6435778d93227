package redisrelay

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/push"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

// TestPushToAnotherReplicaThroughRedis: a stream driven on replica A, with
// WithPush(A's receiver), whose agent drops the stream after its first
// chunk and POSTs every notification to replica B's receiver; the two
// receivers share registrations through Redis (each replica's store, with
// a client of its own). The stream finishes by push: long before its stall
// limit's poll (5 min) and its push poll interval (an hour), with a
// get-task per notification at most.
func TestPushToAnotherReplicaThroughRedis(t *testing.T) {
	srv := startRedis(t)
	storeA := newStore(t, srv.client(t), WithPrefix("push"), WithWake(testWake))
	storeB := newStore(t, srv.client(t), WithPrefix("push"), WithWake(testWake))
	recvA, err := push.NewReceiver("http://127.0.0.1/hooks", push.WithShare(storeA.(push.Share)))
	require.NoError(t, err)
	recvB, err := push.NewReceiver("http://127.0.0.1/hooks", push.WithShare(storeB.(push.Share)))
	require.NoError(t, err)
	agent := a2atest.NewAgent(a2atest.WithPush(), a2atest.WithPushClient(a2atest.NewClient(recvB)),
		a2atest.WithScript(
			a2atest.Working("w"),
			a2atest.Chunk("a1", "one ", false, false),
			a2atest.Pause(300*time.Millisecond),
			a2atest.Chunk("a1", "two ", true, false),
			a2atest.Pause(300*time.Millisecond),
			a2atest.Chunk("a1", "three", true, true),
			a2atest.Finish(a2a.StateCompleted, "done")),
		a2atest.WithFaults(a2atest.CutAfterEvents(3)))
	t.Cleanup(agent.Close)
	client, err := stream.NewClient("http://agent.internal/a2a", stream.WithHTTPClient(agent.Client()),
		stream.WithPush(recvA), stream.WithPushPollInterval(time.Hour),
		stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 100 * time.Millisecond}))
	require.NoError(t, err)
	log, err := storeA.Open(t.Context(), "k")
	require.NoError(t, err)
	fence, err := log.Acquire(t.Context(), "a", time.Minute)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	start := time.Now()
	require.NoError(t, relay.Drive(ctx, log, fence, relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hi"))))
	t.Logf("finished by push in %v (noisy: a shared machine)", time.Since(start))
	gets, configs := 0, 0
	for _, r := range agent.Requests() {
		m := strings.ToLower(r.Method)
		switch {
		case strings.Contains(m, "push"):
			configs++
		case strings.Contains(m, "get"):
			gets++
		}
	}
	require.Equal(t, 1, configs, "one push config registered")
	require.LessOrEqual(t, gets, 4, "a catch-up, then a get-task per notification")
	require.NotEmpty(t, agent.Pushes(), "the agent pushed to B")
	es, err := log.Read(t.Context(), 0, 1000)
	require.NoError(t, err)
	require.Equal(t, relay.EventEnd, es[len(es)-1].Name)
	var text strings.Builder
	for _, e := range es {
		if e.Name == relay.EventArtifact {
			text.Write(e.Data)
		}
	}
	for _, part := range []string{"one ", "two ", "three"} {
		require.Contains(t, text.String(), part)
	}
}
