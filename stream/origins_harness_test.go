package stream_test

// Harness of tests that need several origins: a transport that serves several
// origins in process and records every hop the client makes (its scheme,
// host, port, path and headers), so that a test can see where a credential
// went, redirects included.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/stream"
)

// hop is one request the client sent, as it left the client.
type hop struct {
	method string
	url    *url.URL
	header http.Header
	body   []byte
}

// origin returns the hop's scheme://host:port, the port made explicit.
func (h hop) origin() string { return originOf(h.url) }

func originOf(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// originRouter is an http.RoundTripper that serves each origin with its own
// handler, in process, and records every hop. A hop to an origin without a
// handler fails as an unreachable host does.
type originRouter struct {
	mu     sync.Mutex
	hops   []hop
	routes map[string]http.RoundTripper
}

func newOriginRouter() *originRouter { return &originRouter{routes: map[string]http.RoundTripper{}} }

// serve makes the origin of rawURL reach h.
func (m *originRouter) serve(rawURL string, h http.Handler) *originRouter {
	u, err := url.Parse(rawURL)
	if err != nil {
		panic(err)
	}
	m.routes[originOf(u)] = a2atest.NewTransport(h)
	return m
}

func (m *originRouter) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	u := *r.URL
	m.mu.Lock()
	m.hops = append(m.hops, hop{method: r.Method, url: &u, header: r.Header.Clone(), body: body})
	rt := m.routes[originOf(r.URL)]
	m.mu.Unlock()
	if rt == nil {
		return nil, fmt.Errorf("dial tcp: lookup %s: no such host", r.URL.Hostname())
	}
	return rt.RoundTrip(r)
}

func (m *originRouter) client() *http.Client { return &http.Client{Transport: m} }

func (m *originRouter) recorded() []hop {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]hop(nil), m.hops...)
}

// requireNoCredentialsOutside asserts that no hop to an origin other than
// named carried any of the secret headers, and returns how many hops went
// to named (so that a test can check it is not vacuous).
func requireNoCredentialsOutside(t *testing.T, m *originRouter, named string) (inside, outside int) {
	t.Helper()
	nu, err := url.Parse(named)
	require.NoError(t, err)
	own := originOf(nu)
	for _, h := range m.recorded() {
		if h.origin() == own {
			inside++
			continue
		}
		outside++
		for k, vs := range h.header {
			for _, v := range vs {
				require.NotContains(t, v, "secret", "%s %s (origin %s) carried %s, though the caller named %s", h.method, h.url, h.origin(), k, own)
			}
		}
		require.NotContains(t, h.url.String(), "secret", "%s %s (origin %s): a secret in the URL", h.method, h.url, h.origin())
	}
	return inside, outside
}

// cardJSON returns an agent card naming endpoint as its only interface, in
// binding b and version v, with the given streaming capability.
func cardJSON(v a2a.Version, b a2a.Binding, endpoint string, streaming bool) []byte {
	var card map[string]any
	if v == a2a.V10 {
		card = map[string]any{
			"name": "stranger", "description": "d", "version": "1",
			"supportedInterfaces": []any{map[string]any{"url": endpoint, "protocolBinding": string(b), "protocolVersion": "1.0"}},
			"capabilities":        map[string]any{"streaming": streaming},
			"defaultInputModes":   []string{"text/plain"}, "defaultOutputModes": []string{"text/plain"},
			"skills": []any{},
		}
	} else {
		card = map[string]any{
			"name": "stranger", "description": "d", "version": "1", "protocolVersion": "0.3.0",
			"url": endpoint, "preferredTransport": string(b),
			"capabilities":      map[string]any{"streaming": streaming},
			"defaultInputModes": []string{"text/plain"}, "defaultOutputModes": []string{"text/plain"},
			"skills": []any{},
		}
	}
	raw, err := json.Marshal(card)
	if err != nil {
		panic(err)
	}
	return raw
}

// withCard serves card at the well-known path (and at any path ending in
// .json), 404 elsewhere, and passes every other request to next.
func withCard(card []byte, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && (r.URL.Path == "/.well-known/agent-card.json" || strings.HasSuffix(r.URL.Path, ".json")) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(card)
			return
		}
		if next == nil {
			http.NotFound(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// kindOf tells which kind of call r is, on wire (v, b): stream, send,
// subscribe, get, cancel, card, or "" for anything else. It leaves r's body
// readable.
func kindOf(v a2a.Version, b a2a.Binding, r *http.Request) callKind {
	if strings.HasPrefix(r.URL.Path, "/.well-known/") || strings.HasSuffix(r.URL.Path, ".json") {
		return "card"
	}
	if b == a2a.BindingJSONRPC {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &req)
		return map[string]callKind{
			"message/stream": kindStream, "SendStreamingMessage": kindStream,
			"message/send": kindSend, "SendMessage": kindSend,
			"tasks/resubscribe": kindSubscribe, "SubscribeToTask": kindSubscribe,
			"tasks/get": kindGet, "GetTask": kindGet,
			"tasks/cancel": kindCancel, "CancelTask": kindCancel,
		}[req.Method]
	}
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/message:stream"):
		return kindStream
	case strings.HasSuffix(p, "/message:send"):
		return kindSend
	case strings.HasSuffix(p, ":subscribe"):
		return kindSubscribe
	case strings.HasSuffix(p, ":cancel"):
		return kindCancel
	case r.Method == http.MethodGet && strings.Contains(p, "/tasks/"):
		return kindGet
	}
	return ""
}

// redirectKind answers calls of kind k with a redirect (status code) to the
// same path and query on target, and passes everything else to next.
func redirectKind(v a2a.Version, b a2a.Binding, k callKind, code int, target string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if kindOf(v, b, r) == k {
			loc := strings.TrimSuffix(target, "/") + r.URL.RequestURI()
			http.Redirect(w, r, loc, code)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hitlFunc returns a hook that answers "Lisbon" and calls count each time.
func hitlFunc(count func()) hitl.Hook {
	return hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
		count()
		return hitl.Text("Lisbon"), nil
	})
}

// drainLoose runs the stream to its end as drain does (checking after each
// event that Task().Artifacts is the fold of the events), without drain's
// checks on message IDs, which messages without an ID or with data parts
// only do not fit.
func drainLoose(t *testing.T, s *stream.Stream) (*collected, error) {
	t.Helper()
	c := &collected{shown: map[string]string{}}
	defer s.Close()
	for s.Next() {
		ev := s.Event()
		c.events = append(c.events, ev)
		c.task.Apply(ev)
		c.artifacts = c.task.Artifacts
		if u, ok := ev.(*a2a.StatusUpdate); ok {
			c.states = append(c.states, u.Status.State)
		}
		if task := s.Task(); task != nil {
			require.Equal(t, len(task.Artifacts), len(c.artifacts), "after each event: artifact count")
			for i := range task.Artifacts {
				require.Equal(t, task.Artifacts[i], c.artifacts[i], "after each event: artifact %d", i)
			}
		}
	}
	return c, s.Err()
}

// describeEvents is a short account of events, for failure messages.
func describeEvents(evs []a2a.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		switch e := ev.(type) {
		case *a2a.StatusUpdate:
			fmt.Fprintf(&b, "[status %s", e.Status.State)
			if e.Status.Message != nil {
				fmt.Fprintf(&b, " %q", e.Status.Message.Text())
			}
			b.WriteString("] ")
		case *a2a.ArtifactUpdate:
			fmt.Fprintf(&b, "[artifact %s append=%v parts=%d %q] ", e.Artifact.ID, e.Append, len(e.Artifact.Parts), e.Artifact.Text())
		case *a2a.Message:
			fmt.Fprintf(&b, "[message %s %q] ", e.ID, e.Text())
		case *a2a.MessageRevision:
			fmt.Fprintf(&b, "[revision %s %q] ", e.Message.ID, e.Message.Text())
		}
	}
	return b.String()
}
