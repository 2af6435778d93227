package a2atest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
)

// hookURL is where the tests' webhooks live; the agent reaches them
// in-process (WithPushClient(a2atest.NewClient(webhook))).
const hookURL = "http://app.example/push/"

// received is one POST a webhook got.
type received struct {
	path, contentType, token, authorization string
	body                                    []byte
}

// webhook records every POST it gets and answers status.
type webhook struct {
	mu     sync.Mutex
	got    []received
	status int
}

func (w *webhook) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.mu.Lock()
	w.got = append(w.got, received{
		path: r.URL.Path, contentType: r.Header.Get("Content-Type"),
		token: r.Header.Get("X-A2A-Notification-Token"), authorization: r.Header.Get("Authorization"), body: body,
	})
	status := w.status
	w.mu.Unlock()
	if status == 0 {
		status = http.StatusOK
	}
	rw.WriteHeader(status)
}

func (w *webhook) all() []received {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]received(nil), w.got...)
}

// pushAgent is an agent of version v with pushes, delivered to hook
// in-process, closed when the test ends.
func pushAgent(t *testing.T, v a2a.Version, hook http.Handler, opts ...a2atest.Option) *a2atest.Agent {
	t.Helper()
	agent := a2atest.NewAgent(append([]a2atest.Option{a2atest.WithVersions(v), a2atest.WithPush(),
		a2atest.WithPushClient(a2atest.NewClient(hook)), pausedScript()}, opts...)...)
	t.Cleanup(agent.Close)
	return agent
}

// sendConfigWithHook is a send's configuration carrying a webhook, under
// the version's name.
func sendConfigWithHook(v a2a.Version, url, token string) string {
	name := "taskPushNotificationConfig"
	if v == a2a.V03 {
		name = "pushNotificationConfig"
	}
	return `{"` + name + `":{"url":"` + url + `","token":"` + token + `"}}`
}

// pushCall makes a push-config call over JSON-RPC and returns its response.
func pushCall(t *testing.T, agent *a2atest.Agent, v a2a.Version, method, params string) *http.Response {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":"p1","method":"` + method + `","params":` + params + `}`
	return post(t.Context(), t, agent.Client(), v, []byte(body))
}

// TestPushesEveryEventInOrder: a webhook given in a streaming send gets
// every event of the task as it falls due, in order, once each, with its
// token: in 1.0 each event byte for byte as the stream carries it, in 0.3
// the whole task after each event, as the SDKs push them.
func TestPushesEveryEventInOrder(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				hook := &webhook{}
				agent := pushAgent(t, v, hook)
				resp := call(t.Context(), t, agent.Client(), v, "stream",
					sendParamsWith(t, v, "hi", "", sendConfigWithHook(v, hookURL+"a", "tok-a")))
				evs := readAllStream(t, resp)
				synctest.Wait()
				got := hook.all()
				require.Len(t, got, len(evs), "one push per event")
				for i, r := range got {
					require.Equal(t, "/push/a", r.path)
					require.Equal(t, "tok-a", r.token)
					require.Empty(t, r.authorization)
					pushed, err := a2a.Codec{}.DecodeEvent(r.body)
					require.NoError(t, err, "push %d: %s", i, r.body)
					if v == a2a.V10 {
						require.Equal(t, "application/a2a+json", r.contentType)
						require.Equal(t, kind(evs[i]), kind(pushed), "push %d", i)
						continue
					}
					require.Equal(t, "application/json", r.contentType)
					task, ok := pushed.(*a2a.Task)
					require.True(t, ok, "a 0.3 push is the whole task: %s", r.body)
					require.Contains(t, string(r.body), `"kind":"task"`)
					if i == len(got)-1 {
						require.Equal(t, a2a.StateCompleted, task.Status.State)
						require.Equal(t, "xy", task.Artifacts[0].Text())
					}
				}
				pushes := agent.Pushes()
				require.Len(t, pushes, len(got))
				for _, p := range pushes {
					require.Equal(t, http.StatusOK, p.Status)
					require.Equal(t, v, p.Version)
				}
			})
		})
	}
}

// TestPushesFallDueOnTheAgentsClock: pushes are made when their events
// fall due, not when a client reads them, and keep coming after the
// client's stream is gone.
func TestPushesFallDueOnTheAgentsClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hook := &webhook{}
		agent := pushAgent(t, a2a.V10, hook)
		resp := call(t.Context(), t, agent.Client(), a2a.V10, "send",
			sendParamsWith(t, a2a.V10, "hi", "", `{"returnImmediately":true,"taskPushNotificationConfig":{"url":"`+hookURL+`b","token":"t"}}`))
		task := unaryTask(t, resp)
		synctest.Wait()
		require.Len(t, hook.all(), 2, "the task and its first status, due at once")
		advance(time.Second)
		synctest.Wait()
		require.Len(t, hook.all(), 3, "the first chunk, due after a second")
		advance(2 * time.Second)
		synctest.Wait()
		got := hook.all()
		require.Len(t, got, 5)
		last, err := a2a.Codec{}.DecodeEvent(got[4].body)
		require.NoError(t, err)
		su, ok := last.(*a2a.StatusUpdate)
		require.True(t, ok)
		require.Equal(t, task.ID, su.TaskID)
		require.Equal(t, a2a.StateCompleted, su.Status.State)
	})
}

// TestPushConfigCalls: the push-config calls of each version set, get,
// list and delete a task's webhooks, with the SDKs' IDs and errors; a
// webhook set mid-task gets only the events after it.
func TestPushConfigCalls(t *testing.T) {
	type names struct{ set, get, list, del string }
	cases := map[a2a.Version]names{
		a2a.V10: {"CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig", "ListTaskPushNotificationConfigs", "DeleteTaskPushNotificationConfig"},
		a2a.V03: {"tasks/pushNotificationConfig/set", "tasks/pushNotificationConfig/get", "tasks/pushNotificationConfig/list", "tasks/pushNotificationConfig/delete"},
	}
	for _, v := range bothVersions() {
		n := cases[v]
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				hook := &webhook{}
				agent := pushAgent(t, v, hook)
				task := unaryTask(t, call(t.Context(), t, agent.Client(), v, "send", sendParamsWith(t, v, "hi", "", returnAtOnce(v))))
				advance(time.Second) // the first chunk is due: it is not pushed to a webhook set after it
				setParams := `{"taskId":"` + task.ID + `","url":"` + hookURL + `c","token":"tok-c"}`
				getParams := `{"taskId":"` + task.ID + `","id":"%s"}`
				listParams := `{"taskId":"` + task.ID + `"}`
				if v == a2a.V03 {
					setParams = `{"taskId":"` + task.ID + `","pushNotificationConfig":{"url":"` + hookURL + `c","token":"tok-c"}}`
					getParams = `{"id":"` + task.ID + `","pushNotificationConfigId":"%s"}`
					listParams = `{"id":"` + task.ID + `"}`
				}
				var set map[string]any
				require.NoError(t, json.Unmarshal(unaryResult(t, pushCall(t, agent, v, n.set, setParams)), &set))
				configID := ""
				if v == a2a.V03 {
					cfg := set["pushNotificationConfig"].(map[string]any)
					configID = cfg["id"].(string)
					require.Equal(t, task.ID, configID, "0.3.14 names a config without an ID after its task")
					require.Equal(t, "tok-c", cfg["token"])
				} else {
					configID = set["id"].(string)
					require.NotEmpty(t, configID)
					require.NotEqual(t, task.ID, configID)
					require.Equal(t, task.ID, set["taskId"])
				}

				got := unaryResult(t, pushCall(t, agent, v, n.get, strings.Replace(getParams, "%s", configID, 1)))
				require.Contains(t, string(got), hookURL+"c")
				list := unaryResult(t, pushCall(t, agent, v, n.list, listParams))
				require.Contains(t, string(list), configID)
				if v == a2a.V10 {
					require.True(t, bytes.HasPrefix(list, []byte(`{"configs":[`)), "%s", list)
				} else {
					require.True(t, bytes.HasPrefix(list, []byte(`[`)), "%s", list)
				}
				wantUnknown := a2a.CodeTaskNotFound
				if v == a2a.V03 {
					wantUnknown = a2a.CodeInternalError // 0.3.14's answer for an unknown config
				}
				requireUnaryError(t, pushCall(t, agent, v, n.get, strings.Replace(getParams, "%s", "nope", 1)), wantUnknown)

				advance(2 * time.Second)
				synctest.Wait()
				pushed := hook.all()
				require.Len(t, pushed, 2, "only the events after the set: the second chunk and the ending")

				require.Equal(t, "null", string(unaryResult(t, pushCall(t, agent, v, n.del, strings.Replace(getParams, "%s", configID, 1)))))
				require.Equal(t, "null", string(unaryResult(t, pushCall(t, agent, v, n.del, strings.Replace(getParams, "%s", configID, 1)))), "delete is idempotent")
				require.NotContains(t, string(unaryResult(t, pushCall(t, agent, v, n.list, listParams))), configID)

				unknownTask := strings.Replace(setParams, task.ID, "no-such-task", 1)
				requireUnaryError(t, pushCall(t, agent, v, n.set, unknownTask), a2a.CodeTaskNotFound)
			})
		})
	}
}

// TestPushConfigCallsOverREST: the 1.0 HTTP+JSON routes of the push
// configs, with the SDK's statuses: 201 for a config made, 404 for an
// unknown one, 204 and no body for a delete.
func TestPushConfigCallsOverREST(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hook := &webhook{}
		agent := pushAgent(t, a2a.V10, hook, a2atest.WithBindings(a2a.BindingHTTPJSON))
		c := agent.Client()
		do := func(method, path, body string) (*http.Response, []byte) {
			t.Helper()
			req, err := http.NewRequestWithContext(t.Context(), method, "http://agent.test"+path, strings.NewReader(body))
			require.NoError(t, err)
			req.Header.Set("A2A-Version", "1.0")
			if body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, err := c.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			return resp, b
		}
		m := a2a.NewTextMessage(a2a.RoleUser, "hi")
		raw, err := a2a.Codec{Version: a2a.V10, Binding: a2a.BindingHTTPJSON}.EncodeMessage(m)
		require.NoError(t, err)
		resp, body := do(http.MethodPost, "/message:send", `{"message":`+string(raw)+`,"configuration":{"returnImmediately":true,"taskPushNotificationConfig":{"url":"`+hookURL+`r","token":"tok-r"}}}`)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
		ev, err := a2a.Codec{Version: a2a.V10, Binding: a2a.BindingHTTPJSON}.DecodeEvent(body)
		require.NoError(t, err)
		task := ev.(*a2a.Task)
		base := "/tasks/" + task.ID + "/pushNotificationConfigs"

		resp, body = do(http.MethodPost, base, `{"id":"r1","url":"`+hookURL+`r1","token":"tok-r1"}`)
		require.Equal(t, http.StatusCreated, resp.StatusCode, "%s", body)
		require.Contains(t, string(body), `"taskId":"`+task.ID+`"`)
		resp, body = do(http.MethodGet, base, "")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Contains(t, string(body), `"id":"r1"`)
		require.Contains(t, string(body), hookURL+"r\"", "the send's webhook is listed too")
		resp, body = do(http.MethodGet, base+"/r1", "")
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
		resp, _ = do(http.MethodGet, base+"/nope", "")
		require.Equal(t, http.StatusNotFound, resp.StatusCode)
		resp, body = do(http.MethodDelete, base+"/r1", "")
		require.Equal(t, http.StatusNoContent, resp.StatusCode)
		require.Empty(t, body)

		advance(3 * time.Second)
		synctest.Wait()
		var toSend int
		for _, r := range hook.all() {
			require.Equal(t, "/push/r", r.path, "r1 was set after the task's events were due, and deleted")
			require.Equal(t, "tok-r", r.token)
			toSend++
		}
		require.Equal(t, 5, toSend, "the send's webhook gets all five events")
	})
}

// TestWithoutPushRefusesConfigs: an agent without WithPush answers the
// push-config calls -32003 (HTTP+JSON 400), and ignores a webhook in a
// send, as the SDKs do.
func TestWithoutPushRefusesConfigs(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				hook := &webhook{}
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithPushClient(a2atest.NewClient(hook)))
				t.Cleanup(agent.Close)
				_, evs := startTask(t.Context(), t, agent, v)
				id := evs[0].(*a2a.Task).ID
				call(t.Context(), t, agent.Client(), v, "stream", sendParamsWith(t, v, "again", "", sendConfigWithHook(v, hookURL+"x", "t"))).Body.Close()
				method, params := "CreateTaskPushNotificationConfig", `{"taskId":"`+id+`","url":"`+hookURL+`x"}`
				if v == a2a.V03 {
					method, params = "tasks/pushNotificationConfig/set", `{"taskId":"`+id+`","pushNotificationConfig":{"url":"`+hookURL+`x"}}`
				}
				requireUnaryError(t, pushCall(t, agent, v, method, params), a2a.CodePushNotificationNotSupported)
				synctest.Wait()
				require.Empty(t, hook.all())
				require.Empty(t, agent.Pushes())
				require.False(t, agent.Card("agent.test").Capabilities.PushNotifications)
			})
		})
	}
}

// TestPushFaults: DropPush loses a push, RepeatPush sends one twice,
// SwapPush sends one after the next, and DelayPush holds one and every
// later push of the task.
func TestPushFaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hook := &webhook{}
		agent := pushAgent(t, a2a.V10, hook, a2atest.WithScript(
			a2atest.Working("w"), a2atest.Chunk("a1", "x", false, false), a2atest.Chunk("a1", "y", true, true),
			a2atest.Finish(a2a.StateCompleted, "done")),
			a2atest.WithPushFaults(a2atest.DropPush(2), a2atest.RepeatPush(3), a2atest.SwapPush(4), a2atest.DelayPush(5, time.Minute)))
		start := time.Now()
		evs := readAllStream(t, call(t.Context(), t, agent.Client(), a2a.V10, "stream",
			sendParamsWith(t, a2a.V10, "hi", "", sendConfigWithHook(a2a.V10, hookURL+"f", "t"))))
		require.Equal(t, []string{"T(submitted)", "S(working)", "A(a1)", "A(a1+L)", "S(completed)"}, kinds(evs))
		synctest.Wait()
		order := func() []string {
			var out []string
			for _, r := range hook.all() {
				ev, err := a2a.Codec{}.DecodeEvent(r.body)
				require.NoError(t, err)
				out = append(out, kind(ev))
			}
			return out
		}
		// 1 the task; 2 dropped; 3 twice; 4 held for 5, which waits a minute.
		require.Equal(t, []string{"T(submitted)", "A(a1)", "A(a1)"}, order())
		advance(time.Minute)
		synctest.Wait()
		require.Equal(t, []string{"T(submitted)", "A(a1)", "A(a1)", "S(completed)", "A(a1+L)"}, order())
		require.Equal(t, time.Minute, time.Since(start))
		pushes := agent.Pushes()
		require.Len(t, pushes, 6, "five POSTs and the one dropped")
		require.True(t, pushes[1].Dropped)
		require.Equal(t, 1, countDropped(pushes))
	})
}

// TestPushAuthentication: a 1.0 webhook with an authentication gets it as
// Authorization instead of the token; 0.3 (as 0.3.14) ignores it.
func TestPushAuthentication(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				hook := &webhook{}
				agent := pushAgent(t, v, hook)
				cfg := `{"taskPushNotificationConfig":{"url":"` + hookURL + `z","token":"tok-z","authentication":{"scheme":"Bearer","credentials":"cred-z"}}}`
				if v == a2a.V03 {
					cfg = `{"pushNotificationConfig":{"url":"` + hookURL + `z","token":"tok-z","authentication":{"schemes":["Bearer"],"credentials":"cred-z"}}}`
				}
				readAllStream(t, call(t.Context(), t, agent.Client(), v, "stream", sendParamsWith(t, v, "hi", "", cfg)))
				synctest.Wait()
				got := hook.all()
				require.NotEmpty(t, got)
				for _, r := range got {
					if v == a2a.V10 {
						require.Equal(t, "Bearer cred-z", r.authorization)
						require.Empty(t, r.token)
						continue
					}
					require.Empty(t, r.authorization)
					require.Equal(t, "tok-z", r.token)
				}
			})
		})
	}
}

// TestCloseStopsPushers: Close cuts a push in progress and stops the
// pushers of tasks still running; no goroutine is left (goleak, TestMain).
func TestCloseStopsPushers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		block := make(chan struct{})
		hook := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-block:
			case <-r.Context().Done():
			}
		})
		agent := a2atest.NewAgent(a2atest.WithPush(), a2atest.WithPushClient(a2atest.NewClient(hook)), pausedScript())
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		call(ctx, t, agent.Client(), a2a.V10, "send",
			sendParamsWith(t, a2a.V10, "hi", "", `{"returnImmediately":true,"taskPushNotificationConfig":{"url":"`+hookURL+`s"}}`))
		synctest.Wait()
		agent.Close()
		agent.Close()
		pushes := agent.Pushes()
		require.Len(t, pushes, 1, "the first push was cut; no other was made")
		require.Error(t, pushes[0].Err)
		close(block)
	})
}

func countDropped(ps []a2atest.Push) int {
	n := 0
	for _, p := range ps {
		if p.Dropped {
			n++
		}
	}
	return n
}

// pushCapture is what a push capture (testdata/push, copied from the
// project's captures of @a2a-js/sdk) holds of each exchange.
type pushCapture struct {
	Exchanges []struct {
		Request struct {
			Method string          `json:"method"`
			URL    string          `json:"url"`
			Body   json.RawMessage `json:"body"`
		} `json:"request"`
		Response struct {
			Status int             `json:"status"`
			Body   json.RawMessage `json:"body"`
		} `json:"response"`
	} `json:"exchanges"`
}

// capturedTask finds the task a capture's push-config calls name.
var capturedTask = regexp.MustCompile(`"taskId": "([0-9a-f-]{36})"|/tasks/([0-9a-f-]{36})/pushNotificationConfigs`)

// uuidLike matches the random IDs a server makes.
var uuidLike = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// TestPushConfigCallsAnswerAsCaptured replays the push-config calls of
// the captures against an agent with a task of its own (the captured
// task's ID replaced by it), and compares each answer with the SDK's:
// the same HTTP status, the same JSON with the server-made IDs replaced,
// or the same error code.
func TestPushConfigCallsAnswerAsCaptured(t *testing.T) {
	cases := []struct {
		file string
		v    a2a.Version
		rest bool
		// send is the configuration of the send that made the captured
		// task, with the webhook it carried.
		send string
	}{
		{"1.0-jsonrpc-config-calls.json", a2a.V10, false, `{"returnImmediately":true}`},
		{"1.0-rest-config.json", a2a.V10, true, `{"returnImmediately":true,"taskPushNotificationConfig":{"url":"http://127.0.0.1:PORT/ok/a3","token":"tok-a3"}}`},
		{"0.3-js0.3.14-config-calls.json", a2a.V03, false, `{"blocking":false}`},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				raw, err := os.ReadFile(filepath.Join("testdata", "push", tc.file))
				require.NoError(t, err)
				var capture pushCapture
				require.NoError(t, json.Unmarshal(raw, &capture))
				opts := []a2atest.Option{}
				if tc.rest {
					opts = append(opts, a2atest.WithBindings(a2a.BindingJSONRPC, a2a.BindingHTTPJSON), a2atest.WithRESTBase("/rest"))
				}
				agent := pushAgent(t, tc.v, &webhook{}, opts...)
				ours := unaryTask(t, call(t.Context(), t, agent.Client(), tc.v, "send", sendParamsWith(t, tc.v, "hi", "", tc.send)))
				// The captured task: the one the first push-config call names.
				m := capturedTask.FindStringSubmatch(string(raw))
				require.NotNil(t, m)
				theirs := m[1] + m[2]
				replayed := 0
				for i, x := range capture.Exchanges {
					var env struct {
						Method string `json:"method"`
					}
					_ = json.Unmarshal(x.Request.Body, &env)
					isPush := strings.Contains(x.Request.URL, "/pushNotificationConfigs") ||
						strings.Contains(env.Method, "PushNotificationConfig") || strings.HasPrefix(env.Method, "tasks/pushNotificationConfig/")
					if !isPush {
						continue
					}
					replayed++
					body := strings.ReplaceAll(string(x.Request.Body), theirs, ours.ID)
					url := "http://agent.test" + strings.ReplaceAll(x.Request.URL, theirs, ours.ID)
					var rd io.Reader
					if x.Request.Method != http.MethodGet && x.Request.Method != http.MethodDelete {
						rd = strings.NewReader(body)
					}
					req, err := http.NewRequestWithContext(t.Context(), x.Request.Method, url, rd)
					require.NoError(t, err)
					req.Header.Set("Content-Type", "application/json")
					if tc.v == a2a.V10 {
						req.Header.Set("A2A-Version", "1.0")
					}
					resp, err := agent.Client().Do(req)
					require.NoError(t, err)
					got, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					require.NoError(t, err)
					require.Equal(t, x.Response.Status, resp.StatusCode, "exchange %d: %s", i, got)
					want := string(x.Response.Body)
					if want == `""` || want == "null" && tc.rest {
						require.Empty(t, got, "exchange %d", i)
						continue
					}
					var wantObj map[string]any
					if json.Unmarshal(x.Response.Body, &wantObj) == nil {
						if e, ok := wantObj["error"].(map[string]any); ok && !tc.rest {
							var gotObj map[string]any
							require.NoError(t, json.Unmarshal(got, &gotObj))
							require.Equal(t, e["code"], gotObj["error"].(map[string]any)["code"], "exchange %d: %s", i, got)
							continue
						}
						if _, ok := wantObj["error"]; ok {
							require.Contains(t, string(got), `"error"`, "exchange %d", i)
							continue
						}
					}
					norm := func(s string) string { return uuidLike.ReplaceAllString(strings.ReplaceAll(s, ours.ID, theirs), "ID") }
					require.JSONEq(t, uuidLike.ReplaceAllString(want, "ID"), norm(string(got)), "exchange %d", i)
				}
				require.GreaterOrEqual(t, replayed, 5)
			})
		})
	}
}
