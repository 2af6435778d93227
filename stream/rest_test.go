package stream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/stream"
)

// restCapture reads a byte-exact capture of an @a2a-js/sdk restHandler
// (a2a/testdata/rest, copied from shared/captures/rest).
func restCapture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../a2a/testdata/rest/" + name)
	require.NoError(t, err)
	return b
}

// firstEvents keeps the first n SSE events of a capture: the server's
// stream, cut after them.
func firstEvents(body []byte, n int) []byte {
	evs := bytes.SplitAfter(body, []byte("\n\n"))
	return bytes.Join(evs[:min(n, len(evs))], nil)
}

// restReplay serves the captures of one version by method and path.
type restReplay struct {
	t      *testing.T
	routes map[string]func(w http.ResponseWriter, body []byte)

	mu    sync.Mutex
	calls []string
	sends [][]byte
}

func (r *restReplay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	key := req.Method + " " + req.URL.Path
	r.mu.Lock()
	r.calls = append(r.calls, key)
	if strings.HasSuffix(req.URL.Path, "message:stream") {
		r.sends = append(r.sends, body)
	}
	r.mu.Unlock()
	h, ok := r.routes[key]
	if !ok {
		http.Error(w, "Cannot "+key, http.StatusNotFound)
		return
	}
	h(w, body)
}

func serve(ct string, status int, body []byte) func(w http.ResponseWriter, _ []byte) {
	return func(w http.ResponseWriter, _ []byte) {
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(status)
		w.Write(body)
	}
}

func TestRESTBindingAgainstCaptures(t *testing.T) {
	cases := []struct {
		v      a2a.Version
		prefix string
		js     string
		taskID string
	}{
		{a2a.V10, "", "js-1.3.0", "ec65de73-2354-49b1-bb53-4a8bb7cdfc53"},
		{a2a.V03, "/v1", "js-0.3.14", "d3129619-12f1-4813-b8db-b884a03f3ea0"},
	}
	for _, c := range cases {
		t.Run(string(c.v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sse := "text/event-stream"
				hello := restCapture(t, c.js+"-rest-stream-hello.txt")
				followup := restCapture(t, c.js+"-rest-followup.txt")
				sendN := 0
				r := &restReplay{t: t, routes: map[string]func(http.ResponseWriter, []byte){
					"POST " + c.prefix + "/message:stream": func(w http.ResponseWriter, body []byte) {
						sendN++
						if sendN == 1 {
							// The send is cut after the task and the working status.
							serve(sse, 200, firstEvents(hello, 2))(w, body)
							return
						}
						serve(sse, 200, followup)(w, body)
					},
					"POST " + c.prefix + "/tasks/" + c.taskID + ":subscribe": serve(sse, 200,
						restCapture(t, c.js+"-rest-subscribe-input-required.txt")),
				}}
				var notices []stream.NoticeKind
				asks := 0
				client, err := stream.NewRESTClient("http://agent.test/", stream.WithVersion(c.v),
					stream.WithHTTPClient(a2atest.NewClient(r)),
					stream.WithHumanInput(hitl.Func(func(_ context.Context, req *hitl.Request) ([]a2a.Part, error) {
						asks++
						require.Equal(t, "need more input", req.Text())
						return hitl.Text("more please"), nil
					})),
					stream.WithNotify(func(n stream.Notice) { notices = append(notices, n.Kind) }))
				require.NoError(t, err)
				require.Equal(t, a2a.BindingHTTPJSON, client.Binding())
				got, err := drain(t, client.Send(background(), a2a.NewTextMessage(a2a.RoleUser, "hello")))
				require.NoError(t, err)
				require.Equal(t, "chunk-1 chunk-2", got.text(artifactNamed(t, got, "stream")))
				require.Equal(t, "result for follow-up: more please", got.text(artifactNamed(t, got, "result")))
				require.Equal(t, []string{
					"POST " + c.prefix + "/message:stream",
					"POST " + c.prefix + "/tasks/" + c.taskID + ":subscribe",
					"POST " + c.prefix + "/message:stream",
				}, r.calls)
				require.Equal(t, []stream.NoticeKind{stream.Reconnecting, stream.Resumed}, notices)
				require.Equal(t, 1, asks, "the human is asked once")
				// The wire shapes of the send: 1.0 JSON, or the 0.3 proto-JSON.
				var send struct {
					Message map[string]json.RawMessage `json:"message"`
				}
				require.NoError(t, json.Unmarshal(r.sends[0], &send))
				if c.v == a2a.V03 {
					require.Contains(t, send.Message, "content", "0.3 REST carries parts under content")
				} else {
					require.Contains(t, send.Message, "parts")
				}
				require.JSONEq(t, `"ROLE_USER"`, string(send.Message["role"]))
			})
		})
	}
}

// artifactNamed finds the ID of the artifact the captures name.
func artifactNamed(t *testing.T, got *collected, name string) string {
	t.Helper()
	for _, ev := range got.events {
		if u, ok := ev.(*a2a.ArtifactUpdate); ok && u.Artifact.Name == name {
			return u.Artifact.ID
		}
	}
	t.Fatalf("no artifact named %q", name)
	return ""
}

func TestRESTErrorsMapOntoRPCErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &restReplay{t: t, routes: map[string]func(http.ResponseWriter, []byte){
			"GET /tasks/nope":    serve("application/a2a+json", 404, restCapture(t, "js-1.3.0-rest-get-unknown.json")),
			"GET /v1/tasks/nope": serve("application/json", 404, restCapture(t, "js-0.3.14-rest-get-unknown.json")),
		}}
		for _, v := range versions {
			client, err := stream.NewRESTClient("http://agent.test", stream.WithVersion(v), stream.WithHTTPClient(a2atest.NewClient(r)))
			require.NoError(t, err)
			_, err = client.GetTask(background(), "nope")
			var httpErr *stream.HTTPError
			require.ErrorAs(t, err, &httpErr)
			require.Equal(t, 404, httpErr.StatusCode)
			var rpcErr *a2a.RPCError
			require.ErrorAs(t, err, &rpcErr, "%s: the A2A error in the body", v)
			require.Equal(t, a2a.CodeTaskNotFound, rpcErr.Code)
		}
	})
}

func TestRESTSubscribeToAnEndedTaskIsARefusal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const id = "ec65de73-2354-49b1-bb53-4a8bb7cdfc53"
		r := &restReplay{t: t, routes: map[string]func(http.ResponseWriter, []byte){
			// 400 FAILED_PRECONDITION, reason UNSUPPORTED_OPERATION.
			"POST /tasks/" + id + ":subscribe": serve("application/a2a+json", 400, restCapture(t, "js-1.3.0-rest-subscribe-completed.txt")),
			"GET /tasks/" + id:                 serve("application/a2a+json", 200, restCapture(t, "js-1.3.0-rest-get.json")),
		}}
		client, err := stream.NewRESTClient("http://agent.test", stream.WithVersion(a2a.V10), stream.WithHTTPClient(a2atest.NewClient(r)))
		require.NoError(t, err)
		_, err = drain(t, client.Subscribe(background(), id))
		var hitlErr *hitl.Error
		require.ErrorAs(t, err, &hitlErr, "refused, fetched: the task waits on a prompt and there is no hook")
		require.Equal(t, "chunk-1 chunk-2", hitlErr.Task.Artifacts[0].Text())
		require.Equal(t, []string{"POST /tasks/" + id + ":subscribe", "GET /tasks/" + id}, r.calls)
	})
}
