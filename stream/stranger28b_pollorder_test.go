package stream_test

// Stranger round 28b, a polled task's order: the CHANGELOG (issue 28) says
// "a whole task yields its history's new messages first, then a status that
// still works (submitted, working) before its artifacts' deltas, and a
// prompt (input-required, auth-required) or an ending after them".

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/stream"
)

// s28bRank is an event's place in one whole task's deltas.
func s28bRank(ev a2a.Event) (int, string) {
	switch e := ev.(type) {
	case *a2a.Message:
		return 0, "msg:" + e.Text()
	case *a2a.MessageRevision:
		return 0, "rev"
	case *a2a.StatusUpdate:
		switch e.Status.State {
		case a2a.StateSubmitted, a2a.StateWorking:
			return 1, "status:" + string(e.Status.State)
		default:
			return 3, "status:" + string(e.Status.State)
		}
	case *a2a.ArtifactUpdate:
		return 2, "art:" + e.Artifact.ID
	}
	return -1, fmt.Sprintf("%T", ev)
}

type s28bYield struct {
	at   time.Duration
	rank int
	desc string
	ev   a2a.Event
}

func s28bAgentMessages(h []a2a.Message) []a2a.Message {
	var out []a2a.Message
	for _, m := range h {
		if m.Role == a2a.RoleAgent {
			out = append(out, m)
		}
	}
	return out
}

func TestStranger28bPolledTaskYieldsInStreamOrder(t *testing.T) {
	scripts := map[string][]a2atest.Step{
		"all in one poll, completed": {
			a2atest.Pause(time.Second), a2atest.Working("thinking"), a2atest.Say("m1"),
			a2atest.Chunk("a1", "c1 ", false, false), a2atest.Chunk("a1", "c2", true, true),
			a2atest.Finish(a2a.StateCompleted, "bye"),
		},
		"working then a prompt then the end": {
			a2atest.Pause(time.Second), a2atest.Working("thinking"), a2atest.Say("m1"),
			a2atest.Chunk("a1", "c1 ", false, false),
			a2atest.Pause(10 * time.Second),
			a2atest.Chunk("a1", "c2", true, true), a2atest.Say("m2"), a2atest.AskInput("name?"),
			a2atest.Pause(time.Second), a2atest.Working("again"), a2atest.Chunk("a2", "x", false, true), a2atest.Say("m3"),
			a2atest.Pause(10 * time.Second),
			a2atest.Chunk("a2", "y", true, true), a2atest.Finish(a2a.StateFailed, "oops"),
		},
	}
	for _, w := range s28Wires() {
		for name, script := range scripts {
			t.Run(w.String()+"/"+name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := w.agent(a2atest.WithoutStreaming(), a2atest.WithScript(script...))
					ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
					defer cancel()
					c, err := stream.Resolve(ctx, "http://agent.test/", stream.WithHTTPClient(agent.Client()),
						stream.WithVersion(w.v), stream.WithPollInterval(7*time.Second),
						stream.WithHumanInput(hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
							return hitl.Text("Ann"), nil
						})))
					require.NoError(t, err)
					start := time.Now()
					s := c.Send(ctx, s28Msg())
					defer s.Close()
					var ys []s28bYield
					folded := &a2a.Task{}
					for s.Next() {
						r, d := s28bRank(s.Event())
						ys = append(ys, s28bYield{at: time.Since(start), rank: r, desc: d, ev: s.Event()})
						folded.Apply(s.Event())
					}
					for _, y := range ys {
						t.Logf("%6v %s", y.at, y.desc)
					}
					t.Logf("ended: %v", s.Err())
					require.NotErrorIs(t, s.Err(), context.DeadlineExceeded)
					for i := 1; i < len(ys); i++ {
						if ys[i].at == ys[i-1].at {
							require.GreaterOrEqual(t, ys[i].rank, ys[i-1].rank,
								"at %v, %s after %s", ys[i].at, ys[i].desc, ys[i-1].desc)
						}
					}
					got := s.Task()
					require.Equal(t, got.Artifacts, folded.Artifacts, "the fold gives the artifacts exactly")
					require.Equal(t, got.Status, folded.Status, "the fold gives the status")
					require.Equal(t, s28bAgentMessages(got.History), s28bAgentMessages(folded.History),
						"the fold gives the agent's messages of the history")
					// Apply's doc promises the artifacts, the status and the
					// agent's messages; a fold of deltas does not set the ID.
					t.Logf("task ID %q, folded %q", got.ID, folded.ID)
				})
			})
		}
	}
}
