package a2atest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
)

func getCard(t *testing.T, agent *a2atest.Agent, path string) (*http.Response, []byte) {
	t.Helper()
	resp, err := agent.Client().Do(newGet(t.Context(), t, "http://agent.test:9999"+path))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b
}

func TestAgentCard(t *testing.T) {
	const base = "http://agent.test:9999/"
	tests := []struct {
		name string
		opts []a2atest.Option
		want string
	}{
		{"0.3 only", []a2atest.Option{a2atest.WithVersions(a2a.V03)},
			`{"name":"a2atest agent","description":"scriptable fake A2A agent (a2atest)","version":"1.0.0",
			"url":"` + base + `","preferredTransport":"JSONRPC","protocolVersion":"0.3.0","capabilities":{"streaming":true}}`},
		{"1.0 only with tenant", []a2atest.Option{a2atest.WithTenant("acme")},
			`{"name":"a2atest agent","description":"scriptable fake A2A agent (a2atest)","version":"1.0.0",
			"supportedInterfaces":[{"url":"` + base + `","protocolBinding":"JSONRPC","protocolVersion":"1.0","tenant":"acme"}],
			"capabilities":{"streaming":true}}`},
		{"hybrid", []a2atest.Option{a2atest.WithVersions(a2a.V03, a2a.V10), a2atest.WithName("both")},
			`{"name":"both","description":"scriptable fake A2A agent (a2atest)","version":"1.0.0",
			"url":"` + base + `","preferredTransport":"JSONRPC","protocolVersion":"0.3.0",
			"supportedInterfaces":[{"url":"` + base + `","protocolBinding":"JSONRPC","protocolVersion":"1.0"},
				{"url":"` + base + `","protocolBinding":"JSONRPC","protocolVersion":"0.3"}],
			"capabilities":{"streaming":true}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agent := a2atest.NewAgent(tt.opts...)
			for _, path := range []string{"/.well-known/agent-card.json", "/.well-known/agent.json"} {
				resp, body := getCard(t, agent, path)
				require.Equal(t, http.StatusOK, resp.StatusCode)
				require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
				require.JSONEq(t, tt.want, string(body))
				var card a2a.AgentCard
				require.NoError(t, json.Unmarshal(body, &card))
				require.NotNil(t, card.Capabilities.Streaming)
				require.True(t, *card.Capabilities.Streaming)
			}
			require.Equal(t, 2, agent.CardRequests())
			require.Empty(t, agent.Requests(), "card fetches are not JSON-RPC requests")
		})
	}

	t.Run("raw card and legacy path only", func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithCardJSON([]byte(`{"name":`)), a2atest.WithoutWellKnownCard())
		resp, _ := getCard(t, agent, "/.well-known/agent-card.json")
		require.Equal(t, http.StatusNotFound, resp.StatusCode)
		resp, body := getCard(t, agent, "/.well-known/agent.json")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Equal(t, `{"name":`, string(body))
		require.Equal(t, 1, agent.CardRequests())
	})
}

func TestAgentStreamDefaultScript(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v))
			resp := call(t.Context(), t, agent.Client(), v, "stream", sendParams(t, v, "hi", ""))
			require.Equal(t, "no-cache", resp.Header.Get("Cache-Control"))
			evs := readAllStream(t, resp)
			final := ""
			if v == a2a.V03 {
				final = ",F"
			}
			require.Equal(t, []string{"T(submitted)", "S(working)", "A(a1)", "A(a1+L)", "S(completed" + final + ")"}, kinds(evs))

			task := evs[0].(*a2a.Task)
			require.NotEmpty(t, task.ID)
			require.NotEmpty(t, task.ContextID)
			require.Len(t, task.History, 1)
			require.Equal(t, "hi", task.History[0].Text())
			require.Equal(t, a2a.RoleUser, task.History[0].Role)
			require.Equal(t, task.ID, task.History[0].TaskID)
			for _, ev := range evs[1:] {
				switch x := ev.(type) {
				case *a2a.StatusUpdate:
					require.Equal(t, task.ID, x.TaskID)
					require.Equal(t, task.ContextID, x.ContextID)
				case *a2a.ArtifactUpdate:
					require.Equal(t, task.ID, x.TaskID)
					require.Equal(t, task.ContextID, x.ContextID)
				}
			}
			require.Equal(t, "hello ", evs[2].(*a2a.ArtifactUpdate).Artifact.Text())
			require.Equal(t, "world", evs[3].(*a2a.ArtifactUpdate).Artifact.Text())

			require.Equal(t, []string{task.ID}, agent.TaskIDs())
			got := agent.Task(task.ID)
			require.Equal(t, a2a.StateCompleted, got.Status.State)
			require.Len(t, got.Artifacts, 1)
			require.Len(t, got.Artifacts[0].Parts, 2)
			require.Equal(t, "hello world", got.Artifacts[0].Text())
			require.Nil(t, agent.Task("nope"))

			// Task returns a copy.
			got.Artifacts[0].Parts[0].Text = "changed"
			require.Equal(t, "hello world", agent.Task(task.ID).Artifacts[0].Text())
		})
	}
}

// pausedScript has its events one second apart: working at 0s, chunks at
// 1s and 2s, completed at 3s.
func pausedScript() a2atest.Option {
	return a2atest.WithScript(
		a2atest.Working("starting"),
		a2atest.Pause(time.Second),
		a2atest.Chunk("a1", "x", false, false),
		a2atest.Pause(time.Second),
		a2atest.Chunk("a1", "y", true, true),
		a2atest.Pause(time.Second),
		a2atest.Finish(a2a.StateCompleted, "done"),
	)
}

func TestAgentEventsFallDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(pausedScript())
		start := time.Now()
		resp := call(t.Context(), t, agent.Client(), a2a.V10, "stream", sendParams(t, a2a.V10, "hi", ""))
		r := newSSEReader(resp.Body)
		wantAt := []time.Duration{0, 0, time.Second, 2 * time.Second, 3 * time.Second}
		wantKind := []string{"T(submitted)", "S(working)", "A(a1)", "A(a1+L)", "S(completed)"}
		var id string
		for i := range wantAt {
			ev := readEvent(t, r)
			require.Equal(t, wantKind[i], kind(ev))
			require.Equal(t, wantAt[i], time.Since(start), "event %d", i)
			if i == 0 {
				id = ev.(*a2a.Task).ID
			}
			if i == 2 {
				// The state as of now has the first chunk only.
				require.Equal(t, "x", agent.Task(id).Artifacts[0].Text())
				require.Equal(t, a2a.StateWorking, agent.Task(id).Status.State)
			}
		}
		_, err := r.next()
		require.ErrorIs(t, err, io.EOF)

		task := agent.Task(id)
		require.Equal(t, "xy", task.Artifacts[0].Text())
		// History: the user message, then the two agent status messages.
		var texts []string
		for _, m := range task.History {
			texts = append(texts, string(m.Role)+":"+m.Text())
		}
		require.Equal(t, []string{"user:hi", "agent:starting", "agent:done"}, texts)
		require.True(t, start.Add(3*time.Second).Equal(task.Status.Timestamp), "timestamp %v", task.Status.Timestamp)
	})
}

func TestAgentResubscribeStyles(t *testing.T) {
	tests := []struct {
		style a2atest.ResubscribeStyle
		v     a2a.Version
		want  []string
	}{
		{a2atest.LiveOnly, a2a.V03, []string{"A(a1+L)", "S(completed,F)"}},
		{a2atest.LiveOnly, a2a.V10, []string{"A(a1+L)", "S(completed)"}},
		{a2atest.SnapshotFirst, a2a.V03, []string{"T(working)", "A(a1+L)", "S(completed,F)"}},
		{a2atest.SnapshotFirst, a2a.V10, []string{"T(working)", "A(a1+L)", "S(completed)"}},
		{a2atest.FullReplay, a2a.V03, []string{"T(submitted)", "S(working)", "A(a1)", "A(a1+L)", "S(completed,F)"}},
		{a2atest.FullReplay, a2a.V10, []string{"T(submitted)", "S(working)", "A(a1)", "A(a1+L)", "S(completed)"}},
	}
	for _, tt := range tests {
		t.Run(tt.style.String()+"/"+string(tt.v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(tt.v), a2atest.WithStyle(tt.style), pausedScript(),
					a2atest.WithFaults(a2atest.CloseAfterEvents(3)))
				start := time.Now()
				// The first stream ends cleanly after T, S(working), A(a1) at 1s.
				evs := readAllStream(t, call(t.Context(), t, agent.Client(), tt.v, "stream", sendParams(t, tt.v, "hi", "")))
				require.Len(t, evs, 3)
				require.Equal(t, time.Second, time.Since(start))
				id := evs[0].(*a2a.Task).ID

				resp := call(t.Context(), t, agent.Client(), tt.v, "subscribe", idParams(id))
				evs = readAllStream(t, resp)
				require.Equal(t, tt.want, kinds(evs))
				require.Equal(t, 3*time.Second, time.Since(start))
				if tt.style == a2atest.SnapshotFirst {
					snap := evs[0].(*a2a.Task)
					require.Equal(t, "x", snap.Artifacts[0].Text())
				}

				reqs := agent.Requests()
				require.Len(t, reqs, 2)
				require.Equal(t, methodName(tt.v, "subscribe"), reqs[1].Method)
				require.Equal(t, id, reqs[1].TaskID)
				require.True(t, reqs[1].Fault.IsZero())
				require.Equal(t, a2atest.CloseAfterEvents(3), reqs[0].Fault)
			})
		})
	}
}

func TestAgentSubscribeSettled(t *testing.T) {
	hitl := a2atest.WithScript(a2atest.Working(""), a2atest.AskInput("which one?"), a2atest.Finish(a2a.StateCompleted, ""))
	t.Run("unknown task", func(t *testing.T) {
		for _, v := range bothVersions() {
			agent := a2atest.NewAgent(a2atest.WithVersions(v))
			resp := call(t.Context(), t, agent.Client(), v, "subscribe", idParams("nope"))
			if v == a2a.V03 {
				requireEventError(t, resp, a2a.CodeTaskNotFound, "")
			} else {
				r := requireUnaryError(t, resp, a2a.CodeTaskNotFound)
				require.JSONEq(t, `[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]`, string(r.Error.Data))
			}
		}
	})
	t.Run("LiveOnly once the turn is over", func(t *testing.T) {
		for _, v := range bothVersions() {
			for _, opt := range []a2atest.Option{hitl, pausedScript()} { // input-required, completed
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStyle(a2atest.LiveOnly), opt)
					id, _ := startTask(t.Context(), t, agent, v)
					requireEventError(t, call(t.Context(), t, agent.Client(), v, "subscribe", idParams(id)), a2a.CodeTaskNotFound, "")
				})
			}
		}
	})
	t.Run("SnapshotFirst terminal", func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03, a2a.V10))
		id, _ := startTask(t.Context(), t, agent, a2a.V10)
		requireUnaryError(t, call(t.Context(), t, agent.Client(), a2a.V10, "subscribe", idParams(id)), a2a.CodeUnsupportedOperation)
		evs := readAllStream(t, call(t.Context(), t, agent.Client(), a2a.V03, "subscribe", idParams(id)))
		require.Equal(t, []string{"T(completed)"}, kinds(evs))
		require.Equal(t, "hello world", evs[0].(*a2a.Task).Artifacts[0].Text())
	})
	t.Run("SnapshotFirst interrupted", func(t *testing.T) {
		for _, v := range bothVersions() {
			agent := a2atest.NewAgent(a2atest.WithVersions(v), hitl)
			id, _ := startTask(t.Context(), t, agent, v)
			evs := readAllStream(t, call(t.Context(), t, agent.Client(), v, "subscribe", idParams(id)))
			require.Equal(t, []string{"T(input-required)"}, kinds(evs))
			require.Equal(t, "which one?", evs[0].(*a2a.Task).Status.Message.Text())
		}
	})
	t.Run("FullReplay settled", func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithStyle(a2atest.FullReplay), hitl)
		id, _ := startTask(t.Context(), t, agent, a2a.V10)
		readAllStream(t, call(t.Context(), t, agent.Client(), a2a.V10, "stream", sendParams(t, a2a.V10, "the blue one", id)))
		// Both turns are replayed, and the stream does not stop at the
		// first turn's input-required.
		evs := readAllStream(t, call(t.Context(), t, agent.Client(), a2a.V10, "subscribe", idParams(id)))
		require.Equal(t, []string{"T(submitted)", "S(working)", "S(input-required)", "S(completed)"}, kinds(evs))
	})
}

func TestAgentFollowUp(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(
				a2atest.Working(""),
				a2atest.AskInput("which one?"),
				a2atest.Working(""),
				a2atest.Chunk("a1", "the blue one it is", false, true),
				a2atest.Finish(a2a.StateCompleted, ""),
			))
			c := agent.Client()
			id, evs := startTask(t.Context(), t, agent, v)
			final := ""
			if v == a2a.V03 {
				final = ",F"
			}
			require.Equal(t, []string{"T(submitted)", "S(working" + ")", "S(input-required" + final + ")"}, kinds(evs))
			prompt := evs[2].(*a2a.StatusUpdate).Status.Message
			require.Equal(t, "which one?", prompt.Text())
			require.Equal(t, a2a.RoleAgent, prompt.Role)
			require.NotEmpty(t, prompt.ID)

			evs = readAllStream(t, call(t.Context(), t, c, v, "stream", sendParams(t, v, "blue", id)))
			want := []string{"S(working)", "A(a1L)", "S(completed" + final + ")"}
			if v == a2a.V10 {
				// 1.0 starts with the task as it was before the follow-up,
				// with the follow-up already in its history, as
				// js-1.3.0-stream-followup.txt shows.
				want = append([]string{"T(input-required)"}, want...)
				stale := evs[0].(*a2a.Task)
				require.Equal(t, prompt.ID, stale.Status.Message.ID)
				require.Len(t, stale.History, 3)
				require.Equal(t, a2a.RoleUser, stale.History[2].Role)
				require.Equal(t, "blue", stale.History[2].Text())
				require.Equal(t, id, stale.History[2].TaskID)
			}
			require.Equal(t, want, kinds(evs))

			task := agent.Task(id)
			require.Equal(t, a2a.StateCompleted, task.Status.State)
			var texts []string
			for _, m := range task.History {
				texts = append(texts, string(m.Role)+":"+m.Text())
			}
			require.Equal(t, []string{"user:hi", "agent:which one?", "user:blue"}, texts)
			require.Equal(t, id, task.History[2].TaskID)

			// A terminal task refuses further messages.
			resp := call(t.Context(), t, c, v, "stream", sendParams(t, v, "again", id))
			if v == a2a.V03 {
				requireEventError(t, resp, a2a.CodeInvalidParams, "")
			} else {
				requireUnaryError(t, resp, a2a.CodeUnsupportedOperation)
			}
			// So does an unknown one.
			resp = call(t.Context(), t, c, v, "stream", sendParams(t, v, "hello?", "nope"))
			if v == a2a.V03 {
				requireEventError(t, resp, a2a.CodeTaskNotFound, "")
			} else {
				requireUnaryError(t, resp, a2a.CodeTaskNotFound)
			}
			require.Equal(t, []string{id}, agent.TaskIDs())
		})
	}
}

func TestAgentFollowUpToRunningTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(pausedScript(), a2atest.WithFaults(a2atest.CloseAfterEvents(1)))
		id, _ := startTask(t.Context(), t, agent, a2a.V10)
		requireUnaryError(t, call(t.Context(), t, agent.Client(), a2a.V10, "stream", sendParams(t, a2a.V10, "hey", id)), a2a.CodeUnsupportedOperation)
		require.Len(t, agent.Task(id).History, 2, "the refused message is not in the history")
	})
}

func TestAgentStayOpenOnInterrupt(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithStayOpenOnInterrupt(), a2atest.WithScript(
				a2atest.Working(""),
				a2atest.AskInput("which one?"),
				a2atest.Working(""),
				a2atest.Finish(a2a.StateCompleted, "done"),
			))
			c := agent.Client()
			id, _ := startTask(t.Context(), t, agent, v)

			sub := call(t.Context(), t, c, v, "subscribe", idParams(id))
			r := newSSEReader(sub.Body)
			require.Equal(t, "T(input-required)", kind(readEvent(t, r)))
			// The subscription is still open; the client answers without
			// waiting for its end.
			readAllStream(t, call(t.Context(), t, c, v, "stream", sendParams(t, v, "blue", id)))

			final := ""
			if v == a2a.V03 {
				final = ",F"
			}
			var rest []a2a.Event
			for {
				ev, err := r.next()
				if err == io.EOF {
					break
				}
				require.NoError(t, err)
				rest = append(rest, decodeEvent(t, ev))
			}
			require.Equal(t, []string{"T(input-required)", "S(working)", "S(completed" + final + ")"}, kinds(rest))
		})
	}
}

func TestAgentGet(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v))
			id, _ := startTask(t.Context(), t, agent, v)
			resp := call(t.Context(), t, agent.Client(), v, "get", idParams(id))
			require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
			raw := unaryResult(t, resp)
			if v == a2a.V03 {
				require.Contains(t, string(raw), `"kind":"task"`)
				require.Contains(t, string(raw), `"state":"completed"`)
			} else {
				require.NotContains(t, string(raw), `"kind"`)
				require.Contains(t, string(raw), `"state":"TASK_STATE_COMPLETED"`)
			}
			task, err := a2a.Codec{}.DecodeTask(raw)
			require.NoError(t, err)
			require.Equal(t, id, task.ID)
			require.Equal(t, a2a.StateCompleted, task.Status.State)
			require.Equal(t, "hello world", task.Artifacts[0].Text())

			requireUnaryError(t, call(t.Context(), t, agent.Client(), v, "get", idParams("nope")), a2a.CodeTaskNotFound)
		})
	}
	t.Run("sniffed content type", func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03), a2atest.WithUnaryContentType(""))
		id, _ := startTask(t.Context(), t, agent, a2a.V03)
		resp := call(t.Context(), t, agent.Client(), a2a.V03, "get", idParams(id))
		require.Equal(t, "text/plain; charset=utf-8", resp.Header.Get("Content-Type"))
		task, err := a2a.Codec{}.DecodeTask(unaryResult(t, resp))
		require.NoError(t, err)
		require.Equal(t, id, task.ID)
	})
}

func TestAgentCancel(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), pausedScript())
				c := agent.Client()
				start := time.Now()
				stream := call(t.Context(), t, c, v, "stream", sendParams(t, v, "hi", ""))
				r := newSSEReader(stream.Body)
				id := readEvent(t, r).(*a2a.Task).ID
				require.Equal(t, "S(working)", kind(readEvent(t, r)))
				require.Equal(t, "A(a1)", kind(readEvent(t, r)))
				require.Equal(t, time.Second, time.Since(start))

				task, err := a2a.Codec{}.DecodeTask(unaryResult(t, call(t.Context(), t, c, v, "cancel", idParams(id))))
				require.NoError(t, err)
				require.Equal(t, a2a.StateCanceled, task.Status.State)
				require.Equal(t, "x", task.Artifacts[0].Text())

				// The open stream learns at once, and ends.
				ev := readEvent(t, r)
				require.Equal(t, a2a.StateCanceled, ev.(*a2a.StatusUpdate).Status.State)
				require.Equal(t, v == a2a.V03, ev.(*a2a.StatusUpdate).Final)
				_, err = r.next()
				require.ErrorIs(t, err, io.EOF)
				require.Equal(t, time.Second, time.Since(start))

				requireUnaryError(t, call(t.Context(), t, c, v, "cancel", idParams(id)), a2a.CodeTaskNotCancelable)
				requireUnaryError(t, call(t.Context(), t, c, v, "cancel", idParams("nope")), a2a.CodeTaskNotFound)
				require.Equal(t, a2a.StateCanceled, agent.Task(id).Status.State)
			})
		})
	}
}

func TestAgentNonStreamingSend(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v))
			raw := unaryResult(t, call(t.Context(), t, agent.Client(), v, "send", sendParams(t, v, "hi", "")))
			if v == a2a.V10 {
				require.True(t, strings.HasPrefix(string(raw), `{"task":`), "result %s", raw)
			} else {
				require.Contains(t, string(raw), `"kind":"task"`)
			}
			ev, err := a2a.Codec{}.DecodeEvent(raw)
			require.NoError(t, err)
			task := ev.(*a2a.Task)
			require.Equal(t, a2a.StateCompleted, task.Status.State)
			require.Equal(t, []string{task.ID}, agent.TaskIDs())
		})
	}
	t.Run("a blocking send waits for the task to settle", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			agent := a2atest.NewAgent(pausedScript())
			start := time.Now()
			ev, err := a2a.Codec{}.DecodeEvent(unaryResult(t, call(t.Context(), t, agent.Client(), a2a.V10, "send", sendParams(t, a2a.V10, "hi", ""))))
			require.NoError(t, err)
			require.Equal(t, a2a.StateCompleted, ev.(*a2a.Task).Status.State)
			require.Equal(t, 3*time.Second, time.Since(start))
		})
	})
}

func TestAgentReply(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(a2atest.Reply("just this")))
			evs := readAllStream(t, call(t.Context(), t, agent.Client(), v, "stream", sendParams(t, v, "hi", "")))
			require.Equal(t, []string{"M(just this)"}, kinds(evs))
			m := evs[0].(*a2a.Message)
			require.Equal(t, a2a.RoleAgent, m.Role)
			require.NotEmpty(t, m.ContextID)
			require.Empty(t, m.TaskID)
			require.Empty(t, agent.TaskIDs())

			ev, err := a2a.Codec{}.DecodeEvent(unaryResult(t, call(t.Context(), t, agent.Client(), v, "send", sendParams(t, v, "hi", ""))))
			require.NoError(t, err)
			require.Equal(t, "M(just this)", kind(ev))
		})
	}
}

func TestAgentScriptFuncAndSay(t *testing.T) {
	agent := a2atest.NewAgent(a2atest.WithScriptFunc(func(msg *a2a.Message) []a2atest.Step {
		if msg.Text() == "fail" {
			return []a2atest.Step{a2atest.Working(""), a2atest.Finish(a2a.StateFailed, "nope")}
		}
		return []a2atest.Step{
			a2atest.Say("thinking"),
			a2atest.AskAuth("log in please"),
			a2atest.Working("never streamed on the first turn"),
		}
	}))
	id, evs := startTask(t.Context(), t, agent, a2a.V10)
	require.Equal(t, []string{"T(submitted)", "M(thinking)", "S(auth-required)"}, kinds(evs))
	say := evs[1].(*a2a.Message)
	require.Equal(t, id, say.TaskID)
	require.Equal(t, evs[0].(*a2a.Task).ContextID, say.ContextID)
	// auth-required does not stop the script: the task went on at once.
	require.Equal(t, a2a.StateWorking, agent.Task(id).Status.State)

	evs = readAllStream(t, call(t.Context(), t, agent.Client(), a2a.V10, "stream", sendParams(t, a2a.V10, "fail", "")))
	require.Equal(t, []string{"T(submitted)", "S(working)", "S(failed)"}, kinds(evs))
	require.Equal(t, "nope", evs[2].(*a2a.StatusUpdate).Status.Message.Text())
}

func TestAgentDialectErrors(t *testing.T) {
	tests := []struct {
		name    string
		opts    []a2atest.Option
		header  string
		body    string
		code    int
		version a2a.Version // dialect of the error's data
	}{
		{"0.3 method to a 1.0 agent", nil, "", `{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{}}`, a2a.CodeMethodNotFound, a2a.V10},
		{"1.0 method to a 0.3 agent", []a2atest.Option{a2atest.WithVersions(a2a.V03)}, "1.0",
			`{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{}}`, a2a.CodeMethodNotFound, a2a.V03},
		{"1.0 method without header", nil, "", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`, a2a.CodeVersionNotSupported, a2a.V10},
		{"1.0 method with a 0.3 header", nil, "0.3", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`, a2a.CodeVersionNotSupported, a2a.V10},
		{"malformed JSON", nil, "1.0", `{"jsonrpc":"2.0",`, a2a.CodeParseError, a2a.V10},
		{"unknown method", nil, "1.0", `{"jsonrpc":"2.0","id":1,"method":"tasks/list","params":{}}`, a2a.CodeMethodNotFound, a2a.V10},
		{"no method", nil, "1.0", `{"jsonrpc":"2.0","id":1}`, a2a.CodeInvalidRequest, a2a.V10},
		{"missing params", nil, "1.0", `{"jsonrpc":"2.0","id":1,"method":"GetTask"}`, a2a.CodeInvalidParams, a2a.V10},
		{"send without message", []a2atest.Option{a2atest.WithVersions(a2a.V03)}, "",
			`{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"configuration":{}}}`, a2a.CodeInvalidParams, a2a.V03},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agent := a2atest.NewAgent(tt.opts...)
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, agentURL, strings.NewReader(tt.body))
			require.NoError(t, err)
			if tt.header != "" {
				req.Header.Set("A2A-Version", tt.header)
			}
			resp, err := agent.Client().Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			r := requireUnaryError(t, resp, tt.code)
			if tt.code != a2a.CodeParseError {
				require.Equal(t, "1", string(r.ID))
			} else {
				require.Equal(t, "null", string(r.ID))
			}
			if tt.version == a2a.V10 && tt.code == a2a.CodeVersionNotSupported {
				require.Contains(t, string(r.Error.Data), "VERSION_NOT_SUPPORTED")
			}
			if tt.version == a2a.V03 {
				require.Empty(t, r.Error.Data)
			}
			require.Empty(t, agent.TaskIDs())
			require.Len(t, agent.Requests(), 1)
		})
	}
	t.Run("GET on the endpoint", func(t *testing.T) {
		agent := a2atest.NewAgent()
		resp, _ := getCard(t, agent, "/")
		require.Equal(t, http.StatusNotFound, resp.StatusCode)
	})
}

func TestAgentRequestsRecorded(t *testing.T) {
	agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03, a2a.V10), a2atest.WithFaults(a2atest.Fault{}, a2atest.CloseAfterEvents(1)))
	c := agent.Client()
	id, _ := startTask(t.Context(), t, agent, a2a.V10)
	body := `{"jsonrpc":"2.0","id":"r1","method":"SubscribeToTask","params":{"id":"` + id + `","tenant":"acme"}}`
	resp := post(t.Context(), t, c, a2a.V10, []byte(body))
	requireUnaryError(t, resp, a2a.CodeUnsupportedOperation)
	unaryResult(t, call(t.Context(), t, c, a2a.V03, "get", idParams(id)))

	reqs := agent.Requests()
	require.Len(t, reqs, 3)
	require.Equal(t, "SendStreamingMessage", reqs[0].Method)
	require.Equal(t, "1.0", reqs[0].Version)
	require.Equal(t, "application/json", reqs[0].Header.Get("Content-Type"))
	require.Equal(t, "hi", reqs[0].Message.Text())
	require.Empty(t, reqs[0].TaskID)
	require.True(t, reqs[0].Fault.IsZero())

	require.Equal(t, "SubscribeToTask", reqs[1].Method)
	require.Equal(t, id, reqs[1].TaskID)
	require.Equal(t, "acme", reqs[1].Tenant)
	require.Nil(t, reqs[1].Message)
	require.Equal(t, a2atest.CloseAfterEvents(1), reqs[1].Fault)

	require.Equal(t, "tasks/get", reqs[2].Method)
	require.Empty(t, reqs[2].Version)
	require.Equal(t, id, reqs[2].TaskID)

	// Requests returns copies.
	reqs[0].Header.Set("Content-Type", "changed")
	reqs[0].Message.Parts[0].Text = "changed"
	again := agent.Requests()
	require.Equal(t, "application/json", again[0].Header.Get("Content-Type"))
	require.Equal(t, "hi", again[0].Message.Text())

	// A follow-up's task ID is the message's.
	resp = call(t.Context(), t, c, a2a.V10, "stream", sendParams(t, a2a.V10, "more", id))
	requireUnaryError(t, resp, a2a.CodeUnsupportedOperation)
	last := agent.Requests()[3]
	require.Equal(t, id, last.TaskID)
	require.Equal(t, id, last.Message.TaskID)
	require.Equal(t, itoa(4), itoa(len(agent.Requests())))
}

func TestAgentArtifactSemantics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(
			a2atest.ArtifactChunk(a2a.Artifact{ID: "a", Name: "report", Parts: []a2a.Part{a2a.TextPart("p1")}, Metadata: map[string]any{"x": 1.0}}, false, false),
			a2atest.ArtifactChunk(a2a.Artifact{ID: "a", Parts: []a2a.Part{{Data: []byte(`{"k":1}`)}}, Metadata: map[string]any{"y": 2.0}}, true, false),
			a2atest.Pause(time.Second),
			a2atest.Chunk("b", "other", false, true),
			a2atest.ArtifactChunk(a2a.Artifact{ID: "a", Parts: []a2a.Part{a2a.TextPart("p3")}}, false, true),
			a2atest.Finish(a2a.StateCompleted, ""),
		))
		resp := call(t.Context(), t, agent.Client(), a2a.V10, "stream", sendParams(t, a2a.V10, "hi", ""))
		r := newSSEReader(resp.Body)
		id := readEvent(t, r).(*a2a.Task).ID
		readEvent(t, r)
		second := readEvent(t, r).(*a2a.ArtifactUpdate)
		require.True(t, second.Append)
		require.JSONEq(t, `{"k":1}`, string(second.Artifact.Parts[0].Data))

		// Appending adds parts and merges metadata.
		task := agent.Task(id)
		require.Len(t, task.Artifacts, 1)
		require.Equal(t, "report", task.Artifacts[0].Name)
		require.Len(t, task.Artifacts[0].Parts, 2)
		require.Equal(t, map[string]any{"x": 1.0, "y": 2.0}, task.Artifacts[0].Metadata)

		evs, err := readStream(t, resp)
		require.NoError(t, err)
		require.Equal(t, []string{"A(bL)", "A(aL)", "S(completed)"}, kinds(evs))
		// Without append, an artifact is replaced where it stands.
		task = agent.Task(id)
		require.Len(t, task.Artifacts, 2)
		require.Equal(t, "a", task.Artifacts[0].ID)
		require.Equal(t, "p3", task.Artifacts[0].Text())
		require.Len(t, task.Artifacts[0].Parts, 1)
		require.Equal(t, "other", task.Artifacts[1].Text())
	})
}

func TestAgentConcurrentStreams(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(pausedScript(), a2atest.WithFaults(a2atest.CloseAfterEvents(1)))
		id, _ := startTask(t.Context(), t, agent, a2a.V10)
		start := time.Now()

		const n = 4
		type result struct {
			body []byte
			err  error
		}
		results := make(chan result, n)
		for range n {
			resp := call(t.Context(), t, agent.Client(), a2a.V10, "subscribe", idParams(id))
			go func() {
				b, err := io.ReadAll(resp.Body)
				results <- result{b, err}
			}()
		}
		for range n {
			res := <-results
			require.NoError(t, res.err)
			evs := readAllStream(t, &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}},
				Body: io.NopCloser(strings.NewReader(string(res.body)))})
			require.Equal(t, []string{"T(working)", "A(a1)", "A(a1+L)", "S(completed)"}, kinds(evs))
		}
		require.Equal(t, 3*time.Second, time.Since(start))
		require.Len(t, agent.Requests(), n+1)
	})
}

// A step's metadata rides on the event it yields, over both bindings and
// versions, and the status update's is folded into the task's metadata.
func TestAgentStepMetadata(t *testing.T) {
	md := map[string]any{"error_type": "upstream_error", "error_code": "UPSTREAM_TIMEOUT"}
	script := a2atest.WithScript(
		a2atest.Working("").WithMetadata(map[string]any{"step": "w"}),
		a2atest.Chunk("a1", "x", false, true).WithMetadata(map[string]any{"step": "a"}),
		a2atest.Say("hi").WithMetadata(map[string]any{"step": "m"}),
		a2atest.Finish(a2a.StateFailed, "upstream API timed out").WithMetadata(md),
	)
	for _, b := range []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
		for _, v := range bothVersions() {
			t.Run(string(b)+"/"+string(v), func(t *testing.T) {
				var evs []a2a.Event
				var agent *a2atest.Agent
				if b == a2a.BindingHTTPJSON {
					agent = restAgent(v, script)
					evs = readAllRESTStream(t, v, restStream(t.Context(), t, agent, v, "hi"))
				} else {
					agent = a2atest.NewAgent(a2atest.WithVersions(v), script)
					evs = readAllStream(t, call(t.Context(), t, agent.Client(), v, "stream", sendParams(t, v, "hi", "")))
				}
				require.Len(t, evs, 5)
				require.Equal(t, map[string]any{"step": "w"}, evs[1].(*a2a.StatusUpdate).Metadata)
				require.Equal(t, map[string]any{"step": "a"}, evs[2].(*a2a.ArtifactUpdate).Metadata)
				require.Equal(t, map[string]any{"step": "m"}, evs[3].(*a2a.Message).Metadata)
				require.Equal(t, md, evs[4].(*a2a.StatusUpdate).Metadata)

				got := agent.Task(evs[0].(*a2a.Task).ID)
				require.Equal(t, "upstream_error", got.Metadata["error_type"])
				require.Equal(t, "UPSTREAM_TIMEOUT", got.Metadata["error_code"])
				require.Equal(t, "w", got.Metadata["step"])
			})
		}
	}
	// The step keeps its own copy: changing the map afterwards changes nothing.
	step := a2atest.Finish(a2a.StateFailed, "").WithMetadata(md)
	md["error_code"] = "CHANGED"
	agent := a2atest.NewAgent(a2atest.WithScript(step))
	id, _ := startTask(t.Context(), t, agent, a2a.V10)
	require.Equal(t, "UPSTREAM_TIMEOUT", agent.Task(id).Metadata["error_code"])
}
