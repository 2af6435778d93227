package push_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/push"
)

// TestLogKeepsSecrets sends, with a logger at Debug, a notification of
// every outcome (queued, replayed, dropped on overflow, and each refusal),
// each carrying the registration's token (or a near miss of it), an
// Authorization header and a body with a known text: the log names the
// registration and each outcome's class, and holds none of the token, the
// near miss, the Authorization value, the body's text, or an unknown
// path's segment.
func TestLogKeepsSecrets(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r := newReceiver(t, push.WithLogger(logger), push.WithQueueLimit(1, 4096), push.WithMaxBodySize(4096))
	g := register(t, r)
	const bearer = "Bearer bearer-credential-zz9"
	const unknownID = "unknown-registration-qq7"
	nearMiss := g.Token()[:42] + "~"
	with := func(body string, change func(*notification)) notification {
		n := pushTo(g, body)
		n.header.Set("Authorization", bearer)
		if change != nil {
			change(&n)
		}
		return n
	}
	big := `{"statusUpdate":{"taskId":"t1","metadata":{"x":"secret body text ` + strings.Repeat("y", 5000) + `"}}}`
	for _, n := range []notification{
		with(artifact1, nil), // queued: binds to t1
		with(artifact1, nil), // replay
		with(status1, nil),   // overflow
		with(artifact1, func(n *notification) { n.method = http.MethodPut }),
		with(artifact1, func(n *notification) { n.contentType = "text/plain" }),
		with(artifact1, func(n *notification) { n.header.Set(push.TokenHeader, nearMiss) }),
		with(artifact1, func(n *notification) { n.url = base + "/" + unknownID }),
		with(big, nil),
		with(`{"statusUpdate":"secret body text"`, nil),
		with(`{"kind":"message","taskId":"t1","messageId":"m","role":"agent","parts":[{"kind":"text","text":"secret body text"}]}`, nil),
		with(`{"statusUpdate":{"taskId":"secret body text","status":{"state":"TASK_STATE_WORKING"}}}`, nil),
	} {
		serve(r, n)
	}
	log := buf.String()
	for _, class := range []string{
		`"push: notification queued"`, `"drop":"replay"`, `"drop":"overflow"`, `"refusal":"method"`,
		`"refusal":"content-type"`, `"refusal":"unauthorized"`, `"refusal":"too-large"`,
		`"refusal":"undecodable"`, `"refusal":"shape"`, `"refusal":"foreign-task"`, g.ID(),
	} {
		require.Contains(t, log, class)
	}
	for _, secret := range []string{g.Token(), nearMiss, g.Token()[:20], "bearer-credential", "secret body text", unknownID, "TASK_STATE"} {
		require.NotContains(t, log, secret)
	}
}
