package stream_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// A full replay of replaced versions delivers no part of them again: a
// version replaced and then restored ("x", "+" | "x", "y": the replayed "+"
// belongs to the replaced version), and two replaced versions that start
// alike before the current one ("a", "b" | "a", "c" | "z": the replayed "c"
// is not new).
func TestReplayOfReplacedVersionsIsNotDeliveredAgain(t *testing.T) {
	cases := []struct {
		name   string
		script []a2atest.Step
		cut    int // the send carries the task and the chunks before the cut
		want   []string
	}{
		{"a version restored after its append", []a2atest.Step{
			a2atest.Chunk("draft", "x", false, false),
			a2atest.Chunk("draft", "+", true, false),
			a2atest.Chunk("draft", "x", false, false),
			a2atest.Chunk("draft", "y", true, false),
			a2atest.Pause(tick), a2atest.Chunk("notes", "z", false, true),
			a2atest.Pause(tick), a2atest.Finish(a2a.StateCompleted, ""),
		}, 5, []string{"x", "+", "x", "y"}},
		{"two replaced versions starting alike", []a2atest.Step{
			a2atest.Chunk("draft", "a", false, false),
			a2atest.Chunk("draft", "b", true, false),
			a2atest.Chunk("draft", "a", false, false),
			a2atest.Chunk("draft", "c", true, false),
			a2atest.Chunk("draft", "z", false, false),
			a2atest.Pause(tick), a2atest.Chunk("draft", "!", true, true),
			a2atest.Pause(tick), a2atest.Finish(a2a.StateCompleted, ""),
		}, 6, []string{"a", "b", "a", "c", "z", "!"}},
	}
	for _, v := range versions {
		for _, c := range cases {
			t.Run(string(v)+"/"+c.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.FullReplay),
						a2atest.WithScript(c.script...), a2atest.WithFaults(a2atest.CutAfterEvents(c.cut)))
					s := newClient(t, agent, v).Send(bounded(t), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					require.Equal(t, 1, resubscribes(agent))
					require.Equal(t, c.want, deliveredParts(got)["draft"], "each part of draft once")
					requireSameAsServer(t, agent, s, got)
				})
			})
		}
	}
}

// A cumulative-replacement agent: each event replaces the artifact with a
// longer text. A full replay of all versions delivers nothing again.
func TestFullReplayOfCumulativeReplacementsDeliversNothingAgain(t *testing.T) {
	const n = 300
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var script []a2atest.Step
				text := ""
				for i := range n {
					text += fmt.Sprintf("w%d ", i)
					script = append(script, a2atest.Chunk("a1", text, false, false))
				}
				script = append(script, a2atest.Pause(tick), a2atest.Chunk("a1", text+"end", false, true),
					a2atest.Pause(tick), a2atest.Finish(a2a.StateCompleted, ""))
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.FullReplay),
					a2atest.WithScript(script...), a2atest.WithFaults(a2atest.CutAfterEvents(n+1)))
				s := newClient(t, agent, v).Send(bounded(t), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				require.Equal(t, n+1, partsDelivered(got), "each version once")
				requireSameAsServer(t, agent, s, got)
			})
		})
	}
}

// pastRetiredCap runs TestFullReplayBeyondTheRetiredVersionsCap, which takes
// minutes under the race detector; CI passes it without the race detector.
var pastRetiredCap = flag.Bool("replay.pastcap", false, "run TestFullReplayBeyondTheRetiredVersionsCap (minutes under the race detector)")

// A full replay across more than 65,536 replaced versions: the README says
// the oldest are forgotten and taken as real replacements. Measure what
// that costs: how many parts are delivered again.
func TestFullReplayBeyondTheRetiredVersionsCap(t *testing.T) {
	if !*pastRetiredCap {
		t.Skip("takes minutes under the race detector: run with -replay.pastcap (CI does, without the race detector)")
	}
	const n = 70_000
	v := a2a.V10
	synctest.Test(t, func(t *testing.T) {
		var script []a2atest.Step
		for i := range n {
			script = append(script, a2atest.Chunk("a1", fmt.Sprintf("version %d", i), false, false))
		}
		script = append(script, a2atest.Pause(tick), a2atest.Chunk("a1", "last", false, true),
			a2atest.Pause(tick), a2atest.Finish(a2a.StateCompleted, ""))
		agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.FullReplay),
			a2atest.WithScript(script...), a2atest.WithFaults(a2atest.CutAfterEvents(n+1)))
		s := newClient(t, agent, v).Send(bounded(t), hello())
		got, err := drain(t, s)
		require.NoError(t, err)
		requireSameAsServer(t, agent, s, got)
		// Documented: versions beyond the cap may be delivered again. At most
		// the forgotten ones (n - 65,536) should be.
		require.LessOrEqual(t, partsDelivered(got), n+1+(n-65_536),
			"only the forgotten versions may come again, not everything after them")
	})
}

// A live-only server: the send is cut, the resubscribe brings the prompt,
// the reply's own stream then truly replaces the artifact with an earlier
// version of it. That replacement is not a replay.
func TestRevertToAnEarlierVersionAfterTheReplyIsAReplacement(t *testing.T) {
	for _, v := range versions {
		for _, revert := range []struct {
			name  string
			parts []string
		}{
			{"to a replaced version", []string{"draft 1"}},
			{"to a prefix of the current", []string{"part 1"}},
		} {
			t.Run(string(v)+"/"+revert.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					task := func(st a2a.TaskState, art []string) *a2a.Task {
						return &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: st,
							Message: promptIf(st)}, Artifacts: []a2a.Artifact{{ID: "a1", Parts: textParts(art...)}}}
					}
					srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
						switch {
						case r.isSend() && (r.msg == nil || r.msg.TaskID == ""):
							sseHeaders(w)
							sseEvent(w, r.id, v, firstTask)
							sseEvent(w, r.id, v, artEvent("a1", false, "draft 1"))
							sseEvent(w, r.id, v, artEvent("a1", false, "part 1", "part 2"))
							cutHere()
						case r.isSubscribe():
							sseHeaders(w)
							sseEvent(w, r.id, v, statusEvent(v, a2a.StateInputRequired, promptIf(a2a.StateInputRequired)))
						case r.isGet():
							unaryTask(w, r.id, v, task(a2a.StateInputRequired, []string{"part 1", "part 2"}))
						case r.isSend():
							sseHeaders(w)
							sseEvent(w, r.id, v, statusEvent(v, a2a.StateWorking, agentMessage("m-w2", "revising")))
							sseEvent(w, r.id, v, artEvent("a1", false, revert.parts...))
							sseEvent(w, r.id, v, statusEvent(v, a2a.StateCompleted, nil))
						default:
							jsonRPCError(w, r.id, a2a.CodeInternalError, "unexpected request")
						}
					})
					hook := &recorder{answers: []string{"go back"}}
					s := handlerClient(t, srv, v, stream.WithHumanInput(hook)).Send(bounded(t), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					require.Len(t, hook.requests, 1)
					require.Equal(t, strings.Join(revert.parts, ""), got.text("a1"),
						"the agent's replacement after the reply is delivered")
					require.Equal(t, textParts(revert.parts...), s.Task().Artifact("a1").Parts)
				})
			})
		}
	}
}

// The server's clock goes back between the cut and the final status (a
// replica with a skewed clock). A snapshot-first server sends the completed
// task; the stream must not end in *reconnect.Error (no lost ending).
func TestSnapshotAfterTheServersClockWentBackKeepsTheEnding(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				done := &a2a.Task{ID: "t-1", ContextID: "c-1",
					Status:    a2a.TaskStatus{State: a2a.StateCompleted, Message: agentMessage("m-done", "done"), Timestamp: t0.Add(-time.Minute)},
					Artifacts: []a2a.Artifact{firstChunk.Artifact}}
				srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
					switch {
					case r.n == 1:
						sseHeaders(w)
						sseEvent(w, r.id, v, firstTask)
						sseEvent(w, r.id, v, tsStatus(v, a2a.StateWorking, agentMessage("m-w", "on it"), t0))
						sseEvent(w, r.id, v, firstChunk)
						cutHere()
					case r.isSubscribe():
						// js-0.3.14: a terminal task gets the snapshot alone.
						sseHeaders(w)
						sseEvent(w, r.id, v, done)
					case r.isGet():
						unaryTask(w, r.id, v, done)
					default:
						jsonRPCError(w, r.id, a2a.CodeInternalError, "unexpected request")
					}
				})
				s := handlerClient(t, srv, v).Send(bounded(t), hello())
				_, err := drain(t, s)
				require.NoError(t, err, "got %T: %v", err, err)
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
			})
		})
	}
}

// Timestamps only on some events: the live status before the cut has one,
// the new ones after the resubscribe have none (or an equal one). New
// statuses with new message IDs must be delivered.
func TestNewStatusesWithoutTimestampsAfterATimestampedOneAreDelivered(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name string
		at   time.Time
	}{
		{"absent", time.Time{}},
		{"equal", t0},
		{"newer", t0.Add(time.Second)},
	}
	for _, v := range versions {
		for _, c := range cases {
			t.Run(string(v)+"/"+c.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
						switch {
						case r.n == 1:
							sseHeaders(w)
							sseEvent(w, r.id, v, firstTask)
							sseEvent(w, r.id, v, tsStatus(v, a2a.StateWorking, agentMessage("m-1", "step 1"), t0))
							cutHere()
						case r.isSubscribe():
							// Live only: the new events.
							sseHeaders(w)
							sseEvent(w, r.id, v, tsStatus(v, a2a.StateWorking, agentMessage("m-2", "step 2"), c.at))
							sseEvent(w, r.id, v, firstChunk)
							sseEvent(w, r.id, v, tsStatus(v, a2a.StateCompleted, agentMessage("m-3", "done"), c.at))
						case r.isGet():
							unaryTask(w, r.id, v, &a2a.Task{ID: "t-1", ContextID: "c-1",
								Status:    a2a.TaskStatus{State: a2a.StateCompleted, Message: agentMessage("m-3", "done"), Timestamp: c.at},
								Artifacts: []a2a.Artifact{firstChunk.Artifact}})
						default:
							jsonRPCError(w, r.id, a2a.CodeInternalError, "unexpected request")
						}
					})
					s := handlerClient(t, srv, v).Send(bounded(t), hello())
					got, err := drain(t, s)
					require.NoError(t, err)
					require.Equal(t, []string{"m-1", "m-2", "m-3"}, got.messages)
					require.Equal(t, "kept", got.text("a1"))
				})
			})
		}
	}
}

// A full-replay server: while the client is away the agent truly replaces
// the artifact with a prefix of itself ([x y] becomes [x]) and appends z.
// Inside the replay window the truncation is taken for a replay, z is
// appended to [x y], and the get-task that closes the gap heals the artifact
// by delivering x and z again. README: with replaying servers no part is
// ever delivered twice.
func TestTruncationDuringTheGapIsHealedByTheGetTask(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.FullReplay), a2atest.WithScript(
					a2atest.ArtifactChunk(a2a.Artifact{ID: "a1", Parts: textParts("x", "y")}, false, false),
					a2atest.Pause(tick), a2atest.ArtifactChunk(a2a.Artifact{ID: "a1", Parts: textParts("x")}, false, false),
					a2atest.Chunk("a1", "z", true, true),
					a2atest.Pause(tick), a2atest.Finish(a2a.StateCompleted, "")),
					a2atest.WithFaults(a2atest.CutAfterEvents(2)))
				s := newClient(t, agent, v).Send(bounded(t), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				requireSameAsServer(t, agent, s, got)
				require.Equal(t, []string{"x", "y", "x", "z"}, deliveredParts(got)["a1"])
			})
		})
	}
}

func promptIf(st a2a.TaskState) *a2a.Message {
	if st == a2a.StateInputRequired {
		return agentMessage("m-prompt", "Which version?")
	}
	return nil
}

func tsStatus(v a2a.Version, state a2a.TaskState, msg *a2a.Message, at time.Time) *a2a.StatusUpdate {
	e := statusEvent(v, state, msg)
	e.Status.Timestamp = at
	return e
}

// A full-replay server resends an artifact that was really replaced (draft:
// v1, then v2) and one built by appends (notes: x, +). Neither is delivered
// again.
func TestFullReplayAcrossAnArtifactReplacement(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				// The send carries the task, working, v1, v2, x and + (six
				// events) and is cut after "+".
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.FullReplay), a2atest.WithScript(
					a2atest.Working(""),
					a2atest.Chunk("draft", "v1", false, false),
					a2atest.Chunk("draft", "v2", false, false),
					a2atest.Chunk("notes", "x", false, false),
					a2atest.Chunk("notes", "+", true, false),
					a2atest.Pause(tick), a2atest.Chunk("notes", "y", true, true),
					a2atest.Pause(tick), a2atest.Finish(a2a.StateCompleted, "")),
					a2atest.WithFaults(a2atest.CutAfterEvents(6)))
				s := newClient(t, agent, v).Send(bounded(t), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				requireSameAsServer(t, agent, s, got)
				require.Equal(t, 1, resubscribes(agent))

				delivered := map[string][]string{}
				for _, ev := range got.events {
					if u, ok := ev.(*a2a.ArtifactUpdate); ok {
						for _, p := range u.Artifact.Parts {
							delivered[u.Artifact.ID] = append(delivered[u.Artifact.ID], p.Text)
						}
					}
				}
				require.Equal(t, []string{"v1", "v2"}, delivered["draft"], "v1 and v2 once each, v1 never after v2")
				require.Equal(t, []string{"x", "+", "y"}, delivered["notes"], "each part of notes once")
				require.Equal(t, 5, partsDelivered(got))
			})
		})
	}
}

// More message IDs than the ledger's capped ID set holds, then a snapshot:
// each message is delivered once.
func TestManyMessagesAndASnapshotDeliverEachOnce(t *testing.T) {
	t.Parallel()
	const n = 5000
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				script := []a2atest.Step{a2atest.Working("")}
				for i := range n {
					script = append(script, a2atest.Say(fmt.Sprintf("message %d", i)))
				}
				script = append(script, a2atest.Pause(2*time.Second), a2atest.Finish(a2a.StateCompleted, ""))
				// Cut after the task, working and the 5,000 messages; the
				// resubscribe opens with a snapshot holding the whole history.
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.SnapshotFirst),
					a2atest.WithScript(script...), a2atest.WithFaults(a2atest.CutAfterEvents(n+2)))
				s := newClient(t, agent, v).Send(bounded(t), hello())
				got, err := drain(t, s) // drain fails on a message delivered twice
				require.NoError(t, err)
				requireSameAsServer(t, agent, s, got)
				require.Equal(t, 1, resubscribes(agent))
				messages := 0
				for _, ev := range got.events {
					if _, ok := ev.(*a2a.Message); ok {
						messages++
					}
				}
				require.Equal(t, n, messages, "each agent message delivered once")
				require.Len(t, s.Task().History, n+1, "the user's message and the agent's, once each")
			})
		})
	}
}

// More statuses than the ledger's capped status set holds, then a full
// replay: each status is delivered once.
func TestManyStatusesAndAFullReplayDeliverEachOnce(t *testing.T) {
	const n = 300
	script := func() []a2atest.Step {
		var steps []a2atest.Step
		for i := range n {
			steps = append(steps, a2atest.Working(fmt.Sprintf("step %d", i)))
		}
		return append(steps, a2atest.Pause(tick), a2atest.Finish(a2a.StateCompleted, ""))
	}
	run := func(t *testing.T, v a2a.Version, faults ...a2atest.Fault) []a2a.TaskState {
		agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.FullReplay),
			a2atest.WithScript(script()...), a2atest.WithFaults(faults...))
		s := newClient(t, agent, v).Send(bounded(t), hello())
		got, err := drain(t, s)
		require.NoError(t, err)
		requireSameAsServer(t, agent, s, got)
		return got.states
	}
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				uncut := run(t, v)
				require.Len(t, uncut, n+2, "submitted, 300 working, completed")
				// Cut after the task and the 300 statuses; the resubscribe
				// replays everything from the start.
				cut := run(t, v, a2atest.CutAfterEvents(n+1))
				require.Equal(t, len(uncut), len(cut), "as many status updates as without the cut")
				require.Equal(t, uncut, cut)
				working := false
				for i, st := range cut {
					working = working || st == a2a.StateWorking
					require.False(t, working && st == a2a.StateSubmitted, "status %d goes back to submitted", i)
				}
			})
		})
	}
}

// The reply's stream is cut right after its headers; the task has moved on
// from input-required to working when the stream resubscribes. That working
// status is new although a working status with the same key was seen before
// the prompt.
func TestStatusChangeInsideTheReplayWindowIsDelivered(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.SnapshotFirst), a2atest.WithScript(
					a2atest.Working(""),
					a2atest.Pause(tick), a2atest.Chunk("a1", "draft ", false, false),
					a2atest.Pause(tick), a2atest.AskInput("Which dates?"),
					a2atest.Working(""),
					a2atest.Pause(time.Second), a2atest.Chunk("a1", "final", true, false),
					a2atest.Pause(tick), a2atest.Chunk("a2", "notes", false, true),
					a2atest.Pause(tick), a2atest.Finish(a2a.StateCompleted, "done")),
					a2atest.WithFaults(a2a0(), a2atest.CutAfterEvents(0)))
				hook := &recorder{answers: []string{"Oct 10-17"}}
				s := newClient(t, agent, v, stream.WithHumanInput(hook)).Send(bounded(t), hello())
				defer s.Close()
				var states []a2a.TaskState
				asked := false
				artifactsAfterPrompt := 0
				for s.Next() {
					switch e := s.Event().(type) {
					case *a2a.StatusUpdate:
						states = append(states, e.Status.State)
						asked = asked || e.Status.State == a2a.StateInputRequired
					case *a2a.ArtifactUpdate:
						if asked {
							artifactsAfterPrompt++
							require.Equal(t, a2a.StateWorking, s.Task().Status.State,
								"artifact %s arrives while the task works, not while it waits for input", e.Artifact.ID)
						}
					}
				}
				require.NoError(t, s.Err())
				require.Len(t, hook.requests, 1)
				require.Len(t, followUps(agent), 1)
				require.Equal(t, 1, resubscribes(agent), "the reply's stream was cut once")
				require.Equal(t, 2, artifactsAfterPrompt)
				i := indexOfState(states, a2a.StateInputRequired)
				require.GreaterOrEqual(t, i, 0)
				require.Contains(t, states[i+1:], a2a.StateWorking, "working is delivered after input-required: %v", states)
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
			})
		})
	}
}

// Two status messages without messageId, in the same state, across a
// replay: each is delivered once.
func TestStatusMessagesWithoutIDAreDeliveredOnceAcrossAReplay(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				task := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateSubmitted}}
				step1 := withoutMessageID(t, v, statusEvent(v, a2a.StateWorking, agentMessage("", "step 1")))
				step2 := withoutMessageID(t, v, statusEvent(v, a2a.StateWorking, agentMessage("", "step 2")))
				srv := newScriptedServer(func(w http.ResponseWriter, r scriptedReq) {
					if r.n != 1 {
						jsonRPCError(w, r.id, a2a.CodeInternalError, "unexpected request")
						return
					}
					sseHeaders(w)
					sseEvent(w, r.id, v, task)
					sseRawResult(w, r.id, step1)
					sseRawResult(w, r.id, step2)
					sseEvent(w, r.id, v, statusEvent(v, a2a.StateCompleted, nil))
				})
				// Not drain: it takes message IDs for identities, and these
				// messages have none.
				s := handlerClient(t, srv, v).Send(bounded(t), hello())
				defer s.Close()
				var texts []string
				for s.Next() {
					if u, ok := s.Event().(*a2a.StatusUpdate); ok && u.Status.Message != nil {
						texts = append(texts, u.Status.Message.Text())
					}
				}
				require.NoError(t, s.Err())
				require.Equal(t, []string{"step 1", "step 2"}, texts, "both status messages are delivered")
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
				require.Len(t, srv.requests(), 1)
			})
		})
	}
}

// sseRawResult writes one stream result given as raw JSON.
func sseRawResult(w http.ResponseWriter, id json.RawMessage, raw []byte) {
	fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", id, raw)
	w.(http.Flusher).Flush()
}

// withoutMessageID marshals ev and removes every empty messageId.
func withoutMessageID(t *testing.T, v a2a.Version, ev a2a.Event) []byte {
	t.Helper()
	raw, err := a2a.Codec{Version: v}.EncodeEvent(ev)
	require.NoError(t, err)
	raw = bytes.ReplaceAll(raw, []byte(`"messageId":"",`), nil)
	require.NotContains(t, string(raw), "messageId")
	return raw
}
