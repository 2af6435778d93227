package relay_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

// The checkpoint slot holds only stream checkpoints: before Run starts a
// stream it stores the checkpoint of a stream that knows no task yet,
// which parses (a replica that takes the log over reads it as "started,
// no task known"), not a text of the relay's own.
func TestRunMarksAStartWithACheckpointThatParsesAndNamesNoTask(t *testing.T) {
	log, err := newMemoryStore(t).Open(t.Context(), "k")
	require.NoError(t, err)
	var (
		cp  []byte
		got *stream.Checkpoint
	)
	start := func(ctx context.Context, opts ...stream.Option) *stream.Stream {
		cp, err = log.LoadCheckpoint(ctx)
		require.NoError(t, err)
		got, err = stream.ParseCheckpoint(cp)
		return nil
	}
	require.ErrorIs(t, relay.Run(t.Context(), log, "starter", start, noResume(t), relay.WithLease(time.Minute)), relay.ErrNoStream)
	require.NotNil(t, cp, "Run stored a mark before it started the stream")
	require.NoError(t, err, "the mark is a stream checkpoint")
	require.Empty(t, got.TaskID(), "the mark names no task")
}
