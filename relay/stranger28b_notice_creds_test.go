package relay_test

// Stranger round 28b: HeadersWithheld told "when a credentials hook first
// gives headers" (go doc stream.NoticeKind), in the middle of a relayed
// stream, is not shown to browsers either.

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

type s28bCreds struct{}

func (s28bCreds) Credentials(context.Context, *stream.AuthRequest) (http.Header, error) {
	return http.Header{"Authorization": {"Bearer " + s28bValue}}, nil
}

func TestStranger28bCredentialsMidStreamAreNotShownToBrowsers(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cardURL, cardHost, endpointHost := s28bSplitAgent(t,
		a2atest.WithScript(a2atest.Working("w"), a2atest.AskAuth("sign in"), a2atest.Pause(20*time.Millisecond),
			a2atest.Working("again"), a2atest.Chunk("a1", "done", false, true), a2atest.Finish(a2a.StateCompleted, "")))
	client, err := stream.Resolve(ctx, cardURL, stream.WithCredentials(s28bCreds{}),
		stream.WithReconnect(reconnect.Policy{Backoff: 10 * time.Millisecond, MaxAttempts: 50}))
	require.NoError(t, err)

	store := newMemoryStore(t)
	log, err := store.Open(ctx, "k")
	require.NoError(t, err)
	fence, err := log.Acquire(ctx, "me", time.Hour)
	require.NoError(t, err)
	logs := &s28bBuf{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	start := relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hi"))
	require.NoError(t, relay.Drive(ctx, log, fence, start, relay.WithLogger(logger)))
	t.Logf("driver's log:\n%s", logs.String())

	entries, err := log.Read(ctx, 0, 10000)
	require.NoError(t, err)
	var raw strings.Builder
	for _, e := range entries {
		raw.WriteString(e.Name + " " + string(e.Data) + "\n")
		if e.Name == relay.EventNotice {
			var nd relay.NoticeData
			require.NoError(t, json.Unmarshal(e.Data, &nd))
			require.Contains(t, []string{"reconnecting", "resumed"}, nd.Kind, "%s", e.Data)
		}
	}
	t.Logf("log:\n%s", raw.String())
	require.Equal(t, relay.EventEnd, entries[len(entries)-1].Name, "the task completed after the credentials")
	require.Contains(t, logs.String(), "Authorization", "the relay logs the notice")
	low := strings.ToLower(raw.String())
	for _, leak := range []string{"authorization", s28bValue, cardHost, endpointHost, "127.0.0.1", "withheld", "origin"} {
		require.NotContains(t, low, strings.ToLower(leak))
	}
	require.NotContains(t, logs.String(), s28bValue, "never a header's value in the log")
}
