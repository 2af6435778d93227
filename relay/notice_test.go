package relay_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/credentials"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

// Stranger round 28b, the notices browsers are shown: a stream whose
// endpoint is on another origin than the one its client named tells so by a
// HeadersWithheld notice; the CHANGELOG (issue 28) says "The relay logs that
// notice and does not show it to browsers". Reconnect notices still reach
// them (EventNotice: "the driver's connection to the agent dropped, or
// resumed").

const (
	secretHeader = "X-Stranger28b-Secret"
	secretValue  = "sekrit-28b-value"
)

func TestBrowsersAreNotShownHeadersWithheld(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	// Two agents alike, one for the stream alone and one for the relay, so
	// that each gets its own fault.
	split := func() (*stream.Client, string, string) {
		cardURL, cardHost, endpointHost := splitAgent(t,
			a2atest.WithScript(a2atest.Working("w"), a2atest.Chunk("a1", "hello ", false, false),
				a2atest.Chunk("a1", "world", true, true), a2atest.Finish(a2a.StateCompleted, "")),
			a2atest.WithFaults(a2atest.CutAfterEvents(2)))
		client, err := stream.Resolve(ctx, cardURL, stream.WithHeader(secretHeader, secretValue),
			stream.WithReconnect(reconnect.Policy{Backoff: 5 * time.Millisecond}))
		require.NoError(t, err)
		return client, cardHost, endpointHost
	}
	client, cardHost, endpointHost := split()

	// The setup is what the brief asks for: the stream itself tells of the
	// headers withheld.
	var mu sync.Mutex
	var direct []stream.Notice
	_, err := client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hi"), stream.WithNotify(func(n stream.Notice) {
		mu.Lock()
		direct = append(direct, n)
		mu.Unlock()
	})).Wait()
	require.NoError(t, err)
	mu.Lock()
	var withheld *stream.Notice
	for i := range direct {
		if direct[i].Kind == stream.HeadersWithheld {
			withheld = &direct[i]
		}
	}
	mu.Unlock()
	require.NotNil(t, withheld, "the stream tells of its headers withheld: %+v", direct)
	require.Contains(t, withheld.Headers, secretHeader)
	require.Contains(t, withheld.NamedOrigin, cardHost)
	require.Contains(t, withheld.EndpointOrigin, endpointHost)
	require.NotContains(t, withheld.Headers, secretValue)

	// Now through the relay.
	client, cardHost, endpointHost = split()
	store := newMemoryStore(t)
	log, err := store.Open(ctx, "k")
	require.NoError(t, err)
	fence, err := log.Acquire(ctx, "me", time.Hour)
	require.NoError(t, err)
	logs := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	start := relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hi"))
	require.NoError(t, relay.Drive(ctx, log, fence, start, relay.WithLogger(logger)))

	entries, err := log.Read(ctx, 0, 10000)
	require.NoError(t, err)
	var kinds []string
	for _, e := range entries {
		if e.Name == relay.EventNotice {
			var nd relay.NoticeData
			require.NoError(t, json.Unmarshal(e.Data, &nd))
			kinds = append(kinds, nd.Kind)
		}
	}
	t.Logf("notice kinds in the log: %v", kinds)
	require.Contains(t, kinds, "reconnecting", "reconnect notices still reach browsers")
	require.Contains(t, kinds, "resumed", "resume notices still reach browsers")
	for _, k := range kinds {
		require.Contains(t, []string{"reconnecting", "resumed"}, k, "NoticeData.Kind is \"reconnecting\" or \"resumed\"")
	}

	// What a browser is served, from the start.
	h := newHandler(t, store, func(r *http.Request) (string, bool) { return "k", true })
	srv := httptest.NewServer(h)
	defer srv.Close()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/s/k", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.NoError(t, err)
	served := string(body)
	require.Contains(t, served, "event: "+relay.EventEnd)
	require.Contains(t, served, "event: "+relay.EventNotice)

	var raw strings.Builder
	for _, e := range entries {
		raw.WriteString(e.Name + " " + string(e.Data) + "\n")
	}
	for what, text := range map[string]string{"the log": raw.String(), "the response": served} {
		low := strings.ToLower(text)
		for _, leak := range []string{strings.ToLower(secretHeader), secretValue, cardHost, endpointHost,
			"127.0.0.1", port(cardHost), port(endpointHost), "withheld", "headers-withheld", "origin"} {
			require.NotContains(t, low, strings.ToLower(leak), "%s shows %q:\n%s", what, leak, text)
		}
	}

	// The relay logs the notice (header names and both origins), never the
	// header's value.
	t.Logf("driver's log:\n%s", logs.String())
	require.NotContains(t, logs.String(), secretValue)
	require.Contains(t, logs.String(), secretHeader, "the relay logs the notice")
}

// Stranger round 28b: HeadersWithheld told "when a credentials hook first
// gives headers" (go doc stream.NoticeKind), in the middle of a relayed
// stream, is not shown to browsers either.

func TestCredentialsMidStreamAreNotShownToBrowsers(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cardURL, cardHost, endpointHost := splitAgent(t,
		a2atest.WithScript(a2atest.Working("w"), a2atest.AskAuth("sign in"), a2atest.Pause(20*time.Millisecond),
			a2atest.Working("again"), a2atest.Chunk("a1", "done", false, true), a2atest.Finish(a2a.StateCompleted, "")))
	client, err := stream.Resolve(ctx, cardURL, stream.WithCredentials(bearerCreds{}),
		stream.WithReconnect(reconnect.Policy{Backoff: 10 * time.Millisecond, MaxAttempts: 50}))
	require.NoError(t, err)

	store := newMemoryStore(t)
	log, err := store.Open(ctx, "k")
	require.NoError(t, err)
	fence, err := log.Acquire(ctx, "me", time.Hour)
	require.NoError(t, err)
	logs := &syncBuffer{}
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
	for _, leak := range []string{"authorization", secretValue, cardHost, endpointHost, "127.0.0.1", "withheld", "origin"} {
		require.NotContains(t, low, strings.ToLower(leak))
	}
	require.NotContains(t, logs.String(), secretValue, "never a header's value in the log")
}

// splitAgent serves an a2atest agent at one origin and, at another, a
// card that names the first. It returns the card server's URL and the two
// hosts ("127.0.0.1:port").
func splitAgent(t *testing.T, opts ...a2atest.Option) (cardURL, cardHost, endpointHost string) {
	agent := a2atest.NewAgent(opts...)
	endpoint := httptest.NewServer(agent)
	t.Cleanup(endpoint.Close)
	eu, err := url.Parse(endpoint.URL)
	require.NoError(t, err)
	card, err := json.Marshal(agent.Card(eu.Host))
	require.NoError(t, err)
	cards := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(card)
	}))
	t.Cleanup(cards.Close)
	cu, err := url.Parse(cards.URL)
	require.NoError(t, err)
	require.NotEqual(t, cu.Host, eu.Host)
	return cards.URL, cu.Host, eu.Host
}

func port(host string) string {
	_, p, _ := strings.Cut(host, ":")
	return ":" + p
}

type bearerCreds struct{}

func (bearerCreds) Credentials(context.Context, *credentials.Request) (http.Header, error) {
	return http.Header{"Authorization": {"Bearer " + secretValue}}, nil
}
