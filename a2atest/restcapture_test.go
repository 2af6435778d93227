package a2atest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
)

// restCaptureDir holds byte-exact copies of the HTTP+JSON captures of
// @a2a-js/sdk's restHandler (0.3.14 and 1.3.0); see its README.md. Package
// a2a owns them.
var restCaptureDir = filepath.Join("..", "a2a", "testdata", "rest")

// restCapture is one captured response: status, header and body.
type restCapture struct {
	status int
	header http.Header
	body   []byte
}

func readRESTCapture(t *testing.T, file string) restCapture {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(restCaptureDir, file))
	require.NoError(t, err)
	name := strings.TrimSuffix(strings.TrimSuffix(file, ".txt"), ".json")
	head, err := os.ReadFile(filepath.Join(restCaptureDir, name+".headers.txt"))
	require.NoError(t, err)
	tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(head)))
	line, err := tp.ReadLine()
	require.NoError(t, err)
	_, code, _ := strings.Cut(line, " ")
	status, err := strconv.Atoi(code[:3])
	require.NoError(t, err)
	mh, err := tp.ReadMIMEHeader()
	require.NoError(t, err)
	return restCapture{status: status, header: http.Header(mh), body: body}
}

// shapeOf normalizes a JSON value for comparing an a2atest answer with a
// capture: IDs and timestamps become placeholders; what @a2a-js/sdk 1.3.0
// writes for nothing (an empty "metadata", "mediaType": "text/plain" on a
// text part) goes; so does a user message's contextId (a2atest binds
// every stored message to its task's context, @a2a-js/sdk keeps the
// message as the client sent it, and the captured follow-up had none).
// Member order does not matter.
func shapeOf(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			switch k {
			case "id", "taskId", "contextId", "messageId", "artifactId":
				out[k] = "<id>"
			case "timestamp":
				out[k] = "<timestamp>"
			case "metadata":
				if m, ok := val.(map[string]any); !ok || len(m) > 0 {
					out[k] = shapeOf(val)
				}
			case "mediaType":
				if val != "text/plain" {
					out[k] = val
				}
			default:
				out[k] = shapeOf(val)
			}
		}
		if out["role"] == "ROLE_USER" {
			delete(out, "contextId")
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = shapeOf(x[i])
		}
		return out
	}
	return v
}

// requireSameShape compares two JSON documents after shapeOf; with
// anyMessage, an error's "message" may differ (a2atest words its errors its
// own way).
func requireSameShape(t *testing.T, want, got []byte, anyMessage bool) {
	t.Helper()
	norm := func(b []byte) string {
		var v any
		require.NoError(t, json.Unmarshal(b, &v), "%s", b)
		v = shapeOf(v)
		if anyMessage {
			m := v.(map[string]any)
			if e, ok := m["error"].(map[string]any); ok {
				m = e
			}
			m["message"] = "<message>"
		}
		out, err := json.Marshal(v)
		require.NoError(t, err)
		return string(out)
	}
	require.JSONEq(t, norm(want), norm(got))
}

// sseData splits an SSE body into the data of its events, requiring that
// every event is a single data line.
func sseData(t *testing.T, body []byte) []string {
	t.Helper()
	var out []string
	for _, ev := range strings.Split(strings.TrimSpace(string(body)), "\n\n") {
		data, ok := strings.CutPrefix(ev, "data: ")
		require.True(t, ok, "event %q", ev)
		require.NotContains(t, data, "\n")
		out = append(out, data)
	}
	return out
}

// TestRESTCaptures plays the captured conversation against the agent over
// HTTP+JSON and compares every answer with the capture of @a2a-js/sdk's
// restHandler of the same version: status, media type, stream headers,
// and the shape of every body and event (member for member, after
// shapeOf). The 0.3.14 and 1.3.0 streams of a subscription to an
// input-required task stay open; the agent's close after the snapshot
// unless WithStayOpenOnInterrupt, so only that first event is compared.
func TestRESTCaptures(t *testing.T) {
	checked := map[string]bool{"README.md": true}
	for _, v := range bothVersions() {
		t.Run(string(v), func(t *testing.T) {
			prefix := map[a2a.Version]string{a2a.V03: "js-0.3.14-rest-", a2a.V10: "js-1.3.0-rest-"}[v]
			text := func(s string) []a2a.Part { return []a2a.Part{a2a.TextPart(s)} }
			agent := restAgent(v, a2atest.WithScript(
				a2atest.Working("working"),
				a2atest.ArtifactChunk(a2a.Artifact{ID: "s", Name: "stream", Parts: text("chunk-1 ")}, false, false),
				a2atest.ArtifactChunk(a2a.Artifact{ID: "s", Parts: text("chunk-2")}, true, true),
				a2atest.AskInput("need more input"),
				a2atest.Working(""),
				a2atest.ArtifactChunk(a2a.Artifact{ID: "r", Name: "result", Parts: text("result for follow-up: more please")}, false, true),
				a2atest.Finish(a2a.StateCompleted, "done"),
			))
			c := agent.Client()
			partsKey := "parts"
			if v == a2a.V03 {
				partsKey = "content"
			}
			hello := `{"message":{"messageId":"m-1","role":"ROLE_USER","` + partsKey + `":[{"text":"hello"}]}}`

			// compare checks one answer against its capture; it returns the
			// answer's body.
			compare := func(file string, resp *http.Response, events, anyMessage bool) []byte {
				t.Helper()
				checked[prefix+file] = true
				checked[prefix+strings.TrimSuffix(strings.TrimSuffix(file, ".txt"), ".json")+".headers.txt"] = true
				want := readRESTCapture(t, prefix+file)
				require.Equal(t, want.status, resp.StatusCode, file)
				require.Equal(t, want.header.Get("Content-Type"), resp.Header.Get("Content-Type"), file)
				body, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				if !events {
					requireSameShape(t, want.body, body, anyMessage)
					return body
				}
				for _, h := range []string{"Cache-Control", "Connection", "X-Accel-Buffering"} {
					require.Equal(t, want.header.Get(h), resp.Header.Get(h), file+": "+h)
				}
				wantEvs, gotEvs := sseData(t, want.body), sseData(t, body)
				if strings.Contains(file, "subscribe-input-required") {
					wantEvs = wantEvs[:1]
				}
				require.Len(t, gotEvs, len(wantEvs), file)
				for i := range wantEvs {
					requireSameShape(t, []byte(wantEvs[i]), []byte(gotEvs[i]), false)
				}
				return body
			}

			resp := rest(t.Context(), t, c, v, http.MethodPost, restPath(v, "message:stream"), hello)
			compare("stream-hello.txt", resp, true, false)
			id := agent.TaskIDs()[0]

			compare("get.json", rest(t.Context(), t, c, v, http.MethodGet, restPath(v, "tasks/"+id), ""), false, false)
			compare("subscribe-input-required.txt", rest(t.Context(), t, c, v, http.MethodPost, restPath(v, "tasks/"+id+":subscribe"), ""), true, false)

			more := `{"message":{"messageId":"m-2","taskId":"` + id + `","role":"ROLE_USER","` + partsKey + `":[{"text":"more please"}]}}`
			compare("followup.txt", rest(t.Context(), t, c, v, http.MethodPost, restPath(v, "message:stream"), more), true, false)

			resp = rest(t.Context(), t, c, v, http.MethodPost, restPath(v, "tasks/"+id+":subscribe"), "")
			if v == a2a.V03 {
				compare("subscribe-completed.txt", resp, true, false)
			} else {
				compare("subscribe-completed.txt", resp, false, true)
			}
			compare("get-unknown.json", rest(t.Context(), t, c, v, http.MethodGet, restPath(v, "tasks/nope"), ""), false, true)

			if v == a2a.V10 {
				req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://agent.test/message:send", strings.NewReader(hello))
				require.NoError(t, err)
				req.Header.Set("Content-Type", "application/json")
				resp, err := c.Do(req)
				require.NoError(t, err)
				defer resp.Body.Close()
				body := compare("no-version.txt", resp, false, false)
				want := readRESTCapture(t, prefix+"no-version.txt")
				require.JSONEq(t, string(want.body), string(body), "the same words as 1.3.0")
			} else {
				rpcShape := `{"message":{"messageId":"m-3","role":"user","parts":[{"kind":"text","text":"hello"}]}}`
				body := compare("send-parts-shape.txt", rest(t.Context(), t, c, v, http.MethodPost, restPath(v, "message:send"), rpcShape), false, false)
				want := readRESTCapture(t, prefix+"send-parts-shape.txt")
				require.JSONEq(t, string(want.body), string(body), "the same words as 0.3.14")
			}
			require.Len(t, agent.TaskIDs(), 1)
		})
	}

	// Every capture is compared.
	files, err := filepath.Glob(filepath.Join(restCaptureDir, "*"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		require.Truef(t, checked[filepath.Base(f)], "%s is not compared by TestRESTCaptures", filepath.Base(f))
	}
}
