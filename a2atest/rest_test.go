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

func TestRESTCard(t *testing.T) {
	const host = "agent.test:9999"
	const base = "http://" + host + "/"
	tests := []struct {
		name string
		opts []a2atest.Option
		want string
	}{
		{"1.0, REST only", []a2atest.Option{a2atest.WithBindings(a2a.BindingHTTPJSON), a2atest.WithTenant("acme")},
			`{"supportedInterfaces":[{"url":"` + base + `","protocolBinding":"HTTP+JSON","protocolVersion":"1.0","tenant":"acme"}]}`},
		{"1.0, both, REST first, under /rest", []a2atest.Option{
			a2atest.WithBindings(a2a.BindingHTTPJSON, a2a.BindingJSONRPC, a2a.BindingHTTPJSON), a2atest.WithRESTBase("rest/")},
			`{"supportedInterfaces":[{"url":"http://` + host + `/rest","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"},
				{"url":"` + base + `","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`},
		{"0.3, REST only", []a2atest.Option{a2atest.WithVersions(a2a.V03), a2atest.WithBindings("REST")},
			`{"url":"` + base + `","preferredTransport":"HTTP+JSON","protocolVersion":"0.3.0"}`},
		{"0.3, both", []a2atest.Option{a2atest.WithVersions(a2a.V03), a2atest.WithBindings(a2a.BindingJSONRPC, a2a.BindingHTTPJSON),
			a2atest.WithRESTBase("/rest")},
			`{"url":"` + base + `","preferredTransport":"JSONRPC","protocolVersion":"0.3.0",
			"additionalInterfaces":[{"url":"` + base + `","transport":"JSONRPC"},{"url":"http://` + host + `/rest","transport":"HTTP+JSON"}]}`},
		{"hybrid, both", []a2atest.Option{a2atest.WithVersions(a2a.V03, a2a.V10), a2atest.WithBindings(a2a.BindingJSONRPC, a2a.BindingHTTPJSON)},
			`{"url":"` + base + `","preferredTransport":"JSONRPC","protocolVersion":"0.3.0",
			"additionalInterfaces":[{"url":"` + base + `","transport":"JSONRPC"},{"url":"` + base + `","transport":"HTTP+JSON"}],
			"supportedInterfaces":[{"url":"` + base + `","protocolBinding":"JSONRPC","protocolVersion":"1.0"},
				{"url":"` + base + `","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"},
				{"url":"` + base + `","protocolBinding":"JSONRPC","protocolVersion":"0.3"},
				{"url":"` + base + `","protocolBinding":"HTTP+JSON","protocolVersion":"0.3"}]}`},
		{"gRPC and unknown bindings are ignored", []a2atest.Option{a2atest.WithBindings(a2a.BindingGRPC, "SOAP")},
			`{"supportedInterfaces":[{"url":"` + base + `","protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agent := a2atest.NewAgent(tt.opts...)
			resp, body := getCard(t, agent, "/.well-known/agent-card.json")
			require.Equal(t, http.StatusOK, resp.StatusCode)
			var got map[string]any
			require.NoError(t, json.Unmarshal(body, &got))
			for _, k := range []string{"name", "description", "version", "capabilities"} {
				delete(got, k)
			}
			b, err := json.Marshal(got)
			require.NoError(t, err)
			require.JSONEq(t, tt.want, string(b))
		})
	}
}

// TestRESTOnlyRefusesJSONRPC checks that an agent serving only HTTP+JSON
// answers a JSON-RPC POST as a REST server does, with 404, so that a client
// that ignores the card fails.
func TestRESTOnlyRefusesJSONRPC(t *testing.T) {
	agent := restAgent(a2a.V10)
	resp := call(t.Context(), t, agent.Client(), a2a.V10, "stream", sendParams(t, a2a.V10, "hi", ""))
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	require.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Contains(t, string(body), "<pre>Cannot POST /</pre>")
	require.Empty(t, agent.TaskIDs())
	reqs := agent.Requests()
	require.Len(t, reqs, 1)
	require.Equal(t, "", reqs[0].Method)
	require.Equal(t, a2a.BindingHTTPJSON, reqs[0].Binding)
	require.Equal(t, "/", reqs[0].Path)

	// The card is still served, and cards are not requests.
	resp, _ = getCard(t, agent, "/.well-known/agent-card.json")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Len(t, agent.Requests(), 1)

	// A JSON-RPC agent does not answer the REST paths as routes.
	rpc := a2atest.NewAgent()
	resp = rest(t.Context(), t, rpc.Client(), a2a.V10, http.MethodPost, "/message:stream", restSend(t, a2a.V10, "hi", "", ""))
	r := requireUnaryError(t, resp, a2a.CodeInvalidRequest)
	require.NotNil(t, r.Error)
	require.Equal(t, a2a.BindingJSONRPC, rpc.Requests()[0].Binding)
}

// TestRESTRoutes checks which paths and methods are routes, and what the
// agent records for each.
func TestRESTRoutes(t *testing.T) {
	type route struct {
		method, path string
		wantMethod   string // the JSON-RPC name recorded; "" for no route
		taskID       string
		tenant       string
	}
	tests := map[a2a.Version][]route{
		a2a.V03: {
			{"POST", "/v1/message:stream", "message/stream", "", ""},
			{"POST", "/v1/message:send", "message/send", "", ""},
			{"GET", "/v1/tasks/t1", "tasks/get", "t1", ""},
			{"GET", "/v1/tasks/a%2Fb", "tasks/get", "a/b", ""},
			{"POST", "/v1/tasks/t1:cancel", "tasks/cancel", "t1", ""},
			{"POST", "/v1/tasks/t1:subscribe", "tasks/resubscribe", "t1", ""},
			{"GET", "/v1/tasks/t1:subscribe", "tasks/resubscribe", "t1", ""},
			{"GET", "/v1/tasks/t1:cancel", "tasks/get", "t1:cancel", ""},
			{"POST", "/message:stream", "", "", ""},
			{"POST", "/acme/v1/message:stream", "", "", ""},
			{"GET", "/v1/message:stream", "", "", ""},
			{"POST", "/v1/tasks/t1", "", "", ""},
			{"DELETE", "/v1/tasks/t1", "", "", ""},
			{"POST", "/v1/tasks/:cancel", "", "", ""},
		},
		a2a.V10: {
			{"POST", "/message:stream", "SendStreamingMessage", "", ""},
			{"POST", "/message:send", "SendMessage", "", ""},
			{"GET", "/tasks/t1", "GetTask", "t1", ""},
			{"POST", "/tasks/t1:cancel", "CancelTask", "t1", ""},
			{"POST", "/tasks/t1:subscribe", "SubscribeToTask", "t1", ""},
			{"GET", "/tasks/t1:subscribe", "SubscribeToTask", "t1", ""},
			{"POST", "/acme/message:stream", "SendStreamingMessage", "", "acme"},
			{"GET", "/acme/tasks/t1", "GetTask", "t1", "acme"},
			{"POST", "/acme/tasks/t1:subscribe", "SubscribeToTask", "t1", "acme"},
			{"GET", "/v1/tasks/t1", "GetTask", "t1", "v1"}, // as @a2a-js/sdk 1.3.0 routes it
			{"GET", "/tasks/t1?tenant=q", "GetTask", "t1", "q"},
			{"GET", "/acme/tasks/t1?tenant=q", "GetTask", "t1", "acme"},
			{"POST", "/a/b/message:stream", "", "", ""},
			{"GET", "/message:send", "", "", ""},
			{"PUT", "/tasks/t1", "", "", ""},
		},
	}
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := restAgent(v, a2atest.WithScript(a2atest.Working(""), a2atest.AskInput("?")))
			for _, tt := range tests[v] {
				body := ""
				if strings.HasSuffix(tt.path, "message:send") || strings.HasSuffix(tt.path, "message:stream") {
					body = restSend(t, v, "hi", "", "")
				}
				n := len(agent.Requests())
				resp := rest(t.Context(), t, agent.Client(), v, tt.method, tt.path, body)
				_, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				reqs := agent.Requests()
				require.Len(t, reqs, n+1, "%s %s", tt.method, tt.path)
				got := reqs[n]
				require.Equal(t, tt.wantMethod, got.Method, "%s %s", tt.method, tt.path)
				require.Equal(t, a2a.BindingHTTPJSON, got.Binding)
				require.Equal(t, tt.method, got.HTTPMethod)
				p, _, _ := strings.Cut(tt.path, "?")
				require.Equal(t, strings.ReplaceAll(p, "%2F", "/"), got.Path)
				if tt.wantMethod == "" {
					require.Equal(t, http.StatusNotFound, resp.StatusCode, "%s %s", tt.method, tt.path)
					require.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
					continue
				}
				require.False(t, resp.StatusCode == http.StatusNotFound && resp.Header.Get("Content-Type") == "text/html; charset=utf-8",
					"%s %s is a route", tt.method, tt.path)
				require.Equal(t, tt.taskID, got.TaskID, "%s %s", tt.method, tt.path)
				require.Equal(t, tt.tenant, got.Tenant, "%s %s", tt.method, tt.path)
			}
		})
	}
}

// TestRESTRoundTrip runs a task with a follow-up over REST and checks what
// both sides hold: the agent's decoded message is the client's, the stream
// folds into the agent's task, and get and cancel answer with it.
func TestRESTRoundTrip(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := restAgent(v, a2atest.WithScript(
				a2atest.Working("on it"),
				a2atest.Chunk("a1", "hello ", false, false),
				a2atest.AskInput("which one?"),
				a2atest.Chunk("a1", "world", true, true),
				a2atest.Say("here"),
				a2atest.Finish(a2a.StateCompleted, "done"),
			))
			c := agent.Client()
			m := &a2a.Message{ID: "m-1", Role: a2a.RoleUser, Parts: []a2a.Part{
				a2a.TextPart("hi"),
				{Data: json.RawMessage(`{"n":1,"s":"x"}`)},
				{URL: "https://example.com/f.txt", MediaType: "text/plain"},
				{Raw: []byte("bytes"), MediaType: "application/octet-stream"},
			}}
			raw, err := a2a.Codec{Version: v, Binding: a2a.BindingHTTPJSON}.EncodeMessage(m)
			require.NoError(t, err)
			evs := readAllRESTStream(t, v, rest(t.Context(), t, c, v, http.MethodPost, restPath(v, "message:stream"), `{"message":`+string(raw)+`}`))
			final := ""
			if v == a2a.V03 {
				final = ",F"
			}
			require.Equal(t, []string{"T(submitted)", "S(working)", "A(a1)", "S(input-required" + final + ")"}, kinds(evs))
			id := evs[0].(*a2a.Task).ID
			got := agent.Requests()[0].Message
			require.Equal(t, m.Parts, got.Parts, "the message arrives as sent")
			require.Equal(t, "m-1", got.ID)

			polled := restTask(t, v, rest(t.Context(), t, c, v, http.MethodGet, restPath(v, "tasks/"+id+"?historyLength=10"), ""), http.StatusOK)
			want := agent.Task(id)
			require.Equal(t, want.Status.State, polled.Status.State)
			require.Equal(t, want.Artifacts, polled.Artifacts)
			require.Len(t, polled.History, len(want.History))
			require.Equal(t, m.Parts, polled.History[0].Parts)

			evs = readAllRESTStream(t, v, rest(t.Context(), t, c, v, http.MethodPost, restPath(v, "message:stream"), restSend(t, v, "blue", id, "")))
			wantKinds := []string{"A(a1+L)", "M(here)", "S(completed" + final + ")"}
			if v == a2a.V10 {
				wantKinds = append([]string{"T(input-required)"}, wantKinds...)
			}
			require.Equal(t, wantKinds, kinds(evs))
			require.Equal(t, "hello world", agent.Task(id).Artifacts[0].Text())

			polled = restTask(t, v, rest(t.Context(), t, c, v, http.MethodGet, restPath(v, "tasks/"+id), ""), http.StatusOK)
			require.Equal(t, a2a.StateCompleted, polled.Status.State)
			require.Equal(t, "done", polled.Status.Message.Text())
			require.Equal(t, "hello world", polled.Artifacts[0].Text())
		})
	}
}

// TestRESTPartsInTheJSONRPCPlace checks that a 0.3 message's "parts" are
// not read: the v0.3 proto has them under "content", and @a2a-js/sdk 0.3.14
// takes such a message without parts.
func TestRESTPartsInTheJSONRPCPlace(t *testing.T) {
	agent := restAgent(a2a.V03)
	body := `{"message":{"messageId":"m-2","role":"ROLE_USER","parts":[{"kind":"text","text":"hi"}]}}`
	restResult(t, a2a.V03, rest(t.Context(), t, agent.Client(), a2a.V03, http.MethodPost, "/v1/message:send", body))
	got := agent.Requests()[0].Message
	require.NotNil(t, got)
	require.Equal(t, "m-2", got.ID)
	require.Empty(t, got.Parts)
}

// TestRESTHistoryLength checks get's historyLength, whose absence means no
// history in 0.3 (0.3.14) and the whole of it in 1.0 (1.3.0).
func TestRESTHistoryLength(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := restAgent(v)
			id, _ := startRESTTask(t.Context(), t, agent, v)
			require.Len(t, agent.Task(id).History, 1)
			agent = restAgent(v, a2atest.WithScript(a2atest.Say("a"), a2atest.Say("b"), a2atest.Finish(a2a.StateCompleted, "")))
			id, _ = startRESTTask(t.Context(), t, agent, v)
			require.Len(t, agent.Task(id).History, 3)

			tests := []struct {
				query string
				want  int
			}{
				{"", map[a2a.Version]int{a2a.V03: 0, a2a.V10: 3}[v]},
				{"?historyLength=2", 2},
				{"?historyLength=2abc", 2},
				{"?historyLength=9", 3},
				{"?historyLength=0", map[a2a.Version]int{a2a.V03: 3, a2a.V10: 0}[v]},
				{"?history_length=1", map[a2a.Version]int{a2a.V03: 1, a2a.V10: 3}[v]},
			}
			for _, tt := range tests {
				task := restTask(t, v, rest(t.Context(), t, agent.Client(), v, http.MethodGet, restPath(v, "tasks/"+id+tt.query), ""), http.StatusOK)
				require.Len(t, task.History, tt.want, tt.query)
				if tt.want > 0 {
					require.Equal(t, agent.Task(id).History[3-tt.want:], task.History, tt.query)
				}
			}
			for _, q := range []string{"?historyLength=x", "?historyLength=-1"} {
				requireRESTError(t, v, rest(t.Context(), t, agent.Client(), v, http.MethodGet, restPath(v, "tasks/nope"+q), ""),
					http.StatusBadRequest, a2a.CodeInvalidParams)
			}
		})
	}
}

// TestRESTUnarySend checks message:send: 201 in 0.3 and 200 in 1.0, a
// SendMessageResponse, blocking unless asked otherwise (in 0.3, unless a
// configuration lacks blocking: true).
func TestRESTUnarySend(t *testing.T) {
	tests := []struct {
		name        string
		v           a2a.Version
		config      string
		nonBlocking bool
	}{
		{"0.3 no configuration", a2a.V03, "", false},
		{"0.3 blocking true", a2a.V03, `{"blocking":true}`, false},
		{"0.3 blocking false", a2a.V03, `{"blocking":false}`, true},
		{"0.3 configuration without blocking", a2a.V03, `{"acceptedOutputModes":["text/plain"]}`, true},
		{"0.3 configuration null", a2a.V03, `null`, false},
		{"1.0 no configuration", a2a.V10, "", false},
		{"1.0 returnImmediately", a2a.V10, `{"returnImmediately":true}`, true},
		{"1.0 returnImmediately false", a2a.V10, `{"returnImmediately":false}`, false},
		{"1.0 reads only its own field", a2a.V10, `{"blocking":false}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := restAgent(tt.v, pausedScript())
				start := time.Now()
				ev := restResult(t, tt.v, rest(t.Context(), t, agent.Client(), tt.v, http.MethodPost, restPath(tt.v, "message:send"),
					restSend(t, tt.v, "hi", "", tt.config)))
				task, ok := ev.(*a2a.Task)
				require.True(t, ok, "a Task: %s", kind(ev))
				want, took := a2a.StateCompleted, 3*time.Second
				if tt.nonBlocking {
					want, took = a2a.StateWorking, 0
				}
				require.Equal(t, want, task.Status.State)
				require.Equal(t, took, time.Since(start))
				require.Equal(t, tt.nonBlocking, agent.Requests()[0].NonBlocking)
			})
		})
	}
	for _, v := range bothVersions() {
		t.Run(string(v)+" reply", func(t *testing.T) {
			agent := restAgent(v, a2atest.WithScript(a2atest.Reply("hello")))
			ev := restResult(t, v, rest(t.Context(), t, agent.Client(), v, http.MethodPost, restPath(v, "message:send"), restSend(t, v, "hi", "", "")))
			msg, ok := ev.(*a2a.Message)
			require.True(t, ok, "a Message: %s", kind(ev))
			require.Equal(t, "hello", msg.Text())
			require.Empty(t, agent.TaskIDs())
		})
	}
}

// TestRESTCancel checks tasks/{id}:cancel: 202 with the Task in 0.3, 200 in
// 1.0; a terminal task is not cancelable (409 in 0.3, 400 in 1.0).
func TestRESTCancel(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := restAgent(v, pausedScript())
			c := agent.Client()
			ev := restResult(t, v, rest(t.Context(), t, c, v, http.MethodPost, restPath(v, "message:send"), restSend(t, v, "hi", "", `{"blocking":false,"returnImmediately":true}`)))
			id := ev.(*a2a.Task).ID
			status := map[a2a.Version]int{a2a.V03: http.StatusAccepted, a2a.V10: http.StatusOK}[v]
			task := restTask(t, v, rest(t.Context(), t, c, v, http.MethodPost, restPath(v, "tasks/"+id+":cancel"), ""), status)
			require.Equal(t, a2a.StateCanceled, task.Status.State)
			require.Equal(t, a2a.StateCanceled, agent.Task(id).Status.State)

			status = map[a2a.Version]int{a2a.V03: http.StatusConflict, a2a.V10: http.StatusBadRequest}[v]
			requireRESTError(t, v, rest(t.Context(), t, c, v, http.MethodPost, restPath(v, "tasks/"+id+":cancel"), "{}"), status, a2a.CodeTaskNotCancelable)
			requireRESTError(t, v, rest(t.Context(), t, c, v, http.MethodPost, restPath(v, "tasks/nope:cancel"), ""), http.StatusNotFound, a2a.CodeTaskNotFound)
			require.Equal(t, []string{"message/send", "tasks/cancel", "tasks/cancel", "tasks/cancel"},
				methods(agent.Requests(), v))
		})
	}
}

// methods lists the recorded methods, spelled as in 0.3.
func methods(reqs []a2atest.Request, v a2a.Version) []string {
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = r.Method
		if v == a2a.V10 {
			for _, op := range []string{"stream", "send", "get", "cancel", "subscribe"} {
				if r.Method == methodName(a2a.V10, op) {
					out[i] = methodName(a2a.V03, op)
				}
			}
		}
	}
	return out
}

// TestRESTRefusals checks the errors of the REST front, in the order
// @a2a-js/sdk checks them.
func TestRESTRefusals(t *testing.T) {
	type refusal struct {
		name, method, path, ct, version, body string
		status, code                          int
		message                               string
	}
	v03 := []refusal{
		{"malformed JSON", "POST", "/v1/message:send", "application/json", "", `{"message":`, 400, a2a.CodeParseError, "Invalid JSON payload."},
		{"JSON that is not an object", "POST", "/v1/message:send", "application/json", "", `"hi"`, 400, a2a.CodeParseError, "Invalid JSON payload."},
		{"a body of another type is read as empty", "POST", "/v1/message:send", "text/plain", "", `{"message":` + restMessage(t, a2a.V03, "hi", "") + `}`, 400, a2a.CodeInvalidParams, "message is required"},
		{"no message", "POST", "/v1/message:stream", "application/json", "", `{}`, 400, a2a.CodeInvalidParams, "message is required"},
		{"no role", "POST", "/v1/message:send", "application/json", "", `{"message":{"messageId":"m","content":[{"text":"x"}]}}`, 400, a2a.CodeInvalidParams, "Invalid role: 0"},
		{"a JSON-RPC role", "POST", "/v1/message:send", "application/json", "", `{"message":{"messageId":"m","role":"user","content":[{"text":"x"}]}}`, 400, a2a.CodeInvalidParams, "Invalid role: -1"},
		{"no messageId", "POST", "/v1/message:send", "application/json", "", `{"message":{"role":"ROLE_USER","content":[{"text":"x"}]}}`, 400, a2a.CodeInvalidParams, "message.messageId is required"},
		{"follow-up to an unknown task", "POST", "/v1/message:stream", "application/json", "", `{"message":` + restMessage(t, a2a.V03, "hi", "nope") + `}`, 404, a2a.CodeTaskNotFound, "task not found: nope"},
		{"subscribe to an unknown task", "GET", "/v1/tasks/nope:subscribe", "", "", "", 404, a2a.CodeTaskNotFound, "task not found: nope"},
		{"the header is not read", "GET", "/v1/tasks/nope", "", "2.0", "", 404, a2a.CodeTaskNotFound, "task not found: nope"},
	}
	v10 := []refusal{
		{"another content type", "POST", "/message:send", "text/plain", "1.0", `{}`, 400, a2a.CodeContentTypeNotSupported,
			`Unsupported Content-Type "text/plain"; expected application/json or application/a2a+json.`},
		{"malformed JSON before the version", "POST", "/message:send", "application/json", "", `{"message":`, 400, a2a.CodeInvalidParams, "Invalid JSON payload."},
		{"no version", "GET", "/tasks/nope", "", "", "", 400, a2a.CodeVersionNotSupported,
			"The requested A2A protocol version '0.3' is not supported. Supported versions: 1.0"},
		{"another version", "GET", "/tasks/nope", "", "2.0", "", 400, a2a.CodeVersionNotSupported,
			"The requested A2A protocol version '2.0' is not supported. Supported versions: 1.0"},
		{"no body is no message", "POST", "/message:send", "", "1.0", "", 400, a2a.CodeInvalidParams, "message is required"},
		{"no messageId", "POST", "/message:stream", "application/a2a+json", "1.0", `{"message":{"role":"ROLE_USER","parts":[{"text":"x"}]}}`, 400, a2a.CodeInvalidParams, "message.messageId is required"},
		{"JSON that is not an object has no message", "POST", "/message:send", "application/json", "1.0", `[]`, 400, a2a.CodeInvalidParams, "message is required"},
		{"follow-up to an unknown task", "POST", "/message:stream", "application/json", "1.0", `{"message":` + restMessage(t, a2a.V10, "hi", "nope") + `}`, 404, a2a.CodeTaskNotFound, "task not found: nope"},
		{"subscribe to an unknown task", "POST", "/tasks/nope:subscribe", "", "1.0", "", 404, a2a.CodeTaskNotFound, "task not found: nope"},
	}
	for v, tests := range map[a2a.Version][]refusal{a2a.V03: v03, a2a.V10: v10} {
		for _, tt := range tests {
			t.Run(string(v)+" "+tt.name, func(t *testing.T) {
				agent := restAgent(v)
				var rd io.Reader
				if tt.body != "" {
					rd = strings.NewReader(tt.body)
				}
				req, err := http.NewRequestWithContext(t.Context(), tt.method, "http://agent.test"+tt.path, rd)
				require.NoError(t, err)
				if tt.ct != "" {
					req.Header.Set("Content-Type", tt.ct)
				}
				if tt.version != "" {
					req.Header.Set("A2A-Version", tt.version)
				}
				resp, err := agent.Client().Do(req)
				require.NoError(t, err)
				defer resp.Body.Close()
				e := requireRESTError(t, v, resp, tt.status, tt.code)
				require.Equal(t, tt.message, e.Message)
				require.Empty(t, agent.TaskIDs())
				require.Len(t, agent.Requests(), 1)
			})
		}
	}
}

// TestRESTFollowUpRefusals checks follow-ups that an input-required task
// does not take, over REST: plain HTTP errors in both versions.
func TestRESTFollowUpRefusals(t *testing.T) {
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			agent := restAgent(v, pausedScript())
			c := agent.Client()
			ev := restResult(t, v, rest(t.Context(), t, c, v, http.MethodPost, restPath(v, "message:send"), restSend(t, v, "hi", "", `{"returnImmediately":true}`)))
			id := ev.(*a2a.Task).ID
			require.Equal(t, a2a.StateWorking, agent.Task(id).Status.State)
			requireRESTError(t, v, rest(t.Context(), t, c, v, http.MethodPost, restPath(v, "message:stream"), restSend(t, v, "more", id, "")),
				http.StatusBadRequest, a2a.CodeUnsupportedOperation)

			id, _ = startRESTTask(t.Context(), t, restAgent(v), v) // another agent's task is unknown here
			requireRESTError(t, v, rest(t.Context(), t, c, v, http.MethodPost, restPath(v, "message:send"), restSend(t, v, "more", id, "")),
				http.StatusNotFound, a2a.CodeTaskNotFound)

			agent = restAgent(v)
			id, _ = startRESTTask(t.Context(), t, agent, v)
			code := map[a2a.Version]int{a2a.V03: a2a.CodeInvalidParams, a2a.V10: a2a.CodeUnsupportedOperation}[v]
			requireRESTError(t, v, rest(t.Context(), t, agent.Client(), v, http.MethodPost, restPath(v, "message:stream"), restSend(t, v, "more", id, "")),
				http.StatusBadRequest, code)
		})
	}
}

// TestRESTHybrid checks an agent of both versions and both bindings: a
// path under /v1/ is 0.3 unless the header asks for 1.0, as @a2a-js/sdk
// 1.3.0 with legacyCompat routes it; JSON-RPC stays at /.
func TestRESTHybrid(t *testing.T) {
	agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03, a2a.V10), a2atest.WithBindings(a2a.BindingJSONRPC, a2a.BindingHTTPJSON))
	c := agent.Client()
	evs := readAllRESTStream(t, a2a.V03, rest(t.Context(), t, c, a2a.V03, http.MethodPost, "/v1/message:stream", restSend(t, a2a.V03, "hi", "", "")))
	require.Equal(t, []string{"T(submitted)", "S(working)", "A(a1)", "A(a1+L)", "S(completed,F)"}, kinds(evs))
	evs = readAllRESTStream(t, a2a.V10, rest(t.Context(), t, c, a2a.V10, http.MethodPost, "/message:stream", restSend(t, a2a.V10, "hi", "", "")))
	require.Equal(t, []string{"T(submitted)", "S(working)", "A(a1)", "A(a1+L)", "S(completed)"}, kinds(evs))
	evs = readAllRESTStream(t, a2a.V10, rest(t.Context(), t, c, a2a.V10, http.MethodPost, "/v1/message:stream", restSend(t, a2a.V10, "hi", "", "")))
	require.Len(t, evs, 5)
	evs = readAllStream(t, call(t.Context(), t, c, a2a.V03, "stream", sendParams(t, a2a.V03, "hi", "")))
	require.Len(t, evs, 5)

	reqs := agent.Requests()
	require.Len(t, reqs, 4)
	require.Equal(t, []string{"message/stream", "SendStreamingMessage", "SendStreamingMessage", "message/stream"},
		[]string{reqs[0].Method, reqs[1].Method, reqs[2].Method, reqs[3].Method})
	require.Equal(t, "v1", reqs[2].Tenant)
	require.Equal(t, []a2a.Binding{a2a.BindingHTTPJSON, a2a.BindingHTTPJSON, a2a.BindingHTTPJSON, a2a.BindingJSONRPC},
		[]a2a.Binding{reqs[0].Binding, reqs[1].Binding, reqs[2].Binding, reqs[3].Binding})
}

// TestRESTBase checks WithRESTBase: routes under the base only.
func TestRESTBase(t *testing.T) {
	agent := a2atest.NewAgent(a2atest.WithBindings(a2a.BindingJSONRPC, a2a.BindingHTTPJSON), a2atest.WithRESTBase("/a2a/rest/"))
	c := agent.Client()
	evs := readAllRESTStream(t, a2a.V10, rest(t.Context(), t, c, a2a.V10, http.MethodPost, "/a2a/rest/message:stream", restSend(t, a2a.V10, "hi", "", "")))
	require.Len(t, evs, 5)
	evs = readAllRESTStream(t, a2a.V10, rest(t.Context(), t, c, a2a.V10, http.MethodPost, "/a2a/rest/acme/message:stream", restSend(t, a2a.V10, "hi", "", "")))
	require.Len(t, evs, 5)
	require.Equal(t, "acme", agent.Requests()[1].Tenant)
	body := strings.TrimSuffix(restSend(t, a2a.V10, "hi", "", ""), "}") + `,"tenant":"b"}`
	readAllRESTStream(t, a2a.V10, rest(t.Context(), t, c, a2a.V10, http.MethodPost, "/a2a/rest/message:stream", body))
	require.Equal(t, "b", agent.Requests()[2].Tenant, "the body's tenant when the path has none")

	// Outside the base, a POST is JSON-RPC.
	resp := rest(t.Context(), t, c, a2a.V10, http.MethodPost, "/message:stream", restSend(t, a2a.V10, "hi", "", ""))
	requireUnaryError(t, resp, a2a.CodeInvalidRequest)
	resp = rest(t.Context(), t, c, a2a.V10, http.MethodPost, "/a2a/restmessage:stream", restSend(t, a2a.V10, "hi", "", ""))
	requireUnaryError(t, resp, a2a.CodeInvalidRequest)
	require.Equal(t, a2a.BindingJSONRPC, agent.Requests()[4].Binding)
}
