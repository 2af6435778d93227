package relay_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/clip"
	"github.com/a2astream/a2astream/reconnect"
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

var failureKinds = []string{"failed", "rejected", "canceled", "auth-required", "no-answer", "connection-lost",
	"agent-error", "http-error", "protocol-error", "stopped", "unresumable", "lost", "error"}

func TestFailuresNeverShowTheAgentsAddress(t *testing.T) {
	echo := "upstream " + secretAgentURL + " failed; see http://planner.internal:58213/debug"
	type tc struct {
		name  string
		rt    func() http.RoundTripper
		kinds []string
	}
	agentRT := func(opts ...a2atest.Option) func() http.RoundTripper {
		return func() http.RoundTripper { return a2atest.NewAgent(opts...).Client().Transport }
	}
	many := func(f a2atest.Fault) []a2atest.Fault { return slices.Repeat([]a2atest.Fault{f}, 20) }
	var cases []tc
	for _, code := range []int{400, 401, 403, 404, 413, 429, 500, 502, 503, 504} {
		cases = append(cases, tc{fmt.Sprintf("HTTP %d echoing the URL", code), agentRT(a2atest.WithFaults(many(a2atest.HTTPStatus(code, echo))...)), nil})
		cases = append(cases, tc{fmt.Sprintf("HTTP %d html echoing the URL", code), agentRT(a2atest.WithFaults(many(a2atest.HTTPStatus(code, "<html><body>"+echo+"</body></html>"))...)), nil})
	}
	cases = append(cases,
		tc{"refused", agentRT(a2atest.WithFaults(many(a2atest.Refuse())...)), nil},
		tc{"dropped", agentRT(a2atest.WithFaults(many(a2atest.Drop())...)), nil},
		tc{"cut then refused", agentRT(a2atest.WithScript(a2atest.Working(""), a2atest.Pause(time.Second), a2atest.Chunk("x", "hi", false, true), a2atest.Finish(a2a.StateCompleted, "")),
			a2atest.WithFaults(append([]a2atest.Fault{a2atest.CutAfterEvents(2)}, many(a2atest.Refuse())...)...)), []string{"connection-lost"}},
		tc{"cut then 502 echoing", agentRT(a2atest.WithScript(a2atest.Working(""), a2atest.Pause(time.Second), a2atest.Chunk("x", "hi", false, true), a2atest.Finish(a2a.StateCompleted, "")),
			a2atest.WithFaults(append([]a2atest.Fault{a2atest.CutAfterEvents(2)}, many(a2atest.HTTPStatus(502, echo))...)...)), nil},
		tc{"dial error with IP", func() http.RoundTripper {
			return roundTripFunc(func(r *http.Request) (*http.Response, error) {
				return nil, &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 9, 8, 7), Port: 58213}, Err: errors.New("connect: no route to host")}
			})
		}, nil},
		tc{"DNS error", func() http.RoundTripper {
			return roundTripFunc(func(r *http.Request) (*http.Response, error) {
				return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "planner.internal", Server: "10.9.8.1:53", IsNotFound: true}}
			})
		}, nil},
		tc{"200 html echoing", func() http.RoundTripper {
			return roundTripFunc(func(r *http.Request) (*http.Response, error) {
				return fakeResponse(r, 200, "text/html", "<p>"+echo+"</p>", nil), nil
			})
		}, nil},
		tc{"200 JSON that is not JSON-RPC", func() http.RoundTripper {
			return roundTripFunc(func(r *http.Request) (*http.Response, error) {
				return fakeResponse(r, 200, "application/json", `{"url":"`+secretAgentURL+`"}`, nil), nil
			})
		}, nil},
		tc{"SSE garbage echoing", func() http.RoundTripper {
			return roundTripFunc(func(r *http.Request) (*http.Response, error) {
				return fakeResponse(r, 200, "text/event-stream", "data: {not json "+echo+"\n\n", nil), nil
			})
		}, nil},
		tc{"redirect to an echoing 502", func() http.RoundTripper {
			return roundTripFunc(func(r *http.Request) (*http.Response, error) {
				if strings.HasSuffix(r.URL.Path, "/moved") {
					return fakeResponse(r, 502, "text/plain", echo, nil), nil
				}
				return fakeResponse(r, 307, "text/plain", "moved to "+secretAgentURL+"/moved", map[string]string{"Location": secretAgentURL + "/moved"}), nil
			})
		}, nil},
		tc{"redirect loop", func() http.RoundTripper {
			return roundTripFunc(func(r *http.Request) (*http.Response, error) {
				return fakeResponse(r, 302, "text/plain", "", map[string]string{"Location": secretAgentURL + "/loop" + strconv.Itoa(len(r.URL.Path))}), nil
			})
		}, nil},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				client, err := stream.NewClient(secretAgentURL, stream.WithHTTPClient(&http.Client{Transport: c.rt()}))
				require.NoError(t, err)
				f := failureShown(t, client, append(secretAgentParts, "10.9.8.7", "10.9.8.1", "/debug", "/moved", "/loop"))
				if c.kinds != nil {
					require.Contains(t, c.kinds, f.Kind)
				}
			})
		})
	}
}

// A JSON-RPC error is the agent's own words: the docs promise the page
// "the agent's own message of an error it answered with", and README says a
// failure's text shows the agent's own words as the agent wrote them, never
// the transport's error. So the text is shown, even when it names a URL: an
// agent whose message echoes its own URL (as proxies and some frameworks do)
// has that message shown, the agent's words being the agent's business.
func TestAnAgentsErrorShowsItsOwnWords(t *testing.T) {
	for _, tt := range []struct {
		name  string
		msg   string
		leaks []string // what the browsers must not be shown
	}{
		{"a message of its own", "quota exceeded for tenant 7", secretAgentParts},
		{"a message echoing its URL", "internal error calling " + secretAgentURL, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				agent := a2atest.NewAgent(a2atest.WithFaults(a2atest.RPCError(-32603, tt.msg, a2atest.ErrorAsJSON)))
				client, err := stream.NewClient(secretAgentURL, stream.WithHTTPClient(agent.Client()))
				require.NoError(t, err)
				f := failureShown(t, client, tt.leaks)
				require.Equal(t, "agent-error", f.Kind)
				require.Contains(t, f.Text, tt.msg)
			})
		})
	}
}

// A TLS failure (an agent whose certificate is not trusted) names neither
// the agent's IP, nor its port, nor its path.
func TestTLSFailureNamesNoAddress(t *testing.T) {
	agent := a2atest.NewAgent()
	srv := httptest.NewTLSServer(agent)
	defer srv.Close()
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	require.NoError(t, err)
	client, err := stream.NewClient(srv.URL+"/tls-secret-path", stream.WithReconnect(reconnect.Never()))
	require.NoError(t, err)
	f := failureShown(t, client, []string{"127.0.0.1", port, "tls-secret-path", "x509", "certificate"})
	t.Logf("%+v", f)
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

func fakeResponse(r *http.Request, code int, ct, body string, hdr map[string]string) *http.Response {
	h := http.Header{"Content-Type": {ct}}
	for k, v := range hdr {
		h.Set(k, v)
	}
	return &http.Response{StatusCode: code, Status: fmt.Sprintf("%d %s", code, http.StatusText(code)), Header: h,
		Body: io.NopCloser(strings.NewReader(body)), Request: r, ProtoMajor: 1, ProtoMinor: 1, ContentLength: int64(len(body))}
}

// failureShown drives a stream with client to its end and returns the
// failure the browsers are shown, checking that no event a browser gets
// names any of leaks and none is named "error".
func failureShown(t *testing.T, client *stream.Client, leaks []string) relay.FailureData {
	t.Helper()
	store := newMemoryStore(t)
	var logBuf syncBuffer
	_, done := driveClient(t, store, "a", client, relay.WithLogger(slog.New(slog.NewTextHandler(&logBuf, nil))))
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(2 * time.Minute):
		t.Fatal("the stream did not end within 2 minutes")
	}
	status, evs, raw, ended := readAllEvents(t, a2atest.NewClient(handlerAB(t, store)), "http://relay.test/s/a/events", "")
	require.Equal(t, 200, status)
	require.True(t, ended)
	// The events' IDs, epochs and the agent's message IDs are random UUIDs,
	// whose hex may hold a leak's digits (the port) by chance: they are
	// taken out before the search, which then covers everything else.
	shown := uuidShape.ReplaceAllString(raw, "<uuid>")
	for _, leak := range leaks {
		require.NotContains(t, shown, leak, "a browser is shown %q:\n%s", leak, raw)
	}
	for _, e := range evs {
		require.NotEqual(t, "error", e.Name, raw)
	}
	last := evs[len(evs)-1]
	require.Equal(t, relay.EventFailure, last.Name, raw)
	var f relay.FailureData
	require.NoError(t, json.Unmarshal([]byte(last.Data), &f))
	require.Contains(t, failureKinds, f.Kind)
	require.NotEmpty(t, f.Text)
	require.LessOrEqual(t, len(f.Text), clip.EndingLine)
	require.True(t, utf8.ValidString(f.Text))
	require.NotContains(t, f.Text, "\n")
	t.Logf("failure: %s (log: %d bytes)", last.Data, len(logBuf.String()))
	return f
}

// uuidShape matches a UUID as uuid.NewString writes it.
var uuidShape = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
