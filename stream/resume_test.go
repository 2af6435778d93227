package stream_test

import (
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// resumeScript is a task that works for four seconds: two artifacts
// growing chunk by chunk, a message with an ID, status messages, then the
// end.
func resumeScript() []a2atest.Step {
	return []a2atest.Step{
		a2atest.Working("thinking"),
		a2atest.Chunk("a1", "one ", false, false), a2atest.Pause(time.Second),
		a2atest.Chunk("a1", "two ", true, false), a2atest.Say("a note"), a2atest.Pause(time.Second),
		a2atest.Chunk("a2", "x", false, false), a2atest.Chunk("a1", "three ", true, false), a2atest.Pause(time.Second),
		a2atest.Working("still at it"), a2atest.Chunk("a2", "y", true, true), a2atest.Pause(time.Second),
		a2atest.Chunk("a1", "four", true, true),
		a2atest.Finish(a2a.StateCompleted, "done"),
	}
}

// resumeMode is how the agent lets the client follow its task.
type resumeMode struct {
	name string
	opts []a2atest.Option
}

func resumeModes() []resumeMode {
	return []resumeMode{
		{"live-only", []a2atest.Option{a2atest.WithStyle(a2atest.LiveOnly)}},
		{"snapshot-first", []a2atest.Option{a2atest.WithStyle(a2atest.SnapshotFirst)}},
		{"full-replay", []a2atest.Option{a2atest.WithStyle(a2atest.FullReplay)}},
		{"polled", []a2atest.Option{a2atest.WithoutStreaming()}},
	}
}

// A process that stops after any event and resumes from the checkpoint it
// took then (through its binary form, as a restart would) hands the
// application every part and message exactly once in all: what it saw
// before the stop, and what the resumed stream hands over, make the agent's
// task, with no part or message twice. On every wire, every server style,
// and polling. With a lag, the process read a few more events after its
// last checkpoint and lost them when it died (the agent moved on
// meanwhile): the resumed stream hands them over again, since the
// application kept nothing of them.
func TestResumeFromACheckpointHandsOverTheRestOnce(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		for _, mode := range resumeModes() {
			t.Run(w.String()+"/"+mode.name, func(t *testing.T) {
				newAgent := func() *a2atest.Agent {
					opts := append([]a2atest.Option{a2atest.WithScript(resumeScript()...),
						a2atest.WithVersions(w.v), a2atest.WithBindings(w.b)}, mode.opts...)
					return a2atest.NewAgent(opts...)
				}
				var total int
				synctest.Test(t, func(t *testing.T) {
					got, err := drain(t, clientOn(t, newAgent(), w.v, w.b, stream.WithPollInterval(250*time.Millisecond)).Send(bounded(t), hello()))
					require.NoError(t, err)
					total = len(got.events)
				})
				require.Greater(t, total, 8, "the uncut run hands over the script's events")
				for stop := 1; stop < total; stop++ {
					for _, lag := range []int{0, 3} {
						if stop+lag >= total {
							continue
						}
						t.Run(fmt.Sprintf("stop after %d, lag %d", stop, lag), func(t *testing.T) {
							synctest.Test(t, func(t *testing.T) {
								agent := newAgent()
								opts := []stream.Option{stream.WithPollInterval(250 * time.Millisecond)}
								s := clientOn(t, agent, w.v, w.b, opts...).Send(bounded(t), hello())
								var before []a2a.Event
								for len(before) < stop && s.Next() {
									before = append(before, s.Event())
								}
								require.Len(t, before, stop, "the first stream ended early: %v", s.Err())
								saved, err := s.Checkpoint().MarshalBinary()
								require.NoError(t, err)
								for range lag {
									require.True(t, s.Next(), "the events of the lag: %v", s.Err())
								}
								s.Close()

								cp, err := stream.ParseCheckpoint(saved)
								require.NoError(t, err)
								require.Equal(t, uint64(stop), cp.Delivered())
								resumed := clientOn(t, agent, w.v, w.b, opts...).Resume(bounded(t), cp)
								after, err := drainResumed(t, resumed, before)
								require.NoError(t, err)
								require.Equal(t, uint64(stop+len(after)), resumed.Checkpoint().Delivered())
								requireHandedOverOnce(t, agent.Task(cp.TaskID()), append(before, after...))
							})
						})
					}
				}
			})
		}
	}
}

// drainResumed runs a resumed stream to its end, as an application that
// saw the events before does: it folds each event into what it holds, and
// checks after each that the stream's Task has the artifacts it holds.
func drainResumed(t *testing.T, s *stream.Stream, before []a2a.Event) ([]a2a.Event, error) {
	t.Helper()
	defer s.Close()
	var app a2a.Task
	for _, ev := range before {
		app.Apply(ev)
	}
	var after []a2a.Event
	for s.Next() {
		ev := s.Event()
		if u, ok := ev.(*a2a.ArtifactUpdate); ok {
			require.False(t, u.Append && app.Artifact(u.Artifact.ID) == nil, "append to artifact %s, which the application never had", u.Artifact.ID)
		}
		app.Apply(ev)
		after = append(after, ev)
		task := s.Task()
		require.Len(t, task.Artifacts, len(app.Artifacts), "after each event: artifact count")
		for _, a := range task.Artifacts {
			require.Equal(t, a, *app.Artifact(a.ID), "after each event: artifact %s", a.ID)
		}
	}
	return after, s.Err()
}

// requireHandedOverOnce checks that events, folded as an application folds
// them, make the server's task, and that no part, message or status was
// handed over twice.
func requireHandedOverOnce(t *testing.T, server *a2a.Task, events []a2a.Event) {
	t.Helper()
	var app a2a.Task
	parts, messages := 0, map[string]int{}
	var states []a2a.TaskState
	for _, ev := range events {
		app.Apply(ev)
		switch e := ev.(type) {
		case *a2a.ArtifactUpdate:
			require.True(t, e.Append || app.Artifact(e.Artifact.ID) == nil || len(parts0(events, e)) == 0,
				"artifact %s replaced: a replacement hands parts over again", e.Artifact.ID)
			parts += len(e.Artifact.Parts)
		case *a2a.Message:
			messages[e.ID]++
		case *a2a.MessageRevision:
			t.Fatalf("a revision of %s: the agent revised nothing", e.Message.ID)
		case *a2a.StatusUpdate:
			if n := len(states); n > 0 && states[n-1] == e.Status.State && e.Status.Message == nil {
				t.Fatalf("status %s handed over twice in a row, with no message", e.Status.State)
			}
			states = append(states, e.Status.State)
			if m := e.Status.Message; m != nil {
				messages[m.ID]++
			}
		}
	}
	want := 0
	for _, a := range server.Artifacts {
		want += len(a.Parts)
		got := app.Artifact(a.ID)
		require.NotNil(t, got, "artifact %s never handed over", a.ID)
		require.Equal(t, a.Parts, got.Parts, "artifact %s", a.ID)
	}
	require.Equal(t, want, parts, "parts handed over, in all")
	for _, m := range server.History {
		if m.Role == a2a.RoleAgent {
			require.Equal(t, 1, messages[m.ID], "agent message %s (%q) handed over once", m.ID, m.Text())
		}
	}
	for id, n := range messages {
		require.Equal(t, 1, n, "message %s handed over %d times", id, n)
	}
	require.Equal(t, server.Status.State, app.Status.State)
}

// parts0 is the parts handed over for e's artifact before e: a first
// update of an artifact may not append.
func parts0(events []a2a.Event, e *a2a.ArtifactUpdate) []a2a.Part {
	var ps []a2a.Part
	for _, ev := range events {
		if ev == a2a.Event(e) {
			break
		}
		if u, ok := ev.(*a2a.ArtifactUpdate); ok && u.Artifact.ID == e.Artifact.ID {
			ps = append(ps, u.Artifact.Parts...)
		}
	}
	return ps
}

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
				after, err := drainResumed(t, clientOn(t, agent, w.v, w.b).Resume(bounded(t), cp), before)
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
				c := handlerClient(t, srv, v)
				s := c.Send(bounded(t), hello())
				var before []a2a.Event
				for range 3 { // working, m-1, m-unlisted
					require.True(t, s.Next(), "%v", s.Err())
					before = append(before, s.Event())
				}
				require.IsType(t, &a2a.Message{}, before[2])
				cp := s.Checkpoint()
				s.Close()
				after, err := drainResumed(t, c.Resume(bounded(t), cp), before)
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
