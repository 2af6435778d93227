package a2atest_test

import (
	"context"
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

// rawEvents reads every SSE data field of a stream as sent.
func rawEvents(t *testing.T, resp *http.Response) []string {
	t.Helper()
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	r := newSSEReader(resp.Body)
	var out []string
	for {
		ev, err := r.next()
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		out = append(out, ev.data)
	}
}

func TestWithRecordSeparator(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithRecordSeparator())
			data := rawEvents(t, call(context.Background(), t, agent.Client(), v, "stream", sendParams(t, v, "hi", "")))
			require.Len(t, data, 5, "task, working, two chunks, completed")
			for _, d := range data {
				require.True(t, strings.HasPrefix(d, "\x1e{"), "%q", d)
				require.True(t, json.Valid([]byte(d[1:])))
			}
		})
	}
}

func TestWithSnapshotResults(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithSnapshotResults())
			data := rawEvents(t, call(context.Background(), t, agent.Client(), v, "stream", sendParams(t, v, "hi", "")))
			require.Len(t, data, 5)
			var texts []string
			for _, d := range data {
				var r struct {
					Result map[string]json.RawMessage `json:"result"`
				}
				require.NoError(t, json.Unmarshal([]byte(d), &r))
				if v == a2a.V03 {
					require.NotContains(t, r.Result, "kind", "an untyped result: %s", d)
					require.NotContains(t, r.Result, "final")
					require.Contains(t, r.Result, "id")
					require.Contains(t, r.Result, "status")
				} else {
					require.Equal(t, []string{"task"}, keys(r.Result), "%s", d)
				}
				raw, err := json.Marshal(r.Result)
				require.NoError(t, err)
				var task *a2a.Task
				if v == a2a.V03 {
					task, err = a2a.Codec{}.DecodeTask(raw)
				} else {
					task, err = a2a.Codec{}.DecodeTask(r.Result["task"])
				}
				require.NoError(t, err)
				text := ""
				if a := task.Artifact("a1"); a != nil {
					text = a.Text()
				}
				texts = append(texts, string(task.Status.State)+":"+text)
			}
			require.Equal(t, []string{"submitted:", "working:", "working:hello ", "working:hello world", "completed:hello world"}, texts,
				"each result is the whole task after the event it stands for")
		})
	}
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestWithCumulativeMessage(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithCumulativeMessage(), a2atest.WithScript(
					a2atest.Working("Let me see. "), a2atest.Chunk("a1", "Lisbon ", false, false),
					a2atest.Say("is sunny"), a2atest.AskInput(" Which dates?"),
					a2atest.Chunk("a1", "Booked.", false, true), a2atest.Finish(a2a.StateCompleted, "")))
				ctx := context.Background()
				id, evs := startTask(ctx, t, agent, v)
				var texts []string
				msgIDs := map[string]bool{}
				for _, ev := range evs[1:] {
					su, ok := ev.(*a2a.StatusUpdate)
					require.True(t, ok, "only status updates: got %s", kind(ev))
					texts = append(texts, su.Status.Message.Text())
					msgIDs[su.Status.Message.ID] = true
				}
				require.Equal(t, []string{"Let me see. ", "Let me see. Lisbon ", "Let me see. Lisbon is sunny", "Let me see. Lisbon is sunny Which dates?"}, texts)
				require.Len(t, msgIDs, 1, "one message ID for the turn")

				follow := readAllStream(t, call(ctx, t, agent.Client(), v, "stream", sendParams(t, v, "May 3", id)))
				var after []string
				for _, ev := range follow {
					if su, ok := ev.(*a2a.StatusUpdate); ok && su.Status.Message != nil {
						after = append(after, su.Status.Message.Text())
						require.False(t, msgIDs[su.Status.Message.ID], "the follow-up's turn has a message of its own")
					}
				}
				require.Equal(t, []string{"Booked.", "Booked."}, after)

				task := agent.Task(id)
				require.Empty(t, task.Artifacts, "no artifact")
				var agentTexts []string
				for _, m := range task.History {
					if m.Role == a2a.RoleAgent {
						agentTexts = append(agentTexts, m.Text())
					}
				}
				require.Equal(t, []string{"Let me see. Lisbon is sunny Which dates?", "Booked."}, agentTexts,
					"each turn's message once, in its latest version")
			})
		})
	}
}

func TestWithErrorStatus(t *testing.T) {
	agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03), a2atest.WithErrorStatus(400), a2atest.WithoutResubscribe())
	resp := call(context.Background(), t, agent.Client(), a2a.V03, "subscribe", idParams("t-1"))
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	r := decodeRPC(t, body)
	require.NotNil(t, r.Error)
	require.Equal(t, a2a.CodeMethodNotFound, r.Error.Code)

	resp = call(context.Background(), t, agent.Client(), a2a.V03, "get", idParams("nope"))
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, "every plain error")

	// Out of range: ignored.
	plain := a2atest.NewAgent(a2atest.WithErrorStatus(200))
	requireUnaryError(t, call(context.Background(), t, plain.Client(), a2a.V10, "get", idParams("nope")), a2a.CodeTaskNotFound)
}

func TestWithInStreamFailure(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithInStreamFailure(),
				a2atest.WithScript(a2atest.Working("thinking"), a2atest.Finish(a2a.StateFailed, "model overloaded")))
			data := rawEvents(t, call(context.Background(), t, agent.Client(), v, "stream", sendParams(t, v, "hi", "")))
			require.Len(t, data, 3, "task, working, the error")
			r := decodeRPC(t, []byte(data[2]))
			require.NotNil(t, r.Error)
			require.Equal(t, a2a.CodeInternalError, r.Error.Code)
			require.Contains(t, r.Error.Message, "model overloaded")
			var first struct {
				Result json.RawMessage `json:"result"`
			}
			require.NoError(t, json.Unmarshal([]byte(data[0]), &first))
			ev, err := a2a.Codec{}.DecodeEvent(first.Result)
			require.NoError(t, err)
			require.Equal(t, a2a.StateFailed, agent.Task(ev.(*a2a.Task).ID).Status.State, "get-task says failed")
		})
	}
}

func TestWithCardPathAndBareCard(t *testing.T) {
	agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03), a2atest.WithCardPath("/.well-known/bot-7/agent-card.json"), a2atest.WithBareCard())
	c := agent.Client()
	for _, p := range []string{"/.well-known/agent-card.json", "/.well-known/agent.json"} {
		resp, err := c.Get("http://agent.test" + p)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusNotFound, resp.StatusCode, p)
	}
	resp, err := c.Get("http://agent.test/.well-known/bot-7/agent-card.json")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var card map[string]json.RawMessage
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&card))
	for _, k := range []string{"protocolVersion", "preferredTransport", "supportedInterfaces", "additionalInterfaces"} {
		require.NotContains(t, card, k)
	}
	require.JSONEq(t, `"http://agent.test/"`, string(card["url"]))
}

// All the habits at once, as that server has them, with a silence in the
// middle: the bytes still make a complete, decodable stream.
func TestWithWildHabits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithWildHabits("bot-7"), a2atest.WithScript(
			a2atest.Working("Hel"), a2atest.Pause(4*time.Second), a2atest.Chunk("a1", "lo", false, false),
			a2atest.Finish(a2a.StateCompleted, "")))
		start := time.Now()
		data := rawEvents(t, call(context.Background(), t, agent.Client(), a2a.V03, "stream", sendParams(t, a2a.V03, "hi", "")))
		require.Equal(t, 4*time.Second, time.Since(start), "the silence, with no keep-alive")
		require.Len(t, data, 4)
		var last *a2a.Task
		for _, d := range data {
			require.True(t, strings.HasPrefix(d, "\x1e"))
			var r struct {
				Result json.RawMessage `json:"result"`
			}
			require.NoError(t, json.Unmarshal([]byte(d[1:]), &r))
			var top map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(r.Result, &top))
			require.NotContains(t, top, "kind")
			var err error
			last, err = a2a.Codec{}.DecodeTask(r.Result)
			require.NoError(t, err)
		}
		require.Equal(t, a2a.StateCompleted, last.Status.State)
		require.Equal(t, "Hello", last.Status.Message.Text())
		require.Empty(t, last.Artifacts)

		resp := call(context.Background(), t, agent.Client(), a2a.V03, "subscribe", idParams(last.ID))
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, "no resubscribe, with the error status")
	})
}
