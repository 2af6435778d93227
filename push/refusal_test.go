package push_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/push"
)

// TestRefusals sends one request of each class the Receiver refuses, to a
// registration bound to task t1: each gets its status and an empty body,
// and queues nothing. Those sent without the registration's token leave it
// unaware (not ready, nothing lost); those sent with it but unreadable
// report a loss, so that the consumer fetches the task.
func TestRefusals(t *testing.T) {
	tests := []struct {
		name   string
		change func(n *notification, other *push.Registration)
		status int
		lost   bool
	}{
		{"GET", func(n *notification, _ *push.Registration) { n.method = http.MethodGet }, http.StatusMethodNotAllowed, false},
		{"PUT", func(n *notification, _ *push.Registration) { n.method = http.MethodPut }, http.StatusMethodNotAllowed, false},
		{"no content type", func(n *notification, _ *push.Registration) { n.contentType = "" }, http.StatusUnsupportedMediaType, false},
		{"text/plain", func(n *notification, _ *push.Registration) { n.contentType = "text/plain" }, http.StatusUnsupportedMediaType, false},
		{"form", func(n *notification, _ *push.Registration) { n.contentType = "application/x-www-form-urlencoded" }, http.StatusUnsupportedMediaType, false},
		{"bad content type", func(n *notification, _ *push.Registration) { n.contentType = "application/json; =" }, http.StatusUnsupportedMediaType, false},
		{"unknown registration", func(n *notification, _ *push.Registration) {
			n.url = base + "/6f1c9a54-3f2e-4c59-9a55-0d1b7d0c2f11"
		}, http.StatusUnauthorized, false},
		{"no registration in the path", func(n *notification, _ *push.Registration) { n.url = base + "/" }, http.StatusUnauthorized, false},
		{"another registration's token", func(n *notification, other *push.Registration) {
			n.header.Set(push.TokenHeader, other.Token())
		}, http.StatusUnauthorized, false},
		{"no token", func(n *notification, _ *push.Registration) { n.header.Del(push.TokenHeader) }, http.StatusUnauthorized, false},
		{"empty token", func(n *notification, _ *push.Registration) { n.header.Set(push.TokenHeader, "") }, http.StatusUnauthorized, false},
		{"token twice", func(n *notification, _ *push.Registration) {
			n.header.Add(push.TokenHeader, n.header.Get(push.TokenHeader))
		}, http.StatusUnauthorized, false},
		{"token as a bearer credential", func(n *notification, _ *push.Registration) {
			n.header.Set("Authorization", "Bearer "+n.header.Get(push.TokenHeader))
			n.header.Del(push.TokenHeader)
		}, http.StatusUnauthorized, false},
		{"token with a suffix", func(n *notification, _ *push.Registration) {
			n.header.Set(push.TokenHeader, n.header.Get(push.TokenHeader)+"A")
		}, http.StatusUnauthorized, false},
		{"too large", func(n *notification, _ *push.Registration) {
			n.body = []byte(`{"statusUpdate":{"taskId":"t1","metadata":{"pad":"` + strings.Repeat("x", 2000) + `"}}}`)
		}, http.StatusRequestEntityTooLarge, true},
		{"not JSON", func(n *notification, _ *push.Registration) { n.body = []byte(`{"statusUpdate":`) }, http.StatusBadRequest, true},
		{"empty", func(n *notification, _ *push.Registration) { n.body = nil }, http.StatusBadRequest, true},
		{"not an event", func(n *notification, _ *push.Registration) { n.body = []byte(`{"hello":"world"}`) }, http.StatusBadRequest, true},
		{"two events", func(n *notification, _ *push.Registration) {
			n.body = []byte(`{"statusUpdate":{"taskId":"t1","status":{"state":"TASK_STATE_WORKING"}},"task":{"id":"t1","status":{"state":"TASK_STATE_WORKING"}}}`)
		}, http.StatusBadRequest, true},
		{"a JSON-RPC envelope", func(n *notification, _ *push.Registration) {
			n.body = []byte(`{"jsonrpc":"2.0","id":1,"result":` + status1 + `}`)
		}, http.StatusBadRequest, true},
		{"0.3 status update", func(n *notification, _ *push.Registration) {
			n.body = []byte(`{"kind":"status-update","taskId":"t1","contextId":"c1","status":{"state":"working"},"final":false}`)
		}, http.StatusBadRequest, true},
		{"0.3 message", func(n *notification, _ *push.Registration) {
			n.body = []byte(`{"kind":"message","messageId":"m1","taskId":"t1","role":"agent","parts":[{"kind":"text","text":"hi"}]}`)
		}, http.StatusBadRequest, true},
		{"1.0 message of no task", func(n *notification, _ *push.Registration) {
			n.body = []byte(`{"message":{"messageId":"m1","role":"ROLE_AGENT","parts":[{"text":"hi"}]}}`)
		}, http.StatusBadRequest, true},
		{"status update of no task", func(n *notification, _ *push.Registration) {
			n.body = []byte(`{"statusUpdate":{"contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}`)
		}, http.StatusBadRequest, true},
		{"foreign task", func(n *notification, _ *push.Registration) { n.body = []byte(foreign) }, http.StatusForbidden, false},
		{"foreign task, 0.3", func(n *notification, _ *push.Registration) {
			n.body = []byte(`{"kind":"task","id":"t2","contextId":"c1","status":{"state":"working"}}`)
			n.contentType = "application/json"
		}, http.StatusForbidden, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReceiver(t, push.WithMaxBodySize(1024))
			g, other := register(t, r), register(t, r)
			require.NoError(t, g.Bind(t.Context(), "t1"))
			n := pushTo(g, status1)
			tt.change(&n, other)
			status, body := send(t, r, n)
			require.Equal(t, tt.status, status)
			require.Empty(t, body)
			require.Equal(t, tt.lost, ready(g))
			got, lost := g.Take()
			require.Empty(t, got)
			require.Equal(t, tt.lost, lost)
			require.False(t, ready(other))
			got, lost = other.Take()
			require.Empty(t, got)
			require.False(t, lost)
			require.Equal(t, "t1", g.TaskID())
			require.Empty(t, other.TaskID())
		})
	}
}

// TestRefusalsAllowPost pins the Allow header of a 405.
func TestRefusalsAllowPost(t *testing.T) {
	r := newReceiver(t)
	g := register(t, r)
	n := pushTo(g, status1)
	n.method = http.MethodGet
	rec := serve(r, n)
	require.Equal(t, http.StatusMethodNotAllowed, rec.Code)
	require.Equal(t, http.MethodPost, rec.Header().Get("Allow"))
}

// TestAcceptedContentTypes: both media types, with parameters and in any
// case, are taken.
func TestAcceptedContentTypes(t *testing.T) {
	for _, ct := range []string{
		"application/json", "application/a2a+json", "application/json; charset=utf-8",
		"Application/A2A+JSON; charset=UTF-8", "application/json;charset=utf-8",
	} {
		t.Run(ct, func(t *testing.T) {
			r := newReceiver(t)
			g := register(t, r)
			n := pushTo(g, status1)
			n.contentType = ct
			status, _ := send(t, r, n)
			require.Equal(t, http.StatusNoContent, status)
			got, _ := g.Take()
			require.Len(t, got, 1)
		})
	}
}

// TestTokenComparedWhole: a token that differs from the registration's in
// its last byte is refused exactly as one that differs in its first byte,
// one of another length, and none (the comparison is
// crypto/subtle.ConstantTimeCompare, which reads every byte whatever the
// first difference); an unknown registration gets the same answer.
func TestTokenComparedWhole(t *testing.T) {
	r := newReceiver(t)
	g := register(t, r)
	tok := g.Token()
	require.Len(t, tok, 43)
	flip := func(c byte) string {
		if c == 'A' {
			return "B"
		}
		return "A"
	}
	tokens := map[string]string{
		"first byte": flip(tok[0]) + tok[1:],
		"last byte":  tok[:len(tok)-1] + flip(tok[len(tok)-1]),
		"shorter":    tok[:len(tok)-1],
		"longer":     tok + "A",
		"none":       "",
	}
	want := 0
	for name, bad := range tokens {
		n := pushTo(g, status1)
		n.header.Set(push.TokenHeader, bad)
		status, body := send(t, r, n)
		if want == 0 {
			want = status
		}
		require.Equal(t, want, status, name)
		require.Empty(t, body, name)
	}
	unknown := pushTo(g, status1)
	unknown.url = base + "/00000000-0000-4000-8000-000000000000"
	status, body := send(t, r, unknown)
	require.Equal(t, want, status)
	require.Empty(t, body)
	require.Equal(t, http.StatusUnauthorized, want)
	got, lost := g.Take()
	require.Empty(t, got)
	require.False(t, lost)
}
