package stream_test

// Headers withheld, said aloud: a card that names another origin than the
// one the caller gave gets none of the caller's headers (the origin
// promise), and each stream says so once, with a HeadersWithheld notice
// and a debug log line that name the headers (never their values) and both
// origins. WithTrustedOrigins names the other origins the caller trusts
// with its headers.

import (
	"bytes"
	"context"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
)

// withheldRun resolves the agent at named, whose card names endpoint, with
// the Client's headers and opts, runs two streams (each with a per-call
// header) to their end, and returns the notices each stream got and the
// debug log.
func withheldRun(t *testing.T, w wire, named, endpoint string, opts ...stream.Option) (notices [][]stream.Notice, log string, hops []sgHop) {
	t.Helper()
	agent := sgAgent(w)
	mo := newSGOrigins()
	if sgOriginOf(mustURL(t, named)) == sgOriginOf(mustURL(t, endpoint)) {
		mo.serve(named, sgCardServer(sgCardJSON(w.v, w.b, endpoint, true), agent))
	} else {
		mo.serve(named, sgCardServer(sgCardJSON(w.v, w.b, endpoint, true), nil))
		mo.serve(endpoint, agent)
	}
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	all := append([]stream.Option{stream.WithHTTPClient(mo.client()), stream.WithLogger(logger),
		stream.WithHeader("Authorization", "Bearer service-secret"), stream.WithHeader("X-Api-Key", "key-secret")}, opts...)
	c, err := stream.Resolve(context.Background(), named, all...)
	require.NoError(t, err)
	for range 2 {
		var got []stream.Notice
		s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "ask me"), stream.WithHeader("X-Call-Token", "per-call-secret"),
			stream.WithHumanInput(sgLisbon), stream.WithNotify(func(n stream.Notice) { got = append(got, n) }))
		_, err := s.Wait()
		require.NoError(t, err)
		notices = append(notices, got)
	}
	return notices, buf.String(), mo.recorded()
}

// withheldNotices returns the HeadersWithheld notices of ns.
func withheldNotices(ns []stream.Notice) []stream.Notice {
	var out []stream.Notice
	for _, n := range ns {
		if n.Kind == stream.HeadersWithheld {
			out = append(out, n)
		}
	}
	return out
}

// withheldLines returns the log's lines about withheld headers.
func withheldLines(log string) []string {
	var out []string
	for line := range strings.Lines(log) {
		if strings.Contains(line, "headers withheld") {
			out = append(out, line)
		}
	}
	return out
}

func TestHeadersWithheldFromAnotherOriginAreNoticedOncePerStream(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				notices, log, _ := withheldRun(t, w, "http://localhost:9999/", "http://127.0.0.1:9999/")
				for i, ns := range notices {
					got := withheldNotices(ns)
					require.Len(t, got, 1, "stream %d: one notice", i)
					n := got[0]
					require.Equal(t, []string{"Authorization", "X-Api-Key", "X-Call-Token"}, n.Headers)
					require.Equal(t, "http://localhost:9999", n.NamedOrigin)
					require.Equal(t, "http://127.0.0.1:9999", n.EndpointOrigin)
					require.Equal(t, "headers-withheld", n.Kind.String())
				}
				lines := withheldLines(log)
				require.Len(t, lines, 2, "one debug line per stream:\n%s", log)
				for _, line := range lines {
					for _, want := range []string{"Authorization", "X-Api-Key", "X-Call-Token", "http://localhost:9999", "http://127.0.0.1:9999"} {
						require.Contains(t, line, want)
					}
				}
				require.NotContains(t, log, "secret", "no header value in the log")
			})
		})
	}
}

// The control: an endpoint on the origin named gets the headers, and
// nothing is said.
func TestHeadersSentToTheOriginNamedAreNotNoticed(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				notices, log, _ := withheldRun(t, w, "http://localhost:9999/", "http://LOCALHOST:9999/")
				for _, ns := range notices {
					require.Empty(t, withheldNotices(ns))
				}
				require.Empty(t, withheldLines(log))
			})
		})
	}
}

// mustURL parses a URL of a test.
func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u
}

// An origin the caller trusts (WithTrustedOrigins) gets the headers, the
// Client's and each call's, and nothing is said.
func TestTrustedOriginGetsTheHeaders(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				notices, log, hops := withheldRun(t, w, "http://localhost:9999/", "http://127.0.0.1:9999/",
					stream.WithTrustedOrigins("http://127.0.0.1:9999"))
				for _, ns := range notices {
					require.Empty(t, withheldNotices(ns))
				}
				require.Empty(t, withheldLines(log))
				calls := 0
				for _, h := range hops {
					if h.origin() != "http://127.0.0.1:9999" {
						continue
					}
					calls++
					require.Equal(t, "Bearer service-secret", h.header.Get("Authorization"), "%s %s", h.method, h.url)
					require.Equal(t, "key-secret", h.header.Get("X-Api-Key"))
					require.Equal(t, "per-call-secret", h.header.Get("X-Call-Token"))
				}
				require.GreaterOrEqual(t, calls, 4, "two sends and two replies")
			})
		})
	}
}

// WithTrustedOrigins takes origins only: an absolute http or https URL
// with a host and nothing after it but "/". Anything else is refused with
// ErrInvalidOption, and so is an http origin where the origin named is
// https: headers never go from https down to http. It is Client-wide.
func TestWithTrustedOriginsRefusesWhatIsNotAnOrigin(t *testing.T) {
	for _, bad := range []string{
		"", "127.0.0.1:9999", "localhost", "ftp://agent.test", "http://", "http:///path", "http://user:pw@agent.test",
		"http://agent.test/a2a", "http://agent.test?key=1", "http://agent.test#top", "http://agent.test:port", "mailto:a@agent.test",
	} {
		_, err := stream.NewClient("http://localhost:9999/", stream.WithTrustedOrigins(bad))
		require.ErrorIs(t, err, stream.ErrInvalidOption, "%q", bad)
		require.NotContains(t, err.Error(), "pw", "no password in the error")
	}
	for _, good := range []string{"http://127.0.0.1:9999", "http://127.0.0.1:9999/", "https://Agent.Example", "http://[::1]:9999"} {
		_, err := stream.NewClient("http://localhost:9999/", stream.WithTrustedOrigins(good))
		require.NoError(t, err, "%q", good)
	}

	_, err := stream.NewClient("https://agent.test/", stream.WithTrustedOrigins("http://agent.test"))
	require.ErrorIs(t, err, stream.ErrInvalidOption, "https down to http")
	_, err = stream.NewRESTClient("https://agent.test/", stream.WithTrustedOrigins("http://127.0.0.1:9999"))
	require.ErrorIs(t, err, stream.ErrInvalidOption, "https down to http")
	_, err = stream.NewClient("https://agent.test/", stream.WithTrustedOrigins("https://127.0.0.1:9999"))
	require.NoError(t, err)

	c, err := stream.NewClient("http://localhost:9999/")
	require.NoError(t, err)
	_, err = c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hi"), stream.WithTrustedOrigins("http://127.0.0.1:9999")).Wait()
	require.ErrorIs(t, err, stream.ErrInvalidOption, "Client-wide")
}
