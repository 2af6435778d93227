package stream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// polledAgent is an agent that cannot stream (it refuses streaming calls
// with -32004 as @a2a-js/sdk does) whose get-task answers poll(n) for the
// n-th poll, from 0.
func polledAgent(w wire, poll func(n int) *a2a.Task) *wireAgent {
	refuse := func(ww *wireWriter, c wireCall) {
		ww.rpcError(a2a.CodeUnsupportedOperation, "Streaming is not supported.")
	}
	return newWireAgent(w, map[callKind]func(w *wireWriter, c wireCall){
		kindStream:    refuse,
		kindSubscribe: refuse,
		kindSend: func(ww *wireWriter, c wireCall) {
			ww.result(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateSubmitted}})
		},
		kindGet: func(ww *wireWriter, c wireCall) { ww.task(poll(c.n)) },
	})
}

// dataOrders are one JSON object written in several key orders and
// spacings.
var dataOrders = []string{
	`{"a":1,"b":{"x":1,"y":[1,2]},"c":"z"}`,
	`{"c":"z","b":{"y":[1,2],"x":1},"a":1}`,
	`{ "b" : { "x" : 1 , "y" : [ 1 , 2 ] } , "a" : 1 , "c" : "z" }`,
	`{"b":{"y":[1,2],"x":1},"c":"z","a":1.0}`,
}

func dataPart(i int) a2a.Part {
	return a2a.Part{Data: json.RawMessage(dataOrders[i%len(dataOrders)])}
}

// countKinds counts the events of each type and each message ID delivered.
// messageTexts counts the texts of the messages the application was
// given, as Message events and in statuses.
func messageTexts(col *collected) map[string]int {
	texts := map[string]int{}
	for _, ev := range col.events {
		switch e := ev.(type) {
		case *a2a.Message:
			texts[e.Text()]++
		case *a2a.StatusUpdate:
			if e.Status.Message != nil {
				texts[e.Status.Message.Text()]++
			}
		}
	}
	return texts
}

func countKinds(col *collected) (artifacts, statuses, messages, revisions int) {
	for _, ev := range col.events {
		switch e := ev.(type) {
		case *a2a.ArtifactUpdate:
			artifacts++
		case *a2a.StatusUpdate:
			statuses++
			if e.Status.Message != nil {
				messages++
			}
		case *a2a.Message:
			messages++
		case *a2a.MessageRevision:
			revisions++
		}
	}
	return
}

// TestPolledDataKeyOrderIsNotNews: an agent whose get-task writes a
// data part's keys in another order on each poll (as a map-backed server
// does) sent its artifact and its status message once: reordered keys are
// the same part, and the same message, not a replacement or a revision.
func TestPolledDataKeyOrderIsNotNews(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := polledAgent(w, func(n int) *a2a.Task {
					msg := &a2a.Message{ID: "m-1", TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{dataPart(n)}}
					state := a2a.StateWorking
					if n >= 8 {
						state = a2a.StateCompleted
					}
					return &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: state, Message: msg},
						History:   []a2a.Message{*msg},
						Artifacts: []a2a.Artifact{{ID: "a1", Parts: []a2a.Part{a2a.TextPart("hi"), dataPart(n + 1)}}}}
				})
				col, err := drainLoose(t, agent.client(t, stream.WithPollInterval(time.Second)).Send(context.Background(), hello()))
				require.NoError(t, err)
				artifacts, _, messages, revisions := countKinds(col)
				require.Equal(t, 1, artifacts, "the artifact once: %v", col.events)
				require.Equal(t, 1, messages, "the status message once")
				require.Zero(t, revisions, "no revision of a message whose keys moved")
			})
		})
	}
}

// TestPolledDataKeyOrderStalls: a polled task that stays working
// and only reorders a data part's keys shows nothing new: it ends in a
// *stream.StalledError at the stall limit.
func TestPolledDataKeyOrderStalls(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := polledAgent(w, func(n int) *a2a.Task {
					msg := &a2a.Message{ID: "m-1", TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{dataPart(n)}}
					return &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking, Message: msg},
						History:   []a2a.Message{*msg},
						Artifacts: []a2a.Artifact{{ID: "a1", Parts: []a2a.Part{dataPart(n + 1)}}}}
				})
				ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
				defer cancel()
				start := time.Now()
				col, err := drainLoose(t, agent.client(t, stream.WithPollInterval(time.Second), stream.WithStallTimeout(10*time.Second)).Send(ctx, hello()))
				var se *stream.StalledError
				require.True(t, errors.As(err, &se), "ended in %v after %s, having yielded %d events", err, time.Since(start), len(col.events))
				require.LessOrEqual(t, time.Since(start), 12*time.Second)
			})
		})
	}
}

// TestPolledMessagesWithoutIDOnce: a server that lists agent
// messages without a messageId in its history, on every poll, has each
// delivered once; and a task that shows only those, unchanged, stalls.
func TestPolledMessagesWithoutIDOnce(t *testing.T) {
	for _, w := range wires() {
		for _, finish := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/finishes=%v", w, finish), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := polledAgent(w, func(n int) *a2a.Task {
						hist := []a2a.Message{
							{TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("hello")}},
							{TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("step 1")}},
						}
						if n >= 2 {
							hist = append(hist, a2a.Message{TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("step 2")}})
						}
						state := a2a.StateWorking
						if finish && n >= 6 {
							state = a2a.StateCompleted
						}
						return &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: state}, History: hist}
					})
					ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
					defer cancel()
					col, err := drainLoose(t, agent.client(t, stream.WithPollInterval(time.Second), stream.WithStallTimeout(10*time.Second)).Send(ctx, hello()))
					texts := messageTexts(col)
					require.Equal(t, 1, texts["step 1"], "step 1 once: %v", texts)
					require.Equal(t, 1, texts["step 2"], "step 2 once: %v", texts)
					require.Zero(t, texts["hello"], "the user's own message is not an event")
					if finish {
						require.NoError(t, err)
					} else {
						var se *stream.StalledError
						require.ErrorAs(t, err, &se)
					}
				})
			})
		}
	}
}

// TestPolledSnapshotLagsDelivered: a poll answered by a lagging
// replica (an older status, by its timestamp, and an artifact shorter than
// delivered) neither takes back nor re-delivers what was delivered: each
// part reaches the application once and the end equals the server's task.
func TestPolledSnapshotLagsDelivered(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				t0 := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
				final := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateCompleted, Timestamp: t0.Add(4 * time.Second)},
					Artifacts: []a2a.Artifact{{ID: "a1", Parts: textParts("p1 ", "p2 ", "p3")}}}
				agent := polledAgent(w, func(n int) *a2a.Task {
					switch n {
					case 0:
						return &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking, Timestamp: t0.Add(2 * time.Second)},
							Artifacts: []a2a.Artifact{{ID: "a1", Parts: textParts("p1 ", "p2 ")}}}
					case 1: // a replica that lags: an older status, a shorter artifact
						return &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking, Timestamp: t0.Add(1 * time.Second)},
							Artifacts: []a2a.Artifact{{ID: "a1", Parts: textParts("p1 ")}}}
					}
					return final
				})
				col, err := drainLoose(t, agent.client(t, stream.WithPollInterval(time.Second)).Send(context.Background(), hello()))
				require.NoError(t, err)
				col.requireArtifacts(t, final.Artifacts, "the end")
				require.Equal(t, map[string]int{"p1 ": 1, "p2 ": 1, "p3": 1}, partCounts(col), "each part once: %s", describeEvents(col.events))
			})
		})
	}
}

// TestPolledOlderStatusIsNotNews: a poll whose status is older,
// by the server's timestamps, than the newest status seen is a replay (a
// lagging replica): its state is not delivered again.
func TestPolledOlderStatusIsNotNews(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				t0 := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
				art := []a2a.Artifact{{ID: "a1", Parts: textParts("p1 ")}}
				agent := polledAgent(w, func(n int) *a2a.Task {
					switch n {
					case 0:
						return &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking, Timestamp: t0.Add(2 * time.Second)}, Artifacts: art}
					case 1: // a replica that lags
						return &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateSubmitted, Timestamp: t0}, Artifacts: art}
					}
					return &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateCompleted, Timestamp: t0.Add(4 * time.Second)}, Artifacts: art}
				})
				col, err := drainLoose(t, agent.client(t, stream.WithPollInterval(time.Second)).Send(context.Background(), hello()))
				require.NoError(t, err)
				var after []a2a.TaskState
				for i, s := range col.states {
					if s == a2a.StateWorking {
						after = col.states[i+1:]
					}
				}
				require.Equal(t, []a2a.TaskState{a2a.StateCompleted}, after, "after working only completed: %s", describeEvents(col.events))
			})
		})
	}
}

// TestResubscribeSnapshotLagsDelivered: a subscription whose first
// Task lags what was delivered (an older status, by its timestamp, and an
// artifact shorter than delivered), then goes on live, re-delivers no part.
func TestResubscribeSnapshotLagsDelivered(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				t0 := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
				st := func(s a2a.TaskState, sec int) a2a.TaskStatus {
					return a2a.TaskStatus{State: s, Timestamp: t0.Add(time.Duration(sec) * time.Second)}
				}
				chunk := func(text string, app, last bool) *a2a.ArtifactUpdate {
					return &a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Artifact: a2a.Artifact{ID: "a1", Parts: textParts(text)}, Append: app, LastChunk: last}
				}
				final := &a2a.Task{ID: "t-1", ContextID: "c-1", Status: st(a2a.StateCompleted, 9), Artifacts: []a2a.Artifact{{ID: "a1", Parts: textParts("p1 ", "p2 ", "p3")}}}
				agent := newWireAgent(w, map[callKind]func(w *wireWriter, c wireCall){
					kindStream: func(ww *wireWriter, c wireCall) {
						ww.sse()
						ww.event(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: st(a2a.StateSubmitted, 0)})
						ww.event(&a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: st(a2a.StateWorking, 2)})
						ww.event(chunk("p1 ", false, false))
						ww.event(chunk("p2 ", true, false))
						panic(http.ErrAbortHandler)
					},
					kindSubscribe: func(ww *wireWriter, c wireCall) {
						ww.sse()
						ww.event(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: st(a2a.StateWorking, 1), Artifacts: []a2a.Artifact{{ID: "a1", Parts: textParts("p1 ")}}})
						ww.event(chunk("p3", true, true))
						ww.event(&a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: st(a2a.StateCompleted, 9), Final: true})
					},
					kindGet: func(ww *wireWriter, c wireCall) { ww.task(final) },
				})
				col, err := drainLoose(t, agent.client(t, stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: time.Second})).Send(context.Background(), hello()))
				require.NoError(t, err)
				col.requireArtifacts(t, final.Artifacts, "the end")
				require.Equal(t, map[string]int{"p1 ": 1, "p2 ": 1, "p3": 1}, partCounts(col), "each part once: %s", describeEvents(col.events))
			})
		})
	}
}

// partCounts counts how many times each text part was delivered.
func partCounts(col *collected) map[string]int {
	delivered := map[string]int{}
	for _, ev := range col.events {
		if u, ok := ev.(*a2a.ArtifactUpdate); ok {
			for _, p := range u.Artifact.Parts {
				delivered[p.Text]++
			}
		}
	}
	return delivered
}

// resubscribeSnapshot runs a stream that drops after a status message, a
// Message and an artifact, then resubscribes to a snapshot-first server
// whose Task lists them again; reorder writes the artifact's data part
// with its keys in another order, and unnamed gives the messages no ID.
func resubscribeSnapshot(t *testing.T, reorder, unnamed bool) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				noID := func(text string) *a2a.Message {
					m := &a2a.Message{TaskID: "t-1", ContextID: "c-1", Role: a2a.RoleAgent, Parts: textParts(text)}
					if !unnamed {
						m.ID = "id-" + text
					}
					return m
				}
				art := func(i int) a2a.Artifact {
					if !reorder {
						i = 0
					}
					return a2a.Artifact{ID: "a1", Parts: []a2a.Part{dataPart(i)}}
				}
				agent := newWireAgent(w, map[callKind]func(w *wireWriter, c wireCall){
					kindStream: func(ww *wireWriter, c wireCall) {
						ww.sse()
						ww.event(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateSubmitted}})
						ww.event(&a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking, Message: noID("step 1")}})
						ww.event(noID("note"))
						ww.event(&a2a.ArtifactUpdate{TaskID: "t-1", ContextID: "c-1", Artifact: art(0)})
						panic(http.ErrAbortHandler)
					},
					kindSubscribe: func(ww *wireWriter, c wireCall) {
						ww.sse()
						ww.event(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking, Message: noID("step 1")},
							History: []a2a.Message{*noID("step 1"), *noID("note")}, Artifacts: []a2a.Artifact{art(1)}})
						ww.event(&a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateCompleted}, Final: true})
					},
					kindGet: func(ww *wireWriter, c wireCall) {
						ww.task(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateCompleted},
							History: []a2a.Message{*noID("step 1"), *noID("note")}, Artifacts: []a2a.Artifact{art(2)}})
					},
				})
				col, err := drainLoose(t, agent.client(t, stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: time.Second})).Send(context.Background(), hello()))
				require.NoError(t, err)
				artifacts, _, _, revisions := countKinds(col)
				require.Equal(t, 1, artifacts, "the artifact once: %s", describeEvents(col.events))
				require.Zero(t, revisions, "%s", describeEvents(col.events))
				texts := messageTexts(col)
				require.Equal(t, map[string]int{"step 1": 1, "note": 1}, texts, "%s", describeEvents(col.events))
			})
		})
	}
}

// TestResubscribeSnapshotControl: the same run with message IDs
// and the same key order delivers each thing once (the control).
func TestResubscribeSnapshotControl(t *testing.T) { resubscribeSnapshot(t, false, false) }

// TestResubscribeSnapshotReorderedDataKeys: a data part is a JSON
// object; the same object with its keys in another order (a map-backed
// server) is the same part, not a new version of the artifact.
func TestResubscribeSnapshotReorderedDataKeys(t *testing.T) {
	resubscribeSnapshot(t, true, false)
}

// TestResubscribeSnapshotRelistsMessagesWithoutID: messages
// without an ID that a snapshot lists again after a drop are not new.
func TestResubscribeSnapshotRelistsMessagesWithoutID(t *testing.T) {
	resubscribeSnapshot(t, false, true)
}

// TestPollRetryAfterLengthensOneWait: a poll answered 503 with
// Retry-After (seconds, or an HTTP date) makes the next poll wait that long
// instead of the poll interval, once; the polls after it keep the interval.
func TestPollRetryAfterLengthensOneWait(t *testing.T) {
	for _, w := range wires() {
		for _, form := range []string{"seconds", "date"} {
			t.Run(w.String()+"/"+form, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					var at []time.Duration
					start := time.Now()
					refuse := func(ww *wireWriter, c wireCall) {
						ww.rpcError(a2a.CodeUnsupportedOperation, "Streaming is not supported.")
					}
					agent := newWireAgent(w, map[callKind]func(w *wireWriter, c wireCall){
						kindStream:    refuse,
						kindSubscribe: refuse,
						kindSend: func(ww *wireWriter, c wireCall) {
							ww.result(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateSubmitted}})
						},
						kindGet: func(ww *wireWriter, c wireCall) {
							at = append(at, time.Since(start))
							if c.n == 1 {
								if form == "seconds" {
									ww.w.Header().Set("Retry-After", "7")
								} else {
									ww.w.Header().Set("Retry-After", time.Now().Add(7*time.Second).UTC().Format(http.TimeFormat))
								}
								ww.w.WriteHeader(http.StatusServiceUnavailable)
								return
							}
							st := a2a.StateWorking
							if c.n >= 3 {
								st = a2a.StateCompleted
							}
							ww.task(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: st}})
						},
					})
					_, err := drainLoose(t, agent.client(t, stream.WithPollInterval(time.Second)).Send(context.Background(), hello()))
					require.NoError(t, err)
					require.Len(t, at, 4)
					require.Equal(t, []time.Duration{time.Second, 2 * time.Second, 9 * time.Second, 10 * time.Second}, at, "poll times")
				})
			})
		}
	}
}

// A task that goes backwards (the server lost it and rebuilt it): working
// with [x y], then submitted with no artifact, then [x y z], completed.
// README: "Task() always equals what the deltas build"; no part twice.
func TestPolledTaskGoingBackwardsDeliversNoPartTwice(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(v, snap(a2a.StateSubmitted),
					answer(snap(a2a.StateWorking, "x", "y")),
					answer(snap(a2a.StateSubmitted)),
					answer(snap(a2a.StateWorking, "x", "y", "z")),
					answer(snap(a2a.StateCompleted, "x", "y", "z")))
				s := restClient(t, srv, v).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				require.Equal(t, "xyz", got.text("a1"))
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
				require.Equal(t, 1, srv.count("send"))
			})
		})
	}
}

// Artifacts shrink, then grow: [a b c], [a], [a d]. The shrink is the
// agent's (a truncation), delivered as a replacement; the final artifact
// is the server's.
func TestPolledArtifactShrinkingIsAReplacement(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(v, snap(a2a.StateSubmitted),
					answer(snap(a2a.StateWorking, "a", "b", "c")),
					answer(snap(a2a.StateWorking, "a")),
					answer(snap(a2a.StateWorking, "a", "d")),
					answer(snap(a2a.StateCompleted, "a", "d")))
				s := restClient(t, srv, v).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				require.Equal(t, []a2a.Part{{Text: "a"}, {Text: "d"}}, got.artifacts[got.find("a1")].Parts)
			})
		})
	}
}

// History reorders between polls: g1 g2, then g2 g1, then g1 g2 g3. Each
// agent message is delivered once ("Each message is delivered once, by
// messageId ... history alike").
func TestPolledHistoryReorderedDeliversEachMessageOnce(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g1, g2, g3 := agentMsg("g1", "one"), agentMsg("g2", "two"), agentMsg("g3", "three")
				srv := pollSeq(v, snap(a2a.StateSubmitted),
					answer(withHistory(snap(a2a.StateWorking), g1, g2)),
					answer(withHistory(snap(a2a.StateWorking), g2, g1)),
					answer(withHistory(snap(a2a.StateWorking), g1, g2, g3)),
					answer(withHistory(snap(a2a.StateCompleted), g3, g1, g2)))
				got, err := drain(t, restClient(t, srv, v).Send(background(), hello()))
				require.NoError(t, err)
				n := map[string]int{}
				for _, id := range got.messages {
					n[id]++
				}
				require.Equal(t, 1, n["g1"])
				require.Equal(t, 1, n["g2"])
				require.Equal(t, 1, n["g3"])
			})
		})
	}
}

// A server whose clock jumps back: working stamped 12:00:10, then the
// completed task stamped 12:00:05. A get-task result is the task as it is
// now, and a terminal task ends the stream ("terminal ends the stream").
func TestPolledTerminalTaskWithAnOlderTimestampEndsTheStream(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
				working := snap(a2a.StateWorking, "x")
				working.Status.Timestamp = t0.Add(10 * time.Second)
				done := snap(a2a.StateCompleted, "x", "y")
				done.Status.Timestamp = t0.Add(5 * time.Second)
				srv := pollSeq(v, snap(a2a.StateSubmitted), answer(working), answer(done))
				start := time.Now()
				s := restClient(t, srv, v, stream.WithStallTimeout(time.Minute)).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err, "the polled task is completed")
				require.Equal(t, "xy", got.text("a1"))
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
				require.Equal(t, 2*time.Second, time.Since(start))
			})
		})
	}
}

// The agent replaces an artifact and then restores its first version:
// [x], [y], [x]. A get-task result is the task as it is now: it wins every
// disagreement (dedupe.Ledger.Reconcile), a restore included.
func TestPolledArtifactRestoredToAnEarlierVersionIsTheServers(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := pollSeq(v, snap(a2a.StateSubmitted),
					answer(snap(a2a.StateWorking, "x")),
					answer(snap(a2a.StateWorking, "y")),
					answer(snap(a2a.StateWorking, "x")),
					answer(snap(a2a.StateCompleted, "x")))
				s := restClient(t, srv, v).Send(background(), hello())
				got, err := drain(t, s)
				require.NoError(t, err)
				require.Equal(t, "x", got.text("a1"), "the application holds what the server holds")
				require.Equal(t, "x", s.Task().Artifact("a1").Text())
			})
		})
	}
}

// Status messages without IDs, in the same state, poll after poll: README:
// "'step 1' then 'step 2' in the same state are both delivered", and each
// resets the stall clock.
func TestPolledStepsWithoutIDsAreDeliveredAndAreProgress(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				step := func(text string) *a2a.Task {
					tk := snap(a2a.StateWorking)
					m := agentMsg("", text)
					tk.Status.Message = m
					return tk
				}
				srv := pollSeq(v, snap(a2a.StateSubmitted),
					answer(step("step 1")), answer(step("step 1")), answer(step("step 2")), answer(step("step 2")))
				start := time.Now()
				s := restClient(t, srv, v, stream.WithStallTimeout(10*time.Second)).Send(background(), hello())
				var texts []string
				for s.Next() {
					if e, ok := s.Event().(*a2a.StatusUpdate); ok && e.Status.Message != nil {
						texts = append(texts, e.Status.Message.Text())
					}
				}
				var st *stream.StalledError
				require.ErrorAs(t, s.Err(), &st)
				require.Equal(t, []string{"step 1", "step 2"}, texts)
				require.Equal(t, 3*time.Second+10*time.Second, time.Since(start), "step 2 came with the third poll")
			})
		})
	}
}

// withHistory returns t with history hs.
func withHistory(t *a2a.Task, hs ...*a2a.Message) *a2a.Task {
	for _, m := range hs {
		t.History = append(t.History, *m)
	}
	return t
}

// TestPolledTaskOfManyArtifactsDeliversOnlyWhatChanged: a polled task of
// -polls artifacts of three parts each (500 by default, 10,000 in CI).
// Polls that bring the same task deliver nothing; a poll in which one part
// of the artifact nine tenths of the way in changed delivers exactly that
// artifact, once, as the server now holds it; the task's end comes after.
// The application's fold of what was delivered is the server's task.
func TestPolledTaskOfManyArtifactsDeliversOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	const changeAt = 3 // the poll that first shows the change
	n := *pollsSize
	changed := n * 9 / 10
	build := func(st a2a.TaskState, change bool) *a2a.Task {
		tk := manyArtifactsTask(st, n)
		if change {
			tk.Artifacts[changed].Parts[1].Text = "words the agent rewrote, "
		}
		return tk
	}
	before, after, done := build(a2a.StateWorking, false), build(a2a.StateWorking, true), build(a2a.StateCompleted, true)
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var served atomic.Int64 // the last poll answered; -1 before the first
				served.Store(-1)
				agent := polledAgent(w, func(p int) *a2a.Task {
					served.Store(int64(p))
					switch {
					case p < changeAt:
						return before
					case p < changeAt+2:
						return after
					}
					return done
				})
				s := agent.client(t, stream.WithPollInterval(time.Second), stream.WithStallTimeout(0)).Send(context.Background(), hello())
				defer s.Close()
				var app a2a.Task
				perPoll := map[int64][]a2a.Event{}
				for s.Next() {
					ev := s.Event()
					app.Apply(ev)
					perPoll[served.Load()] = append(perPoll[served.Load()], ev)
				}
				require.NoError(t, s.Err())
				require.Equal(t, 1, len(perPoll[-1]), "the send's answer: submitted")
				require.Equal(t, n+1, len(perPoll[0]), "the first poll: every artifact, then working")
				for _, p := range []int64{1, 2, changeAt + 1} {
					require.Equal(t, 0, len(perPoll[p]), "poll %d brought nothing new", p)
				}
				require.Equal(t, 1, len(perPoll[changeAt]), "the poll that shows the change")
				u, ok := perPoll[changeAt][0].(*a2a.ArtifactUpdate)
				require.True(t, ok, "got %T", perPoll[changeAt][0])
				require.Equal(t, after.Artifacts[changed].ID, u.Artifact.ID)
				require.False(t, u.Append, "the artifact as the server holds it, whole")
				require.Equal(t, after.Artifacts[changed].Parts, u.Artifact.Parts)
				require.Equal(t, 1, len(perPoll[changeAt+2]), "the poll that shows the end")
				require.IsType(t, &a2a.StatusUpdate{}, perPoll[changeAt+2][0])
				require.Equal(t, done.Artifacts, app.Artifacts, "the application's fold is the server's task")
				require.Equal(t, done.Artifacts, s.Task().Artifacts)
			})
		})
	}
}
