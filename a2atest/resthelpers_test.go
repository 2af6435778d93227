package a2atest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
)

// restAgent returns an agent that serves only the HTTP+JSON binding, in
// version v, with opts after those.
func restAgent(v a2a.Version, opts ...a2atest.Option) *a2atest.Agent {
	return a2atest.NewAgent(append([]a2atest.Option{a2atest.WithVersions(v), a2atest.WithBindings(a2a.BindingHTTPJSON)}, opts...)...)
}

// restPath is the path of a REST resource of version v: /v1/<rest> in 0.3,
// /<rest> in 1.0.
func restPath(v a2a.Version, rest string) string {
	if v == a2a.V03 {
		return "/v1/" + rest
	}
	return "/" + rest
}

// rawREST sends a REST request without assertions, for use off the test's
// goroutine: the caller closes the response body. A request with a body
// says it is JSON, and a 1.0 request carries "A2A-Version: 1.0".
func rawREST(ctx context.Context, c *http.Client, v a2a.Version, method, path, body string) (*http.Response, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://agent.test"+path, rd)
	if err != nil {
		return nil, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if v == a2a.V10 {
		req.Header.Set("A2A-Version", "1.0")
	}
	return c.Do(req)
}

// rest sends a REST request and closes the response body at the end of the
// test.
func rest(ctx context.Context, t *testing.T, c *http.Client, v a2a.Version, method, path, body string) *http.Response {
	t.Helper()
	resp, err := rawREST(ctx, c, v, method, path, body)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// restMessage encodes a user message with text (and a message ID), for the
// task taskID ("" for a new task), as a REST send of version v carries it.
func restMessage(t *testing.T, v a2a.Version, text, taskID string) string {
	t.Helper()
	m := a2a.NewTextMessage(a2a.RoleUser, text)
	m.TaskID = taskID
	raw, err := a2a.Codec{Version: v, Binding: a2a.BindingHTTPJSON}.EncodeMessage(m)
	require.NoError(t, err)
	return string(raw)
}

// restSend is the body of a REST send of text; config is the raw
// configuration, "" for none.
func restSend(t *testing.T, v a2a.Version, text, taskID, config string) string {
	t.Helper()
	body := `{"message":` + restMessage(t, v, text, taskID)
	if config != "" {
		body += `,"configuration":` + config
	}
	return body + "}"
}

// restStream starts a REST stream of a new message with text.
func restStream(ctx context.Context, t *testing.T, agent *a2atest.Agent, v a2a.Version, text string) *http.Response {
	t.Helper()
	return rest(ctx, t, agent.Client(), v, http.MethodPost, restPath(v, "message:stream"), restSend(t, v, text, "", ""))
}

// readRESTStream reads a whole REST SSE response and returns its events,
// decoded in version v; err is nil at a clean EOF.
func readRESTStream(t *testing.T, v a2a.Version, resp *http.Response) ([]a2a.Event, error) {
	t.Helper()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	r := newSSEReader(resp.Body)
	var evs []a2a.Event
	for {
		ev, err := r.next()
		if errors.Is(err, io.EOF) {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, decodeRESTEvent(t, v, ev))
	}
}

func decodeRESTEvent(t *testing.T, v a2a.Version, ev sseEvent) a2a.Event {
	t.Helper()
	require.Empty(t, ev.event, "data %s", ev.data)
	e, err := a2a.Codec{Version: v, Binding: a2a.BindingHTTPJSON}.DecodeEvent([]byte(ev.data))
	require.NoError(t, err, "data %s", ev.data)
	return e
}

// readAllRESTStream reads a whole REST stream and requires a clean end.
func readAllRESTStream(t *testing.T, v a2a.Version, resp *http.Response) []a2a.Event {
	t.Helper()
	evs, err := readRESTStream(t, v, resp)
	require.NoError(t, err)
	return evs
}

// restBody reads a unary REST response: it requires status and the
// version's JSON media type, and returns the body.
func restBody(t *testing.T, v a2a.Version, resp *http.Response, status int) []byte {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, status, resp.StatusCode, "body %s", body)
	want := "application/a2a+json; charset=utf-8"
	if v == a2a.V03 {
		want = "application/json; charset=utf-8"
	}
	require.Equal(t, want, resp.Header.Get("Content-Type"))
	return body
}

// requireRESTError reads a REST error response of version v and requires
// the HTTP status and the A2A error code; it returns the error.
func requireRESTError(t *testing.T, v a2a.Version, resp *http.Response, status, code int) *a2a.RPCError {
	t.Helper()
	body := restBody(t, v, resp, status)
	e, ok := a2a.ParseHTTPError(resp.StatusCode, body)
	require.True(t, ok, "body %s", body)
	require.Equal(t, code, e.Code, "body %s", body)
	if v == a2a.V10 {
		var g struct {
			Error struct {
				Code    int             `json:"code"`
				Status  string          `json:"status"`
				Message string          `json:"message"`
				Details json.RawMessage `json:"details"`
			} `json:"error"`
		}
		require.NoError(t, json.Unmarshal(body, &g))
		require.Equal(t, status, g.Error.Code, "a google.rpc.Status carries the HTTP status: %s", body)
	} else {
		require.NotContains(t, string(body), `"error"`, "0.3 errors are bare: %s", body)
	}
	return e
}

// restTask reads a unary REST response with a bare Task.
func restTask(t *testing.T, v a2a.Version, resp *http.Response, status int) *a2a.Task {
	t.Helper()
	body := restBody(t, v, resp, status)
	task, err := a2a.Codec{Version: v, Binding: a2a.BindingHTTPJSON}.DecodeTask(body)
	require.NoError(t, err, "body %s", body)
	return task
}

// restResult reads a unary REST send's response, a SendMessageResponse.
func restResult(t *testing.T, v a2a.Version, resp *http.Response) a2a.Event {
	t.Helper()
	status := http.StatusOK
	if v == a2a.V03 {
		status = http.StatusCreated
	}
	body := restBody(t, v, resp, status)
	ev, err := a2a.Codec{Version: v, Binding: a2a.BindingHTTPJSON}.DecodeEvent(body)
	require.NoError(t, err, "body %s", body)
	return ev
}

// startRESTTask streams a new task over REST to its end and returns its ID
// and events.
func startRESTTask(ctx context.Context, t *testing.T, agent *a2atest.Agent, v a2a.Version) (string, []a2a.Event) {
	t.Helper()
	evs := readAllRESTStream(t, v, restStream(ctx, t, agent, v, "hi"))
	require.NotEmpty(t, evs)
	task, ok := evs[0].(*a2a.Task)
	require.True(t, ok, "first event %s", kind(evs[0]))
	return task.ID, evs
}
