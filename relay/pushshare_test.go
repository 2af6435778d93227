package relay_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/push"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

// pushAcrossReplicas drives a stream on replica A, with WithPush(A's
// receiver), against an agent that runs 20 s and drops the stream after
// its first chunk, and POSTs every notification to replica B's receiver.
// With shared (both receivers on the MemoryStore, push.WithShare), it
// returns how long the stream took and how many get-tasks it made.
func pushAcrossReplicas(t *testing.T, shared bool) (took time.Duration, gets int, text string) {
	t.Helper()
	store := newMemoryStore(t)
	var opts []push.Option
	if shared {
		opts = append(opts, push.WithShare(store))
	}
	recvA, err := push.NewReceiver("http://127.0.0.1/hooks", opts...)
	require.NoError(t, err)
	recvB, err := push.NewReceiver("http://127.0.0.1/hooks", opts...)
	require.NoError(t, err)
	agent := a2atest.NewAgent(a2atest.WithPush(), a2atest.WithPushClient(a2atest.NewClient(recvB)),
		a2atest.WithScript(
			a2atest.Working("w"),
			a2atest.Chunk("a1", "one ", false, false),
			a2atest.Pause(10*time.Second),
			a2atest.Chunk("a1", "two ", true, false),
			a2atest.Pause(10*time.Second),
			a2atest.Chunk("a1", "three", true, true),
			a2atest.Finish(a2a.StateCompleted, "done")),
		a2atest.WithFaults(a2atest.CutAfterEvents(3)))
	t.Cleanup(agent.Close)
	start := time.Now()
	log, done := driveAgent(t, store, "k", agent, []stream.Option{
		stream.WithPush(recvA), stream.WithPushPollInterval(time.Hour),
		stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 100 * time.Millisecond}),
	})
	require.NoError(t, <-done)
	took = time.Since(start)
	for _, r := range agent.Requests() {
		m := strings.ToLower(r.Method)
		if strings.Contains(m, "get") && !strings.Contains(m, "push") {
			gets++
		}
	}
	require.Equal(t, 1, countMethod(agent, "push"), "one push config registered")
	evs := eventsOf(t, log)
	require.Equal(t, relay.EventEnd, evs[len(evs)-1].Name)
	return took, gets, fold(t, evs).Pane("artifact:a1").Text()
}

// countMethod counts the agent's requests whose method contains part.
func countMethod(agent *a2atest.Agent, part string) int {
	n := 0
	for _, r := range agent.Requests() {
		if strings.Contains(strings.ToLower(r.Method), part) {
			n++
		}
	}
	return n
}

// TestPushPostedToAnotherReplicaRingsTheDriver: a stream driven on replica
// A, whose notifications all reach replica B, finishes by push: when the
// task does (20 s), long before its poll interval (an hour) or its stall
// limit (5 min), with a get-task per notification at most. Without a Share,
// B refuses them, and the same stream learns of the ending only at its
// stall limit's poll.
func TestPushPostedToAnotherReplicaRingsTheDriver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		took, gets, text := pushAcrossReplicas(t, true)
		t.Logf("shared: %v, %d get-tasks", took, gets)
		require.Equal(t, 20*time.Second, took, "the last notification, POSTed to B, ended A's wait")
		require.LessOrEqual(t, gets, 4, "a catch-up, then a get-task per notification")
		require.Equal(t, "one two three", text)
	})
	synctest.Test(t, func(t *testing.T) {
		took, gets, text := pushAcrossReplicas(t, false)
		t.Logf("not shared: %v, %d get-tasks", took, gets)
		require.Greater(t, took, time.Minute, "without a Share, only a safety poll found the ending")
		require.Equal(t, "one two three", text)
	})
}
