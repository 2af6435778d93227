package stream_test

import (
	"time"

	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

func TestSubscribeToARunningTask(t *testing.T) {
	for _, v := range versions {
		for _, style := range styles {
			t.Run(string(v)+"/"+style.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(style), a2atest.WithScript(paced()...))
					c := newClient(t, agent, v)
					first := c.Send(background(), hello())
					defer first.Close()
					for first.Next() {
						if first.Task() != nil && first.Task().Artifact("a1") != nil {
							break
						}
					}
					require.NotNil(t, first.Task())
					id := first.Task().ID

					s := c.Subscribe(background(), id)
					got, err := drain(t, s)
					require.NoError(t, err)
					requireSameAsServer(t, agent, s, got)
					require.Equal(t, id, s.Task().ID)
				})
			})
		}
	}
}

func TestSubscribeToAFinishedTask(t *testing.T) {
	for _, v := range versions {
		for _, style := range styles {
			t.Run(string(v)+"/"+style.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(style))
					c := newClient(t, agent, v)
					task, err := c.Send(background(), hello()).Wait()
					require.NoError(t, err)

					s := c.Subscribe(background(), task.ID)
					got, err := drain(t, s)
					require.NoError(t, err, "a refused subscribe falls back to get-task")
					requireSameAsServer(t, agent, s, got)
					require.Equal(t, "hello world", got.text("a1"))
				})
			})
		}
	}
}

func TestSubscribeToAnUnknownTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent()
		_, err := drain(t, newClient(t, agent, a2a.V10, stream.WithReconnect(reconnect.Policy{MaxAttempts: 1})).Subscribe(background(), "nope"))
		var rpcErr *a2a.RPCError
		require.ErrorAs(t, err, &rpcErr, "get-task says the task does not exist")
		require.Equal(t, a2a.CodeTaskNotFound, rpcErr.Code)
	})
}

// runningThenDone answers get-task with the same working task four times,
// then with the task completed.
func runningThenDone(w *wireWriter, c wireCall) {
	if c.n < 4 {
		w.task(snap(a2a.StateWorking, "one "))
		return
	}
	w.task(snap(a2a.StateCompleted, "one ", "two"))
}

// A Subscribe without a card, to an agent that cannot stream: the server
// refuses the subscribe with -32004 (unsupported operation), and get-task
// shows the task running. The server cannot stream it, now or on the next
// attempt: the stream polls, at no cost to the budget, on every wire.
func TestSubscribeToAnAgentThatCannotStreamPolls(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(w *wireWriter, _ wireCall) {
						w.rpcError(a2a.CodeUnsupportedOperation, "Streaming is not supported.")
					},
					kindSubscribe: func(w *wireWriter, _ wireCall) {
						w.rpcError(a2a.CodeUnsupportedOperation, "Streaming is not supported.")
					},
					kindGet: runningThenDone,
				})
				var notes r3notices
				start := time.Now()
				s := agent.client(t, notes.option()).Subscribe(bounded(t), "t-1")
				got, err := drain(t, s)
				require.NoError(t, err)
				require.Equal(t, "one two", got.task.Artifact("a1").Text())
				require.Equal(t, 1, agent.count(kindSubscribe), "refused once: not asked again")
				require.Equal(t, 5, agent.count(kindGet))
				require.Equal(t, 4*stream.DefaultPollInterval, time.Since(start), "four poll intervals, no backoff")
				require.Equal(t, []stream.NoticeKind{stream.Polling}, notes.kinds())
			})
		})
	}
}
