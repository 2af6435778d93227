package a2atest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const agentURL = "http://agent.test/"

// bothVersions lists the protocol versions every dialect test runs in.
func bothVersions() []a2a.Version { return []a2a.Version{a2a.V03, a2a.V10} }

// methodName returns the JSON-RPC method of an operation in version v.
func methodName(v a2a.Version, op string) string {
	names := map[string][2]string{
		"stream":    {"message/stream", "SendStreamingMessage"},
		"send":      {"message/send", "SendMessage"},
		"get":       {"tasks/get", "GetTask"},
		"cancel":    {"tasks/cancel", "CancelTask"},
		"subscribe": {"tasks/resubscribe", "SubscribeToTask"},
	}
	if v == a2a.V03 {
		return names[op][0]
	}
	return names[op][1]
}

// post sends a raw JSON-RPC body. A 1.0 request carries "A2A-Version: 1.0".
func post(ctx context.Context, t *testing.T, c *http.Client, v a2a.Version, body []byte) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, agentURL, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if v == a2a.V10 {
		req.Header.Set("A2A-Version", "1.0")
	}
	resp, err := c.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// rawCall is call without assertions, for use off the test's goroutine:
// the caller closes the response body.
func rawCall(ctx context.Context, c *http.Client, v a2a.Version, op string, params string) (*http.Response, error) {
	body := `{"jsonrpc":"2.0","id":"r1","method":"` + methodName(v, op) + `","params":` + params + `}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, agentURL, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if v == a2a.V10 {
		req.Header.Set("A2A-Version", "1.0")
	}
	return c.Do(req)
}

// call sends a JSON-RPC request whose params are given as a JSON object.
func call(ctx context.Context, t *testing.T, c *http.Client, v a2a.Version, op string, params string) *http.Response {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":"r1","method":"` + methodName(v, op) + `","params":` + params + `}`
	return post(ctx, t, c, v, []byte(body))
}

// sendParams returns send params carrying a user message with text, for the
// task taskID ("" for a new task).
func sendParams(t *testing.T, v a2a.Version, text, taskID string) string {
	t.Helper()
	m := a2a.NewTextMessage(a2a.RoleUser, text)
	m.TaskID = taskID
	raw, err := a2a.Codec{Version: v}.EncodeMessage(m)
	require.NoError(t, err)
	return `{"message":` + string(raw) + `}`
}

func idParams(id string) string { return `{"id":"` + id + `"}` }

// sseEvent is one parsed SSE event.
type sseEvent struct {
	event string
	data  string
}

// sseReader is a minimal SSE parser for these tests: it handles data and
// event fields and comments, and reports an event at each blank line.
type sseReader struct {
	br *bufio.Reader
}

func newSSEReader(r io.Reader) *sseReader { return &sseReader{br: bufio.NewReader(r)} }

// next returns the next event; io.EOF at a clean end of the stream, and the
// read error otherwise.
func (r *sseReader) next() (sseEvent, error) {
	var (
		ev   sseEvent
		data []string
		seen bool
	)
	for {
		line, err := r.br.ReadString('\n')
		if err != nil {
			if errors.Is(err, io.EOF) && line == "" && !seen {
				return sseEvent{}, io.EOF
			}
			if errors.Is(err, io.EOF) {
				return sseEvent{}, io.ErrUnexpectedEOF
			}
			return sseEvent{}, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if !seen {
				continue
			}
			ev.data = strings.Join(data, "\n")
			return ev, nil
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		seen = true
		switch name {
		case "data":
			data = append(data, value)
		case "event":
			ev.event = value
		}
	}
}

// rpcResponse is a decoded JSON-RPC response.
type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func decodeRPC(t *testing.T, data []byte) rpcResponse {
	t.Helper()
	var r rpcResponse
	require.NoError(t, json.Unmarshal(data, &r), "body %q", data)
	return r
}

// readStream reads a whole SSE response and returns its events; err is nil
// at a clean EOF.
func readStream(t *testing.T, resp *http.Response) ([]a2a.Event, error) {
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
		evs = append(evs, decodeEvent(t, ev))
	}
}

// readEvent reads one event of a stream.
func readEvent(t *testing.T, r *sseReader) a2a.Event {
	t.Helper()
	ev, err := r.next()
	require.NoError(t, err)
	return decodeEvent(t, ev)
}

func decodeEvent(t *testing.T, ev sseEvent) a2a.Event {
	t.Helper()
	resp := decodeRPC(t, []byte(ev.data))
	require.Nil(t, resp.Error, "error event %s", ev.data)
	require.JSONEq(t, `"r1"`, string(resp.ID))
	e, err := a2a.Codec{}.DecodeEvent(resp.Result)
	require.NoError(t, err)
	return e
}

// readAllStream reads the whole stream and requires a clean end.
func readAllStream(t *testing.T, resp *http.Response) []a2a.Event {
	t.Helper()
	evs, err := readStream(t, resp)
	require.NoError(t, err)
	return evs
}

// kinds describes events compactly: T(state), S(state[,F]), A(id[+][L]), M.
func kinds(evs []a2a.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = kind(ev)
	}
	return out
}

func kind(ev a2a.Event) string {
	switch x := ev.(type) {
	case *a2a.Task:
		return "T(" + string(x.Status.State) + ")"
	case *a2a.StatusUpdate:
		s := "S(" + string(x.Status.State)
		if x.Final {
			s += ",F"
		}
		return s + ")"
	case *a2a.ArtifactUpdate:
		s := "A(" + x.Artifact.ID
		if x.Append {
			s += "+"
		}
		if x.LastChunk {
			s += "L"
		}
		return s + ")"
	case *a2a.Message:
		return "M(" + x.Text() + ")"
	}
	return "?"
}

// requireUnaryError reads a plain JSON error response.
func requireUnaryError(t *testing.T, resp *http.Response, code int) rpcResponse {
	t.Helper()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	r := decodeRPC(t, body)
	require.NotNil(t, r.Error, "want error %d, got %s", code, body)
	require.Equal(t, code, r.Error.Code, "body %s", body)
	return r
}

// requireEventError reads an SSE response whose only event is an error.
func requireEventError(t *testing.T, resp *http.Response, code int, field string) {
	t.Helper()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	r := newSSEReader(resp.Body)
	ev, err := r.next()
	require.NoError(t, err)
	require.Equal(t, field, ev.event)
	rr := decodeRPC(t, []byte(ev.data))
	require.NotNil(t, rr.Error, "data %s", ev.data)
	require.Equal(t, code, rr.Error.Code, "data %s", ev.data)
	_, err = r.next()
	require.ErrorIs(t, err, io.EOF)
}

// unaryResult reads a plain JSON success response's result.
func unaryResult(t *testing.T, resp *http.Response) json.RawMessage {
	t.Helper()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	r := decodeRPC(t, body)
	require.Nil(t, r.Error, "body %s", body)
	return r.Result
}

// startTask streams a new task to its end and returns its ID.
func startTask(ctx context.Context, t *testing.T, agent *a2atest.Agent, v a2a.Version) (string, []a2a.Event) {
	t.Helper()
	evs := readAllStream(t, call(ctx, t, agent.Client(), v, "stream", sendParams(t, v, "hi", "")))
	require.NotEmpty(t, evs)
	task, ok := evs[0].(*a2a.Task)
	require.True(t, ok, "first event %s", kind(evs[0]))
	return task.ID, evs
}

func itoa(n int) string { return strconv.Itoa(n) }

// advance lets d pass on the fake clock of the synctest bubble it runs in.
func advance(d time.Duration) {
	tm := time.NewTimer(d)
	defer tm.Stop()
	<-tm.C
}
