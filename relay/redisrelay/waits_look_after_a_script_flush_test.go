package redisrelay

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay/redisrelay/internal/redistest"
)

// The waits' looks go in pipelines of EVALSHA; when Redis has lost its
// scripts (a restart, SCRIPT FLUSH), a look it answers NOSCRIPT goes again
// as EVAL, so a wait still finds what is there.
func TestAWaitLooksAfterRedisLostItsScripts(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t, nil)
	st := newStore(t, c, WithWake(testWake))
	var batches int
	st.(*store).looks.hook = func(int) { batches++ }
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()

	l, f := driven(t, st, "task-1")
	require.NoError(t, l.Commit(ctx, f, nil, entriesFrom(1, 2)...))
	require.NoError(t, l.RequestCancel(ctx))
	require.NoError(t, c.ScriptFlush(ctx).Err())
	require.NoError(t, l.AwaitEntry(ctx, 1), "the tail, 2, is after 1")
	require.NoError(t, c.ScriptFlush(ctx).Err())
	require.NoError(t, l.AwaitCancel(ctx), "the cancel mark is set")
	require.Equal(t, 2, batches, "one batch for each wait's first look")
}
