package stream_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/stream"
)

// repeatTask is the polled task of these tests: working with one artifact
// of one text part, text, or completed with it.
func repeatTask(state a2a.TaskState, text string) *a2a.Task {
	return &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: state},
		Artifacts: []a2a.Artifact{{ID: "a1", Parts: textParts(text)}}}
}

// artifactTexts returns the text of each artifact update the application
// was given, in order.
func artifactTexts(col *collected) []string {
	var texts []string
	for _, ev := range col.events {
		if u, ok := ev.(*a2a.ArtifactUpdate); ok {
			texts = append(texts, u.Artifact.Text())
		}
	}
	return texts
}

// TestPollThatRepeatsTheLastIsNotDecoded: polls whose answer is byte for
// byte the last poll's are neither decoded nor folded, and yield nothing;
// over JSON-RPC, where each answer carries its own request's ID, an answer
// whose result is the same counts as the same.
func TestPollThatRepeatsTheLastIsNotDecoded(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := polledAgent(w, func(n int) *a2a.Task {
					if n < 4 {
						return repeatTask(a2a.StateWorking, "v1")
					}
					return repeatTask(a2a.StateCompleted, "v1")
				})
				s := agent.client(t, stream.WithPollInterval(time.Second)).Send(context.Background(), hello())
				col, err := drainLoose(t, s)
				require.NoError(t, err)
				require.Equal(t, 5, agent.count(kindGet))
				require.Equal(t, 3, stream.PollsRepeated(s), "polls 1 to 3 repeat poll 0")
				require.Equal(t, []string{"v1"}, artifactTexts(col), "the artifact once: %s", describeEvents(col.events))
				require.Equal(t, []a2a.TaskState{a2a.StateSubmitted, a2a.StateWorking, a2a.StateCompleted}, col.states)
				col.requireArtifacts(t, repeatTask(a2a.StateCompleted, "v1").Artifacts, "the end")
				if w.b == a2a.BindingJSONRPC {
					ids := map[string]bool{}
					for _, c := range agent.received() {
						if c.kind == kindGet {
							ids[c.rpcID] = true
						}
					}
					require.Len(t, ids, 5, "each get-task has its own request ID, which its answer carries")
				}
			})
		})
	}
}

// TestPollThatDiffersInOneByteIsFolded: a poll whose answer differs from
// the last poll's in one byte is decoded and folded: the artifact it
// changed is delivered. The polls that repeat it after are not.
func TestPollThatDiffersInOneByteIsFolded(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			v1, err := w.codec().EncodeTask(repeatTask(a2a.StateWorking, "v1"))
			require.NoError(t, err)
			v2, err := w.codec().EncodeTask(repeatTask(a2a.StateWorking, "v2"))
			require.NoError(t, err)
			require.Len(t, v2, len(v1))
			differ := 0
			for i := range v1 {
				if v1[i] != v2[i] {
					differ++
				}
			}
			require.Equal(t, 1, differ, "the two answers differ in one byte")
			synctest.Test(t, func(t *testing.T) {
				agent := polledAgent(w, func(n int) *a2a.Task {
					switch {
					case n < 3:
						return repeatTask(a2a.StateWorking, "v1")
					case n < 5:
						return repeatTask(a2a.StateWorking, "v2")
					}
					return repeatTask(a2a.StateCompleted, "v2")
				})
				s := agent.client(t, stream.WithPollInterval(time.Second)).Send(context.Background(), hello())
				col, err := drainLoose(t, s)
				require.NoError(t, err)
				require.Equal(t, 6, agent.count(kindGet))
				require.Equal(t, 3, stream.PollsRepeated(s), "polls 1, 2 and 4 repeat the poll before")
				require.Equal(t, []string{"v1", "v2"}, artifactTexts(col), "%s", describeEvents(col.events))
				col.requireArtifacts(t, repeatTask(a2a.StateCompleted, "v2").Artifacts, "the end")
			})
		})
	}
}

// TestPollThatRepeatsAnOlderPollIsFolded: a poll whose answer is the one
// of two polls back, not the last one's, is folded as any other: the
// artifact it takes back to that version is delivered.
func TestPollThatRepeatsAnOlderPollIsFolded(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := polledAgent(w, func(n int) *a2a.Task {
					switch n {
					case 0, 2:
						return repeatTask(a2a.StateWorking, "v1")
					case 1:
						return repeatTask(a2a.StateWorking, "v2")
					}
					return repeatTask(a2a.StateCompleted, "v1")
				})
				s := agent.client(t, stream.WithPollInterval(time.Second)).Send(context.Background(), hello())
				col, err := drainLoose(t, s)
				require.NoError(t, err)
				require.Equal(t, 4, agent.count(kindGet))
				require.Zero(t, stream.PollsRepeated(s), "no poll repeats the one before it")
				require.Equal(t, []string{"v1", "v2", "v1"}, artifactTexts(col), "%s", describeEvents(col.events))
				col.requireArtifacts(t, repeatTask(a2a.StateCompleted, "v1").Artifacts, "the end")
			})
		})
	}
}

// TestPollAfterAReplyIsFolded: a poll after the reply to a prompt whose
// answer is byte for byte the poll's before the reply is folded: the reply
// and its answer changed what the task means to the stream. Here the agent
// answered the reply's send with the task working, then shows the prompt
// again on the next poll: the prompt's status comes again, after working,
// and is asked as a new question (see promptMovedOn).
func TestPollAfterAReplyIsFolded(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				asking := repeatTask(a2a.StateInputRequired, "v1")
				asking.Status.Message = agentMsg("q-1", "which city?")
				refuse := func(ww *wireWriter, c wireCall) {
					ww.rpcError(a2a.CodeUnsupportedOperation, "Streaming is not supported.")
				}
				agent := newWireAgent(w, map[callKind]func(w *wireWriter, c wireCall){
					kindStream:    refuse,
					kindSubscribe: refuse,
					kindSend: func(ww *wireWriter, c wireCall) {
						if c.n == 0 {
							ww.result(snap(a2a.StateSubmitted))
							return
						}
						ww.result(repeatTask(a2a.StateWorking, "v1")) // the reply's answer
					},
					kindGet: func(ww *wireWriter, c wireCall) {
						if c.n < 2 {
							ww.task(asking) // the same before and after the reply
							return
						}
						ww.task(repeatTask(a2a.StateCompleted, "v1"))
					},
				})
				rec := &wirematrix.Recorder{Answers: []string{"Lisbon", "again?"}}
				s := agent.client(t, stream.WithPollInterval(time.Second), stream.WithHumanInput(rec)).Send(context.Background(), hello())
				col, err := drainLoose(t, s)
				require.NoError(t, err)
				require.Equal(t, 3, agent.count(kindGet))
				require.Zero(t, stream.PollsRepeated(s), "the poll after the reply is folded")
				require.Equal(t, []a2a.TaskState{a2a.StateSubmitted, a2a.StateInputRequired, a2a.StateWorking, a2a.StateInputRequired, a2a.StateWorking, a2a.StateCompleted},
					col.states, "%s", describeEvents(col.events))
				require.Len(t, rec.Requests, 2, "the prompt after working is a new question")
				require.Equal(t, 3, agent.count(kindSend), "the message, then a reply to each question")
			})
		})
	}
}
