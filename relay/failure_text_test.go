package relay_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

// The agent's address, which no browser is to see.
const (
	agentURL  = "http://planner.internal:8081/agents/planner-7f3a"
	agentHost = "planner.internal"
	agentPort = "8081"
	agentPath = "/agents/planner-7f3a"
	agentIP   = "10.9.8.7"
)

// roundTripFunc is an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// syncBuffer is a bytes.Buffer for a logger written from several
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// driveAgainst drives a stream sent to agentURL through rt to its end, and
// returns every event a browser then reads, and what the relay logged.
func driveAgainst(t *testing.T, rt http.RoundTripper) ([]event, string) {
	t.Helper()
	var logged syncBuffer
	evs := driveWith(t, rt, relay.WithLogger(slog.New(slog.NewTextHandler(&logged, nil))))
	return evs, logged.String()
}

// driveWith drives a stream sent to agentURL through rt to its end, with
// opts, and returns every event a browser then reads.
func driveWith(t *testing.T, rt http.RoundTripper, opts ...relay.DriveOption) []event {
	t.Helper()
	client, err := stream.NewClient(agentURL, stream.WithHTTPClient(&http.Client{Transport: rt}))
	require.NoError(t, err)
	st := newMemoryStore(t)
	ctx := t.Context()
	l, err := st.Open(ctx, "k")
	require.NoError(t, err)
	f, err := l.Acquire(ctx, "driver", time.Hour)
	require.NoError(t, err)
	require.NoError(t, relay.Drive(ctx, l, f, relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "plan my trip")), opts...))
	mux := http.NewServeMux()
	mux.Handle("/s/{key}/", newHandler(t, st, func(r *http.Request) (string, bool) { return r.PathValue("key"), true }))
	return connect(t, a2atest.NewClient(mux), "").rest()
}

// failureOf returns the last event's data, which must end the stream in
// an error.
func failureOf(t *testing.T, evs []event) relay.FailureData {
	t.Helper()
	require.NotEmpty(t, evs)
	last := evs[len(evs)-1]
	require.Equal(t, relay.EventFailure, last.Name)
	var d relay.FailureData
	require.NoError(t, json.Unmarshal(last.Data, &d))
	return d
}

// requireNoAddress fails when any event names the agent's host, port,
// path or IP address.
func requireNoAddress(t *testing.T, evs []event) {
	t.Helper()
	for _, ev := range evs {
		for _, secret := range []string{agentHost, agentPort, agentPath, "planner-7f3a", agentIP} {
			require.NotContains(t, string(ev.Data), secret, "the %s event shows the agent's address", ev.Name)
		}
	}
}

// An agent that answers with an HTTP error, or cannot be reached: every
// browser is told so in words meant for people, and the backend's log
// gets the whole error, address included.
func TestBrowsersAreNotShownTheAgentsAddress(t *testing.T) {
	for _, tt := range []struct {
		name string
		rt   roundTripFunc
		kind string
	}{
		{"HTTP 502", func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: http.StatusBadGateway, Status: "502 Bad Gateway", Header: http.Header{"Content-Type": {"text/html"}},
				Body: io.NopCloser(strings.NewReader("<html>upstream " + agentHost + ":" + agentPort + " is down</html>")), Request: r}, nil
		}, "http-error"},
		{"unreachable", func(r *http.Request) (*http.Response, error) {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.ParseIP(agentIP), Port: 8081}, Err: errors.New("connect: connection refused")}
		}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				evs, logged := driveAgainst(t, tt.rt)
				requireNoAddress(t, evs)
				d := failureOf(t, evs)
				if tt.kind != "" {
					require.Equal(t, tt.kind, d.Kind)
				}
				require.Contains(t, d.Text, "the agent could not be reached")
				require.Contains(t, logged, agentHost, "the backend's log has the whole error")
				require.Contains(t, logged, agentPath)
			})
		})
	}
}

// An agent that answers with an error of its own: browsers are shown the
// agent's message, not the address it was sent to.
func TestBrowsersAreShownTheAgentsOwnFailureMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithFaults(a2atest.RPCError(-32603, "the planner is overloaded", a2atest.ErrorAsJSON)))
		evs, logged := driveAgainst(t, agent.Client().Transport)
		requireNoAddress(t, evs)
		d := failureOf(t, evs)
		require.Equal(t, "agent-error", d.Kind)
		require.Contains(t, d.Text, "the planner is overloaded")
		require.Contains(t, logged, "the planner is overloaded")
	})
}

// Drive logs nothing unless the application gives it a logger: a stream
// that ended in an error writes nothing to slog's default logger.
func TestDriveLogsNothingByDefault(t *testing.T) {
	var logged syncBuffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	synctest.Test(t, func(t *testing.T) {
		evs := driveWith(t, roundTripFunc(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: http.StatusBadGateway, Status: "502 Bad Gateway", Header: http.Header{},
				Body: io.NopCloser(strings.NewReader("down")), Request: r}, nil
		}))
		require.Equal(t, "http-error", failureOf(t, evs).Kind, "the stream ended in an error")
	})
	require.Empty(t, logged.String())
}
