package stream_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

// A cumulative agent, cut at every event boundary of the first stream and
// at several byte offsets, under each resubscribe style, in both versions
// and both bindings: the application, applying each message and revision,
// ends with the server's last version of every agent message, and the
// stream ends completed. (drain checks that no revision repeats the text
// shown and that Extends/Added continue it.)
func TestCumulativeMessageUnderCutsEndsOnTheServersVersions(t *testing.T) {
	t.Parallel()
	faults := []a2atest.Fault{{}}
	for k := 1; k <= 6; k++ {
		faults = append(faults, a2atest.CutAfterEvents(k))
	}
	faults = append(faults, a2atest.CloseAfterEvents(2), a2atest.CutAfterBytes(700), a2atest.CutAfterBytes(1500))
	styles := []a2atest.ResubscribeStyle{a2atest.LiveOnly, a2atest.SnapshotFirst, a2atest.FullReplay}
	for _, v := range versions {
		for _, b := range bothBindings {
			for _, st := range styles {
				for _, f := range faults {
					t.Run(fmt.Sprintf("%s/%s/%s/%s", v, b, st, f), func(t *testing.T) {
						synctest.Test(t, func(t *testing.T) {
							agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(b), a2atest.WithCumulativeMessage(),
								a2atest.WithStyle(st), a2atest.WithScript(cumulativeScript()...), a2atest.WithFaults(f, f))
							hook := &pollAnswer{text: "Tuesday"}
							s := clientOn(t, agent, v, b, stream.WithHumanInput(hook)).Send(background(), hello())
							got, err := drain(t, s)
							require.NoError(t, err)
							require.Equal(t, 1, hook.asked, "the human is asked once")
							server := requireSameAsServer(t, agent, s, got)
							requireMessagesAsServer(t, server, s, got)
							require.Equal(t, 1, firstSends(agent), "the message is sent once")
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
func TestCumulativeRevisionsExtendTheVersionBefore(t *testing.T) {
	for _, v := range versions {
		for _, b := range bothBindings {
			t.Run(string(v)+"/"+string(b), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(b), a2atest.WithCumulativeMessage(),
						a2atest.WithScript(a2atest.Working("one "), a2atest.Pause(tick), a2atest.Chunk("a1", "two ", false, false),
							a2atest.Pause(tick), a2atest.Say("three"), a2atest.Pause(tick), a2atest.Finish(a2a.StateCompleted, "")))
					s := clientOn(t, agent, v, b).Send(background(), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					server := requireSameAsServer(t, agent, s, got)
					requireMessagesAsServer(t, server, s, got)
					rs := revisionsOf(got)
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
func TestCumulativeMessageTwoCutsInARow(t *testing.T) {
	styles := []a2atest.ResubscribeStyle{a2atest.LiveOnly, a2atest.SnapshotFirst, a2atest.FullReplay}
	for _, v := range versions {
		for _, b := range bothBindings {
			for _, st := range styles {
				for _, k := range []int{1, 2, 3} {
					t.Run(fmt.Sprintf("%s/%s/%s/%d", v, b, st, k), func(t *testing.T) {
						synctest.Test(t, func(t *testing.T) {
							agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(b), a2atest.WithCumulativeMessage(),
								a2atest.WithStyle(st), a2atest.WithScript(cumulativeScript()...),
								a2atest.WithFaults(a2atest.CutAfterEvents(k+1), a2atest.CutAfterEvents(k), a2atest.CutAfterBytes(200)))
							s := clientOn(t, agent, v, b, stream.WithHumanInput(&pollAnswer{text: "Tuesday"})).Send(background(), hello())
							got, err := drain(t, s)
							require.NoError(t, err)
							server := requireSameAsServer(t, agent, s, got)
							requireMessagesAsServer(t, server, s, got)
						})
					})
				}
			}
		}
	}
}

// A cumulative agent that fails: the failed status carries the whole
// message, and the terminal error's task holds it in its last version.
func TestCumulativeMessageInAFailedEnding(t *testing.T) {
	for _, v := range versions {
		for _, b := range bothBindings {
			t.Run(string(v)+"/"+string(b), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(b), a2atest.WithCumulativeMessage(),
						a2atest.WithScript(a2atest.Working("Trying "), a2atest.Pause(tick), a2atest.Chunk("a1", "hard", false, false),
							a2atest.Pause(tick), a2atest.Finish(a2a.StateFailed, ", but failed.")),
						a2atest.WithFaults(a2atest.CutAfterEvents(2)))
					s := clientOn(t, agent, v, b).Send(background(), hello())
					got, err := drain(t, s)
					var failed *terminal.FailedError
					require.ErrorAs(t, err, &failed)
					server := requireSameAsServer(t, agent, s, got)
					requireMessagesAsServer(t, server, s, got)
					require.Equal(t, server.Status.Message.Text(), failed.Task.Status.Message.Text())
					state, ok := terminalState(err)
					require.True(t, ok)
					require.Equal(t, a2a.StateFailed, state)
					require.Equal(t, failed.Task.Status.Message.Text(), stream.EndingOf(err).Task.Status.Message.Text())
				})
			})
		}
	}
}

// Subscribe to a cumulative task already under way (another process sent
// the message): the first Task shows the message so far, later statuses
// revise it, and the application ends with the server's version.
func TestSubscribeToACumulativeTaskRevisesTheMessageSoFar(t *testing.T) {
	for _, v := range versions {
		for _, b := range bothBindings {
			t.Run(string(v)+"/"+string(b), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(b), a2atest.WithCumulativeMessage(),
						a2atest.WithScript(a2atest.Working("a "), a2atest.Pause(tick), a2atest.Chunk("a1", "b ", false, false),
							a2atest.Pause(tick), a2atest.Chunk("a1", "c ", true, false), a2atest.Pause(tick), a2atest.Finish(a2a.StateCompleted, "d")),
						a2atest.WithFaults(a2atest.Fault{}, a2atest.CutAfterEvents(2)))
					c := clientOn(t, agent, v, b)
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
					requireMessagesAsServer(t, server, s, got)
				})
			})
		}
	}
}

// A live stream (no gap, no replay) in which a status message grows, is
// rewritten shorter, gains a data part, and a Message event grows too: each
// version is yielded once; Extends and Added are exact; Task holds the last
// versions once.
func TestLiveRevisionsRewriteAndAddParts(t *testing.T) {
	data := a2a.Part{Data: []byte(`{"x":1}`)}
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
					if !r.isSend() {
						jsonRPCError(w, r.id, a2a.CodeTaskNotFound, "no")
						return
					}
					sseHeaders(w)
					sseEvent(w, r.id, v, taskWith(a2a.StateSubmitted, []*a2a.Message{r.msg}))
					for _, ev := range []a2a.Event{
						statusEvent(v, a2a.StateWorking, agentMsgParts("m-1", a2a.TextPart("Hello wor"))),
						statusEvent(v, a2a.StateWorking, agentMsgParts("m-1", a2a.TextPart("Hello world"))),
						statusEvent(v, a2a.StateWorking, agentMsgParts("m-1", a2a.TextPart("Hi"))),
						statusEvent(v, a2a.StateWorking, agentMsgParts("m-1", a2a.TextPart("Hi"), data)),
						agentMsgParts("m-2", a2a.TextPart("A")),
						agentMsgParts("m-2", a2a.TextPart("AB")),
						statusEvent(v, a2a.StateCompleted, agentMsgParts("m-1", a2a.TextPart("Hi"), data, a2a.TextPart("!"))),
					} {
						sseEvent(w, r.id, v, ev)
					}
				})
				s := handlerClient(t, srv, v).Send(bounded(t), hello())
				got, err := collectAll(t, s)
				require.NoError(t, err)
				rs := revisionsOf(got)
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
func TestNoRevisionOfTheUsersOwnMessage(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
					if !r.isSend() {
						jsonRPCError(w, r.id, a2a.CodeTaskNotFound, "no")
						return
					}
					echo := r.msg.Clone()
					echo.Parts = []a2a.Part{a2a.TextPart("HELLO (normalized)")}
					echo.TaskID, echo.ContextID = "t-1", "c-1"
					sseHeaders(w)
					sseEvent(w, r.id, v, taskWith(a2a.StateSubmitted, []*a2a.Message{echo}))
					sseEvent(w, r.id, v, statusEvent(v, a2a.StateWorking, nil))
					sseEvent(w, r.id, v, statusEvent(v, a2a.StateCompleted, agentMsgParts("m-1", a2a.TextPart("ok"))))
				})
				s := handlerClient(t, srv, v).Send(bounded(t), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				require.Empty(t, revisionsOf(got))
				require.Equal(t, "ok", got.shown["m-1"])
			})
		})
	}
}

// The human-input hook of a cumulative agent is asked with the prompt in
// its last version (the whole turn's message, as the server holds it).
func TestHookIsAskedWithTheCumulativePromptsLastVersion(t *testing.T) {
	for _, v := range versions {
		for _, f := range []a2atest.Fault{{}, a2atest.CutAfterEvents(4), a2atest.CutAfterEvents(5)} {
			t.Run(string(v)+"/"+f.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithCumulativeMessage(),
						a2atest.WithScript(cumulativeScript()...), a2atest.WithFaults(f))
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

// revisionsOf returns the revisions the stream yielded.
func revisionsOf(got *collected) []*a2a.MessageRevision {
	var rs []*a2a.MessageRevision
	for _, ev := range got.events {
		if r, ok := ev.(*a2a.MessageRevision); ok {
			rs = append(rs, r)
		}
	}
	return rs
}

// cumulativeScript is a two-turn script for an agent WithCumulativeMessage:
// the first turn's message grows over several steps and asks a question;
// the second grows again and completes.
func cumulativeScript() []a2atest.Step {
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

// collectAll drains s like drain, but checks revisions part by part (drain
// compares texts, which a revision that adds a data part leaves equal).
func collectAll(t *testing.T, s *stream.Stream) (*collected, error) {
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
