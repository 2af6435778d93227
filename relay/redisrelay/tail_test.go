package redisrelay

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay/internal/redistest"
)

// lastGenerated is the seq of the stream's last-generated-id, which XINFO
// STREAM reports and Redis keeps through trims; 0 when there is no stream.
func lastGenerated(t *testing.T, c redis.UniversalClient, l *log) uint64 {
	t.Helper()
	n, err := c.Exists(t.Context(), l.keys.log).Result()
	require.NoError(t, err)
	if n == 0 {
		return 0
	}
	info, err := c.XInfoStream(t.Context(), l.keys.log).Result()
	require.NoError(t, err)
	seq, ok := strings.CutPrefix(info.LastGeneratedID, "0-")
	require.True(t, ok, "last-generated-id %q", info.LastGeneratedID)
	v, err := strconv.ParseUint(seq, 10, 64)
	require.NoError(t, err)
	return v
}

// tailIsTheStreams fails t unless the log's Tail is the stream's
// last-generated-id and a Commit at the tail fails with ErrDuplicate and
// one past the tail plus one with ErrGap, changing nothing.
func tailIsTheStreams(t *testing.T, c redis.UniversalClient, l *log, f relay.Fence, want uint64, what string) {
	t.Helper()
	ctx := t.Context()
	tail, err := l.Tail(ctx)
	require.NoError(t, err, "Tail %s", what)
	require.Equal(t, want, tail, "Tail %s", what)
	require.Equal(t, want, lastGenerated(t, c, l), "the stream's last-generated-id %s", what)
	if want > 0 {
		require.ErrorIs(t, l.Commit(ctx, f, []byte("bad"), entriesFrom(want, want+1)...), relay.ErrDuplicate, "Commit at the tail %s", what)
	}
	require.ErrorIs(t, l.Commit(ctx, f, []byte("bad"), entriesFrom(want+2, want+2)...), relay.ErrGap, "Commit past the tail %s", what)
	tail, err = l.Tail(ctx)
	require.NoError(t, err)
	require.Equal(t, want, tail, "Tail after the failed Commits %s", what)
}

// TestTailIsTheStreamsLastID: the tail the scripts read (the trimmed-through
// mark plus the stream's length) is the stream's last-generated-id after
// Commits of one and of many entries, a Commit of a checkpoint alone,
// trims that the snapshot stops, and trims that empty the stream.
func TestTailIsTheStreamsLastID(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t, nil)
	l, f := driven(t, newStore(t, c), "task-1")
	ctx := t.Context()
	tailIsTheStreams(t, c, l, f, 0, "of a new log")
	require.NoError(t, l.Commit(ctx, f, nil, entriesFrom(1, 1)...))
	tailIsTheStreams(t, c, l, f, 1, "after a Commit of one entry")
	require.NoError(t, l.Commit(ctx, f, []byte("cp@5"), entriesFrom(2, 5)...))
	tailIsTheStreams(t, c, l, f, 5, "after a Commit of four")
	require.NoError(t, l.Commit(ctx, f, []byte("cp@5 again")))
	tailIsTheStreams(t, c, l, f, 5, "after a Commit of a checkpoint alone")
	require.NoError(t, l.Trim(ctx, 3))
	tailIsTheStreams(t, c, l, f, 5, "after a Trim with no snapshot")
	require.NoError(t, l.SaveSnapshot(ctx, f, relay.Snapshot{Seq: 3, Data: []byte(`{}`)}))
	require.NoError(t, l.Trim(ctx, 9))
	tailIsTheStreams(t, c, l, f, 5, "after a Trim stopped at the snapshot")
	require.NoError(t, l.SaveSnapshot(ctx, f, relay.Snapshot{Seq: 5, Data: []byte(`{}`)}))
	require.NoError(t, l.Trim(ctx, 5))
	n, err := c.XLen(ctx, l.keys.log).Result()
	require.NoError(t, err)
	require.Zero(t, n, "entries after a Trim through the tail")
	tailIsTheStreams(t, c, l, f, 5, "after a Trim through the tail")
	require.NoError(t, l.Commit(ctx, f, nil, entriesFrom(6, 21)...))
	tailIsTheStreams(t, c, l, f, 21, "after a Commit on an emptied stream")
	require.NoError(t, l.SaveSnapshot(ctx, f, relay.Snapshot{Seq: 30, Data: []byte(`{}`)}))
	require.NoError(t, l.Trim(ctx, 40))
	tailIsTheStreams(t, c, l, f, 21, "after a Trim past the tail")
	es, err := l.Read(ctx, 21, 10)
	require.NoError(t, err)
	require.Empty(t, es)
	require.NoError(t, l.Commit(ctx, f, nil, entriesFrom(22, 22)...))
	tailIsTheStreams(t, c, l, f, 22, "after a Commit on a stream trimmed past its tail")
	es, err = l.Read(ctx, 21, 10)
	require.NoError(t, err)
	require.Equal(t, entriesFrom(22, 22), es)
}

// TestLogOfTheXINFOScriptsGoesOn: a log written and trimmed by a replica of
// the version that read the tail from XINFO STREAM (no key of its own to
// migrate: the mark and the stream are the same) is read, appended to and
// trimmed on by this one, and the two take turns appending without a gap
// or a duplicate, as during a rolling upgrade.
func TestLogOfTheXINFOScriptsGoesOn(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t, nil)
	st := newStore(t, c)
	l, f := driven(t, st, "task-1")
	old := newV1(l)
	ctx := t.Context()
	require.NoError(t, old.Commit(ctx, f, []byte("cp@10"), entriesFrom(1, 10)...))
	require.NoError(t, l.SaveSnapshot(ctx, f, relay.Snapshot{Seq: 6, Data: []byte(`"six"`)}))
	require.NoError(t, old.Trim(ctx, 6))

	again, err := st.Open(ctx, "task-1")
	require.NoError(t, err)
	l = again.(*log)
	tailIsTheStreams(t, c, l, f, 10, "of the old version's log")
	_, err = l.Read(ctx, 5, 10)
	require.ErrorIs(t, err, relay.ErrGone, "Read before the old version's trim")
	require.NoError(t, l.Commit(ctx, f, []byte("cp@11"), entriesFrom(11, 11)...))
	es, err := l.Read(ctx, 6, 10)
	require.NoError(t, err)
	require.Equal(t, entriesFrom(7, 11), es)
	snap, es, err := l.Attach(ctx, 10)
	require.NoError(t, err)
	require.Equal(t, relay.Snapshot{Seq: 6, Data: []byte(`"six"`)}, snap)
	require.Equal(t, entriesFrom(7, 11), es)

	require.ErrorIs(t, old.Commit(ctx, f, nil, entriesFrom(11, 11)...), relay.ErrDuplicate, "the old version's Commit at the tail")
	require.NoError(t, old.Commit(ctx, f, nil, entriesFrom(12, 14)...))
	tailIsTheStreams(t, c, l, f, 14, "after the old version appended")
	require.NoError(t, l.SaveSnapshot(ctx, f, relay.Snapshot{Seq: 14, Data: []byte(`"fourteen"`)}))
	require.NoError(t, old.Trim(ctx, 14))
	tailIsTheStreams(t, c, l, f, 14, "after the old version trimmed through the tail")
	require.NoError(t, l.Commit(ctx, f, nil, entriesFrom(15, 15)...))
	require.ErrorIs(t, old.Commit(ctx, f, nil, entriesFrom(17, 17)...), relay.ErrGap, "the old version's Commit past the tail")
	require.NoError(t, old.Commit(ctx, f, nil, entriesFrom(16, 16)...))
	require.NoError(t, l.Trim(ctx, 14))
	tailIsTheStreams(t, c, l, f, 16, "after both appended")
	es, err = l.Read(ctx, 14, 10)
	require.NoError(t, err)
	require.Equal(t, entriesFrom(15, 16), es)
	cp, err := l.LoadCheckpoint(ctx)
	require.NoError(t, err)
	require.Equal(t, "cp@11", string(cp))
}

// TestRestartKeepsTheTailOfATrimmedLog: redis-server with AOF killed with
// SIGKILL after a trim emptied the stream: the trimmed-through mark comes
// back with the stream, so the tail is the same after the restart and the
// same fence appends after it.
func TestRestartKeepsTheTailOfATrimmedLog(t *testing.T) {
	srv := redistest.Start(t, "--appendonly", "yes", "--appendfsync", "always")
	c := srv.Client(t, nil)
	l, f := driven(t, newStore(t, c, WithWake(testWake)), "task-1")
	ctx := t.Context()
	require.NoError(t, l.Commit(ctx, f, []byte("cp@8"), entriesFrom(1, 8)...))
	require.NoError(t, l.SaveSnapshot(ctx, f, relay.Snapshot{Seq: 8, Data: []byte(`{}`)}))
	require.NoError(t, l.Trim(ctx, 8))

	srv.Kill()
	srv.Restart()
	tailIsTheStreams(t, c, l, f, 8, "after the restart")
	require.NoError(t, l.Commit(ctx, f, nil, entriesFrom(9, 10)...))
	tailIsTheStreams(t, c, l, f, 10, "after a Commit after the restart")
	waited, cancel := context.WithCancel(ctx)
	defer cancel()
	require.NoError(t, l.AwaitEntry(waited, 9), "AwaitEntry of an entry held")
}
