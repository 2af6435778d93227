package stream_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
)

// firstLegCheckpoint runs a stream of srv until it yielded n events and
// returns its checkpoint.
func firstLegCheckpoint(t *testing.T, c *stream.Client, n int) *stream.Checkpoint {
	t.Helper()
	s := c.Send(bounded(t), hello())
	defer s.Close()
	for range n {
		require.True(t, s.Next(), "%v", s.Err())
	}
	return s.Checkpoint()
}

// A checkpoint read from bytes is its own: the caller may reuse the
// buffer (as AppendBinary invites), and the checkpoint stays the same.
func TestCheckpointParsedKeepsNothingOfTheCallersBytes(t *testing.T) {
	saved := takenCheckpoint(t)
	buf := append([]byte(nil), saved...)
	cp, err := stream.ParseCheckpoint(buf)
	require.NoError(t, err)
	clear(buf)
	again, err := cp.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, saved, again)
}

// A get-task that answers the checkpoint's task in another context is not
// the checkpoint's task: Resume ends in a *ProtocolError and hands over
// nothing of it.
func TestResumeRefusesTheTaskInAnotherContext(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				resumed := false
				srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
					switch {
					case r.isSend():
						sseHeaders(w)
						sseEvent(w, r.id, v, firstTask)
						sseEvent(w, r.id, v, firstChunk)
						<-r.ctx.Done()
					case r.isGet() && resumed:
						other := taskWith(a2a.StateCompleted, []*a2a.Message{agentMsg("m-x", "another context's")},
							a2a.Artifact{ID: "a1", Parts: textParts("kept", "secret")})
						other.ContextID = "c-other"
						unaryTask(w, r.id, v, other)
					default:
						jsonRPCError(w, r.id, -32601, "no such method")
					}
				})
				c := handlerClient(t, srv, v)
				cp := firstLegCheckpoint(t, c, 2)
				resumed = true
				s := c.Resume(bounded(t), cp)
				var got []a2a.Event
				for s.Next() {
					got = append(got, s.Event())
				}
				requireProtocolError(t, s.Err(), "context")
				require.Empty(t, got, "nothing of the other context's task handed over")
			})
		})
	}
}

// replyCheckpoint returns the binary form of the checkpoint saved before
// the reply to prompt p-1 of task t-1 was sent: its reply marked as
// possibly sent.
func replyCheckpoint(t *testing.T, v a2a.Version) []byte {
	t.Helper()
	var saved []byte
	synctest.Test(t, func(t *testing.T) {
		srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
			switch {
			case r.isSend() && r.msg != nil && r.msg.TaskID == "":
				sseHeaders(w)
				sseEvent(w, r.id, v, firstTask)
				sseEvent(w, r.id, v, statusEvent(v, a2a.StateInputRequired, agentMsg("p-1", "Which city?")))
			default:
				jsonRPCError(w, r.id, -32601, "no such method")
			}
		})
		c := handlerClient(t, srv, v, stream.WithHumanInput(&pollAnswer{text: "Lisbon"}),
			stream.WithCheckpointBeforeReply(func(_ context.Context, cp *stream.Checkpoint) error {
				var err error
				saved, err = cp.MarshalBinary()
				require.NoError(t, err)
				return errors.New("the process dies here")
			}))
		s := c.Send(bounded(t), hello())
		for s.Next() {
		}
		require.Error(t, s.Err())
	})
	require.NotEmpty(t, saved)
	return saved
}

// withReply returns saved with the JSON of its reply changed by edit, and
// its checksum made to match: bytes a checksum cannot tell from a
// checkpoint this library wrote.
func withReply(t *testing.T, saved []byte, edit func(reply []byte) []byte) []byte {
	t.Helper()
	end := len(saved) - 5 // the byte unconfirmed, then the checksum
	for i := end - 2; i > 2; i-- {
		for k := 1; k <= 2; k++ { // the length before it, a uvarint of one or two bytes
			n, read := binary.Uvarint(saved[i-k : i])
			if saved[i] != '{' || read != k || int(n) != end-i || !json.Valid(saved[i:end]) {
				continue
			}
			reply := edit(bytes.Clone(saved[i:end]))
			b := append(binary.AppendUvarint(bytes.Clone(saved[:i-k]), uint64(len(reply))), reply...)
			b = append(b, saved[end])
			return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
		}
	}
	t.Fatalf("no reply in the checkpoint")
	return nil
}

// A checkpoint is untrusted input even when its checksum passes: one whose
// reply is not on the checkpoint's task (another task, or none: a message
// that starts a task) is refused, since Resume may send the reply again.
func TestCheckpointWithAReplyNotOnItsTaskIsRefused(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			saved := replyCheckpoint(t, v)
			_, err := stream.ParseCheckpoint(saved)
			require.NoError(t, err, "the checkpoint as written")
			for name, edit := range map[string]func([]byte) []byte{
				"another task": func(r []byte) []byte { return bytes.Replace(r, []byte(`"taskId":"t-1"`), []byte(`"taskId":"t-9"`), 1) },
				"no task":      func(r []byte) []byte { return bytes.Replace(r, []byte(`"taskId":"t-1",`), nil, 1) },
			} {
				t.Run(name, func(t *testing.T) {
					crafted := withReply(t, saved, edit)
					require.NotEqual(t, saved, crafted, "the edit changed the reply")
					cp, err := stream.ParseCheckpoint(crafted)
					require.Nil(t, cp)
					var ce *stream.CheckpointError
					require.ErrorAs(t, err, &ce)
					require.ErrorIs(t, err, stream.ErrCheckpointCorrupt)
				})
			}
		})
	}
}
