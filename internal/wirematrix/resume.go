package wirematrix

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// ResumeScript is a task that works for four seconds: two artifacts
// growing chunk by chunk, a message with an ID, status messages, then the
// end.
func ResumeScript() []a2atest.Step {
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

// ResumeMode is how the agent lets the client follow its task.
type ResumeMode struct {
	// Name names the mode in subtests.
	Name string
	// Opts are the agent's options of the mode.
	Opts []a2atest.Option
}

// ResumeModes are the three server styles and polling.
func ResumeModes() []ResumeMode {
	return []ResumeMode{
		{"live-only", []a2atest.Option{a2atest.WithStyle(a2atest.LiveOnly)}},
		{"snapshot-first", []a2atest.Option{a2atest.WithStyle(a2atest.SnapshotFirst)}},
		{"full-replay", []a2atest.Option{a2atest.WithStyle(a2atest.FullReplay)}},
		{"polled", []a2atest.Option{a2atest.WithoutStreaming()}},
	}
}

// ResumeFromACheckpoint: a process that stops after any event and resumes
// from the checkpoint it took then (through its binary form, as a restart
// would) hands the application every part and message exactly once in
// all: what it saw before the stop, and what the resumed stream hands over,
// make the agent's task, with no part or message twice. Under every server
// style, and polling. With a lag, the process read a few more events after
// its last checkpoint and lost them when it died (the agent moved on
// meanwhile): the resumed stream hands them over again, since the
// application kept nothing of them.
func ResumeFromACheckpoint(t *testing.T, w Wire) {
	for _, mode := range ResumeModes() {
		t.Run(w.String()+"/"+mode.Name, func(t *testing.T) {
			newAgent := func() *a2atest.Agent {
				return w.Agent(append([]a2atest.Option{a2atest.WithScript(ResumeScript()...)}, mode.Opts...)...)
			}
			var total int
			synctest.Test(t, func(t *testing.T) {
				got, err := Drain(t, w.Client(t, newAgent(), stream.WithPollInterval(250*time.Millisecond)).Send(bounded(t), hello()))
				require.NoError(t, err)
				total = len(got.Events)
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
							s := w.Client(t, agent, opts...).Send(bounded(t), hello())
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
							resumed := w.Client(t, agent, opts...).Resume(bounded(t), cp)
							after, err := DrainResumed(t, resumed, before)
							require.NoError(t, err)
							require.Equal(t, uint64(stop+len(after)), resumed.Checkpoint().Delivered())
							RequireHandedOverOnce(t, agent.Task(cp.TaskID()), append(before, after...))
						})
					})
				}
			}
		})
	}
}

// DrainResumed runs a resumed stream to its end, as an application that
// saw the events before does: it folds each event into what it holds, and
// checks after each that the stream's Task has the artifacts it holds.
func DrainResumed(t *testing.T, s *stream.Stream, before []a2a.Event) ([]a2a.Event, error) {
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

// RequireHandedOverOnce checks that events, folded as an application folds
// them, make the server's task, and that no part, message or status was
// handed over twice.
func RequireHandedOverOnce(t *testing.T, server *a2a.Task, events []a2a.Event) {
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
