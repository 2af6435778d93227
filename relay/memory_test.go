package relay_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/storetest"
)

func TestMemoryStoreConforms(t *testing.T) {
	storetest.Run(t, func(t *testing.T) relay.Store { return newMemoryStore(t) })
}

func TestMemoryStoreRetentionTrimsOldestUpToTheSnapshot(t *testing.T) {
	ctx := t.Context()
	st := newMemoryStore(t, relay.WithRetention(100))
	l, err := st.Open(ctx, "k")
	require.NoError(t, err)
	f, err := l.Acquire(ctx, "d", time.Hour)
	require.NoError(t, err)

	// 10 entries of 25 bytes: 250 bytes, but no snapshot, so all are kept.
	require.NoError(t, l.Commit(ctx, f, nil, entriesOf(1, 10, 25)...))
	got, err := l.Read(ctx, 0, 100)
	require.NoError(t, err)
	require.Len(t, got, 10, "nothing is trimmed past the snapshot (none yet)")

	// A snapshot at 3 lets the store trim through 3 only.
	require.NoError(t, l.SaveSnapshot(ctx, f, relay.Snapshot{Seq: 3, Data: []byte(`{}`)}))
	_, err = l.Read(ctx, 2, 100)
	require.ErrorIs(t, err, relay.ErrGone)
	got, err = l.Read(ctx, 3, 100)
	require.NoError(t, err)
	require.Len(t, got, 7)

	// A snapshot at 9 lets it keep 100 bytes: entries 7 to 10.
	require.NoError(t, l.SaveSnapshot(ctx, f, relay.Snapshot{Seq: 9, Data: []byte(`{}`)}))
	_, err = l.Read(ctx, 5, 100)
	require.ErrorIs(t, err, relay.ErrGone)
	got, err = l.Read(ctx, 6, 100)
	require.NoError(t, err)
	require.Equal(t, []uint64{7, 8, 9, 10}, seqsOf(got))

	// Appends past the bound trim as they come, still up to the snapshot.
	require.NoError(t, l.Commit(ctx, f, nil, entriesOf(11, 15, 25)...))
	_, err = l.Read(ctx, 8, 100)
	require.ErrorIs(t, err, relay.ErrGone)
	got, err = l.Read(ctx, 9, 100)
	require.NoError(t, err)
	require.Equal(t, []uint64{10, 11, 12, 13, 14, 15}, seqsOf(got), "the entries after the snapshot are kept past the bound")
}

func TestMemoryStoreLeaseReadsItsClock(t *testing.T) {
	ctx := t.Context()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := newMemoryStore(t, relay.WithClock(func() time.Time { return now }))
	l, err := st.Open(ctx, "k")
	require.NoError(t, err)
	first, err := l.Acquire(ctx, "a", 10*time.Second)
	require.NoError(t, err)

	now = now.Add(10*time.Second - time.Nanosecond)
	_, err = l.Acquire(ctx, "b", 10*time.Second)
	require.ErrorIs(t, err, relay.ErrHeld)

	now = now.Add(time.Nanosecond)
	second, err := l.Acquire(ctx, "b", 10*time.Second)
	require.NoError(t, err)
	require.Equal(t, relay.Fence{Owner: "b", Term: 2}, second)
	require.ErrorIs(t, l.Commit(ctx, first, nil, relay.Entry{Seq: 1, Name: "x", Data: []byte(`1`)}), relay.ErrStale)
	require.ErrorIs(t, l.Renew(ctx, first, time.Second), relay.ErrStale)
	require.NoError(t, l.Commit(ctx, second, nil, relay.Entry{Seq: 1, Name: "x", Data: []byte(`1`)}))
}

func TestMemoryStoreDeleteGivesANewEpoch(t *testing.T) {
	ctx := t.Context()
	st := newMemoryStore(t)
	a, err := st.Open(ctx, "k")
	require.NoError(t, err)
	again, err := st.Open(ctx, "k")
	require.NoError(t, err)
	require.Equal(t, a.Epoch(), again.Epoch())
	st.Delete("k")
	b, err := st.Open(ctx, "k")
	require.NoError(t, err)
	require.NotEqual(t, a.Epoch(), b.Epoch())
}
