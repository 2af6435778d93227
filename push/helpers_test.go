package push_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/push"
)

// base is the base URL of the test receivers.
const base = "http://127.0.0.1:8080/hooks/a2a"

// newReceiver returns a Receiver under base with opts.
func newReceiver(t testing.TB, opts ...push.Option) *push.Receiver {
	t.Helper()
	r, err := push.NewReceiver(base, opts...)
	require.NoError(t, err)
	return r
}

// register returns a registration of r, closed when the test ends.
func register(t testing.TB, r *push.Receiver) *push.Registration {
	t.Helper()
	g, err := r.Register(t.Context())
	require.NoError(t, err)
	t.Cleanup(g.Close)
	return g
}

// notification is one request as an agent makes it.
type notification struct {
	method, url, contentType string
	header                   http.Header // more headers, e.g. the token
	body                     []byte
}

// pushTo returns the notification an agent sends for g: body, with g's
// token, as a 1.0 agent sends it.
func pushTo(g *push.Registration, body string) notification {
	n := notification{
		method: http.MethodPost, url: g.URL(), contentType: "application/a2a+json",
		header: http.Header{}, body: []byte(body),
	}
	n.header.Set(push.TokenHeader, g.Token())
	return n
}

// send serves n with h and returns the status and the response body.
func send(t testing.TB, h http.Handler, n notification) (int, string) {
	t.Helper()
	rec := serve(h, n)
	return rec.Code, rec.Body.String()
}

// serve serves n with h and returns the response.
func serve(h http.Handler, n notification) *httptest.ResponseRecorder {
	req := httptest.NewRequest(n.method, n.url, bytes.NewReader(n.body))
	if n.contentType != "" {
		req.Header.Set("Content-Type", n.contentType)
	}
	for k, vs := range n.header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// ready reports whether g's Ready channel holds a value, without taking it.
func ready(g *push.Registration) bool {
	return len(g.Ready()) > 0
}

// Bodies of task "t1" in 1.0 shape, and one of another task.
const (
	status1   = `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}`
	status2   = `{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_COMPLETED"}}}`
	artifact1 = `{"artifactUpdate":{"taskId":"t1","contextId":"c1","artifact":{"artifactId":"a1","parts":[{"text":"secret body text"}]}}}`
	foreign   = `{"statusUpdate":{"taskId":"t2","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}`
	task03    = `{"kind":"task","id":"t1","contextId":"c1","status":{"state":"working"}}`
)
