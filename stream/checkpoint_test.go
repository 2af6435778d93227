package stream_test

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// takenCheckpoint runs the prompt script until the human answered and the
// task moved on, and returns the checkpoint's binary form: one with
// artifacts, messages, a status and a prompt replied to.
func takenCheckpoint(t *testing.T) []byte {
	t.Helper()
	var saved []byte
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(promptScript()...))
		s := newClient(t, agent, a2a.V10, stream.WithHumanInput(&pollAnswer{text: "Lisbon"})).Send(bounded(t), hello())
		for s.Next() {
			if u, ok := s.Event().(*a2a.ArtifactUpdate); ok && u.Artifact.Parts[0].Text == "for the city" {
				break
			}
		}
		var err error
		saved, err = s.Checkpoint().MarshalBinary()
		require.NoError(t, err)
		s.Close()
	})
	return saved
}

// A checkpoint's binary form reads back to the same checkpoint: written
// again, it is the same bytes.
func TestCheckpointBinaryFormRoundTrips(t *testing.T) {
	saved := takenCheckpoint(t)
	cp, err := stream.ParseCheckpoint(saved)
	require.NoError(t, err)
	require.NotEmpty(t, cp.TaskID())
	again, err := cp.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, saved, again)
	appended, err := cp.AppendBinary([]byte("prefix"))
	require.NoError(t, err)
	require.Equal(t, append([]byte("prefix"), saved...), appended)
}

// Bytes that are not a whole checkpoint are refused with a
// *CheckpointError, never read in part: every prefix, every bit flipped,
// a newer format, and text that is no checkpoint at all.
func TestCheckpointDamagedIsRefusedWhole(t *testing.T) {
	saved := takenCheckpoint(t)
	requireRefused := func(t *testing.T, data []byte, want error, what string) {
		t.Helper()
		cp, err := stream.ParseCheckpoint(data)
		require.Nil(t, cp, what)
		var ce *stream.CheckpointError
		require.ErrorAs(t, err, &ce, what)
		require.ErrorIs(t, err, want, what)
		require.NotEmpty(t, ce.Reason, what)
	}
	t.Run("every prefix", func(t *testing.T) {
		for n := range len(saved) {
			want := stream.ErrCheckpointCorrupt
			if n < len("a2acp") {
				want = stream.ErrCheckpointForeign
			}
			requireRefused(t, saved[:n], want, "a prefix")
		}
	})
	t.Run("every bit flipped", func(t *testing.T) {
		for i := range len(saved) * 8 {
			b := append([]byte(nil), saved...)
			b[i/8] ^= 1 << (i % 8)
			_, err := stream.ParseCheckpoint(b)
			var ce *stream.CheckpointError
			require.ErrorAs(t, err, &ce, "bit %d", i)
			if i/8 >= len("a2acp")+1 {
				require.ErrorIs(t, err, stream.ErrCheckpointCorrupt, "bit %d", i)
			}
		}
	})
	t.Run("a newer format", func(t *testing.T) {
		b := append([]byte("a2acp"), 3)
		b = append(b, saved[6:]...)
		requireRefused(t, b, stream.ErrCheckpointNewer, "format 3")
	})
	t.Run("no checkpoint at all", func(t *testing.T) {
		requireRefused(t, []byte(`{"taskId":"t-1"}`), stream.ErrCheckpointForeign, "JSON")
		requireRefused(t, nil, stream.ErrCheckpointForeign, "nothing")
	})
	t.Run("bytes after its last field", func(t *testing.T) {
		body := append(append([]byte(nil), saved[:len(saved)-4]...), 0)
		requireRefused(t, binary.BigEndian.AppendUint32(body, crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli))), stream.ErrCheckpointCorrupt, "a byte more")
	})
	t.Run("UnmarshalBinary keeps the checkpoint on error", func(t *testing.T) {
		cp, err := stream.ParseCheckpoint(saved)
		require.NoError(t, err)
		require.Error(t, cp.UnmarshalBinary(saved[:len(saved)-1]))
		again, err := cp.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, saved, again)
	})
}

// Resume refuses, with no call made, a checkpoint it cannot resume from:
// nil, one taken before any task was known, one of another binding.
func TestResumeRefusesACheckpointItCannotResume(t *testing.T) {
	var beforeTask, overREST *stream.Checkpoint
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(promptScript()...), a2atest.WithBindings(a2a.BindingJSONRPC, a2a.BindingHTTPJSON))
		s := newClient(t, agent, a2a.V10).Send(bounded(t), hello())
		beforeTask = s.Checkpoint()
		s.Close()
		s = clientOn(t, agent, a2a.V10, a2a.BindingHTTPJSON).Send(bounded(t), hello())
		require.True(t, s.Next())
		overREST = s.Checkpoint()
		s.Close()
	})
	require.Empty(t, beforeTask.TaskID())
	for name, cp := range map[string]*stream.Checkpoint{"nil": nil, "no task": beforeTask, "another binding": overREST} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent()
				s := newClient(t, agent, a2a.V10).Resume(context.Background(), cp)
				require.False(t, s.Next())
				var ce *stream.CheckpointError
				require.ErrorAs(t, s.Err(), &ce)
				require.True(t, errors.Is(s.Err(), stream.ErrCheckpointForeign))
				require.Empty(t, agent.Requests(), "no call made")
			})
		})
	}
}

// Once the task moved on from the prompt, the reply is neither asked
// about nor sent again: later checkpoints do not carry it.
func TestCheckpointDropsTheReplyOnceTheTaskMovedOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(promptScript()...))
		s := newClient(t, agent, a2a.V10, stream.WithHumanInput(&pollAnswer{text: "Lisbon"})).Send(bounded(t), hello())
		var whileAsking []byte
		for s.Next() {
			if u, ok := s.Event().(*a2a.ArtifactUpdate); ok && u.Artifact.Parts[0].Text == "for the city" {
				var err error
				whileAsking, err = s.Checkpoint().MarshalBinary()
				require.NoError(t, err)
			}
		}
		require.NoError(t, s.Err())
		require.Contains(t, string(whileAsking), "Lisbon", "while the task shows the prompt, the reply is kept")
		done, err := s.Checkpoint().MarshalBinary()
		require.NoError(t, err)
		require.NotContains(t, string(done), "Lisbon", "once the task completed")
	})
}
