package stream_test

// Fourth red-team round, from the public API only, against the newest
// features: message revisions (a2atest.WithCumulativeMessage) under cuts,
// replays, both versions and both bindings; the wild agent through Resolve;
// per-call options; Stream.Cancel; and stream.TaskOf / terminal.StateOf on
// every ending. Three tests found defects, each marked DEFECT (fixed):
// TestRedteam4_PerCallHeaderOverridesTheClients,
// TestRedteam4_HookContextDoesNotCarryOptionsToAnotherClient and
// TestRedteam4_ClientWideOptionsRefusedEvenWithTheClientsValue.

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

// ---------------------------------------------------------------------------
// Helpers (r4 prefix).

var r4Bindings = []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON}

// r4Client returns a client of agent in binding b, fixed to version v.
func r4Client(t *testing.T, agent *a2atest.Agent, v a2a.Version, b a2a.Binding, opts ...stream.Option) *stream.Client {
	t.Helper()
	return bindingClient(t, b, "http://agent.test", append([]stream.Option{stream.WithHTTPClient(agent.Client()), stream.WithVersion(v)}, opts...)...)
}

// r4Answer is a hook that answers every prompt with text and counts.
type r4Answer struct {
	text  string
	asked int
}

func (a *r4Answer) Ask(context.Context, *hitl.Request) ([]a2a.Part, error) {
	a.asked++
	return hitl.Text(a.text), nil
}

// r4RequireMessagesAsServer checks that the application shows, for every
// agent message of the server's task, the server's last version, and that
// the stream's Task holds each message once, in its last version.
func r4RequireMessagesAsServer(t *testing.T, server *a2a.Task, s *stream.Stream, got *collected) {
	t.Helper()
	n := 0
	for _, m := range server.History {
		if m.Role != a2a.RoleAgent {
			continue
		}
		n++
		shown, ok := got.shown[m.ID]
		require.True(t, ok, "agent message %s (%q) never shown", m.ID, m.Text())
		require.Equal(t, m.Text(), shown, "the application shows the server's last version of %s", m.ID)
	}
	require.NotZero(t, n, "the server's task has agent messages")
	if sm := server.Status.Message; sm != nil {
		require.Equal(t, sm.Text(), got.shown[sm.ID], "status message as the server's")
		require.NotNil(t, s.Task().Status.Message)
		require.Equal(t, sm.Text(), s.Task().Status.Message.Text(), "Task().Status.Message is the last version")
	}
	ids := map[string]int{}
	for _, m := range s.Task().History {
		ids[m.ID]++
		require.Equal(t, 1, ids[m.ID], "message %s held twice in Task().History", m.ID)
		if m.Role == a2a.RoleAgent {
			require.Equal(t, m.Text(), got.shown[m.ID], "Task().History holds the version shown")
		}
	}
}

// r4FirstSends counts the sends of a new message (not follow-ups).
func r4FirstSends(agent *a2atest.Agent) int {
	n := 0
	for _, r := range agent.Requests() {
		if r.Message != nil && r.Message.TaskID == "" {
			n++
		}
	}
	return n
}

// r4Revisions returns the revisions the stream yielded.
func r4Revisions(got *collected) []*a2a.MessageRevision {
	var rs []*a2a.MessageRevision
	for _, ev := range got.events {
		if r, ok := ev.(*a2a.MessageRevision); ok {
			rs = append(rs, r)
		}
	}
	return rs
}

// r4Cumulative is a two-turn script for an agent WithCumulativeMessage:
// the first turn's message grows over several steps and asks a question;
// the second grows again and completes.
func r4Cumulative() []a2atest.Step {
	return []a2atest.Step{
		a2atest.Working("Let me look. "),
		a2atest.Pause(tick), a2atest.Chunk("a1", "Lisbon ", false, false),
		a2atest.Pause(tick), a2atest.Chunk("a1", "is sunny ", true, false),
		a2atest.Pause(tick), a2atest.Say("all week. "),
		a2atest.Pause(tick), a2atest.AskInput("Which day?"),
		a2atest.Pause(tick), a2atest.Working("Booking "),
		a2atest.Pause(tick), a2atest.Chunk("a1", "Tuesday", false, false),
		a2atest.Pause(tick), a2atest.Finish(a2a.StateCompleted, ". Done."),
	}
}

// ---------------------------------------------------------------------------
// Target 1: message revisions.

// A cumulative agent, cut at every event boundary of the first stream and
// at several byte offsets, under each resubscribe style, in both versions
// and both bindings: the application, applying each message and revision,
// ends with the server's last version of every agent message, and the
// stream ends completed. (drain checks that no revision repeats the text
// shown and that Extends/Added continue it.)
func TestRedteam4_CumulativeMessageUnderCuts(t *testing.T) {
	faults := []a2atest.Fault{{}}
	for k := 1; k <= 6; k++ {
		faults = append(faults, a2atest.CutAfterEvents(k))
	}
	faults = append(faults, a2atest.CloseAfterEvents(2), a2atest.CutAfterBytes(700), a2atest.CutAfterBytes(1500))
	styles := []a2atest.ResubscribeStyle{a2atest.LiveOnly, a2atest.SnapshotFirst, a2atest.FullReplay}
	for _, v := range versions {
		for _, b := range r4Bindings {
			for _, st := range styles {
				for _, f := range faults {
					t.Run(fmt.Sprintf("%s/%s/%s/%s", v, b, st, f), func(t *testing.T) {
						synctest.Test(t, func(t *testing.T) {
							agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(b), a2atest.WithCumulativeMessage(),
								a2atest.WithStyle(st), a2atest.WithScript(r4Cumulative()...), a2atest.WithFaults(f, f))
							hook := &r4Answer{text: "Tuesday"}
							s := r4Client(t, agent, v, b, stream.WithHumanInput(hook)).Send(background(), hello())
							got, err := drain(t, s)
							require.NoError(t, err)
							require.Equal(t, 1, hook.asked, "the human is asked once")
							server := requireSameAsServer(t, agent, s, got)
							r4RequireMessagesAsServer(t, server, s, got)
							require.Equal(t, 1, r4FirstSends(agent), "the message is sent once")
						})
					})
				}
			}
		}
	}
}

// Without cuts, the revisions of one cumulative turn all extend the
// version before, and their Added texts, after the first version, spell the
// rest of the message.
func TestRedteam4_CumulativeRevisionsExtend(t *testing.T) {
	for _, v := range versions {
		for _, b := range r4Bindings {
			t.Run(string(v)+"/"+string(b), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(b), a2atest.WithCumulativeMessage(),
						a2atest.WithScript(a2atest.Working("one "), a2atest.Pause(tick), a2atest.Chunk("a1", "two ", false, false),
							a2atest.Pause(tick), a2atest.Say("three"), a2atest.Pause(tick), a2atest.Finish(a2a.StateCompleted, "")))
					s := r4Client(t, agent, v, b).Send(background(), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					server := requireSameAsServer(t, agent, s, got)
					r4RequireMessagesAsServer(t, server, s, got)
					rs := r4Revisions(got)
					require.NotEmpty(t, rs)
					var added string
					for _, r := range rs {
						require.True(t, r.Extends, "a growing message extends the version before")
						require.Equal(t, s.Task().ID, r.TaskID)
						require.Equal(t, s.Task().ContextID, r.ContextID)
						added += (&a2a.Message{Parts: r.Added}).Text()
					}
					require.Equal(t, "one two three", "one "+added)
					require.Empty(t, s.Task().Artifacts, "a cumulative agent creates no artifact")
				})
			})
		}
	}
}

// Two cuts in a row, the second on the resubscribe, under every style:
// the revision rules still end on the server's versions.
func TestRedteam4_CumulativeMessageTwoCuts(t *testing.T) {
	styles := []a2atest.ResubscribeStyle{a2atest.LiveOnly, a2atest.SnapshotFirst, a2atest.FullReplay}
	for _, v := range versions {
		for _, b := range r4Bindings {
			for _, st := range styles {
				for _, k := range []int{1, 2, 3} {
					t.Run(fmt.Sprintf("%s/%s/%s/%d", v, b, st, k), func(t *testing.T) {
						synctest.Test(t, func(t *testing.T) {
							agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(b), a2atest.WithCumulativeMessage(),
								a2atest.WithStyle(st), a2atest.WithScript(r4Cumulative()...),
								a2atest.WithFaults(a2atest.CutAfterEvents(k+1), a2atest.CutAfterEvents(k), a2atest.CutAfterBytes(200)))
							s := r4Client(t, agent, v, b, stream.WithHumanInput(&r4Answer{text: "Tuesday"})).Send(background(), hello())
							got, err := drain(t, s)
							require.NoError(t, err)
							server := requireSameAsServer(t, agent, s, got)
							r4RequireMessagesAsServer(t, server, s, got)
						})
					})
				}
			}
		}
	}
}

// A cumulative agent that fails: the failed status carries the whole
// message, and the terminal error's task holds it in its last version.
func TestRedteam4_CumulativeMessageFails(t *testing.T) {
	for _, v := range versions {
		for _, b := range r4Bindings {
			t.Run(string(v)+"/"+string(b), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(b), a2atest.WithCumulativeMessage(),
						a2atest.WithScript(a2atest.Working("Trying "), a2atest.Pause(tick), a2atest.Chunk("a1", "hard", false, false),
							a2atest.Pause(tick), a2atest.Finish(a2a.StateFailed, ", but failed.")),
						a2atest.WithFaults(a2atest.CutAfterEvents(2)))
					s := r4Client(t, agent, v, b).Send(background(), hello())
					got, err := drain(t, s)
					var failed *terminal.FailedError
					require.ErrorAs(t, err, &failed)
					server := requireSameAsServer(t, agent, s, got)
					r4RequireMessagesAsServer(t, server, s, got)
					require.Equal(t, server.Status.Message.Text(), failed.Task.Status.Message.Text())
					state, ok := terminal.StateOf(err)
					require.True(t, ok)
					require.Equal(t, a2a.StateFailed, state)
					require.Equal(t, failed.Task.Status.Message.Text(), stream.TaskOf(err).Status.Message.Text())
				})
			})
		}
	}
}

// Subscribe to a cumulative task already under way (another process sent
// the message): the first Task shows the message so far, later statuses
// revise it, and the application ends with the server's version.
func TestRedteam4_SubscribeToCumulativeTask(t *testing.T) {
	for _, v := range versions {
		for _, b := range r4Bindings {
			t.Run(string(v)+"/"+string(b), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(b), a2atest.WithCumulativeMessage(),
						a2atest.WithScript(a2atest.Working("a "), a2atest.Pause(tick), a2atest.Chunk("a1", "b ", false, false),
							a2atest.Pause(tick), a2atest.Chunk("a1", "c ", true, false), a2atest.Pause(tick), a2atest.Finish(a2a.StateCompleted, "d")),
						a2atest.WithFaults(a2atest.Fault{}, a2atest.CutAfterEvents(2)))
					c := r4Client(t, agent, v, b)
					first := c.Send(background(), hello())
					for range 3 { // the task, "a ", then "a b " (a revision) in fake time
						require.True(t, first.Next())
					}
					id := first.Task().ID
					first.Close()
					s := c.Subscribe(background(), id)
					got, err := drain(t, s)
					require.NoError(t, err)
					server := requireSameAsServer(t, agent, s, got)
					r4RequireMessagesAsServer(t, server, s, got)
				})
			})
		}
	}
}

// ---------------------------------------------------------------------------
// Target 2: the wild agent through Resolve.

// The wild agent (0.3, record separators, untyped snapshots, a cumulative
// message, HTTP 400 errors, in-stream failure, no resubscribe, a bare card at
// its own path), cut at several points: the stream ends as the server's task
// did, with the server's last version of every message, no artifact, and
// the message sent once.
func TestRedteam4_WildAgentThroughResolveUnderCuts(t *testing.T) {
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
						stream.WithHumanInput(&r4Answer{text: "Lisbon"}))
					require.NoError(t, err)
					s := c.Send(background(), hello())
					got, err := drain(t, s)
					server := requireSameAsServer(t, agent, s, got)
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
					r4RequireMessagesAsServer(t, server, s, got)
					require.Empty(t, s.Task().Artifacts)
					require.Equal(t, server.Artifacts, s.Task().Artifacts)
					require.Equal(t, 1, r4FirstSends(agent), "the user's message is sent once")
				})
			})
		}
	}
}

// ---------------------------------------------------------------------------
// Target 3: per-call options.

// README: per call, an option "overrides the Client's for that call only: a
// user's token". A Client with a service token and a call with a user's
// token should send the user's token alone.
//
// DEFECT (fixed): a per-call WithHeader was added to the Client's header of
// the same name: every request carried both tokens, and
// Header.Get("Authorization") on the server read the Client's. A per-call
// header now replaces the Client's values of its name (callConfig).
func TestRedteam4_PerCallHeaderOverridesTheClients(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(paced()...), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
		c := newClient(t, agent, a2a.V10, stream.WithHeader("Authorization", "Bearer service"))
		_, err := drain(t, c.Send(background(), hello(), stream.WithHeader("Authorization", "Bearer user-42")))
		require.NoError(t, err)
		for _, r := range agent.Requests() {
			require.Equal(t, []string{"Bearer user-42"}, r.Header.Values("Authorization"), "%s: the call's token only", r.Method)
		}
	})
}

// A human-input hook is handed a context; a hook that asks another agent
// (a second Client, with its own credentials) passes it on. The second
// Client's calls must carry its own headers, never the first stream's.
//
// DEFECT (fixed): the hook's context carried the stream's configuration,
// and Client.GetTask/Cancel without options took their configuration from
// the context, whichever Client made it. The hook now gets the caller's
// context, and a Client reads only a configuration it made itself:
// the other Client sends the first Client's Authorization header to the
// other agent, and not its own.
func TestRedteam4_HookContextDoesNotCarryOptionsToAnotherClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		other := a2atest.NewAgent()
		otherClient, err := stream.NewClient("http://other.test/", stream.WithHTTPClient(other.Client()),
			stream.WithVersion(a2a.V10), stream.WithHeader("Authorization", "Bearer other-agent"))
		require.NoError(t, err)
		done, err := otherClient.Send(background(), hello()).Wait()
		require.NoError(t, err)

		agent := a2atest.NewAgent(a2atest.WithScript(asking()...))
		hook := hitl.Func(func(ctx context.Context, req *hitl.Request) ([]a2a.Part, error) {
			t, err := otherClient.GetTask(ctx, done.ID) // ask the other agent
			if err != nil {
				return nil, err
			}
			return hitl.Text("the other agent says " + string(t.Status.State)), nil
		})
		c := newClient(t, agent, a2a.V10, stream.WithHeader("Authorization", "Bearer first-agent-secret"))
		_, err = drain(t, c.Send(background(), hello(), stream.WithHumanInput(hook)))
		require.NoError(t, err)
		reqs := other.Requests()
		last := reqs[len(reqs)-1]
		require.Equal(t, "GetTask", last.Method)
		require.Equal(t, []string{"Bearer other-agent"}, last.Header.Values("Authorization"),
			"the other Client sends its own token, never the first stream's")
	})
}

// The next stream without per-call options uses the Client's again, for
// Subscribe and Cancel too.
func TestRedteam4_PerCallOptionsStayWithTheirCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Working("w"), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")))
		var clientNotices, callNotices int
		c := newClient(t, agent, a2a.V10, stream.WithHeader("X-Team", "travel"),
			stream.WithNotify(func(stream.Notice) { clientNotices++ }))
		first := c.Send(background(), hello())
		require.True(t, first.Next())
		id := first.Task().ID
		first.Close()

		n := len(agent.Requests())
		sub := c.Subscribe(background(), id, stream.WithHeader("X-User", "u1"),
			stream.WithNotify(func(stream.Notice) { callNotices++ }))
		require.True(t, sub.Next())
		sub.Close()
		_, err := c.Cancel(background(), id, stream.WithHeader("X-User", "u2"))
		require.NoError(t, err)
		_, err = c.GetTask(background(), id)
		require.NoError(t, err)
		reqs := agent.Requests()[n:]
		require.Len(t, reqs, 3)
		require.Equal(t, []string{"u1"}, reqs[0].Header.Values("X-User"))
		require.Equal(t, []string{"u2"}, reqs[1].Header.Values("X-User"))
		require.Empty(t, reqs[2].Header.Values("X-User"), "GetTask without options: the Client's headers only")
		for _, r := range reqs {
			require.Equal(t, []string{"travel"}, r.Header.Values("X-Team"))
		}
	})
}

// Client-wide options are refused per call by every call, WithCardCache and
// Cancel included, with ErrInvalidOption, and nothing is sent.
func TestRedteam4_ClientWideOptionsRefusedPerCall(t *testing.T) {
	agent := a2atest.NewAgent()
	c := newClient(t, agent, a2a.V10)
	refused := map[string]stream.Option{
		"WithHTTPClient": stream.WithHTTPClient(&http.Client{}),
		"WithVersion":    stream.WithVersion(a2a.V03),
		"WithBinding":    stream.WithBinding(a2a.BindingHTTPJSON),
		"WithCardCache":  stream.WithCardCache(stream.NewCardCache()),
	}
	for name, o := range refused {
		t.Run(name, func(t *testing.T) {
			_, err := drain(t, c.Send(background(), hello(), o))
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			_, err = drain(t, c.Subscribe(background(), "t-1", o))
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			_, err = c.GetTask(background(), "t-1", o)
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			_, err = c.Cancel(background(), "t-1", o)
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.Empty(t, agent.Requests())
		})
	}
}

// Bad values are refused per call by Cancel too, before anything is sent.
func TestRedteam4_BadValuesRefusedByCancel(t *testing.T) {
	agent := a2atest.NewAgent()
	c := newClient(t, agent, a2a.V10)
	for name, bad := range badOptions() {
		t.Run(name, func(t *testing.T) {
			_, err := c.Cancel(background(), "t-1", bad)
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.Empty(t, agent.Requests())
		})
	}
}

// The README and Option's doc: WithHTTPClient, WithVersion, WithBinding and
// WithCardCache "are Client-wide and are refused per call".
//
// DEFECT (fixed): they were refused only when their value differed from
// the Client's: given the Client's own HTTP client, version or binding, or
// a nil card cache, per call, they were silently accepted. Client-wide
// options are now their own type, refused per call whatever their value.
func TestRedteam4_ClientWideOptionsRefusedEvenWithTheClientsValue(t *testing.T) {
	agent := a2atest.NewAgent()
	hc := agent.Client()
	c, err := stream.NewClient(endpoint, stream.WithHTTPClient(hc), stream.WithVersion(a2a.V10))
	require.NoError(t, err)
	same := map[string]stream.Option{
		"WithHTTPClient": stream.WithHTTPClient(hc),
		"WithVersion":    stream.WithVersion(a2a.V10),
		"WithBinding":    stream.WithBinding(""),
		"WithCardCache":  stream.WithCardCache(nil),
	}
	for name, o := range same {
		t.Run(name, func(t *testing.T) {
			_, err := c.GetTask(background(), "t-1", o)
			require.ErrorIs(t, err, stream.ErrInvalidOption, "%s is Client-wide: refused per call", name)
		})
	}
}

// Concurrent streams of one Client, each with its own per-call header, hook
// and notify function, all cut once: no option reaches another stream.
func TestRedteam4_ConcurrentPerCallOptionsDoNotMix(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(asking()...), a2atest.WithStyle(a2atest.FullReplay),
			a2atest.WithFaults(a2atest.CutAfterEvents(2), a2atest.CutAfterEvents(2), a2atest.CutAfterEvents(2), a2atest.CutAfterEvents(2),
				a2atest.CutAfterEvents(2), a2atest.CutAfterEvents(2), a2atest.CutAfterEvents(2), a2atest.CutAfterEvents(2)))
		c := newClient(t, agent, a2a.V10, stream.WithHeader("X-Team", "travel"),
			stream.WithReconnect(reconnect.Policy{Backoff: time.Second}))
		const n = 8
		taskOf := make([]string, n)
		notices := make([]int, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				user := fmt.Sprintf("user-%d", i)
				hook := hitl.Func(func(ctx context.Context, req *hitl.Request) ([]a2a.Part, error) {
					return hitl.Text("answer of " + user), nil
				})
				s := c.Send(background(), a2a.NewTextMessage(a2a.RoleUser, "hello from "+user), stream.WithHeader("X-User", user),
					stream.WithHumanInput(hook), stream.WithNotify(func(stream.Notice) { notices[i]++ }))
				task, err := s.Wait()
				errs[i] = err
				if task != nil {
					taskOf[i] = task.ID
				}
			}()
		}
		wg.Wait()
		for i := range n {
			require.NoError(t, errs[i])
			require.NotEmpty(t, taskOf[i])
		}
		user := map[string]string{} // task ID -> user
		for i, id := range taskOf {
			user[id] = fmt.Sprintf("user-%d", i)
		}
		for _, r := range agent.Requests() {
			require.Equal(t, []string{"travel"}, r.Header.Values("X-Team"))
			vals := r.Header.Values("X-User")
			require.Len(t, vals, 1)
			if r.TaskID != "" {
				require.Equal(t, user[r.TaskID], vals[0], "%s of task %s", r.Method, r.TaskID)
			}
			if r.Message != nil {
				require.Contains(t, r.Message.Text(), vals[0], "the message of %s goes with its header", vals[0])
			}
		}
		for i := range n {
			require.NotZero(t, notices[i], "stream %d was told of its own reconnect", i)
		}
	})
}

// ---------------------------------------------------------------------------
// Target 4: Stream.Cancel.

func r4Cancels(agent *a2atest.Agent) int { return countMethod(agent, "tasks/cancel", "CancelTask") }

// r4Long is a task that works for an hour.
func r4Long() []a2atest.Step {
	return []a2atest.Step{a2atest.Working("thinking"), a2atest.Chunk("a1", "draft ", false, false),
		a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")}
}

// r4NextUntilWorking advances s to its first working status update.
func r4NextUntilWorking(t *testing.T, s *stream.Stream) {
	t.Helper()
	for s.Next() {
		if u, ok := s.Event().(*a2a.StatusUpdate); ok && u.Status.State == a2a.StateWorking {
			return
		}
	}
	t.Fatalf("the stream ended before working: %v", s.Err())
}

// r4RequireCanceled checks a stream that ended canceled.
func r4RequireCanceled(t *testing.T, agent *a2atest.Agent, s *stream.Stream, err error) {
	t.Helper()
	var canceled *terminal.CanceledError
	require.ErrorAs(t, err, &canceled, "got %T: %v", err, err)
	require.NotNil(t, canceled.Task)
	require.Equal(t, a2a.StateCanceled, canceled.Task.Status.State)
	require.Equal(t, s.Task().ID, canceled.Task.ID)
	state, ok := terminal.StateOf(err)
	require.True(t, ok)
	require.Equal(t, a2a.StateCanceled, state)
	require.Equal(t, a2a.StateCanceled, stream.TaskOf(err).Status.State)
	require.Equal(t, a2a.StateCanceled, agent.Task(s.Task().ID).Status.State)
	require.Equal(t, a2a.StateCanceled, s.Task().Status.State)
}

// After the task is known, Cancel asks the agent, the stream yields the
// canceled status and ends in *terminal.CanceledError carrying the task,
// in both versions and both bindings.
func TestRedteam4_CancelAfterTaskKnown(t *testing.T) {
	for _, v := range versions {
		for _, b := range r4Bindings {
			t.Run(string(v)+"/"+string(b), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(b), a2atest.WithScript(r4Long()...))
					s := r4Client(t, agent, v, b).Send(background(), hello(), stream.WithHeader("Authorization", "Bearer u"))
					r4NextUntilWorking(t, s)
					require.NoError(t, s.Cancel(background()))
					var last *a2a.StatusUpdate
					for s.Next() {
						if u, ok := s.Event().(*a2a.StatusUpdate); ok {
							last = u
						}
					}
					require.NotNil(t, last, "the canceled status is yielded")
					require.Equal(t, a2a.StateCanceled, last.Status.State)
					r4RequireCanceled(t, agent, s, s.Err())
					require.Equal(t, 1, r4Cancels(agent))
					require.Equal(t, "draft ", s.Task().Artifact("a1").Text(), "the artifact stays")
					for _, r := range agent.Requests() {
						if r.Method == "tasks/cancel" || r.Method == "CancelTask" {
							require.Equal(t, "Bearer u", r.Header.Get("Authorization"), "Cancel uses the stream's options")
						}
					}
				})
			})
		}
	}
}

// Cancel before any task is known returns an error and sends nothing.
func TestRedteam4_CancelBeforeTaskKnown(t *testing.T) {
	agent := a2atest.NewAgent(a2atest.WithScript(r4Long()...))
	c := newClient(t, agent, a2a.V10)
	s := c.Send(background(), hello())
	require.Error(t, s.Cancel(background()))
	require.Empty(t, agent.Requests(), "nothing sent")
	s.Close()

	refused := c.Send(background(), hello(), stream.WithMaxEventSize(0))
	require.Error(t, refused.Cancel(background()))
	require.ErrorIs(t, refused.Err(), stream.ErrInvalidOption, "the refusal stays the ending")
	require.Empty(t, agent.Requests())
}

// After the stream's own context ended (Ctrl-C), Cancel still reaches the
// agent and the stream's Err becomes the canceled ending.
func TestRedteam4_CancelAfterContextEnded(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(r4Long()...))
				ctx, stop := context.WithCancel(background())
				s := newClient(t, agent, v).Send(ctx, hello())
				r4NextUntilWorking(t, s)
				stop()
				for s.Next() {
				}
				require.ErrorIs(t, s.Err(), context.Canceled)
				require.Equal(t, a2a.StateWorking, stream.TaskOf(s.Err()).Status.State)
				require.NoError(t, s.Cancel(background()))
				for s.Next() {
				}
				r4RequireCanceled(t, agent, s, s.Err())
			})
		})
	}
}

// Cancel on a finished stream: the agent refuses (the task is completed),
// Cancel returns the refusal, and the stream's ending stays nil.
func TestRedteam4_CancelOnACompletedStream(t *testing.T) {
	for _, v := range versions {
		for _, b := range r4Bindings {
			t.Run(string(v)+"/"+string(b), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(b))
					s := r4Client(t, agent, v, b).Send(background(), hello())
					_, err := s.Wait()
					require.NoError(t, err)
					err = s.Cancel(background())
					require.Error(t, err, "the agent refuses to cancel a completed task")
					var rpcErr *a2a.RPCError
					require.ErrorAs(t, err, &rpcErr)
					require.NoError(t, s.Err(), "the stream's ending stays")
					require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
					require.False(t, s.Next())
					require.Equal(t, 1, r4Cancels(agent))
				})
			})
		}
	}
}

// Cancel on a stream that ended failed: refused, and the ending stays.
func TestRedteam4_CancelOnAFailedStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Working("w"), a2atest.Finish(a2a.StateFailed, "boom")))
		s := newClient(t, agent, a2a.V10).Send(background(), hello())
		_, err := s.Wait()
		require.ErrorAs(t, err, new(*terminal.FailedError))
		require.Error(t, s.Cancel(background()))
		require.ErrorAs(t, s.Err(), new(*terminal.FailedError))
		state, _ := terminal.StateOf(s.Err())
		require.Equal(t, a2a.StateFailed, state)
	})
}

// Cancel on a Subscribe stream before its first Next: the task ID is
// known, so the cancel is sent, and the stream yields what the reported
// task holds and ends canceled.
func TestRedteam4_CancelSubscribeBeforeNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(r4Long()...))
		c := newClient(t, agent, a2a.V10)
		first := c.Send(background(), hello())
		r4NextUntilWorking(t, first)
		id := first.Task().ID
		first.Close()
		s := c.Subscribe(background(), id)
		require.NoError(t, s.Cancel(background()))
		got, err := drain(t, s)
		r4RequireCanceled(t, agent, s, err)
		require.Equal(t, "draft ", got.text("a1"), "the artifact is yielded from the reported task")
	})
}

// Cancel after the reconnect budget was spent, and after Close.
func TestRedteam4_CancelAfterOtherEndings(t *testing.T) {
	t.Run("budget spent", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithScript(r4Long()...), a2atest.WithFaults(a2atest.CutAfterEvents(3)))
			s := newClient(t, agent, a2a.V10, stream.WithReconnect(reconnect.Never())).Send(background(), hello())
			_, err := s.Wait()
			require.ErrorAs(t, err, new(*reconnect.Error))
			require.NoError(t, s.Cancel(background()))
			for s.Next() {
			}
			r4RequireCanceled(t, agent, s, s.Err())
		})
	})
	t.Run("after Close", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithScript(r4Long()...))
			s := newClient(t, agent, a2a.V10).Send(background(), hello())
			r4NextUntilWorking(t, s)
			require.NoError(t, s.Close())
			require.NoError(t, s.Cancel(background()))
			for s.Next() {
			}
			r4RequireCanceled(t, agent, s, s.Err())
		})
	})
	t.Run("no hook, then Cancel twice", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithScript(asking()...))
			s := newClient(t, agent, a2a.V10).Send(background(), hello())
			_, err := s.Wait()
			require.ErrorIs(t, err, hitl.ErrNoHook)
			require.NoError(t, s.Cancel(background()))
			for s.Next() {
			}
			r4RequireCanceled(t, agent, s, s.Err())
			err = s.Cancel(background())
			var rpcErr *a2a.RPCError
			require.ErrorAs(t, err, &rpcErr, "the second cancel is refused: the task is canceled")
			r4RequireCanceled(t, agent, s, s.Err())
			require.Equal(t, 2, r4Cancels(agent))
		})
	})
	t.Run("Cancel's own context done", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithScript(r4Long()...))
			s := newClient(t, agent, a2a.V10).Send(background(), hello())
			defer s.Close()
			r4NextUntilWorking(t, s)
			ctx, stop := context.WithCancel(background())
			stop()
			n := len(agent.Requests())
			require.ErrorIs(t, s.Cancel(ctx), context.Canceled)
			require.Len(t, agent.Requests(), n, "nothing sent")
			require.NoError(t, s.Err(), "the stream goes on")
			require.Equal(t, a2a.StateWorking, agent.Task(s.Task().ID).Status.State)
		})
	})
}

// Cancel on a stream that follows its task by polling (an agent that cannot
// stream), over both bindings.
func TestRedteam4_CancelAPolledStream(t *testing.T) {
	for _, b := range r4Bindings {
		t.Run(string(b), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithBindings(b), a2atest.WithoutStreaming(), a2atest.WithScript(r4Long()...))
				c, err := stream.Resolve(background(), "http://agent.test", stream.WithHTTPClient(agent.Client()))
				require.NoError(t, err)
				s := c.Send(background(), hello())
				r4NextUntilWorking(t, s)
				require.NoError(t, s.Cancel(background()))
				for s.Next() {
				}
				r4RequireCanceled(t, agent, s, s.Err())
				require.Equal(t, "draft ", s.Task().Artifact("a1").Text())
			})
		})
	}
}

// ---------------------------------------------------------------------------
// Target 5: TaskOf and StateOf on every ending.

// r4Ending is one way a stream ends.
type r4Ending struct {
	name   string
	agent  func(v a2a.Version) *a2atest.Agent
	wild   bool // 0.3 only
	opts   []stream.Option
	ctx    func(t *testing.T) (context.Context, func(s *stream.Stream))
	state  a2a.TaskState // the terminal state StateOf names; "" for none
	noTask bool          // TaskOf is nil
	check  func(t *testing.T, err error)
}

func r4Endings() []r4Ending {
	long := func(opts ...a2atest.Option) func(a2a.Version) *a2atest.Agent {
		return func(v a2a.Version) *a2atest.Agent {
			return a2atest.NewAgent(append([]a2atest.Option{a2atest.WithVersions(v), a2atest.WithScript(r4Long()...)}, opts...)...)
		}
	}
	finish := func(st a2a.TaskState) func(a2a.Version) *a2atest.Agent {
		return func(v a2a.Version) *a2atest.Agent {
			return a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(a2atest.Working("w"), a2atest.Chunk("a1", "part", false, true),
				a2atest.Finish(st, "because")))
		}
	}
	isA := func(target any) func(t *testing.T, err error) {
		return func(t *testing.T, err error) { require.ErrorAs(t, err, target) }
	}
	return []r4Ending{
		{name: "completed", agent: finish(a2a.StateCompleted), noTask: true,
			check: func(t *testing.T, err error) { require.NoError(t, err) }},
		{name: "failed", agent: finish(a2a.StateFailed), state: a2a.StateFailed, check: isA(new(*terminal.FailedError))},
		{name: "rejected", agent: finish(a2a.StateRejected), state: a2a.StateRejected, check: isA(new(*terminal.RejectedError))},
		{name: "canceled", agent: finish(a2a.StateCanceled), state: a2a.StateCanceled, check: isA(new(*terminal.CanceledError))},
		{name: "auth-required", agent: func(v a2a.Version) *a2atest.Agent {
			return a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(a2atest.Working("w"), a2atest.AskAuth("sign in")))
		}, state: a2a.StateAuthRequired, check: isA(new(*terminal.AuthRequiredError))},
		{name: "in-stream failure (wild)", wild: true, agent: func(a2a.Version) *a2atest.Agent {
			return a2atest.NewAgent(a2atest.WithWildHabits("bot"), a2atest.WithScript(a2atest.Working("w"), a2atest.Finish(a2a.StateFailed, "model")))
		}, state: a2a.StateFailed, check: isA(new(*terminal.FailedError))},
		{name: "budget spent", agent: long(a2atest.WithFaults(a2atest.CutAfterEvents(3), a2atest.Drop())),
			opts:  []stream.Option{stream.WithReconnect(reconnect.Policy{MaxAttempts: 1, Backoff: time.Second})},
			check: isA(new(*reconnect.Error))},
		{name: "drop before a task", agent: long(a2atest.WithFaults(a2atest.CutAfterEvents(0))), noTask: true,
			check: func(t *testing.T, err error) { require.ErrorIs(t, err, reconnect.ErrNoTask) }},
		{name: "no hook", agent: func(v a2a.Version) *a2atest.Agent {
			return a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(asking()...))
		},
			check: func(t *testing.T, err error) { require.ErrorIs(t, err, hitl.ErrNoHook) }},
		{name: "RPC error on resubscribe", agent: long(a2atest.WithFaults(a2atest.CutAfterEvents(3),
			a2atest.RPCError(a2a.CodeInternalError, "down", a2atest.ErrorAsJSON))),
			check: isA(new(*a2a.RPCError))},
		{name: "HTTP 403 on resubscribe", agent: long(a2atest.WithFaults(a2atest.CutAfterEvents(3),
			a2atest.HTTPStatus(403, "forbidden"))),
			check: isA(new(*stream.HTTPError))},
		{name: "stalled", agent: long(a2atest.WithoutStreaming()),
			opts: []stream.Option{stream.WithStallTimeout(time.Minute)}, check: isA(new(*stream.StalledError))},
		{name: "event too large", agent: func(v a2a.Version) *a2atest.Agent {
			return a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(a2atest.Working("w"), a2atest.Pause(time.Second),
				a2atest.Chunk("a1", string(make([]byte, 4000)), false, true), a2atest.Finish(a2a.StateCompleted, "")))
		}, opts: []stream.Option{stream.WithMaxEventSize(1500)}, check: isA(new(*stream.ProtocolError))},
		{name: "context canceled", agent: long(), ctx: func(t *testing.T) (context.Context, func(*stream.Stream)) {
			ctx, stop := context.WithCancel(background())
			return ctx, func(s *stream.Stream) { r4NextUntilWorking(t, s); stop() }
		}, check: func(t *testing.T, err error) { require.ErrorIs(t, err, context.Canceled) }},
		{name: "context canceled before a task", agent: long(), noTask: true, ctx: func(t *testing.T) (context.Context, func(*stream.Stream)) {
			ctx, stop := context.WithCancel(background())
			stop()
			return ctx, func(*stream.Stream) {}
		}, check: func(t *testing.T, err error) { require.ErrorIs(t, err, context.Canceled) }},
	}
}

// stream.TaskOf returns the last known task of every ending (the stream's
// Task, state and artifacts alike), nil when none was known or for nil;
// terminal.StateOf names the terminal state of terminal endings only.
func TestRedteam4_TaskOfAndStateOfOnEveryEnding(t *testing.T) {
	for _, v := range versions {
		for _, e := range r4Endings() {
			if e.wild && v != a2a.V03 {
				continue // the wild agent speaks 0.3 only
			}
			t.Run(string(v)+"/"+e.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := e.agent(v)
					ctx, before := background(), func(*stream.Stream) {}
					if e.ctx != nil {
						ctx, before = e.ctx(t)
					}
					s := newClient(t, agent, v).Send(ctx, hello(), e.opts...)
					before(s)
					for s.Next() {
					}
					err := s.Err()
					e.check(t, err)
					state, ok := terminal.StateOf(err)
					require.Equal(t, e.state != "", ok, "StateOf reports a state for terminal endings only (%T: %v)", err, err)
					require.Equal(t, e.state, state)
					got := stream.TaskOf(err)
					if e.noTask {
						require.Nil(t, got)
						return
					}
					require.NotNil(t, got, "TaskOf(%T: %v)", err, err)
					require.NotNil(t, s.Task())
					require.Equal(t, s.Task().ID, got.ID)
					require.Equal(t, s.Task().Status.State, got.Status.State, "TaskOf is the last known task")
					require.Equal(t, s.Task().Artifacts, got.Artifacts)
					require.Equal(t, len(s.Task().History), len(got.History))
					if e.state != "" {
						require.Equal(t, e.state, got.Status.State)
					}
				})
			})
		}
	}
}

// ---------------------------------------------------------------------------
// Revisions and Cancel against hand-written servers.

// r4Apply applies an artifact update to arts, as an application does.
func r4Apply(arts map[string][]a2a.Part, ev a2a.Event) {
	if u, ok := ev.(*a2a.ArtifactUpdate); ok {
		if u.Append {
			arts[u.Artifact.ID] = append(arts[u.Artifact.ID], u.Artifact.Clone().Parts...)
		} else {
			arts[u.Artifact.ID] = u.Artifact.Clone().Parts
		}
	}
}

func r4Task(state a2a.TaskState, history []*a2a.Message, arts ...a2a.Artifact) *a2a.Task {
	var h []a2a.Message
	for _, m := range history {
		h = append(h, *m)
	}
	return &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: state}, History: h, Artifacts: arts}
}

func r4Msg(id string, parts ...a2a.Part) *a2a.Message {
	return &a2a.Message{ID: id, TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: parts}
}

// r4Collect drains s like drain, but checks revisions part by part (drain
// compares texts, which a revision that adds a data part leaves equal).
func r4Collect(t *testing.T, s *stream.Stream) (*collected, error) {
	t.Helper()
	defer s.Close()
	c := &collected{shown: map[string]string{}}
	held := map[string][]a2a.Part{}
	for s.Next() {
		ev := s.Event()
		c.events = append(c.events, ev)
		switch e := ev.(type) {
		case *a2a.StatusUpdate:
			if m := e.Status.Message; m != nil {
				require.NotContains(t, held, m.ID, "message %s delivered twice", m.ID)
				held[m.ID] = m.Parts
			}
		case *a2a.Message:
			require.NotContains(t, held, e.ID, "message %s delivered twice", e.ID)
			held[e.ID] = e.Parts
		case *a2a.MessageRevision:
			old, ok := held[e.Message.ID]
			require.True(t, ok, "a revision of %s, never delivered", e.Message.ID)
			require.NotEqual(t, old, e.Message.Parts, "a revision of %s that repeats the version held", e.Message.ID)
			if e.Extends {
				var built []a2a.Part
				for _, p := range old {
					built = append(built, p.Clone())
				}
				added := e.Added
				if n := len(built); n > 0 && built[n-1].IsText() && len(added) > 0 && added[0].IsText() &&
					len(e.Message.Parts) >= n && e.Message.Parts[n-1].IsText() && e.Message.Parts[n-1].Text != built[n-1].Text {
					built[n-1].Text += added[0].Text
					added = added[1:]
				}
				built = append(built, added...)
				require.Equal(t, e.Message.Parts, built, "old version + Added == new version for %s", e.Message.ID)
			}
			held[e.Message.ID] = e.Message.Parts
		}
	}
	for id, ps := range held {
		c.shown[id] = (&a2a.Message{Parts: ps}).Text()
	}
	return c, s.Err()
}

// A live stream (no gap, no replay) in which a status message grows, is
// rewritten shorter, gains a data part, and a Message event grows too: each
// version is yielded once; Extends and Added are exact; Task holds the last
// versions once.
func TestRedteam4_RevisionsLiveRewriteAndNewParts(t *testing.T) {
	data := a2a.Part{Data: []byte(`{"x":1}`)}
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := newDefectServer(func(w http.ResponseWriter, r defectReq) {
					if !r.isSend() {
						jsonRPCError(w, r.id, a2a.CodeTaskNotFound, "no")
						return
					}
					sseHeaders(w)
					sseEvent(w, r.id, v, r4Task(a2a.StateSubmitted, []*a2a.Message{r.msg}))
					for _, ev := range []a2a.Event{
						statusEvent(v, a2a.StateWorking, r4Msg("m-1", a2a.TextPart("Hello wor"))),
						statusEvent(v, a2a.StateWorking, r4Msg("m-1", a2a.TextPart("Hello world"))),
						statusEvent(v, a2a.StateWorking, r4Msg("m-1", a2a.TextPart("Hi"))),
						statusEvent(v, a2a.StateWorking, r4Msg("m-1", a2a.TextPart("Hi"), data)),
						r4Msg("m-2", a2a.TextPart("A")),
						r4Msg("m-2", a2a.TextPart("AB")),
						statusEvent(v, a2a.StateCompleted, r4Msg("m-1", a2a.TextPart("Hi"), data, a2a.TextPart("!"))),
					} {
						sseEvent(w, r.id, v, ev)
					}
				})
				s := hostileClient(t, srv, v).Send(bounded(t), hello())
				got, err := r4Collect(t, s)
				require.NoError(t, err)
				rs := r4Revisions(got)
				require.Len(t, rs, 5, "one revision per new version")
				type rev struct {
					id      string
					extends bool
					added   []a2a.Part
				}
				var seen []rev
				for _, r := range rs {
					seen = append(seen, rev{r.Message.ID, r.Extends, r.Added})
				}
				require.Equal(t, []rev{
					{"m-1", true, []a2a.Part{a2a.TextPart("ld")}},
					{"m-1", false, nil},
					{"m-1", true, []a2a.Part{data}},
					{"m-2", true, []a2a.Part{a2a.TextPart("B")}},
					{"m-1", true, []a2a.Part{a2a.TextPart("!")}},
				}, seen)
				require.Equal(t, "Hi!", got.shown["m-1"])
				require.Equal(t, "AB", got.shown["m-2"])
				task := s.Task()
				require.Len(t, task.Status.Message.Parts, 3)
				require.Equal(t, a2a.StateCompleted, task.Status.State)
				counts := map[string]int{}
				for _, m := range task.History {
					counts[m.ID]++
					switch m.ID {
					case "m-1":
						require.Len(t, m.Parts, 3, "history holds the last version of m-1")
					case "m-2":
						require.Equal(t, "AB", m.Text())
					}
				}
				require.Equal(t, 1, counts["m-1"])
				require.Equal(t, 1, counts["m-2"])
			})
		})
	}
}

// A server that normalizes the user's message in its history (same ID,
// other text): the user's own message was never delivered, so the stream
// must not yield a revision of it (a MessageRevision is "a new version of a
// message that was delivered before"). drain checks it.
func TestRedteam4_NoRevisionOfTheUsersOwnMessage(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := newDefectServer(func(w http.ResponseWriter, r defectReq) {
					if !r.isSend() {
						jsonRPCError(w, r.id, a2a.CodeTaskNotFound, "no")
						return
					}
					echo := r.msg.Clone()
					echo.Parts = []a2a.Part{a2a.TextPart("HELLO (normalized)")}
					echo.TaskID, echo.ContextID = "t-1", "c-1"
					sseHeaders(w)
					sseEvent(w, r.id, v, r4Task(a2a.StateSubmitted, []*a2a.Message{echo}))
					sseEvent(w, r.id, v, statusEvent(v, a2a.StateWorking, nil))
					sseEvent(w, r.id, v, statusEvent(v, a2a.StateCompleted, r4Msg("m-1", a2a.TextPart("ok"))))
				})
				s := hostileClient(t, srv, v).Send(bounded(t), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				require.Empty(t, r4Revisions(got))
				require.Equal(t, "ok", got.shown["m-1"])
			})
		})
	}
}

// r4CancelServer streams a task that works (a1 "one ") and then waits; its
// cancel answers with cancelAnswer, and, when onCancel is set, the stream
// writes onCancel's events once the cancel arrived.
func r4CancelServer(v a2a.Version, cancelAnswer *a2a.Task, onCancel []a2a.Event) *defectServer {
	canceled := make(chan struct{})
	var once sync.Once
	return newDefectServer(func(w http.ResponseWriter, r defectReq) {
		switch {
		case r.isSend():
			sseHeaders(w)
			sseEvent(w, r.id, v, r4Task(a2a.StateSubmitted, []*a2a.Message{r.msg}))
			sseEvent(w, r.id, v, statusEvent(v, a2a.StateWorking, nil))
			sseEvent(w, r.id, v, &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1",
				Artifact: a2a.Artifact{ID: "a1", Parts: []a2a.Part{a2a.TextPart("one ")}}})
			select {
			case <-canceled:
				for _, ev := range onCancel {
					sseEvent(w, r.id, v, ev)
				}
			case <-time.After(time.Hour):
			}
		case r.method == "tasks/cancel" || r.method == "CancelTask":
			unaryTask(w, r.id, v, cancelAnswer)
			once.Do(func() { close(canceled) })
		default:
			jsonRPCError(w, r.id, a2a.CodeTaskNotFound, "no")
		}
	})
}

// The agent answers the cancel with the task completed (it finished first)
// and holding more output than the stream saw: the stream yields the rest
// and ends as the task did, in nil; the artifacts the events build equal the
// reported task's.
func TestRedteam4_CancelAnsweredCompleted(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				done := r4Task(a2a.StateCompleted, nil, a2a.Artifact{ID: "a1", Parts: []a2a.Part{a2a.TextPart("one "), a2a.TextPart("two")}})
				srv := r4CancelServer(v, done, nil)
				s := hostileClient(t, srv, v).Send(bounded(t), hello())
				arts := map[string][]a2a.Part{}
				for s.Next() {
					r4Apply(arts, s.Event())
					if _, ok := s.Event().(*a2a.ArtifactUpdate); ok {
						break
					}
				}
				require.NoError(t, s.Cancel(background()))
				var states []a2a.TaskState
				for s.Next() {
					r4Apply(arts, s.Event())
					if u, ok := s.Event().(*a2a.StatusUpdate); ok {
						states = append(states, u.Status.State)
					}
				}
				require.NoError(t, s.Err(), "the task completed: the stream ends in nil")
				require.Equal(t, []a2a.TaskState{a2a.StateCompleted}, states)
				require.Equal(t, done.Artifacts[0].Parts, arts["a1"])
				require.Equal(t, done.Artifacts[0].Parts, s.Task().Artifact("a1").Parts)
			})
		})
	}
}

// The agent answers the cancel with the task still working (it cancels
// later) and then sends the canceled status on the stream: Cancel returns
// nil, the live stream goes on and ends canceled.
func TestRedteam4_CancelTakesEffectLater(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				working := r4Task(a2a.StateWorking, nil, a2a.Artifact{ID: "a1", Parts: []a2a.Part{a2a.TextPart("one ")}})
				srv := r4CancelServer(v, working, []a2a.Event{statusEvent(v, a2a.StateCanceled, r4Msg("m-9", a2a.TextPart("stopped")))})
				s := hostileClient(t, srv, v).Send(bounded(t), hello())
				for s.Next() {
					if _, ok := s.Event().(*a2a.ArtifactUpdate); ok {
						break
					}
				}
				require.NoError(t, s.Cancel(background()))
				require.NoError(t, s.Err(), "still running")
				for s.Next() {
				}
				var canceled *terminal.CanceledError
				require.ErrorAs(t, s.Err(), &canceled)
				require.Equal(t, "stopped", canceled.Task.Status.Message.Text())
				require.Equal(t, "one ", canceled.Task.Artifact("a1").Text())
			})
		})
	}
}

// The human-input hook of a cumulative agent is asked with the prompt in
// its last version (the whole turn's message, as the server holds it).
func TestRedteam4_CumulativePromptIsTheLastVersion(t *testing.T) {
	for _, v := range versions {
		for _, f := range []a2atest.Fault{{}, a2atest.CutAfterEvents(4), a2atest.CutAfterEvents(5)} {
			t.Run(string(v)+"/"+f.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithCumulativeMessage(),
						a2atest.WithScript(r4Cumulative()...), a2atest.WithFaults(f))
					var prompts []string
					hook := hitl.Func(func(ctx context.Context, req *hitl.Request) ([]a2a.Part, error) {
						prompts = append(prompts, req.Text())
						return hitl.Text("Tuesday"), nil
					})
					s := newClient(t, agent, v, stream.WithHumanInput(hook)).Send(background(), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					server := requireSameAsServer(t, agent, s, got)
					var first *a2a.Message
					for i := range server.History {
						m := &server.History[i]
						if m.Role == a2a.RoleAgent {
							first = m
							break
						}
					}
					require.NotNil(t, first)
					require.Equal(t, []string{first.Text()}, prompts, "asked once, with the turn's whole message")
				})
			})
		}
	}
}

// A Client that negotiates its version, used by many streams at once
// against a 0.3-only agent: every stream completes (run with -race).
func TestRedteam4_ConcurrentNegotiation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03), a2atest.WithScript(paced()...))
		c, err := stream.NewClient(endpoint, stream.WithHTTPClient(agent.Client()))
		require.NoError(t, err)
		const n = 6
		errs := make([]error, n)
		texts := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				task, err := c.Send(background(), hello()).Wait()
				errs[i] = err
				if task != nil {
					texts[i] = task.Artifact("a1").Text()
				}
			}()
		}
		wg.Wait()
		for i := range n {
			require.NoError(t, errs[i])
			require.Equal(t, "one two three", texts[i])
		}
		require.Equal(t, a2a.V03, c.Version())
		require.Equal(t, n, countMethod(agent, "message/stream"), "each message reached the agent once")
	})
}
