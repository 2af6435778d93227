package stream_test

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
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
		b := append([]byte("a2acp"), 5)
		b = append(b, saved[6:]...)
		requireRefused(t, b, stream.ErrCheckpointNewer, "format 5")
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

// format1 is a checkpoint as the library wrote it before format 2 (format
// 1, which holds no digest of an artifact's metadata): over JSON-RPC in A2A
// 1.0, after task t-1, message m-1 ("a note") and artifact a1 ("kept",
// metadata {k: before}) were yielded.
func format1(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../internal/checkpoint/testdata/checkpoint-format1.bin")
	require.NoError(t, err)
	require.Equal(t, "a2acp\x01", string(b[:6]), "the fixture is of format 1")
	return b
}

// A format 1 checkpoint still reads, and is written again in format 4,
// which reads back to a checkpoint that writes the same bytes.
func TestCheckpointOfFormat1StillReads(t *testing.T) {
	cp, err := stream.ParseCheckpoint(format1(t))
	require.NoError(t, err)
	require.Equal(t, "t-1", cp.TaskID())
	require.Equal(t, uint64(3), cp.Delivered())
	again, err := cp.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, "a2acp\x04", string(again[:6]), "written in format 4")
	back, err := stream.ParseCheckpoint(again)
	require.NoError(t, err)
	twice, err := back.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, again, twice)
}

// A stream resumed from a format 1 checkpoint, whether read as it is or
// written again in format 2, hands over what it did before format 2: the
// metadata of an artifact, which the checkpoint does not know, is taken as
// the agent's, and nothing of it is handed over (the limit format 2
// lifts); the message the application holds is not handed over again.
func TestResumeFromAFormat1CheckpointTakesTheAgentsArtifactMetadataLimit(t *testing.T) {
	cp, err := stream.ParseCheckpoint(format1(t))
	require.NoError(t, err)
	rewritten, err := cp.MarshalBinary()
	require.NoError(t, err)
	for name, saved := range map[string][]byte{"as read": format1(t), "written again": rewritten} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := wire{a2a.V10, a2a.BindingJSONRPC}
				now := artifactOf("a1", "kept")
				now.Metadata = map[string]any{"k": "after"}
				get := taskWith(a2a.StateWorking, []*a2a.Message{agentMsg("m-1", "a note")}, now)
				agent := newWireAgent(w, map[callKind]func(ww *wireWriter, c wireCall){
					kindGet: func(ww *wireWriter, _ wireCall) { ww.task(get) },
					kindSubscribe: func(ww *wireWriter, _ wireCall) {
						ww.sse()
						ww.event(statusEvent(w.v, a2a.StateCompleted, nil))
					},
				})
				cp, err := stream.ParseCheckpoint(saved)
				require.NoError(t, err)
				s := agent.client(t).Resume(bounded(t), cp)
				var handed []a2a.Event
				for s.Next() {
					handed = append(handed, s.Event())
				}
				require.NoError(t, s.Err())
				require.Len(t, handed, 1, "the end alone: %v", handed)
				require.IsType(t, &a2a.StatusUpdate{}, handed[0])
				require.Equal(t, []a2a.Artifact{now}, s.Task().Artifacts, "the agent's metadata, taken as the application's")
			})
		})
	}
}

// A checkpoint whose artifacts carry metadata, opened and grown by
// appends, reads back to the same checkpoint: written again, it is the
// same bytes, and a stream resumed from either hands over nothing of an
// artifact the agent did not change.
func TestCheckpointWithArtifactMetadataRoundTrips(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := wire{a2a.V10, a2a.BindingJSONRPC}
		opened := artifactOf("a1", "kept")
		opened.Metadata = map[string]any{"k": "v", "n": 1.0}
		grew := artifactOf("a1", "on")
		grew.Metadata = map[string]any{"n": 2.0, "j": []any{"x"}}
		bare := artifactOf("a2", "x")
		now := artifactOf("a1", "kept", "on")
		now.Metadata = map[string]any{"k": "v", "n": 2.0, "j": []any{"x"}}
		resumed := false
		agent := newWireAgent(w, map[callKind]func(ww *wireWriter, c wireCall){
			kindStream: func(ww *wireWriter, c wireCall) {
				ww.sse()
				for _, ev := range []a2a.Event{firstTask, artifactEvent(opened, false), artifactEvent(bare, false), artifactEvent(grew, true)} {
					ww.event(ev)
				}
				<-c.ctx.Done()
			},
			kindGet: func(ww *wireWriter, _ wireCall) {
				if !resumed {
					ww.rpcError(a2a.CodeTaskNotFound, "no such task")
					return
				}
				ww.task(taskWith(a2a.StateWorking, nil, now, bare))
			},
			kindSubscribe: func(ww *wireWriter, _ wireCall) {
				ww.sse()
				ww.event(statusEvent(w.v, a2a.StateCompleted, nil))
			},
		})
		c := agent.client(t)
		first := c.Send(bounded(t), hello())
		for range 4 {
			require.True(t, first.Next(), "%v", first.Err())
		}
		saved, err := first.Checkpoint().MarshalBinary()
		require.NoError(t, err)
		first.Close()
		require.Equal(t, "a2acp\x04", string(saved[:6]))
		cp, err := stream.ParseCheckpoint(saved)
		require.NoError(t, err)
		again, err := cp.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, saved, again)

		resumed = true
		s := c.Resume(bounded(t), cp)
		var handed []a2a.Event
		for s.Next() {
			handed = append(handed, s.Event())
		}
		require.NoError(t, s.Err())
		require.Len(t, handed, 1, "the end alone: %v", handed)
		require.Equal(t, []a2a.Artifact{now, bare}, s.Task().Artifacts)
	})
}

// A nil *Checkpoint answers its questions with zero values and refuses to
// be written or set with a *CheckpointError, as Resume refuses it: none of
// its methods panics. (A stranger's red-team, finding F7.)
func TestANilCheckpointRefusesInsteadOfPanicking(t *testing.T) {
	var cp *stream.Checkpoint
	require.Equal(t, "", cp.TaskID())
	require.Zero(t, cp.Delivered())
	for name, call := range map[string]func() error{
		"MarshalBinary": func() error { _, err := cp.MarshalBinary(); return err },
		"AppendBinary":  func() error { _, err := cp.AppendBinary(nil); return err },
		"UnmarshalBinary": func() error {
			return cp.UnmarshalBinary([]byte("anything"))
		},
	} {
		t.Run(name, func(t *testing.T) {
			err := call()
			var ce *stream.CheckpointError
			require.ErrorAs(t, err, &ce)
			require.ErrorIs(t, err, stream.ErrCheckpointForeign)
			require.Equal(t, "nil checkpoint", ce.Reason)
		})
	}
}
