package stream_test

import (
	"os"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
)

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

// A format 1 checkpoint still reads, and is written again in format 2,
// which reads back to a checkpoint that writes the same bytes.
func TestCheckpointOfFormat1StillReads(t *testing.T) {
	cp, err := stream.ParseCheckpoint(format1(t))
	require.NoError(t, err)
	require.Equal(t, "t-1", cp.TaskID())
	require.Equal(t, uint64(3), cp.Delivered())
	again, err := cp.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, "a2acp\x02", string(again[:6]), "written in format 2")
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
		require.Equal(t, "a2acp\x02", string(saved[:6]))
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
