package a2atest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
)

const unsupportedOperationInfo = `[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"UNSUPPORTED_OPERATION","domain":"a2a-protocol.org"}]`

func TestWithoutStreamingCard(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithoutStreaming())
			streaming := agent.Card("agent.test").Capabilities.Streaming
			require.NotNil(t, streaming)
			require.False(t, *streaming)
			for _, path := range []string{"/.well-known/agent-card.json", "/.well-known/agent.json"} {
				resp, body := getCard(t, agent, path)
				require.Equal(t, http.StatusOK, resp.StatusCode)
				var card struct {
					Capabilities map[string]any `json:"capabilities"`
				}
				require.NoError(t, json.Unmarshal(body, &card))
				// Written out, as @a2a-js/sdk writes it, not left out.
				require.Equal(t, map[string]any{"streaming": false}, card.Capabilities, "card %s", body)
			}
		})
	}
}

// TestWithoutStreamingRefusesStreamingMethods checks the answer @a2a-js/sdk
// gives every streaming method when its card says streaming: false: -32004
// as plain JSON with HTTP 200, with the SDK's message, whatever the task.
func TestWithoutStreamingRefusesStreamingMethods(t *testing.T) {
	wantMessage := map[a2a.Version]map[string]string{
		a2a.V03: {
			"stream":    "Unsupported operation: Method message/stream requires streaming capability.",
			"subscribe": "Unsupported operation: Method tasks/resubscribe requires streaming capability.",
		},
		a2a.V10: {
			"stream":    "Streaming is not supported.",
			"subscribe": "Streaming (and thus resubscription) is not supported.",
		},
	}
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithoutStreaming(),
				a2atest.WithScript(a2atest.Working(""), a2atest.AskInput("which one?")))
			c := agent.Client()
			ev, err := a2a.Codec{}.DecodeEvent(unaryResult(t, call(t.Context(), t, c, v, "send", sendParams(t, v, "hi", ""))))
			require.NoError(t, err)
			id := ev.(*a2a.Task).ID
			require.Equal(t, a2a.StateInputRequired, agent.Task(id).Status.State)

			tests := []struct {
				name, op, params string
			}{
				{"new task", "stream", sendParams(t, v, "hi", "")},
				{"follow-up to an input-required task", "stream", sendParams(t, v, "blue", id)},
				{"follow-up to an unknown task", "stream", sendParams(t, v, "blue", "nope")},
				{"message that is not valid", "stream", `{"message":{"parts":"x"}}`},
				{"subscribe to a task", "subscribe", idParams(id)},
				{"subscribe to an unknown task", "subscribe", idParams("nope")},
			}
			for _, tt := range tests {
				r := requireUnaryError(t, call(t.Context(), t, c, v, tt.op, tt.params), a2a.CodeUnsupportedOperation)
				require.Equal(t, wantMessage[v][tt.op], r.Error.Message, tt.name)
				if v == a2a.V10 {
					require.JSONEq(t, unsupportedOperationInfo, string(r.Error.Data), tt.name)
				} else {
					require.Empty(t, r.Error.Data, tt.name)
				}
			}
			require.Equal(t, []string{id}, agent.TaskIDs(), "no refused request created a task")
			require.Equal(t, a2a.StateInputRequired, agent.Task(id).Status.State, "nor answered one")
			require.Len(t, agent.Task(id).History, 2)
			require.Len(t, agent.Requests(), 1+len(tests))

			// Unary calls still work: the follow-up is taken, and get and
			// cancel answer.
			unaryResult(t, call(t.Context(), t, c, v, "send", sendParams(t, v, "blue", id)))
			require.Len(t, agent.Task(id).History, 3)
			task, err := a2a.Codec{}.DecodeTask(unaryResult(t, call(t.Context(), t, c, v, "get", idParams(id))))
			require.NoError(t, err)
			require.Equal(t, id, task.ID)
		})
	}
}

// TestWithoutStreamingErrorOrder checks that the envelope is checked before
// the ability, as @a2a-js/sdk does.
func TestWithoutStreamingErrorOrder(t *testing.T) {
	agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03, a2a.V10), a2atest.WithoutStreaming())
	c := agent.Client()
	for _, tt := range []struct {
		name   string
		v      a2a.Version
		header string
		body   string
		code   int
	}{
		{"no A2A-Version header", a2a.V03, "", `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{}}`, a2a.CodeVersionNotSupported},
		{"missing params", a2a.V03, "", `{"jsonrpc":"2.0","id":1,"method":"tasks/resubscribe"}`, a2a.CodeInvalidParams},
		{"unknown method", a2a.V10, "1.0", `{"jsonrpc":"2.0","id":1,"method":"tasks/stream","params":{}}`, a2a.CodeMethodNotFound},
		{"empty params", a2a.V10, "1.0", `{"jsonrpc":"2.0","id":1,"method":"SubscribeToTask","params":{}}`, a2a.CodeUnsupportedOperation},
	} {
		t.Run(tt.name, func(t *testing.T) {
			requireUnaryError(t, post(t.Context(), t, c, tt.v, []byte(tt.body)), tt.code)
		})
	}
}

// TestWithoutStreamingFaults checks that refused streaming requests count
// toward WithFaults, and that a fault replacing the answer replaces the
// refusal.
func TestWithoutStreamingFaults(t *testing.T) {
	agent := a2atest.NewAgent(a2atest.WithoutStreaming(),
		a2atest.WithFaults(a2atest.HTTPStatus(http.StatusServiceUnavailable, "busy"), a2atest.Fault{}, a2atest.CutAfterBytes(10)))
	c := agent.Client()
	resp := call(t.Context(), t, c, a2a.V10, "stream", sendParams(t, a2a.V10, "hi", ""))
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	requireUnaryError(t, call(t.Context(), t, c, a2a.V10, "subscribe", idParams("x")), a2a.CodeUnsupportedOperation)
	resp = call(t.Context(), t, c, a2a.V10, "stream", sendParams(t, a2a.V10, "hi", ""))
	body, err := io.ReadAll(resp.Body)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	require.Equal(t, `{"jsonrpc"`, string(body))

	var got []string
	for _, r := range agent.Requests() {
		got = append(got, r.Method+" "+r.Fault.String())
	}
	require.Equal(t, []string{
		`SendStreamingMessage HTTPStatus(503, "busy")`,
		"SubscribeToTask none",
		"SendStreamingMessage CutAfterBytes(10)",
	}, got)
	require.Empty(t, agent.TaskIDs())
}

// TestWithoutResubscribe checks that subscribe requests get -32601 as plain
// JSON whatever the task's state, while streaming sends work and get-task
// shows the progress a dropped stream missed.
func TestWithoutResubscribe(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithoutResubscribe(), pausedScript(),
					// The first stream ends cleanly after T and S(working), at 0s.
					a2atest.WithFaults(a2atest.CloseAfterEvents(2)))
				c := agent.Client()
				start := time.Now()
				id, evs := startTask(t.Context(), t, agent, v)
				require.Equal(t, []string{"T(submitted)", "S(working)"}, kinds(evs))

				refused := func(id string) {
					t.Helper()
					r := requireUnaryError(t, call(t.Context(), t, c, v, "subscribe", idParams(id)), a2a.CodeMethodNotFound)
					require.Equal(t, "method not found: "+methodName(v, "subscribe"), r.Error.Message)
					require.Empty(t, r.Error.Data)
				}
				refused(id) // running
				refused("nope")

				advance(1500 * time.Millisecond)
				task, err := a2a.Codec{}.DecodeTask(unaryResult(t, call(t.Context(), t, c, v, "get", idParams(id))))
				require.NoError(t, err)
				require.Equal(t, a2a.StateWorking, task.Status.State)
				require.Equal(t, "x", task.Artifacts[0].Text())

				advance(2 * time.Second)
				refused(id) // completed
				task, err = a2a.Codec{}.DecodeTask(unaryResult(t, call(t.Context(), t, c, v, "get", idParams(id))))
				require.NoError(t, err)
				require.Equal(t, a2a.StateCompleted, task.Status.State)
				require.Equal(t, "xy", task.Artifacts[0].Text())
				require.Equal(t, 3500*time.Millisecond, time.Since(start))

				// A second streaming send works to its end.
				_, evs = startTask(t.Context(), t, agent, v)
				require.Len(t, evs, 5)
			})
		})
	}
}

func TestWithoutResubscribeInputRequired(t *testing.T) {
	for _, v := range bothVersions() {
		agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithoutResubscribe(), a2atest.WithStayOpenOnInterrupt(),
			a2atest.WithScript(a2atest.Working(""), a2atest.AskInput("which one?"), a2atest.Finish(a2a.StateCompleted, "")))
		id, _ := startTask(t.Context(), t, agent, v)
		requireUnaryError(t, call(t.Context(), t, agent.Client(), v, "subscribe", idParams(id)), a2a.CodeMethodNotFound)
		// The follow-up goes through a streaming send.
		evs := readAllStream(t, call(t.Context(), t, agent.Client(), v, "stream", sendParams(t, v, "blue", id)))
		require.Equal(t, a2a.StateCompleted, evs[len(evs)-1].(*a2a.StatusUpdate).Status.State)
	}
}

// TestWithoutResubscribeCountsAndOrder checks that refused subscribes use
// up their fault and style, that a fault replaces the refusal, that the
// refusal comes before the A2A-Version check, and that it wins over
// WithoutStreaming's -32004.
func TestWithoutResubscribeCountsAndOrder(t *testing.T) {
	agent := a2atest.NewAgent(a2atest.WithoutResubscribe(),
		a2atest.WithStyles(a2atest.LiveOnly, a2atest.FullReplay),
		a2atest.WithFaults(a2atest.Fault{}, a2atest.HTTPStatus(http.StatusBadGateway, "")))
	c := agent.Client()
	id, _ := startTask(t.Context(), t, agent, a2a.V10)
	resp := call(t.Context(), t, c, a2a.V10, "subscribe", idParams(id))
	require.Equal(t, http.StatusBadGateway, resp.StatusCode)
	// No A2A-Version header: still -32601.
	requireUnaryError(t, post(t.Context(), t, c, a2a.V03, []byte(`{"jsonrpc":"2.0","id":1,"method":"SubscribeToTask","params":{"id":"`+id+`"}}`)), a2a.CodeMethodNotFound)

	reqs := agent.Requests()
	require.Len(t, reqs, 3)
	require.Equal(t, a2atest.HTTPStatus(http.StatusBadGateway, ""), reqs[1].Fault)
	require.Equal(t, []a2atest.ResubscribeStyle{0, a2atest.LiveOnly, a2atest.FullReplay}, []a2atest.ResubscribeStyle{reqs[0].Style, reqs[1].Style, reqs[2].Style})

	both := a2atest.NewAgent(a2atest.WithVersions(a2a.V03, a2a.V10), a2atest.WithoutResubscribe(), a2atest.WithoutStreaming())
	for _, v := range bothVersions() {
		requireUnaryError(t, call(t.Context(), t, both.Client(), v, "subscribe", idParams("x")), a2a.CodeMethodNotFound)
		requireUnaryError(t, call(t.Context(), t, both.Client(), v, "stream", sendParams(t, v, "hi", "")), a2a.CodeUnsupportedOperation)
	}
}
