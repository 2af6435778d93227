package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/examples/internal/demo"
	"github.com/a2astream/a2astream/stream"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func callerRun(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	var out, errOut strings.Builder
	code = run(ctx, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestDemoOutcomes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		code, out, errOut := callerRun(t.Context())
		require.Equal(t, exitOK, code, errOut)
		require.Empty(t, errOut)
		const unreachable = "unreachable after 3 attempts (stream: HTTP 503 Service Unavailable); using cached answer: Probably yes (cached yesterday)."
		require.Equal(t, strings.Join([]string{
			"q1: What should I do on Saturday?",
			"q2: What should I do on Sunday?",
			"weather   q1  answered: Sunny, 24°C.",
			"weather   q2  answered: Sunny, 24°C.",
			"calendar  q1  answered after signing in: Free slots: Tue 10:00, Thu 15:00",
			"calendar  q2  answered after signing in: Free slots: Tue 10:00, Thu 15:00",
			"backend   q1  failed: upstream API timed out",
			"backend   q2  failed: upstream API timed out",
			"trains    q1  rejected: I only answer questions about trains",
			"trains    q2  rejected: I only answer questions about trains",
			"oracle    q1  " + unreachable,
			"oracle    q2  " + unreachable,
		}, "\n")+"\n", out)
		// Sequential calls would add up three backoffs per oracle question,
		// and more; concurrent ones take about as long as the slowest call.
		require.Less(t, time.Since(start), 2*time.Second)
	})
}

func TestQuestionsToOneAgentRunConcurrently(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slow := a2atest.NewAgent(a2atest.WithScript(
			a2atest.Working(""),
			a2atest.Pause(time.Minute),
			a2atest.Chunk("a1", "done", false, true),
			a2atest.Finish(a2a.StateCompleted, ""),
		))
		client, err := stream.NewClient("http://slow.test/", stream.WithHTTPClient(slow.Client()))
		require.NoError(t, err)
		a := &agent{name: "slow", client: client}

		start := time.Now()
		got := fanOut(t.Context(), []*agent{a}, []string{"one", "two", "three"})
		require.Equal(t, time.Minute, time.Since(start), "three tasks of a minute each, at once")
		require.Len(t, got[0], 3)
		for _, o := range got[0] {
			require.Equal(t, outcome{text: "answered: done", answered: true}, o)
		}
		require.Len(t, slow.TaskIDs(), 3)
	})
}

func TestQuestionFlags(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		code, out, _ := callerRun(t.Context(), "-message", "Is it sunny?")
		require.Equal(t, exitOK, code)
		require.Contains(t, out, "q1: Is it sunny?\n")
		require.Contains(t, out, "oracle    q1  unreachable after 3 attempts")
		require.NotContains(t, out, "q2")
	})
}

func TestInterrupted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		code, out, errOut := callerRun(ctx)
		require.Equal(t, exitInterrupt, code)
		require.Empty(t, out)
		require.Equal(t, "canceled\n", errOut)
	})
}

func TestUsage(t *testing.T) {
	code, out, errOut := callerRun(t.Context(), "extra")
	require.Equal(t, exitUsage, code)
	require.Empty(t, out)
	require.Contains(t, errOut, `unexpected argument "extra"`)

	code, _, errOut = callerRun(t.Context(), "-help")
	require.Equal(t, exitOK, code)
	require.Contains(t, errOut, "-token value")
}

// TestRemoteAgents calls agents over real sockets (outside any bubble).
func TestRemoteAgents(t *testing.T) {
	t.Cleanup(http.DefaultClient.CloseIdleConnections)
	quick := httptest.NewServer(demo.QuickAgent())
	defer quick.Close()
	secured := httptest.NewServer(demo.SecuredAgent())
	defer secured.Close()
	host := func(s *httptest.Server) string { return strings.TrimPrefix(s.URL, "http://") }

	code, out, errOut := callerRun(t.Context(), "-agent", quick.URL, "-agent", secured.URL, "-agent", "no-scheme", "-message", "free?")
	require.Equal(t, exitOK, code, errOut)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 4, out)
	require.Equal(t, "q1: free?", lines[0])
	require.Regexp(t, `^`+host(quick)+` +q1  answered: Sunny, 24°C\.$`, lines[1])
	require.Regexp(t, `^`+host(secured)+` +q1  needs credentials \(pass -token\): Sign in to the calendar to continue\.$`, lines[2])
	require.Regexp(t, `^no-scheme +q1  cannot call: stream: invalid base URL "no-scheme"`, lines[3])

	code, out, errOut = callerRun(t.Context(), "-agent", secured.URL, "-token", demo.Token)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, host(secured)+"  q1  answered after signing in: Free slots: Tue 10:00, Thu 15:00\n")
	require.Contains(t, out, host(secured)+"  q2  answered after signing in: Free slots: Tue 10:00, Thu 15:00\n")

	code, out, _ = callerRun(t.Context(), "-agent", secured.URL, "-token", "Bearer wrong")
	require.Equal(t, exitNoAnswer, code)
	require.Contains(t, out, "still needs credentials after signing in: Sign in to the calendar to continue.")
}
