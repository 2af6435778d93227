package push_test

import (
	"net/http"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/push"
	"github.com/a2astream/a2astream/relay"
)

// FuzzReceiverBody sends bodies through ServeHTTP with a registration's
// token, to a registration bound to task t1 or unbound: it never panics;
// a refused body queues nothing; an accepted one (204) queues exactly one
// notification, the body decoded by the zero Codec, of task t1 when the
// registration was bound, in a version the Receiver knows. Seeded with
// every push body of testdata/'s captures.
func FuzzReceiverBody(f *testing.F) {
	files, err := filepath.Glob("testdata/*.json")
	require.NoError(f, err)
	for _, file := range files {
		for _, p := range readCapture(f, file).Pushes {
			f.Add([]byte(p.Body), false)
			f.Add([]byte(p.Body), true)
		}
	}
	for _, s := range []string{status1, artifact1, foreign, task03, `{}`, `null`, `[]`, `{"task":null}`,
		`{"message":{"messageId":"m","taskId":"t1","role":"ROLE_AGENT","parts":[{"text":"x"}]}}`,
		`{"id":"t1","status":{"state":"working"}}`} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, bound bool) {
		r, err := push.NewReceiver(base, push.WithMaxBodySize(1<<16))
		require.NoError(t, err)
		g, err := r.Register(t.Context())
		require.NoError(t, err)
		defer g.Close()
		if bound {
			require.NoError(t, g.Bind(t.Context(), "t1"))
		}
		n := pushTo(g, "")
		n.body = body
		n.contentType = "application/json"
		status, answer := send(t, r, n)
		require.Empty(t, answer)
		ns, _ := g.Take()
		if status != http.StatusNoContent {
			require.Empty(t, ns)
			return
		}
		require.Len(t, ns, 1)
		want, err := a2a.Codec{}.DecodeEvent(body)
		require.NoError(t, err)
		require.Equal(t, want, ns[0].Event)
		require.Contains(t, []a2a.Version{a2a.V03, a2a.V10}, ns[0].Version)
		require.NotEmpty(t, g.TaskID())
		if bound {
			require.Equal(t, "t1", g.TaskID())
		}
	})
}

// FuzzSharedReceiverBody sends bodies, with the registration's token, to a
// Receiver B that does not hold the registration but shares a MemoryStore
// with A, which does (bound to t1 or unbound): it never panics; B answers
// with no body, queues nothing and holds nothing; A is at most rung (a
// loss), never handed what the body carries. Seeded as FuzzReceiverBody.
func FuzzSharedReceiverBody(f *testing.F) {
	files, err := filepath.Glob("testdata/*.json")
	require.NoError(f, err)
	for _, file := range files {
		for _, p := range readCapture(f, file).Pushes {
			f.Add([]byte(p.Body), true)
		}
	}
	for _, s := range []string{status1, artifact1, foreign, task03, `{}`, `null`, `{"task":null}`} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, body []byte, bound bool) {
		store, err := relay.NewMemoryStore()
		require.NoError(t, err)
		a, err := push.NewReceiver(base, push.WithShare(store), push.WithMaxBodySize(1<<16))
		require.NoError(t, err)
		b, err := push.NewReceiver(base, push.WithShare(store), push.WithMaxBodySize(1<<16))
		require.NoError(t, err)
		g, err := a.Register(t.Context())
		require.NoError(t, err)
		defer g.Close()
		if bound {
			require.NoError(t, g.Bind(t.Context(), "t1"))
		}
		n := pushTo(g, "")
		n.body = body
		n.contentType = "application/json"
		status, answer := send(t, b, n)
		require.Empty(t, answer)
		require.Contains(t, []int{http.StatusNoContent, http.StatusUnauthorized, http.StatusForbidden,
			http.StatusRequestEntityTooLarge, http.StatusBadRequest, http.StatusUnsupportedMediaType}, status)
		ns, _ := g.Take()
		require.Empty(t, ns, "what a body carries never crosses replicas")
	})
}
