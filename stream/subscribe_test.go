package stream_test

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

func TestSubscribeToARunningTask(t *testing.T) {
	for _, v := range versions {
		for _, style := range wirematrix.Styles() {
			t.Run(string(v)+"/"+style.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(style), a2atest.WithScript(wirematrix.Paced()...))
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
					wirematrix.RequireSameAsServer(t, agent, s, got.fold)
					require.Equal(t, id, s.Task().ID)
				})
			})
		}
	}
}

func TestSubscribeToAFinishedTask(t *testing.T) {
	for _, v := range versions {
		for _, style := range wirematrix.Styles() {
			t.Run(string(v)+"/"+style.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(style))
					c := newClient(t, agent, v)
					task, err := c.Send(background(), hello()).Wait()
					require.NoError(t, err)

					s := c.Subscribe(background(), task.ID)
					got, err := drain(t, s)
					require.NoError(t, err, "a refused subscribe falls back to get-task")
					wirematrix.RequireSameAsServer(t, agent, s, got.fold)
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
				var notes noticeLog
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

// Subscribe to a running task of a REST server without a subscribe route,
// and of an agent that cannot stream: both follow the task by polling.
func TestSubscribeWithoutASubscribeRoutePolls(t *testing.T) {
	for _, v := range versions {
		for _, mode := range []string{"without resubscribe", "without streaming"} {
			t.Run(string(v)+"/"+mode, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					opt := a2atest.WithoutResubscribe()
					if mode == "without streaming" {
						opt = a2atest.WithoutStreaming()
					}
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON),
						opt, a2atest.WithScript(wirematrix.Paced()...))
					c := resolveAgent(t, agent, stream.WithPollInterval(wirematrix.Tick))
					// Start the task with a unary send of another client, then follow it.
					req, _ := http.NewRequest(http.MethodPost, "http://agent.test"+map[a2a.Version]string{a2a.V03: "/v1", a2a.V10: ""}[v]+"/message:send",
						strings.NewReader(sendBody(t, v)))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("A2A-Version", string(v))
					resp, err := agent.Client().Do(req)
					require.NoError(t, err)
					resp.Body.Close()
					require.Less(t, resp.StatusCode, 300)
					ids := agent.TaskIDs()
					require.Len(t, ids, 1)
					s := c.Subscribe(background(), ids[0])
					got, err := drain(t, s)
					require.NoError(t, err)
					wirematrix.RequireSameAsServer(t, agent, s, got.fold)
					require.GreaterOrEqual(t, gets(agent), 1)
				})
			})
		}
	}
}

// sendBody is a non-blocking REST send body of version v.
func sendBody(t *testing.T, v a2a.Version) string {
	raw, err := a2a.Codec{Version: v, Binding: a2a.BindingHTTPJSON}.EncodeMessage(&a2a.Message{ID: "u-1", Role: a2a.RoleUser, Parts: textParts("go")})
	require.NoError(t, err)
	if v == a2a.V03 {
		return fmt.Sprintf(`{"message":%s,"configuration":{"blocking":false}}`, raw)
	}
	return fmt.Sprintf(`{"message":%s,"configuration":{"returnImmediately":true}}`, raw)
}
