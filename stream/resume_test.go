package stream_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

// An artifact the agent replaced after the checkpoint (other parts than
// the application holds) is handed over whole, as a replacement: the
// application ends up with the agent's artifact, on every wire.
func TestResumeHandsOverWhatChangedSinceWhole(t *testing.T) {
	t.Parallel()
	script := []a2atest.Step{
		a2atest.Chunk("a1", "one ", false, false), a2atest.Pause(time.Second),
		a2atest.Chunk("a1", "two ", true, false), a2atest.Pause(time.Second),
		a2atest.Chunk("a1", "new", false, false), a2atest.Pause(time.Second),
		a2atest.Finish(a2a.StateCompleted, "done"),
	}
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithScript(script...), a2atest.WithVersions(w.v), a2atest.WithBindings(w.b))
				s := clientOn(t, agent, w.v, w.b).Send(bounded(t), hello())
				var before []a2a.Event
				var saved []byte
				for s.Next() {
					ev := s.Event()
					if u, ok := ev.(*a2a.ArtifactUpdate); ok && u.Artifact.Parts[0].Text == "new" {
						break // the replacement: lost with the process
					}
					before = append(before, ev)
					if u, ok := ev.(*a2a.ArtifactUpdate); ok && u.Artifact.Parts[0].Text == "two " {
						var err error
						saved, err = s.Checkpoint().MarshalBinary()
						require.NoError(t, err)
					}
				}
				s.Close()
				cp, err := stream.ParseCheckpoint(saved)
				require.NoError(t, err)
				before = before[:cp.Delivered()]
				after, err := wirematrix.DrainResumed(t, clientOn(t, agent, w.v, w.b).Resume(bounded(t), cp), before)
				require.NoError(t, err)
				var app a2a.Task
				for _, ev := range append(before, after...) {
					app.Apply(ev)
				}
				require.Equal(t, agent.Task(cp.TaskID()).Artifacts[0].Parts, app.Artifact("a1").Parts)
				var replaced *a2a.ArtifactUpdate
				for _, ev := range after {
					if u, ok := ev.(*a2a.ArtifactUpdate); ok {
						require.Nil(t, replaced, "one update of a1 after the resume")
						replaced = u
					}
				}
				require.NotNil(t, replaced)
				require.False(t, replaced.Append, "the new version replaces the one held")
				require.Equal(t, "new", replaced.Artifact.Text())
			})
		})
	}
}

// A message the agent revised after the checkpoint comes as a message of
// the same ID in its new version, which the application shows in place of
// the old; a message the task does not list is not handed over again when
// a server replays it, nor is the old version.
func TestResumeHandsOverARevisedMessageInItsNewVersion(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				working := a2a.TaskStatus{State: a2a.StateWorking}
				srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
					switch {
					case r.isSend():
						sseHeaders(w)
						sseEvent(w, r.id, v, &a2a.Task{ID: "t-1", ContextID: "c-1", Status: working})
						sseEvent(w, r.id, v, agentMsg("m-1", "Lisbon is"))
						sseEvent(w, r.id, v, agentMsg("m-unlisted", "a note"))
						<-r.ctx.Done()
					case r.isGet():
						unaryTask(w, r.id, v, taskWith(a2a.StateWorking, []*a2a.Message{agentMsg("m-1", "Lisbon is lovely")}))
					case r.isSubscribe():
						// A server that replays from the start: the old
						// version, the unlisted message, then the end.
						sseHeaders(w)
						sseEvent(w, r.id, v, &a2a.Task{ID: "t-1", ContextID: "c-1", Status: working})
						sseEvent(w, r.id, v, agentMsg("m-1", "Lisbon is"))
						sseEvent(w, r.id, v, agentMsg("m-unlisted", "a note"))
						sseEvent(w, r.id, v, agentMsg("m-1", "Lisbon is lovely"))
						sseEvent(w, r.id, v, statusEvent(v, a2a.StateCompleted, nil))
					default:
						jsonRPCError(w, r.id, -32601, "no such method")
					}
				})
				c := newClient(t, srv, v)
				s := c.Send(bounded(t), hello())
				var before []a2a.Event
				for range 3 { // working, m-1, m-unlisted
					require.True(t, s.Next(), "%v", s.Err())
					before = append(before, s.Event())
				}
				require.IsType(t, &a2a.Message{}, before[2])
				cp := s.Checkpoint()
				s.Close()
				after, err := wirematrix.DrainResumed(t, c.Resume(bounded(t), cp), before)
				require.NoError(t, err)
				var msgs []*a2a.Message
				for _, ev := range after {
					if m, ok := ev.(*a2a.Message); ok {
						msgs = append(msgs, m)
					}
				}
				require.Len(t, msgs, 1, "only the new version of m-1")
				require.Equal(t, "m-1", msgs[0].ID)
				require.Equal(t, "Lisbon is lovely", msgs[0].Text())
				require.Equal(t, 1, srv.count(scriptedReq.isSubscribe), "the resumed stream followed the task")
			})
		})
	}
}

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
// nothing of it, on every wire.
func TestResumeRefusesTheTaskInAnotherContext(t *testing.T) {
	other := func() *a2a.Task {
		o := taskWith(a2a.StateCompleted, []*a2a.Message{agentMsg("m-x", "another context's")},
			a2a.Artifact{ID: "a1", Parts: textParts("kept", "secret")})
		o.ContextID = "c-other"
		return o
	}
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				resumed := false
				var c *stream.Client
				if w.b == a2a.BindingHTTPJSON {
					srv := &restServer{v: w.v}
					srv.stream = func(rw http.ResponseWriter, r *http.Request, _ []byte, _ int) {
						sseHeaders(rw)
						srv.event(rw, firstTask)
						srv.event(rw, firstChunk)
						<-r.Context().Done()
					}
					srv.get = func(rw http.ResponseWriter, _ *http.Request, _ int) {
						if !resumed {
							srv.restError(rw, a2a.CodeTaskNotFound, "no such task")
							return
						}
						srv.task(rw, other())
					}
					c = restClient(t, srv, w.v)
				} else {
					srv := newScriptedServer(func(rw http.ResponseWriter, r scriptedReq) {
						switch {
						case r.isSend():
							sseHeaders(rw)
							sseEvent(rw, r.id, w.v, firstTask)
							sseEvent(rw, r.id, w.v, firstChunk)
							<-r.ctx.Done()
						case r.isGet() && resumed:
							unaryTask(rw, r.id, w.v, other())
						default:
							jsonRPCError(rw, r.id, -32601, "no such method")
						}
					})
					c = newClient(t, srv, w.v)
				}
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
		c := newClient(t, srv, v, stream.WithHumanInput(&pollAnswer{text: "Lisbon"}),
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
	end := len(saved) - 6 // the byte unconfirmed, no push registration (an empty string), then the checksum
	for i := end - 2; i > 2; i-- {
		for k := 1; k <= 2; k++ { // the length before it, a uvarint of one or two bytes
			n, read := binary.Uvarint(saved[i-k : i])
			if saved[i] != '{' || read != k || int(n) != end-i || !json.Valid(saved[i:end]) {
				continue
			}
			reply := edit(bytes.Clone(saved[i:end]))
			b := append(binary.AppendUvarint(bytes.Clone(saved[:i-k]), uint64(len(reply))), reply...)
			b = append(b, saved[end:len(saved)-4]...)
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

// resumeAgainst takes a checkpoint after the first leg's task and chunk
// ("kept" in a1), then resumes it against a server whose get-task answers
// get, and whose subscription ends the task. It returns what the resumed
// stream handed over.
func resumeAgainst(t *testing.T, v a2a.Version, get *a2a.Task, first ...a2a.Event) ([]a2a.Event, *stream.Stream) {
	t.Helper()
	resumed := false
	srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
		switch {
		case r.isSend():
			sseHeaders(w)
			sseEvent(w, r.id, v, firstTask)
			sseEvent(w, r.id, v, firstChunk)
			for _, ev := range first {
				sseEvent(w, r.id, v, ev)
			}
			<-r.ctx.Done()
		case r.isGet() && resumed:
			unaryTask(w, r.id, v, get)
		case r.isSubscribe() && resumed:
			sseHeaders(w)
			sseEvent(w, r.id, v, get)
			sseEvent(w, r.id, v, statusEvent(v, a2a.StateCompleted, nil))
		default:
			jsonRPCError(w, r.id, -32601, "no such method")
		}
	})
	c := newClient(t, srv, v)
	cp := firstLegCheckpoint(t, c, 2+len(first))
	resumed = true
	s := c.Resume(bounded(t), cp)
	var got []a2a.Event
	for s.Next() {
		got = append(got, s.Event())
	}
	return got, s
}

// A task that lists an artifact twice (a server's bug) is handed over as
// a stream that never stopped hands it over: the parts after those the
// checkpoint holds, once.
func TestResumeHandsOverAnArtifactListedTwiceOnce(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a1 := a2a.Artifact{ID: "a1", Parts: textParts("kept", "more")}
				get := taskWith(a2a.StateWorking, nil, a1, a1)
				got, s := resumeAgainst(t, v, get)
				require.NoError(t, s.Err())
				var app a2a.Task
				app.Apply(firstTask)
				app.Apply(firstChunk)
				for _, ev := range got {
					app.Apply(ev)
				}
				require.Equal(t, textParts("kept", "more"), app.Artifact("a1").Parts)
				require.Equal(t, app.Artifact("a1").Parts, s.Task().Artifacts[0].Parts)
			})
		})
	}
}

// A message without an ID that the task lists three times, which the
// application held once: the other two are handed over, once each.
func TestResumeHandsOverARepeatedMessageWithoutAnIDOnce(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				noID := agentMsg("", "tick")
				get := taskWith(a2a.StateWorking, []*a2a.Message{noID, noID, noID}, a2a.Artifact{ID: "a1", Parts: textParts("kept")})
				got, s := resumeAgainst(t, v, get, noID)
				require.NoError(t, s.Err())
				n := 0
				for _, ev := range got {
					if m, ok := ev.(*a2a.Message); ok && m.Text() == "tick" {
						n++
					}
				}
				require.Equal(t, 2, n, "the application held one of them")
			})
		})
	}
}

// A checkpoint kept while its stream goes on does not change, and may be
// written from another goroutine meanwhile (run with -race): each one,
// written again after the stream ended, is the same bytes, and a stream
// resumed from one of them leaves it as it was.
func TestCheckpointKeptWhileTheStreamGoesOnStaysTheSame(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(wirematrix.ResumeScript()...))
		c := newClient(t, agent, a2a.V10)
		s := c.Send(bounded(t), hello())
		kept := make(chan *stream.Checkpoint)
		written := make(chan [][]byte)
		go func() {
			var out [][]byte
			for cp := range kept {
				b, err := cp.MarshalBinary()
				if err != nil {
					b = []byte(err.Error())
				}
				out = append(out, b)
			}
			written <- out
		}()
		var cps []*stream.Checkpoint
		for s.Next() {
			cp := s.Checkpoint()
			cps = append(cps, cp)
			kept <- cp
		}
		require.NoError(t, s.Err())
		close(kept)
		first := <-written
		require.Len(t, first, len(cps))
		r := c.Resume(bounded(t), cps[2])
		for r.Next() {
		}
		require.NoError(t, r.Err())
		for i, cp := range cps {
			again, err := cp.MarshalBinary()
			require.NoError(t, err)
			require.Equal(t, first[i], again, "checkpoint %d", i)
		}
	})
}

// A server that lists the status message in the history too (a2a-js
// does), with the status the checkpoint shows: nothing is handed over
// again, and the task that ended meanwhile ends the stream.
func TestResumeWithTheStatusMessageInTheHistoryHandsNothingTwice(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				step := agentMsg("s-1", "step one")
				get := taskWith(a2a.StateWorking, []*a2a.Message{step}, a2a.Artifact{ID: "a1", Parts: textParts("kept")})
				get.Status.Message = step
				got, s := resumeAgainst(t, v, get, statusEvent(v, a2a.StateWorking, step))
				require.NoError(t, s.Err())
				for _, ev := range got {
					if m, ok := ev.(*a2a.Message); ok {
						t.Fatalf("message %s (%q) handed over again", m.ID, m.Text())
					}
					if u, ok := ev.(*a2a.StatusUpdate); ok {
						require.Equal(t, a2a.StateCompleted, u.Status.State, "only the end is news")
					}
					if u, ok := ev.(*a2a.ArtifactUpdate); ok {
						t.Fatalf("artifact %s handed over again", u.Artifact.ID)
					}
				}
				require.NotEmpty(t, got)
			})
		})
	}
}

// A task that failed while the process was away ends the resumed stream
// in its terminal error, with the failure's message handed over once.
func TestResumeOfATaskThatFailedMeanwhileEndsInItsFailure(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				why := agentMsg("f-1", "the model fell over")
				get := taskWith(a2a.StateFailed, []*a2a.Message{why}, a2a.Artifact{ID: "a1", Parts: textParts("kept", "half")})
				get.Status.Message = why
				got, s := resumeAgainst(t, v, get)
				var te *terminal.FailedError
				require.ErrorAs(t, s.Err(), &te)
				n := 0
				var app a2a.Task
				app.Apply(firstTask)
				app.Apply(firstChunk)
				for _, ev := range got {
					app.Apply(ev)
					if u, ok := ev.(*a2a.StatusUpdate); ok && u.Status.Message != nil && u.Status.Message.ID == "f-1" {
						n++
					}
					if m, ok := ev.(*a2a.Message); ok && m.ID == "f-1" {
						n++
					}
				}
				require.Equal(t, 1, n, "the failure's message, once")
				require.Equal(t, a2a.StateFailed, app.Status.State)
				require.Equal(t, textParts("kept", "half"), app.Artifact("a1").Parts)
			})
		})
	}
}

// A resumed stream that hands nothing over (before its first Next, or when
// its get-task fails) has the checkpoint it resumed from: saving its
// Checkpoint then loses nothing, not the context nor that the task is
// followed by polling.
func TestResumedStreamThatHandedNothingOverKeepsItsCheckpoint(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithScript(wirematrix.ResumeScript()...), a2atest.WithVersions(v), a2atest.WithoutStreaming())
				s := clientOn(t, agent, v, a2a.BindingJSONRPC, stream.WithPollInterval(250*time.Millisecond)).Send(bounded(t), hello())
				for range 3 {
					require.True(t, s.Next(), "%v", s.Err())
				}
				saved, err := s.Checkpoint().MarshalBinary()
				require.NoError(t, err)
				s.Close()
				cp, err := stream.ParseCheckpoint(saved)
				require.NoError(t, err)

				gone := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
					jsonRPCError(w, r.id, -32001, "task not found")
				})
				r := newClient(t, gone, v).Resume(bounded(t), cp)
				before, err := r.Checkpoint().MarshalBinary()
				require.NoError(t, err)
				require.Equal(t, saved, before, "before the first Next")
				require.False(t, r.Next())
				require.Error(t, r.Err())
				after, err := r.Checkpoint().MarshalBinary()
				require.NoError(t, err)
				require.Equal(t, saved, after, "after a get-task that failed")
			})
		})
	}
}

// A get-task from a replica that lags (it still shows the prompt the
// human answered, with a timestamp older than the status the checkpoint
// shows) neither asks the human again nor shows the prompt again.
func TestResumeFromALaggingReplicaNeverAsksAgain(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				t1 := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
				t3 := t1.Add(time.Minute)
				prompt := a2a.TaskStatus{State: a2a.StateInputRequired, Message: agentMsg("p-1", "Which city?"), Timestamp: t1}
				moved := a2a.TaskStatus{State: a2a.StateWorking, Message: agentMsg("s-2", "on it"), Timestamp: t3}
				resumed := false
				srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
					switch {
					case r.isSend() && r.msg != nil && r.msg.TaskID == "":
						sseHeaders(w)
						sseEvent(w, r.id, v, firstTask)
						sseEvent(w, r.id, v, &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: prompt, Final: v == a2a.V03})
					case r.isSend():
						sseHeaders(w)
						sseEvent(w, r.id, v, &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: moved})
						<-r.ctx.Done()
					case r.isGet() && resumed:
						lagging := taskWith(a2a.StateInputRequired, nil)
						lagging.Status = prompt
						unaryTask(w, r.id, v, lagging)
					case r.isSubscribe() && resumed:
						now := taskWith(a2a.StateWorking, nil)
						now.Status = moved
						sseHeaders(w)
						sseEvent(w, r.id, v, now)
						sseEvent(w, r.id, v, statusEvent(v, a2a.StateCompleted, nil))
					default:
						jsonRPCError(w, r.id, -32601, "no such method")
					}
				})
				c := newClient(t, srv, v, stream.WithHumanInput(&pollAnswer{text: "Lisbon"}))
				cp := firstLegCheckpoint(t, c, 3) // working, the prompt, working again
				resumed = true
				s := c.Resume(bounded(t), cp, stream.WithHumanInput(neverAsked(t)))
				var got []a2a.Event
				for s.Next() {
					got = append(got, s.Event())
				}
				require.NoError(t, s.Err())
				for _, ev := range got {
					switch e := ev.(type) {
					case *a2a.StatusUpdate:
						require.NotEqual(t, a2a.StateInputRequired, e.Status.State, "the prompt answered shown again")
						require.Nil(t, e.Status.Message, "no status message is news")
					case *a2a.Message:
						t.Fatalf("message %s handed over again", e.ID)
					}
				}
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
				require.Equal(t, 1, srv.count(func(r scriptedReq) bool { return r.isSend() && r.msg != nil && r.msg.TaskID == "t-1" }), "one reply")
			})
		})
	}
}

// A checkpoint that marks a reply as possibly sent but holds no reply
// (no library writes one: bytes made to pass the checksum) is refused as
// corrupt: Resume would have a reply to send again and none to send.
func TestCheckpointWithAPossiblySentReplyItDoesNotHoldIsRefused(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			crafted := withReply(t, replyCheckpoint(t, v), func([]byte) []byte { return nil })
			cp, err := stream.ParseCheckpoint(crafted)
			require.Nil(t, cp)
			var ce *stream.CheckpointError
			require.ErrorAs(t, err, &ce)
			require.ErrorIs(t, err, stream.ErrCheckpointCorrupt)
		})
	}
}

// A get-task that lacks an artifact the checkpoint holds (a store that
// lags; artifacts are never removed) does not make the application's parts
// news: when the artifact comes back with more parts, only the parts after
// those held are handed over, as appends, and Task holds the artifact as the
// application does. The rows: the artifact comes back in a task that lists
// it grown; or the server replays it from its first chunk, and the replayed
// chunk the application holds is not handed over again.
func TestResumeWhenTheTaskFetchedLacksAnArtifactHeldHandsOverOnlyItsTail(t *testing.T) {
	more := &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Append: true, Artifact: a2a.Artifact{ID: "a1", Parts: textParts("more")}}
	rows := []struct {
		name string
		subs []a2a.Event // what the resumed subscribe sends before the task completes
	}{
		{"in a task", []a2a.Event{taskWith(a2a.StateWorking, nil, a2a.Artifact{ID: "a1", Parts: textParts("kept", "more")})}},
		{"replayed from its first chunk", []a2a.Event{firstChunk, more}},
	}
	for _, row := range rows {
		for _, v := range versions {
			t.Run(row.name+"/"+string(v), func(t *testing.T) {
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
							unaryTask(w, r.id, v, taskWith(a2a.StateWorking, nil))
						case r.isSubscribe() && resumed:
							sseHeaders(w)
							for _, ev := range row.subs {
								sseEvent(w, r.id, v, ev)
							}
							sseEvent(w, r.id, v, statusEvent(v, a2a.StateCompleted, nil))
						default:
							jsonRPCError(w, r.id, -32601, "no such method")
						}
					})
					c := newClient(t, srv, v)
					cp := firstLegCheckpoint(t, c, 2)
					resumed = true
					s := c.Resume(bounded(t), cp)
					after, err := wirematrix.DrainResumed(t, s, []a2a.Event{firstTask, firstChunk})
					require.NoError(t, err)
					var updates []*a2a.ArtifactUpdate
					for _, ev := range after {
						if u, ok := ev.(*a2a.ArtifactUpdate); ok {
							require.True(t, u.Append, "a1 is appended to, not replaced")
							updates = append(updates, u)
						}
					}
					require.Len(t, updates, 1, "only the chunk after those held")
					require.Equal(t, textParts("more"), updates[0].Artifact.Parts)
					require.Equal(t, textParts("kept", "more"), s.Task().Artifact("a1").Parts, "Task holds the artifact as the application does")
				})
			})
		}
	}
}

// lagging is a resume against a store that lags: the first stream yields
// first (all of it) and is checkpointed; the resumed stream's get-tasks
// answer gets in turn (the last one again and again), and its
// subscriptions send subs in turn. With polled, the agent cannot stream:
// its unary send answers first[0], and the task is followed by polling.
type lagging struct {
	first []a2a.Event
	gets  []*a2a.Task
	subs  [][]a2a.Event
	poll  bool
}

// resumeLagging runs l on wire w and returns the application's task (the
// fold of every event yielded before and after the restart) and the
// resumed stream, drained. After each event yielded it checks that Task
// holds the application's artifacts, in its order, but for those it
// leaves out until a task lists them (see GUARANTEES.md); at the end, that
// it holds them all.
func resumeLagging(t *testing.T, w wire, l lagging) (*a2a.Task, *stream.Stream) {
	t.Helper()
	resumed := false
	refuse := func(ww *wireWriter) { ww.rpcError(a2a.CodeUnsupportedOperation, "Streaming is not supported.") }
	agent := newWireAgent(w, map[callKind]func(ww *wireWriter, c wireCall){
		kindStream: func(ww *wireWriter, c wireCall) {
			if l.poll {
				refuse(ww)
				return
			}
			ww.sse()
			for _, ev := range l.first {
				ww.event(ev)
			}
			<-c.ctx.Done()
		},
		kindSend: func(ww *wireWriter, _ wireCall) { ww.result(l.first[0]) },
		kindGet: func(ww *wireWriter, c wireCall) {
			if !resumed {
				ww.rpcError(a2a.CodeTaskNotFound, "no such task")
				return
			}
			ww.task(l.gets[min(c.n, len(l.gets)-1)])
		},
		kindSubscribe: func(ww *wireWriter, c wireCall) {
			if l.poll {
				refuse(ww)
				return
			}
			ww.sse()
			for _, ev := range l.subs[min(c.n, len(l.subs)-1)] {
				ww.event(ev)
			}
		},
	})
	c := agent.client(t, stream.WithPollInterval(time.Second))
	first := c.Send(bounded(t), hello())
	var app a2a.Task
	n := len(l.first)
	if l.poll {
		n = 1 + len(l.first[0].(*a2a.Task).Artifacts) // the task's artifacts, then its status
	}
	for range n {
		require.True(t, first.Next(), "the first stream: %v", first.Err())
		app.Apply(first.Event())
	}
	saved, err := first.Checkpoint().MarshalBinary()
	require.NoError(t, err)
	first.Close()
	cp, err := stream.ParseCheckpoint(saved)
	require.NoError(t, err)
	resumed = true
	s := c.Resume(bounded(t), cp)
	for s.Next() {
		app.Apply(s.Event())
		var shown []a2a.Artifact
		for _, a := range app.Artifacts {
			if s.Task().Artifact(a.ID) != nil {
				shown = append(shown, a)
			}
		}
		require.Equal(t, shown, s.Task().Artifacts, "after %s: Task holds the application's artifacts, in its order", describe(s.Event()))
	}
	require.Equal(t, app.Artifacts, s.Task().Artifacts, "at the end: Task holds the application's artifacts")
	return &app, s
}

// describe names an event for a failure message.
func describe(ev a2a.Event) string {
	switch e := ev.(type) {
	case *a2a.ArtifactUpdate:
		return fmt.Sprintf("the update of %s (append %v) with %q", e.Artifact.ID, e.Append, e.Artifact.Text())
	case *a2a.StatusUpdate:
		return "the status " + string(e.Status.State)
	}
	return fmt.Sprintf("a %T", ev)
}

// An artifact that the task fetched on resume lacked takes, once a later
// task lists it, the place it has in the application's task: Task holds
// the artifacts in the order the application folded them, on every wire.
func TestResumeWhenTheTaskFetchedLacksAnArtifactHeldKeepsItsPlace(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				app, s := resumeLagging(t, w, lagging{
					first: []a2a.Event{firstTask, artifactEvent(artifactOf("a1", "kept"), false), artifactEvent(artifactOf("a2", "x"), false)},
					gets:  []*a2a.Task{taskWith(a2a.StateWorking, nil, artifactOf("a2", "x"))},
					subs: [][]a2a.Event{{
						taskWith(a2a.StateWorking, nil, artifactOf("a1", "kept", "more"), artifactOf("a2", "x")),
						statusEvent(w.v, a2a.StateCompleted, nil),
					}},
				})
				require.NoError(t, s.Err())
				require.Equal(t, []a2a.Artifact{artifactOf("a1", "kept", "more"), artifactOf("a2", "x")}, app.Artifacts)
				require.Equal(t, app.Artifacts, s.Task().Artifacts)
			})
		})
	}
}

// An artifact the agent changed while the application was gone is handed
// over so that the application's artifacts end as the agent's, whether the
// task fetched on resume lists the change or a later task does after a store
// that lagged, on every wire. The rows:
//   - its name taken away (a replacement without one): handed over whole, as
//     a replacement, since an append cannot take a name away;
//   - its metadata changed, with no new part: the new values are handed over;
//   - a metadata key taken away (a replacement without it): handed over
//     whole, as a replacement, since an append cannot take a key away;
//   - replaced: handed over whole, in its place: Task holds the application's
//     artifacts in its order, as a stream that never stopped does.
func TestResumeHandsOverAnArtifactChangedMeanwhile(t *testing.T) {
	named := artifactOf("a1", "kept")
	named.Name = "draft"
	before := artifactOf("a1", "kept")
	before.Metadata = map[string]any{"k": "before"}
	after := artifactOf("a1", "kept")
	after.Metadata = map[string]any{"k": "after"}
	keyed := artifactOf("a1", "kept")
	keyed.Metadata = map[string]any{"k": "v", "draft": true}
	unkeyed := artifactOf("a1", "kept", "more")
	unkeyed.Metadata = map[string]any{"k": "v"}
	rows := []struct {
		name string
		held []a2a.Event    // what the application was handed, after the task
		now  []a2a.Artifact // the agent's artifacts when the application is back
		lags []a2a.Artifact // the artifacts the task fetched on resume lists after a store that lagged
	}{
		{"name taken away", []a2a.Event{artifactEvent(named, false)}, []a2a.Artifact{artifactOf("a1", "kept", "more")}, nil},
		{"metadata changed", []a2a.Event{artifactEvent(before, false)}, []a2a.Artifact{after}, nil},
		{"metadata key taken away", []a2a.Event{artifactEvent(keyed, false)}, []a2a.Artifact{unkeyed}, nil},
		{"replaced", []a2a.Event{firstChunk, artifactEvent(artifactOf("a2", "x"), false)},
			[]a2a.Artifact{artifactOf("a1", "new"), artifactOf("a2", "x")}, []a2a.Artifact{artifactOf("a2", "x")}},
	}
	for _, r := range rows {
		for _, lagged := range []bool{false, true} {
			for _, w := range wires() {
				t.Run(fmt.Sprintf("%s/%s/lagged=%v", r.name, w, lagged), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) {
						l := lagging{
							first: append([]a2a.Event{firstTask}, r.held...),
							gets:  []*a2a.Task{taskWith(a2a.StateWorking, nil, r.now...)},
							subs:  [][]a2a.Event{{statusEvent(w.v, a2a.StateCompleted, nil)}},
						}
						if lagged {
							l.gets = []*a2a.Task{taskWith(a2a.StateWorking, nil, r.lags...)}
							l.subs = [][]a2a.Event{{taskWith(a2a.StateWorking, nil, r.now...), statusEvent(w.v, a2a.StateCompleted, nil)}}
						}
						app, s := resumeLagging(t, w, l)
						require.NoError(t, s.Err())
						require.Equal(t, r.now, app.Artifacts, "the application holds the agent's artifacts")
					})
				})
			}
		}
	}
}

// An artifact that the task fetched on resume lacked (a store that lags) is
// held once a later task lists it with the parts the application holds,
// whichever call brings that task: the first event of a subscription, a
// poll, or the get-task after a subscription that ended early. Two
// artifacts may lag, one of them replaced meanwhile: the other gets only
// its tail, the replaced one comes whole. On every wire, the application
// ends with the agent's artifacts, each part handed over once.
func TestResumeWhenTheTaskFetchedLacksAnArtifactHeldOnEveryWire(t *testing.T) {
	lacking := taskWith(a2a.StateWorking, nil)
	grown := artifactOf("a1", "kept", "more")
	cases := []struct {
		name  string
		play  func(v a2a.Version) lagging
		want  []a2a.Artifact
		parts int // handed over by the resumed stream
	}{
		{"listed by the subscription's task", func(v a2a.Version) lagging {
			return lagging{
				first: []a2a.Event{firstTask, firstChunk},
				gets:  []*a2a.Task{lacking},
				subs:  [][]a2a.Event{{taskWith(a2a.StateWorking, nil, grown), statusEvent(v, a2a.StateCompleted, nil)}},
			}
		}, []a2a.Artifact{grown}, 1},
		{"listed by a poll", func(a2a.Version) lagging {
			return lagging{
				poll:  true,
				first: []a2a.Event{taskWith(a2a.StateWorking, nil, artifactOf("a1", "kept"))},
				gets:  []*a2a.Task{lacking, taskWith(a2a.StateWorking, nil, grown), taskWith(a2a.StateCompleted, nil, grown)},
			}
		}, []a2a.Artifact{grown}, 1},
		{"listed by the get-task after a subscription ended", func(v a2a.Version) lagging {
			return lagging{
				first: []a2a.Event{firstTask, firstChunk},
				gets:  []*a2a.Task{lacking, taskWith(a2a.StateWorking, nil, grown)},
				subs:  [][]a2a.Event{{}, {statusEvent(v, a2a.StateCompleted, nil)}},
			}
		}, []a2a.Artifact{grown}, 1},
		{"two lagging, one replaced meanwhile", func(v a2a.Version) lagging {
			return lagging{
				first: []a2a.Event{firstTask, firstChunk, artifactEvent(artifactOf("a2", "x"), false)},
				gets:  []*a2a.Task{lacking},
				subs: [][]a2a.Event{{taskWith(a2a.StateWorking, nil, grown, artifactOf("a2", "y")),
					statusEvent(v, a2a.StateCompleted, nil)}},
			}
		}, []a2a.Artifact{grown, artifactOf("a2", "y")}, 2},
	}
	for _, tc := range cases {
		for _, w := range wires() {
			t.Run(tc.name+"/"+w.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					app, s := resumeLagging(t, w, tc.play(w.v))
					require.NoError(t, s.Err())
					require.Equal(t, tc.want, app.Artifacts)
					require.Equal(t, a2a.StateCompleted, app.Status.State)
				})
			})
		}
	}
}

// A checkpoint taken while an artifact is still missing from every task
// fetched since the resume (a store that lags) still holds what the
// application holds of it: resumed again, against a store that caught up,
// the stream hands over only the parts after those, on every wire.
func TestResumeAgainWhileAnArtifactIsStillUnfetchedHandsOverOnlyItsTail(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				restarts := 0
				say := agentMsg("m-1", "still here")
				grown := artifactOf("a1", "kept", "more")
				agent := newWireAgent(w, map[callKind]func(ww *wireWriter, c wireCall){
					kindStream: func(ww *wireWriter, c wireCall) {
						ww.sse()
						ww.event(firstTask)
						ww.event(firstChunk)
						<-c.ctx.Done()
					},
					kindGet: func(ww *wireWriter, _ wireCall) {
						if restarts < 2 {
							ww.task(taskWith(a2a.StateWorking, nil))
							return
						}
						ww.task(taskWith(a2a.StateWorking, []*a2a.Message{say}, grown))
					},
					kindSubscribe: func(ww *wireWriter, c wireCall) {
						ww.sse()
						if restarts < 2 {
							ww.event(statusEvent(w.v, a2a.StateWorking, say))
							<-c.ctx.Done()
							return
						}
						ww.event(statusEvent(w.v, a2a.StateCompleted, nil))
					},
				})
				c := agent.client(t)
				var app a2a.Task
				first := c.Send(bounded(t), hello())
				for range 2 {
					require.True(t, first.Next(), "%v", first.Err())
					app.Apply(first.Event())
				}
				cp := first.Checkpoint()
				first.Close()

				restarts = 1
				again := c.Resume(bounded(t), cp)
				require.True(t, again.Next(), "%v", again.Err())
				require.IsType(t, &a2a.StatusUpdate{}, again.Event(), "the status comes first; a1 is not listed yet")
				app.Apply(again.Event())
				saved, err := again.Checkpoint().MarshalBinary()
				require.NoError(t, err)
				again.Close()
				cp, err = stream.ParseCheckpoint(saved)
				require.NoError(t, err)

				restarts = 2
				last := c.Resume(bounded(t), cp)
				var handed []a2a.Event
				for last.Next() {
					handed = append(handed, last.Event())
					app.Apply(last.Event())
				}
				require.NoError(t, last.Err())
				require.Len(t, handed, 2, "the tail of a1 and the end: %v", handed)
				u, ok := handed[0].(*a2a.ArtifactUpdate)
				require.True(t, ok, "%T", handed[0])
				require.True(t, u.Append)
				require.Equal(t, textParts("more"), u.Artifact.Parts)
				require.Equal(t, []a2a.Artifact{grown}, app.Artifacts)
				require.Equal(t, app.Artifacts, last.Task().Artifacts)
			})
		})
	}
}

// An artifact the agent renamed while the application was gone, which the
// task fetched on resume lists with the parts the application holds, gets
// the parts after them with its new name, in its place: Task holds the
// application's artifacts in its order, on every wire. A task that lists
// it only after a store that lagged hands it over whole (it may lag in its
// labels too).
func TestResumeHandsOverTheNewNameOfAnArtifactRenamedMeanwhile(t *testing.T) {
	named := artifactOf("a1", "kept")
	named.Name = "draft"
	renamed := artifactOf("a1", "kept", "more")
	renamed.Name = "final"
	other := artifactOf("a2", "x")
	for _, lagged := range []bool{false, true} {
		for _, w := range wires() {
			t.Run(fmt.Sprintf("%s/lagged=%v", w, lagged), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					l := lagging{
						first: []a2a.Event{firstTask, artifactEvent(named, false), artifactEvent(other, false)},
						gets:  []*a2a.Task{taskWith(a2a.StateWorking, nil, renamed, other)},
						subs:  [][]a2a.Event{{statusEvent(w.v, a2a.StateCompleted, nil)}},
					}
					if lagged {
						l.first = l.first[:2]
						l.gets = []*a2a.Task{taskWith(a2a.StateWorking, nil)}
						l.subs = [][]a2a.Event{{taskWith(a2a.StateWorking, nil, renamed), statusEvent(w.v, a2a.StateCompleted, nil)}}
					}
					app, s := resumeLagging(t, w, l)
					require.NoError(t, s.Err())
					require.Equal(t, renamed, *app.Artifact("a1"), "the application holds the agent's artifact")
				})
			})
		}
	}
}

// Metadata the application was handed, by the update that opened an
// artifact and by appends (which fold it key by key), is not handed over
// again on resume: an artifact the agent did not change since is not
// handed over at all, on every wire.
func TestResumeHandsOverNoMetadataTheApplicationHolds(t *testing.T) {
	opened := artifactOf("a1", "kept")
	opened.Metadata = map[string]any{"k": "v", "n": 1.0}
	grew := artifactOf("a1", "on")
	grew.Metadata = map[string]any{"n": 2.0, "j": map[string]any{"deep": []any{"x"}}}
	now := artifactOf("a1", "kept", "on")
	now.Metadata = map[string]any{"k": "v", "n": 2.0, "j": map[string]any{"deep": []any{"x"}}}
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				app, s := resumeLagging(t, w, lagging{
					first: []a2a.Event{firstTask, artifactEvent(opened, false), artifactEvent(grew, true)},
					gets:  []*a2a.Task{taskWith(a2a.StateWorking, nil, now)},
					subs:  [][]a2a.Event{{statusEvent(w.v, a2a.StateCompleted, nil)}},
				})
				require.NoError(t, s.Err())
				require.Equal(t, []a2a.Artifact{now}, app.Artifacts)
				require.Equal(t, uint64(3+1), s.Checkpoint().Delivered(), "the end alone")
			})
		})
	}
}

// An artifact the agent replaced while the application was gone keeps its
// place while the deltas of the task fetched on resume are handed over one
// by one (another artifact grew meanwhile, and the status moved on): after
// each, Task holds the application's artifacts in its order, on every
// wire.
func TestResumeHandsOverAReplacedArtifactInItsPlaceAmongOtherNews(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				app, s := resumeLagging(t, w, lagging{
					first: []a2a.Event{firstTask, firstChunk, artifactEvent(artifactOf("a2", "x"), false), artifactEvent(artifactOf("a3", "z"), false)},
					gets: []*a2a.Task{taskWith(a2a.StateWorking, nil,
						artifactOf("a1", "new"), artifactOf("a2", "x", "y"), artifactOf("a3", "z2"), artifactOf("a4", "w"))},
					subs: [][]a2a.Event{{statusEvent(w.v, a2a.StateCompleted, nil)}},
				})
				require.NoError(t, s.Err())
				require.Equal(t, []a2a.Artifact{artifactOf("a1", "new"), artifactOf("a2", "x", "y"), artifactOf("a3", "z2"), artifactOf("a4", "w")}, app.Artifacts)
			})
		})
	}
}

// neverAsked is a hook that fails the test when it is asked.
func neverAsked(t *testing.T) hitl.Hook {
	return hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
		t.Errorf("the resumed stream asked the human again")
		return hitl.Text("again"), nil
	})
}

// followModes are the two ways a stream follows its task.
var followModes = []struct {
	name string
	opts []a2atest.Option
}{
	{"streamed", nil},
	{"polled", []a2atest.Option{a2atest.WithoutStreaming()}},
}

// A process that dies while its reply is in flight resumes from the
// checkpoint saved before the send: whether the reply reached the agent or
// not, the human is not asked again, and the agent gets the reply at most
// once. The resumed stream cannot tell a reply that never left from one
// that reached the agent: it sends it again only to an agent that
// WithIdempotentSends says takes a message ID twice as once, and otherwise
// ends carrying the task, still waiting, when the reply never left.
func TestResumeAfterAReplyInFlightNeverAsksAgainNorRepliesTwice(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, mode := range followModes {
			for _, reached := range []bool{true, false} {
				for _, idempotent := range []bool{true, false} {
					name := w.String() + "/" + mode.name + "/reply never left"
					if reached {
						name = w.String() + "/" + mode.name + "/reply reached the agent"
					}
					name += fmt.Sprintf("/idempotent=%v", idempotent)
					t.Run(name, func(t *testing.T) {
						synctest.Test(t, func(t *testing.T) {
							agent := a2atest.NewAgent(append([]a2atest.Option{a2atest.WithScript(promptScript()...),
								a2atest.WithVersions(w.v), a2atest.WithBindings(w.b)}, mode.opts...)...)
							ctx, die := context.WithCancel(bounded(t))
							var saved []byte
							asked := 0
							s := clientOn(t, agent, w.v, w.b, stream.WithPollInterval(250*time.Millisecond),
								stream.WithHumanInput(hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
									asked++
									return hitl.Text("Lisbon"), nil
								})),
								stream.WithCheckpointBeforeReply(func(_ context.Context, cp *stream.Checkpoint) error {
									var err error
									saved, err = cp.MarshalBinary()
									if !reached {
										die() // the process dies before the send
									}
									return err
								})).Send(ctx, hello())
							var before []a2a.Event
							for s.Next() {
								before = append(before, s.Event())
								if len(wirematrix.FollowUps(agent)) > 0 {
									break // the process dies after the reply reached the agent
								}
							}
							s.Close()
							die()
							require.Equal(t, 1, asked)
							require.NotNil(t, saved, "the checkpoint was saved before the reply")
							if reached {
								require.Len(t, wirematrix.FollowUps(agent), 1)
							} else {
								require.Empty(t, wirematrix.FollowUps(agent), "the reply never left")
							}

							cp, err := stream.ParseCheckpoint(saved)
							require.NoError(t, err)
							ropts := []stream.Option{stream.WithPollInterval(250 * time.Millisecond), stream.WithHumanInput(neverAsked(t))}
							if idempotent {
								ropts = append(ropts, stream.WithIdempotentSends())
							}
							resumed := clientOn(t, agent, w.v, w.b, ropts...).Resume(bounded(t), cp)
							after, err := wirematrix.DrainResumed(t, resumed, before[:cp.Delivered()])
							replies := wirematrix.FollowUps(agent)
							if !reached && !idempotent {
								require.Empty(t, replies, "a reply that may have reached the agent is never sent again")
								require.Error(t, err)
								require.Equal(t, a2a.StateInputRequired, stream.EndingOf(err).Task.Status.State, "the ending carries the task, still waiting")
								return
							}
							require.NoError(t, err)
							require.Len(t, replies, 1, "the agent got the reply once")
							require.Equal(t, "Lisbon", replies[0].Message.Text())
							wirematrix.RequireHandedOverOnce(t, agent.Task(cp.TaskID()), append(before[:cp.Delivered()], after...))
						})
					})
				}
			}
		}
	}
}

// A process that stops while the prompt is shown, before the human
// answered, resumes and asks the human: the reply goes once, and the task
// goes on.
func TestResumeWhileAPromptIsShownAsksTheHuman(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, mode := range followModes {
			t.Run(w.String()+"/"+mode.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(append([]a2atest.Option{a2atest.WithScript(promptScript()...),
						a2atest.WithVersions(w.v), a2atest.WithBindings(w.b)}, mode.opts...)...)
					s := clientOn(t, agent, w.v, w.b, stream.WithPollInterval(250*time.Millisecond)).Send(bounded(t), hello())
					var before []a2a.Event
					for s.Next() {
						before = append(before, s.Event())
						if u, ok := s.Event().(*a2a.StatusUpdate); ok && u.Status.State == a2a.StateInputRequired {
							break
						}
					}
					saved, err := s.Checkpoint().MarshalBinary()
					require.NoError(t, err)
					s.Close()

					cp, err := stream.ParseCheckpoint(saved)
					require.NoError(t, err)
					asked := 0
					resumed := clientOn(t, agent, w.v, w.b, stream.WithPollInterval(250*time.Millisecond),
						stream.WithHumanInput(hitl.Func(func(_ context.Context, r *hitl.Request) ([]a2a.Part, error) {
							asked++
							require.Equal(t, "Which city?", r.Text())
							return hitl.Text("Porto"), nil
						}))).Resume(bounded(t), cp)
					after, err := wirematrix.DrainResumed(t, resumed, before)
					require.NoError(t, err)
					require.Equal(t, 1, asked)
					replies := wirematrix.FollowUps(agent)
					require.Len(t, replies, 1)
					require.Equal(t, "Porto", replies[0].Message.Text())
					wirematrix.RequireHandedOverOnce(t, agent.Task(cp.TaskID()), append(before, after...))
				})
			})
		}
	}
}

// A reply saved as in flight, resumed against a server that keeps no user
// messages in its history (a2a-go), is never sent again: nothing proves
// that it did not reach the agent. The stream waits for the agent instead.
func TestResumeNeverResendsAReplyInFlightThatTheTaskCannotDisprove(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				prompt := agentMsg("m-ask", "Which city?")
				asking := func() *a2a.Task { // no user message in the history
					t := taskWith(a2a.StateInputRequired, []*a2a.Message{prompt})
					t.Status.Message = prompt
					return t
				}
				srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
					switch {
					case r.isSend() && r.msg.TaskID == "":
						sseHeaders(w)
						sseEvent(w, r.id, v, &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking}})
						sseEvent(w, r.id, v, statusEvent(v, a2a.StateInputRequired, prompt))
					case r.isGet():
						unaryTask(w, r.id, v, asking())
					case r.isSubscribe():
						sseHeaders(w)
						sseEvent(w, r.id, v, asking())
						<-r.ctx.Done()
					default: // the reply, or anything else
						jsonRPCError(w, r.id, -32603, "not expected")
					}
				})
				ctx, die := context.WithCancel(bounded(t))
				var saved []byte
				s := newClient(t, srv, v, stream.WithHumanInput(&pollAnswer{text: "Lisbon"}),
					stream.WithCheckpointBeforeReply(func(_ context.Context, cp *stream.Checkpoint) error {
						var err error
						saved, err = cp.MarshalBinary()
						die() // the process dies: did the reply leave? Nobody knows.
						return err
					})).Send(ctx, hello())
				_, _ = drain(t, s)
				require.NotNil(t, saved)
				cp, err := stream.ParseCheckpoint(saved)
				require.NoError(t, err)

				waitCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				resumed := newClient(t, srv, v, stream.WithHumanInput(neverAsked(t))).Resume(waitCtx, cp)
				_, err = drain(t, resumed)
				require.Error(t, err, "the stream waited for the agent until it gave up")
				require.Zero(t, srv.count(func(r scriptedReq) bool { return r.msg != nil && r.msg.TaskID != "" }), "the reply was never sent again")
			})
		})
	}
}

// resumeRuns is how many seeded restarts TestResumeAtRandomPointsHandsOverEverythingOnce
// runs; CI passes 1,000 (.ci/run), RELIABILITY.md records 10,000.
var resumeRuns = flag.Int("resume.runs", 200, "how many seeded restarts TestResumeAtRandomPointsHandsOverEverythingOnce runs (CI: 1,000)")

// randomScript is a task of a seeded shape: up to three artifacts growing
// chunk by chunk, agent messages, status messages and pauses, then the
// end. The agent never replaces an artifact, so any part handed over twice
// is the client's doing.
func randomScript(r *rand.Rand) []a2atest.Step {
	var steps []a2atest.Step
	opened := map[string]bool{}
	for i := range 4 + r.IntN(20) {
		switch r.IntN(6) {
		case 0:
			steps = append(steps, a2atest.Working(fmt.Sprintf("step %d", i)))
		case 1:
			steps = append(steps, a2atest.Say(fmt.Sprintf("note %d", i)))
		case 2:
			steps = append(steps, a2atest.Pause(time.Duration(1+r.IntN(3))*500*time.Millisecond))
		default:
			id := fmt.Sprintf("a%d", r.IntN(3))
			steps = append(steps, a2atest.Chunk(id, fmt.Sprintf("chunk %d ", i), opened[id], false))
			opened[id] = true
		}
	}
	return append(steps, a2atest.Finish(a2a.StateCompleted, "done"))
}

// A process restarted at a seeded random point, with a seeded number of
// events lost after its last checkpoint, resumes on a seeded wire, server
// style or polling, and the application ends with the agent's task, no
// part or message twice.
func TestResumeAtRandomPointsHandsOverEverythingOnce(t *testing.T) {
	t.Parallel()
	ws, modes := wires(), wirematrix.ResumeModes()
	failures := 0
	for seed := range *resumeRuns {
		r := rand.New(rand.NewPCG(uint64(seed), 20))
		w, mode := ws[r.IntN(len(ws))], modes[r.IntN(len(modes))]
		script := randomScript(r)
		stop, lag := 1+r.IntN(len(script)+2), r.IntN(4)
		name := fmt.Sprintf("seed %d: %s, %s, stop after %d, lag %d", seed, w, mode.Name, stop, lag)
		ok := t.Run(fmt.Sprint(seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(append([]a2atest.Option{a2atest.WithScript(script...),
					a2atest.WithVersions(w.v), a2atest.WithBindings(w.b)}, mode.Opts...)...)
				opts := []stream.Option{stream.WithPollInterval(250 * time.Millisecond)}
				s := clientOn(t, agent, w.v, w.b, opts...).Send(bounded(t), hello())
				var before []a2a.Event
				for len(before) < stop && s.Next() {
					before = append(before, s.Event())
				}
				require.NoError(t, s.Err(), name)
				saved, err := s.Checkpoint().MarshalBinary()
				require.NoError(t, err, name)
				for i := 0; i < lag && s.Next(); i++ {
				}
				s.Close()
				cp, err := stream.ParseCheckpoint(saved)
				require.NoError(t, err, name)
				after, err := wirematrix.DrainResumed(t, clientOn(t, agent, w.v, w.b, opts...).Resume(bounded(t), cp), before)
				require.NoError(t, err, name)
				wirematrix.RequireHandedOverOnce(t, agent.Task(cp.TaskID()), append(before, after...))
			})
		})
		if !ok {
			t.Logf("failed: %s", name)
			if failures++; failures > 3 {
				t.Fatalf("stopping after %d failing seeds", failures)
			}
		}
	}
}

// One checkpoint resumed twice at the same time, by two Clients (two
// replicas that both took the stream over): a Checkpoint "may be used from
// any goroutine", and each resumed stream hands over the rest exactly once,
// on every wire.
func TestACheckpointResumedTwiceAtOnceHandsEachTheRestOnce(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, mode := range wirematrix.ResumeModes() {
			t.Run(w.String()+"/"+mode.Name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					opts := append([]a2atest.Option{a2atest.WithScript(wirematrix.ResumeScript()...),
						a2atest.WithVersions(w.v), a2atest.WithBindings(w.b)}, mode.Opts...)
					agent := a2atest.NewAgent(opts...)
					sopts := []stream.Option{stream.WithPollInterval(250 * time.Millisecond)}
					s := clientOn(t, agent, w.v, w.b, sopts...).Send(bounded(t), hello())
					var before []a2a.Event
					for len(before) < 4 && s.Next() {
						before = append(before, s.Event())
					}
					require.Len(t, before, 4, "the first stream ended early: %v", s.Err())
					cp := s.Checkpoint()
					s.Close()

					afters := make([][]a2a.Event, 2)
					errs := make([]error, 2)
					var wg sync.WaitGroup
					for i := range 2 {
						resumed := clientOn(t, agent, w.v, w.b, sopts...).Resume(bounded(t), cp)
						wg.Go(func() {
							defer resumed.Close()
							for resumed.Next() {
								afters[i] = append(afters[i], resumed.Event())
							}
							errs[i] = resumed.Err()
						})
					}
					wg.Wait()
					for i := range 2 {
						require.NoError(t, errs[i], "resumed stream %d", i)
						wirematrix.RequireHandedOverOnce(t, agent.Task(cp.TaskID()), append(append([]a2a.Event(nil), before...), afters[i]...))
					}
				})
			})
		}
	}
}

// A checkpoint taken in the middle of what a resumed stream hands over
// from its get-task (one task fetched, many events yielded from it), then
// resumed in turn, hands over the rest of that batch and what follows
// exactly once: the three streams together make the agent's task.
func TestACheckpointTakenMidWayThroughAResumesHandoverResumesOnce(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, mode := range wirematrix.ResumeModes() {
			t.Run(w.String()+"/"+mode.Name, func(t *testing.T) {
				for first := 1; first <= 3; first++ {
					for mid := 1; mid <= 3; mid++ {
						t.Run(fmt.Sprintf("first %d, mid %d", first, mid), func(t *testing.T) {
							synctest.Test(t, func(t *testing.T) {
								opts := append([]a2atest.Option{a2atest.WithScript(wirematrix.ResumeScript()...),
									a2atest.WithVersions(w.v), a2atest.WithBindings(w.b)}, mode.Opts...)
								agent := a2atest.NewAgent(opts...)
								sopts := []stream.Option{stream.WithPollInterval(250 * time.Millisecond)}
								s := clientOn(t, agent, w.v, w.b, sopts...).Send(bounded(t), hello())
								var seen []a2a.Event
								for len(seen) < first && s.Next() {
									seen = append(seen, s.Event())
								}
								require.Len(t, seen, first)
								cp := s.Checkpoint()
								s.Close()
								time.Sleep(2500 * time.Millisecond) // the agent moves on: the get-task holds a batch

								r1 := clientOn(t, agent, w.v, w.b, sopts...).Resume(bounded(t), cp)
								n := 0
								for n < mid && r1.Next() {
									seen = append(seen, r1.Event())
									n++
								}
								require.Equal(t, mid, n, "the resumed stream ended early: %v", r1.Err())
								saved, err := r1.Checkpoint().MarshalBinary()
								require.NoError(t, err)
								r1.Close()
								cp2, err := stream.ParseCheckpoint(saved)
								require.NoError(t, err)
								r2 := clientOn(t, agent, w.v, w.b, sopts...).Resume(bounded(t), cp2)
								after, err := wirematrix.DrainResumed(t, r2, seen)
								require.NoError(t, err)
								wirematrix.RequireHandedOverOnce(t, agent.Task(cp.TaskID()), append(seen, after...))
							})
						})
					}
				}
			})
		}
	}
}
