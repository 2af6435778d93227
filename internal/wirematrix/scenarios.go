package wirematrix

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// CutAnywhere is the no-loss test: the send stream is cut (or closed) at
// every event boundary and at random byte offsets, against all three
// server styles, and the application must end with the server's artifacts,
// each message once, and (except to heal a live-only gap) no part twice.
// A cut before the task ID was known leaves nothing to resume: the stream
// ends with the wire's lost-connection error (Wire.Lost) and no attempt.
func CutAnywhere(t *testing.T, w Wire) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, style := range Styles() {
		var faults []a2atest.Fault
		for k := 1; k < PacedEvents; k++ {
			faults = append(faults, a2atest.CutAfterEvents(k), a2atest.CloseAfterEvents(k))
		}
		for range 12 {
			faults = append(faults, a2atest.CutAfterBytes(200+rng.IntN(2400)))
		}
		for _, f := range faults {
			t.Run(fmt.Sprintf("%s/%s/%s", w, style, f), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := w.Agent(a2atest.WithStyle(style), a2atest.WithScript(Paced()...), a2atest.WithFaults(f))
					s := w.Client(t, agent).Send(context.Background(), hello())
					got, err := Drain(t, s)
					if w.lost(err) {
						var re *reconnect.Error
						if errors.As(err, &re) && re.Attempts == 0 {
							return // cut before the task ID was known: nothing to resume
						}
					}
					require.NoError(t, err)
					server := RequireSameAsServer(t, agent, s, got)
					require.Equal(t, 1, Sends(agent))
					if style != a2atest.LiveOnly {
						require.Equal(t, ServerParts(server), PartsDelivered(got.Events), "no part delivered twice")
					}
					require.Contains(t, got.Messages, server.Status.Message.ID, "the final status message arrives")
				})
			})
		}
	}
}

// Recorder is a human-input hook that answers from a list and records
// what it saw. It is not safe for concurrent use.
type Recorder struct {
	// Answers are the answers still to give, in order; a call past the
	// last one panics (a test helper's way to fail loudly).
	Answers []string
	// Requests are the requests the hook was called with, in order.
	Requests []*hitl.Request
	// Seen is, for each call, *Events at the time of the call.
	Seen []int
	// Events, if not nil, counts the events the test has yielded so far.
	Events *int
}

// Ask records req and gives the next of Answers.
func (r *Recorder) Ask(_ context.Context, req *hitl.Request) ([]a2a.Part, error) {
	r.Requests = append(r.Requests, req)
	if r.Events != nil {
		r.Seen = append(r.Seen, *r.Events)
	}
	a := r.Answers[0]
	r.Answers = r.Answers[1:]
	return hitl.Text(a), nil
}

// HumanInTheLoop: the agent asks for input half-way; the hook is asked
// once, after the prompt was yielded, with the assembled task; the reply
// is one follow-up with a fresh message ID on the same task and context;
// the task completes without a resubscribe.
func HumanInTheLoop(t *testing.T, w Wire) {
	t.Run(w.String(), func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			agent := w.Agent(a2atest.WithScript(Asking()...))
			events := 0
			hook := &Recorder{Answers: []string{"Oct 10-17"}, Events: &events}
			s := w.Client(t, agent, stream.WithHumanInput(hook)).Send(context.Background(), hello())
			defer s.Close()
			var promptAt int
			for s.Next() {
				events++
				if u, ok := s.Event().(*a2a.StatusUpdate); ok && u.Status.State == a2a.StateInputRequired {
					promptAt = events
					require.Equal(t, "Which dates?", u.Status.Message.Text(), "the application sees the prompt")
				}
			}
			require.NoError(t, s.Err())

			require.Len(t, hook.Requests, 1, "asked exactly once, even though a 1.0 follow-up opens with a stale snapshot")
			req := hook.Requests[0]
			require.Equal(t, "Which dates?", req.Text())
			require.Equal(t, "draft ", req.Task.Artifact("a1").Text(), "the hook sees the assembled task")
			require.Equal(t, promptAt, hook.Seen[0], "the hook runs after the prompt was yielded")

			fu := FollowUps(agent)
			require.Len(t, fu, 1)
			reply := fu[0].Message
			first := agent.Requests()[0].Message
			require.NotEqual(t, first.ID, reply.ID, "a fresh message ID")
			require.Equal(t, s.Task().ID, reply.TaskID)
			require.Equal(t, s.Task().ContextID, reply.ContextID)
			require.Equal(t, a2a.RoleUser, reply.Role)
			require.Equal(t, "Oct 10-17", reply.Text())

			require.Equal(t, "draft final", s.Task().Artifact("a1").Text(), "the prompt never enters artifact text")
			require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
			require.Equal(t, 0, Resubscribes(agent))
		})
	})
}

// HumanInTheLoopAcrossDrops: the first leg drops before the prompt and the
// follow-up leg drops too, under each style; the hook is asked once, the
// answer reaches the task once, and nothing is lost.
func HumanInTheLoopAcrossDrops(t *testing.T, w Wire) {
	for _, style := range Styles() {
		t.Run(w.String()+"/"+style.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := w.Agent(a2atest.WithStyle(style), a2atest.WithScript(Asking()...),
					a2atest.WithFaults(a2atest.CutAfterEvents(3), a2atest.Fault{}, a2atest.CutAfterEvents(2)))
				hook := &Recorder{Answers: []string{"yes"}}
				s := w.Client(t, agent, stream.WithHumanInput(hook)).Send(context.Background(), hello())
				got, err := Drain(t, s)
				require.NoError(t, err)
				RequireSameAsServer(t, agent, s, got)
				require.Len(t, hook.Requests, 1)
				require.Len(t, FollowUps(agent), 1)
				require.Equal(t, "draft final", got.Text("a1"))
			})
		})
	}
}

// DropsAreHealed: a send stream lost mid-task (a cut between events, a cut
// mid-event, a clean close before the task settled) is resubscribed once,
// by task ID, after one backoff of 500 ms (fake time), and nothing is lost;
// the user's message is never sent again.
func DropsAreHealed(t *testing.T, w Wire) {
	drops := []struct {
		name  string
		fault a2atest.Fault
	}{
		{"transport error", a2atest.CutAfterEvents(3)},
		{"unexpected EOF mid-event", a2atest.CutAfterBytes(700)},
		{"clean EOF before settled", a2atest.CloseAfterEvents(3)},
	}
	for _, d := range drops {
		t.Run(w.String()+"/"+d.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := w.Agent(a2atest.WithScript(Paced()...), a2atest.WithFaults(d.fault))
				start := time.Now()
				s := w.Client(t, agent).Send(context.Background(), hello())
				got, err := Drain(t, s)
				require.NoError(t, err)
				RequireSameAsServer(t, agent, s, got)
				require.Equal(t, 1, Sends(agent), "the user's message is never sent again")
				require.Equal(t, 1, Resubscribes(agent))
				reqs := agent.Requests()
				require.Equal(t, s.Task().ID, reqs[1].TaskID, "resubscribe by task ID")
				// The stream waited exactly one backoff of 500 ms: the task
				// itself takes 600 ms and ends while the client waits or
				// after it is back.
				require.GreaterOrEqual(t, time.Since(start), 500*time.Millisecond)
			})
		})
	}
}

// Polling: an agent that cannot stream (its task works for four seconds)
// refuses the streamed send; the
// stream sends once with a unary send that returns at once and polls
// get-task for the task (every poll by its ID) until it settles, healing
// polls that are dropped or refused as busy on the way; nothing is lost and
// the user's message is sent once.
func Polling(t *testing.T, w Wire) {
	for _, c := range []struct {
		name   string
		faults []a2atest.Fault
	}{
		{"clean", nil},
		{"failing polls", []a2atest.Fault{a2atest.Drop(), {}, a2atest.HTTPStatus(http.StatusServiceUnavailable, "busy"), {}, a2atest.Drop()}},
	} {
		t.Run(w.String()+"/"+c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := w.Agent(a2atest.WithoutStreaming(), a2atest.WithScript(ResumeScript()...), a2atest.WithGetFaults(c.faults...))
				s := w.Client(t, agent, stream.WithPollInterval(100*time.Millisecond)).Send(context.Background(), hello())
				got, err := Drain(t, s)
				require.NoError(t, err)
				server := RequireSameAsServer(t, agent, s, got)
				require.Equal(t, a2a.StateCompleted, server.Status.State)
				require.Contains(t, got.Messages, server.Status.Message.ID, "the final status message arrives")
				require.Equal(t, 1, CountMethod(agent, "message/send", "SendMessage"), "one unary send")
				gets, failed := 0, 0
				for _, r := range agent.Requests() {
					switch r.Method {
					case "message/send", "SendMessage":
						require.True(t, r.NonBlocking, "the unary send returns at once")
					case "tasks/get", "GetTask":
						gets++
						if !r.Fault.IsZero() {
							failed++
						}
						require.Equal(t, s.Task().ID, r.TaskID, "polls by task ID")
					case "message/stream", "SendStreamingMessage":
						// the streamed send, refused: counted below
					default:
						t.Fatalf("unexpected call %s", r.Method)
					}
				}
				require.Equal(t, 1, Sends(agent), "one streamed send, refused, before the unary one")
				want := 0
				for _, f := range c.faults {
					if !f.IsZero() {
						want++
					}
				}
				require.Equal(t, want, failed, "every failing poll was made")
				require.Greater(t, gets, len(c.faults), "polled on past the failed polls")
			})
		})
	}
}
