package redisrelay

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay/internal/redistest"
)

// TestLostDataFailsEveryCallWithErrLost: after FLUSHALL (Redis lost its
// data) every call of a Log opened before fails with ErrLost, fenced writes
// matching ErrStale and Read matching ErrGone as well; waits that were
// blocked end with it; none of them writes a key; and a new Open starts a
// new log under a new epoch.
func TestLostDataFailsEveryCallWithErrLost(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t, nil)
	st := newStore(t, c, WithWake(testWake))
	l, f := driven(t, st, "task-1")
	ctx := t.Context()
	require.NoError(t, l.Commit(ctx, f, nil, entriesFrom(1, 3)...))
	require.NoError(t, l.Commit(ctx, f, []byte("cp@3")))

	waits := make(chan error, 3)
	go func() { waits <- l.AwaitEntry(ctx, 3) }()
	go func() { _, err := l.AwaitAnswer(ctx, 7); waits <- err }()
	go func() { waits <- l.AwaitCancel(ctx) }()

	require.NoError(t, c.FlushAll(ctx).Err())

	fenced := map[string]error{
		"Commit of entries":      l.Commit(ctx, f, nil, entriesFrom(4, 4)...),
		"Commit of a checkpoint": l.Commit(ctx, f, []byte("cp@4")),
		"SaveSnapshot":           l.SaveSnapshot(ctx, f, relay.Snapshot{Seq: 3, Data: []byte(`{}`)}),
		"Renew":                  l.Renew(ctx, f, time.Hour),
		"Release":                l.Release(ctx, f),
	}
	for name, err := range fenced {
		require.ErrorIs(t, err, ErrLost, name)
		require.ErrorIs(t, err, relay.ErrStale, name)
	}
	_, err := l.Read(ctx, 0, 10)
	require.ErrorIs(t, err, ErrLost, "Read")
	require.ErrorIs(t, err, relay.ErrGone, "Read")
	_, errTail := l.Tail(ctx)
	_, errSnap := l.LoadSnapshot(ctx)
	_, errCP := l.LoadCheckpoint(ctx)
	_, errPost := l.PostAnswer(ctx, relay.Answer{Prompt: 7, Key: "k", Text: "yes"})
	_, errAcquire := l.Acquire(ctx, "replica-b", time.Hour)
	_, _, errLoadAnswer := l.LoadAnswer(ctx, 7)
	_, _, errAttach := l.Attach(ctx, 10)
	for name, err := range map[string]error{
		"Tail": errTail, "LoadSnapshot": errSnap, "LoadCheckpoint": errCP, "PostAnswer": errPost,
		"LoadAnswer": errLoadAnswer, "Attach": errAttach,
		"Acquire": errAcquire, "Trim": l.Trim(ctx, 2), "RequestCancel": l.RequestCancel(ctx),
	} {
		require.ErrorIs(t, err, ErrLost, name)
		require.False(t, errors.Is(err, relay.ErrStale) || errors.Is(err, relay.ErrHeld), "%s: %v", name, err)
	}
	for range 3 {
		require.ErrorIs(t, <-waits, ErrLost, "a wait blocked when the data was lost")
	}
	n, err := c.DBSize(ctx).Result()
	require.NoError(t, err)
	require.Zero(t, n, "keys written by calls of the lost log")

	fresh, err := st.Open(ctx, "task-1")
	require.NoError(t, err)
	require.NotEqual(t, l.Epoch(), fresh.Epoch(), "epoch of the log made afresh")
	tail, err := fresh.Tail(ctx)
	require.NoError(t, err)
	require.Zero(t, tail)
	f2, err := fresh.Acquire(ctx, "driver", time.Hour)
	require.NoError(t, err)
	require.NoError(t, fresh.Commit(ctx, f2, nil, entriesFrom(1, 1)...))
	require.ErrorIs(t, l.Commit(ctx, f, nil, entriesFrom(4, 4)...), ErrLost, "Append of the lost log after the new one began")
	_, err = l.Read(ctx, 0, 10)
	require.ErrorIs(t, err, ErrLost, "Read of the lost log after the new one began")
}

// TestEvictedEpochStartsTheLogAfresh: when only the epoch key is gone (an
// eviction), the next Open drops what is left of the log and starts an
// empty one under a new epoch, so that no old entry is read under it; the
// Log opened before fails with ErrLost.
func TestEvictedEpochStartsTheLogAfresh(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t, nil)
	st := newStore(t, c)
	l, f := driven(t, st, "task-1")
	ctx := t.Context()
	require.NoError(t, l.Commit(ctx, f, nil, entriesFrom(1, 3)...))
	require.NoError(t, l.Commit(ctx, f, []byte("cp@3")))
	require.NoError(t, c.Del(ctx, l.keys.epoch).Err())

	fresh, err := st.Open(ctx, "task-1")
	require.NoError(t, err)
	require.NotEqual(t, l.Epoch(), fresh.Epoch())
	es, err := fresh.Read(ctx, 0, 10)
	require.NoError(t, err)
	require.Empty(t, es, "entries of the old log read under the new epoch")
	cp, err := fresh.LoadCheckpoint(ctx)
	require.NoError(t, err)
	require.Nil(t, cp, "checkpoint of the old log read under the new epoch")
	f2, err := fresh.Acquire(ctx, "driver", time.Hour)
	require.NoError(t, err)
	require.Equal(t, relay.Fence{Owner: "driver", Term: 1}, f2)
	require.ErrorIs(t, l.Commit(ctx, f, nil, entriesFrom(4, 4)...), ErrLost)
}
