package stream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

// A server in the wild (issue 12): every SSE data field starts with an RFC
// 7464 record separator, and every result is a whole Task with no "kind"
// (and so no "final"), growing as the agent works.
func TestRecordSeparatorsAndUntypedTaskResults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		snap := func(state, text string) string {
			return fmt.Sprintf(`{"id":"t-1","contextId":"c-1","status":{"state":%q},"artifacts":[{"artifactId":"a1","parts":[{"kind":"text","text":%q}]}]}`, state, text)
		}
		h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
			sseHeaders(w)
			for _, r := range []string{snap("working", "Hel"), snap("working", "Hello"), snap("completed", "Hello")} {
				fmt.Fprintf(w, "data: \x1e{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", id, r)
			}
		})
		got, err := drain(t, newClient(t, h, a2a.V03).Send(background(), hello()))
		require.NoError(t, err)
		require.Equal(t, []a2a.TaskState{a2a.StateWorking, a2a.StateCompleted}, got.states)
		// "Hel" then "Hello" is a replacement of the single part: the
		// application ends with the server's text.
		require.Equal(t, "Hello", got.text("a1"))
	})
}

// A server in the wild (issue 12) streams its answer as one status message
// resent longer each time under one ID, in untyped Task snapshots, and
// fails over to a new state with the same message. The application sees
// the message once, then each revision's added text, and ends with the
// server's last version.
func TestCumulativeStatusMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		snap := func(state, text string) string {
			return fmt.Sprintf(`{"id":"t-1","contextId":"c-1","status":{"state":%q,"message":{"messageId":"m-1","role":"agent","parts":[{"kind":"text","text":%q}]}}}`, state, text)
		}
		h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
			sseHeaders(w)
			for _, r := range []string{snap("working", "Hel"), snap("working", "Hello"), snap("working", "Hello"), snap("working", "Hello, wor"), snap("completed", "Hello, world.")} {
				fmt.Fprintf(w, "data: \x1e{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", id, r)
			}
		})
		s := newClient(t, h, a2a.V03).Send(background(), hello())
		got, err := drain(t, s)
		require.NoError(t, err)
		var added []string
		for _, ev := range got.events {
			if r, ok := ev.(*a2a.MessageRevision); ok {
				require.True(t, r.Extends)
				added = append(added, (&a2a.Message{Parts: r.Added}).Text())
			}
		}
		require.Equal(t, []string{"lo", ", wor", "ld."}, added)
		require.Equal(t, "Hello, world.", got.shown["m-1"])
		require.Equal(t, "Hello, world.", s.Task().Status.Message.Text())
		require.Nil(t, s.Ending().Answer, "a task's stream has no message answer")
		require.Equal(t, []a2a.TaskState{a2a.StateWorking, a2a.StateCompleted}, got.states)
	})
}

// A server in the wild (issue 12) ends a stream with a JSON-RPC error
// event and no failed Task event, while get-task says failed: the stream
// ends with the typed terminal error. When get-task says the task still
// works, the RPC error stays the ending, and Task holds the task as fetched.
func TestInStreamErrorAfterATaskIsKnown(t *testing.T) {
	for _, state := range []a2a.TaskState{a2a.StateFailed, a2a.StateWorking} {
		t.Run(string(state), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fetched := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: state,
					Message: &a2a.Message{ID: "m-9", Role: a2a.RoleAgent, Parts: []a2a.Part{{Text: "model failed"}}}}}
				h := rpcServer(func(w http.ResponseWriter, id json.RawMessage, n int) {
					if n == 1 {
						sseHeaders(w)
						sseEvent(w, id, a2a.V10, firstTask)
						fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32603,\"message\":\"model error\"}}\n\n", id)
						return
					}
					unaryTask(w, id, a2a.V10, fetched)
				})
				s := newClient(t, h, a2a.V10).Send(background(), hello())
				_, err := drain(t, s)
				if state == a2a.StateFailed {
					var failed *terminal.FailedError
					require.ErrorAs(t, err, &failed)
					require.Equal(t, "model failed", failed.Task.Status.Message.Text())
					return
				}
				var rpcErr *a2a.RPCError
				require.ErrorAs(t, err, &rpcErr)
				require.Equal(t, a2a.CodeInternalError, rpcErr.Code)
				require.Equal(t, a2a.StateWorking, s.Task().Status.State)
				// The RPC error carries the task as fetched.
				var te *stream.TaskError
				require.ErrorAs(t, err, &te)
				require.Equal(t, "model failed", stream.EndingOf(err).Task.Status.Message.Text())
				require.Equal(t, rpcErr.Error(), err.Error(), "the wrapper keeps the RPC error's text")
			})
		})
	}
}

// A server in the wild (issue 12) sends no keep-alives and falls silent for
// seconds while it retries its model. Without an idle timeout (the default)
// the stream waits through the silence on the same connection; with one
// shorter than the silence, the silence is a drop, and a server that cannot
// resubscribe is followed by polling to the same result.
func TestSilenceWithoutKeepAlives(t *testing.T) {
	script := func() []a2atest.Step {
		return []a2atest.Step{
			a2atest.Working("thinking"), a2atest.Chunk("a1", "first ", false, false),
			a2atest.Pause(5 * time.Second), // the model is retried; not a byte is sent
			a2atest.Chunk("a1", "second", true, true), a2atest.Finish(a2a.StateCompleted, "done"),
		}
	}
	for _, v := range versions {
		t.Run(string(v)+"/no idle timeout", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithoutResubscribe(), a2atest.WithScript(script()...))
				start := time.Now()
				s := newClient(t, agent, v).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				require.Equal(t, 5*time.Second, time.Since(start))
				wirematrix.RequireSameAsServer(t, agent, s, got.fold)
				require.Len(t, agent.Requests(), 1, "one connection, kept through the silence")
			})
		})
		t.Run(string(v)+"/idle timeout shorter than the silence", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithoutResubscribe(), a2atest.WithScript(script()...))
				var kinds []stream.NoticeKind
				s := newClient(t, agent, v, stream.WithIdleTimeout(2*time.Second),
					stream.WithNotify(func(n stream.Notice) { kinds = append(kinds, n.Kind) })).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				wirematrix.RequireSameAsServer(t, agent, s, got.fold)
				require.Contains(t, kinds, stream.Polling, "the server cannot resubscribe: the stream polls")
				require.Equal(t, "first second", got.text("a1"))
				require.NotZero(t, gets(agent))
			})
		})
	}
}

// The wild agent's failure as an in-stream error, found by the soak (seeds
// 1335, 2303, 3690 and 6054 of -soak 10000): the error may be the first
// event of a reply's stream, and the get-task that asks whether the task
// ended may fail on the network; it is retried by the budget rules.
func TestInStreamFailureOfAWildAgent(t *testing.T) {
	t.Run("first event of the reply's stream", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithWildHabits("bot"), a2atest.WithScript(
				a2atest.Working("on it"), a2atest.AskInput("which city?"), a2atest.Finish(a2a.StateFailed, "upstream failed")))
			hook := hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) { return hitl.Text("Lisbon"), nil })
			_, err := drain(t, newClient(t, agent, a2a.V03, stream.WithHumanInput(hook)).Send(background(), hello()))
			var failed *terminal.FailedError
			require.ErrorAs(t, err, &failed)
			require.Contains(t, failed.Task.Status.Message.Text(), "upstream failed")
		})
	})
	t.Run("get-task dropped, then answered", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithWildHabits("bot"),
				a2atest.WithScript(a2atest.Working("on it"), a2atest.Finish(a2a.StateFailed, "upstream failed")),
				a2atest.WithGetFaults(a2atest.HTTPStatus(503, "busy")))
			start := time.Now()
			_, err := drain(t, newClient(t, agent, a2a.V03,
				stream.WithReconnect(reconnect.Policy{MaxAttempts: 1, Backoff: time.Second})).Send(background(), hello()))
			var failed *terminal.FailedError
			require.ErrorAs(t, err, &failed)
			require.Equal(t, time.Second, time.Since(start), "one backoff before the second get-task")
			require.Equal(t, 2, gets(agent))
		})
	})
}

// The whole wild agent through a2atest: Resolve reads its bare card at its
// own path, the stream is cut twice, the server cannot resubscribe, and the
// answer is one growing status message. The application ends with the
// server's text, each version shown once.
func TestWildAgentThroughResolve(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithWildHabits("bot-7"), a2atest.WithScript(
			a2atest.Working("Let me look. "), a2atest.Pause(time.Second), a2atest.Chunk("a1", "Lisbon ", false, false),
			a2atest.Pause(time.Second), a2atest.Chunk("a1", "is sunny ", true, false),
			a2atest.Pause(3*time.Second), a2atest.Chunk("a1", "all week.", true, true), a2atest.Finish(a2a.StateCompleted, "")),
			a2atest.WithFaults(a2atest.CutAfterEvents(2)))
		c, err := stream.Resolve(background(), "http://agent.test/.well-known/bot-7/agent-card.json", stream.WithHTTPClient(agent.Client()),
			stream.WithPollInterval(500*time.Millisecond))
		require.NoError(t, err)
		require.Equal(t, a2a.V03, c.Version())
		var kinds []stream.NoticeKind
		s := c.Send(background(), hello(), stream.WithNotify(func(n stream.Notice) { kinds = append(kinds, n.Kind) }))
		got, err := drain(t, s)
		require.NoError(t, err)
		require.Contains(t, kinds, stream.Polling, "no resubscribe: polled")
		server := agent.Task(s.Task().ID)
		id := server.Status.Message.ID
		require.Equal(t, "Let me look. Lisbon is sunny all week.", got.shown[id])
		require.Equal(t, server.Status.Message.Text(), s.Task().Status.Message.Text())
		require.Empty(t, s.Task().Artifacts)
		revisions := 0
		for _, ev := range got.events {
			if _, ok := ev.(*a2a.MessageRevision); ok {
				revisions++
			}
		}
		require.NotZero(t, revisions)
	})
}

// The wild agent (0.3, record separators, untyped snapshots, a cumulative
// message, HTTP 400 errors, in-stream failure, no resubscribe, a bare card at
// its own path), cut at several points: the stream ends as the server's task
// did, with the server's last version of every message, no artifact, and
// the message sent once.
func TestWildAgentThroughResolveUnderCuts(t *testing.T) {
	t.Parallel()
	scripts := map[string][]a2atest.Step{
		"completed": {a2atest.Working("Let me look. "), a2atest.Pause(time.Second), a2atest.Chunk("a1", "Lisbon ", false, false),
			a2atest.Pause(time.Second), a2atest.Chunk("a1", "is sunny ", true, false), a2atest.Pause(3 * time.Second),
			a2atest.Chunk("a1", "all week.", true, true), a2atest.Finish(a2a.StateCompleted, "")},
		"failed": {a2atest.Working("Trying. "), a2atest.Pause(time.Second), a2atest.Chunk("a1", "Almost ", false, false),
			a2atest.Pause(time.Second), a2atest.Finish(a2a.StateFailed, "model failed")},
		"input": {a2atest.Working("Where to? "), a2atest.Pause(time.Second), a2atest.AskInput("Which city?"),
			a2atest.Pause(time.Second), a2atest.Chunk("a1", "Booked ", false, false), a2atest.Pause(time.Second),
			a2atest.Finish(a2a.StateCompleted, "Done.")},
	}
	faults := []a2atest.Fault{{}, a2atest.CutAfterEvents(1), a2atest.CutAfterEvents(2), a2atest.CutAfterEvents(3),
		a2atest.CutAfterEvents(4), a2atest.CutAfterBytes(1000), a2atest.CutAfterBytes(2000), a2atest.CloseAfterEvents(2)}
	for name, script := range scripts {
		for _, f := range faults {
			t.Run(name+"/"+f.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithWildHabits("bot-9"), a2atest.WithScript(script...),
						a2atest.WithFaults(f, f))
					c, err := stream.Resolve(background(), "http://agent.test/.well-known/bot-9/agent-card.json",
						stream.WithHTTPClient(agent.Client()), stream.WithPollInterval(300*time.Millisecond),
						stream.WithHumanInput(&pollAnswer{text: "Lisbon"}))
					require.NoError(t, err)
					s := c.Send(background(), hello())
					got, err := drain(t, s)
					server := wirematrix.RequireSameAsServer(t, agent, s, got.fold)
					switch server.Status.State {
					case a2a.StateCompleted:
						require.NoError(t, err)
					case a2a.StateFailed:
						var failed *terminal.FailedError
						require.ErrorAs(t, err, &failed)
						require.Contains(t, failed.Task.Status.Message.Text(), "model failed")
					default:
						t.Fatalf("server ended in %s", server.Status.State)
					}
					requireMessagesAsServer(t, server, s, got)
					require.Empty(t, s.Task().Artifacts)
					require.Equal(t, server.Artifacts, s.Task().Artifacts)
					require.Equal(t, 1, firstSends(agent), "the user's message is sent once")
				})
			})
		}
	}
}
