package redisrelay

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay/internal/redistest"
)

// TestRestartWithAOFPausesAndKeepsTheLog: redis-server with AOF (fsync on
// every write) killed with SIGKILL mid-stream: while it is down, calls fail
// with the client's error (no relay error, not ErrLost); once it is back,
// the same Log and fence go on appending from the tail, with no duplicate
// and no gap, and the epoch, lease, checkpoint and answers are kept.
func TestRestartWithAOFPausesAndKeepsTheLog(t *testing.T) {
	srv := redistest.Start(t, "--appendonly", "yes", "--appendfsync", "always")
	c := srv.Client(t, nil)
	st := newStore(t, c, WithWake(testWake))
	l, f := driven(t, st, "task-1")
	ctx := t.Context()
	require.NoError(t, l.Commit(ctx, f, nil, entriesFrom(1, 5)...))
	require.NoError(t, l.Commit(ctx, f, []byte("cp@5")))
	answer := relay.Answer{Prompt: 4, Key: "k1", Text: "Lisbon"}
	_, err := l.PostAnswer(ctx, answer)
	require.NoError(t, err)

	srv.Kill()
	err = l.Commit(ctx, f, nil, entriesFrom(6, 6)...)
	require.Error(t, err, "Append while Redis is down")
	for _, relayErr := range []error{ErrLost, relay.ErrStale, relay.ErrDuplicate, relay.ErrGap, relay.ErrGone, relay.ErrHeld} {
		require.False(t, errors.Is(err, relayErr), "Append while Redis is down failed with %v", err)
	}

	srv.Restart()
	require.NoError(t, l.Commit(ctx, f, nil, entriesFrom(6, 8)...), "Append after the restart")
	require.NoError(t, l.Commit(ctx, f, nil, entriesFrom(9, 10)...))
	require.ErrorIs(t, l.Commit(ctx, f, nil, entriesFrom(10, 10)...), relay.ErrDuplicate, "a retried Append that had landed")

	again, err := st.Open(ctx, "task-1")
	require.NoError(t, err)
	require.Equal(t, l.Epoch(), again.Epoch(), "epoch after the restart")
	es, err := again.Read(ctx, 0, 100)
	require.NoError(t, err)
	require.Equal(t, entriesFrom(1, 10), es, "entries after the restart")
	n, err := c.XLen(ctx, l.keys.log).Result()
	require.NoError(t, err)
	require.EqualValues(t, 10, n)
	cp, err := again.LoadCheckpoint(ctx)
	require.NoError(t, err)
	require.Equal(t, "cp@5", string(cp))
	got, err := again.AwaitAnswer(ctx, 4)
	require.NoError(t, err)
	require.Equal(t, answer, got)
	_, err = again.Acquire(ctx, "replica-b", time.Hour)
	require.ErrorIs(t, err, relay.ErrHeld, "the lease after the restart")
}
