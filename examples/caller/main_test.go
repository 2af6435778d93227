package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/chain"
	"github.com/a2astream/a2astream/examples/internal/demo"
	"github.com/a2astream/a2astream/stream"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func callerRun(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	var out, errOut strings.Builder
	code = run(ctx, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// taskIDs matches the task IDs the agents make up, UUIDs.
var taskIDs = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

func TestDemoOutcomes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		code, out, errOut := callerRun(t.Context())
		require.Equal(t, exitOK, code, errOut)
		require.Empty(t, errOut)
		const unreachable = "unreachable after 3 attempts (stream: HTTP 503 Service Unavailable from POST http://demo.agent/ (SubscribeToTask)); using cached answer: Probably yes (cached yesterday)."
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
			"errors this agent answers its own caller with:",
			"backend   q1  -32603 downstream agent backend failed: task ID ended in state failed: upstream API timed out (not retryable)",
			"backend   q2  -32603 downstream agent backend failed: task ID ended in state failed: upstream API timed out (not retryable)",
			"trains    q1  -32603 downstream agent trains failed: task ID ended in state rejected: I only answer questions about trains (not retryable)",
			"trains    q2  -32603 downstream agent trains failed: task ID ended in state rejected: I only answer questions about trains (not retryable)",
		}, "\n")+"\n", taskIDs.ReplaceAllString(out, "ID"))
		// Sequential calls would add up three backoffs per oracle question,
		// and more; concurrent ones take about as long as the slowest call.
		require.Less(t, time.Since(start), 2*time.Second)
	})
}

// TestSignInContinuesTheSameTask: the calendar asks for credentials; the
// credentials hook gives them and each question's task goes on with them,
// the question sent once.
func TestSignInContinuesTheSameTask(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cal := newCalendar()
		client, err := stream.NewClient(demo.URL, clientOptions(demo.Token, stream.WithHTTPClient(a2atest.NewClient(cal)))...)
		require.NoError(t, err)
		a := &agent{name: "calendar", client: client, signsIn: true}

		got := fanOut(t.Context(), []*agent{a}, []string{"one", "two"})
		want := outcome{text: "answered after signing in: Free slots: Tue 10:00, Thu 15:00", answered: true}
		require.Equal(t, [][]outcome{{want, want}}, got)

		tasks := cal.agent.TaskIDs()
		require.Len(t, tasks, 2, "one task per question")
		sends := map[string]int{}
		for _, r := range cal.agent.Requests() {
			switch r.Method {
			case "SendStreamingMessage":
				sends[r.Message.Text()]++
				require.Empty(t, r.Header.Get("Authorization"), "credentials go only after the agent asked")
			case "SubscribeToTask", "GetTask":
				require.Contains(t, tasks, r.TaskID)
				require.Equal(t, demo.Token, r.Header.Get("Authorization"))
			default:
				require.Failf(t, "unexpected call", "%s", r.Method)
			}
		}
		require.Equal(t, map[string]int{"one": 1, "two": 1}, sends, "each question sent once")
	})
}

// TestStillAskedAfterSigningIn: an agent that asks for credentials again
// and again gets them five times (a stream's limit), then the question
// ends without an answer.
func TestStillAskedAfterSigningIn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var steps []a2atest.Step
		for i := range maxCredentialsCalls + 2 {
			steps = append(steps, a2atest.AskAuth(fmt.Sprintf("Sign in again (%d).", i+1)), a2atest.Pause(time.Second))
		}
		picky := a2atest.NewAgent(a2atest.WithStayOpenOnInterrupt(), a2atest.WithScript(steps...))
		client, err := stream.NewClient("http://picky.test/", clientOptions("Bearer expired", stream.WithHTTPClient(picky.Client()))...)
		require.NoError(t, err)
		a := &agent{name: "picky", client: client, signsIn: true}

		o := ask(t.Context(), a, "hello?")
		require.Equal(t, "still needs credentials after signing in: Sign in again (6).", o.text)
		require.False(t, o.answered)
		var methods []string
		for _, r := range picky.Requests() {
			methods = append(methods, r.Method)
		}
		require.Equal(t, []string{"SendStreamingMessage", "SubscribeToTask", "SubscribeToTask", "SubscribeToTask", "SubscribeToTask", "SubscribeToTask"}, methods,
			"one send, then one subscribe per credentials given")
	})
}

// TestDownstreamFailureAnsweredWithChain: a question that got no answer
// leaves the error this agent answers its own caller with, and that caller
// reads the chain back from the JSON-RPC error it receives.
func TestDownstreamFailureAnsweredWithChain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		backend := demo.FailingAgent()
		client, err := stream.NewClient(demo.URL, stream.WithHTTPClient(backend.Client()))
		require.NoError(t, err)
		o := ask(t.Context(), &agent{name: "backend", client: client}, "status?")
		require.Equal(t, "failed: upstream API timed out", o.text)
		require.NotNil(t, o.report)

		// The caller's side: a JSON-RPC response, decoded as any client would.
		body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "error": o.report})
		require.NoError(t, err)
		var resp struct {
			Error a2a.RPCError `json:"error"`
		}
		require.NoError(t, json.Unmarshal(body, &resp))
		require.Len(t, backend.TaskIDs(), 1)
		task := backend.TaskIDs()[0]
		require.Equal(t, []chain.Link{
			{Agent: "caller", Code: a2a.CodeInternalError, Message: "downstream agent backend failed: task " + task + " ended in state failed: upstream API timed out"},
			{Agent: "backend", Message: "task " + task + " ended in state failed: upstream API timed out", TaskID: task, State: a2a.StateFailed},
		}, chain.Of(&resp.Error))
	})
}

// TestUnreachableWithoutCacheAnsweredRetryable: an agent that cannot be
// reached and has no cached answer is reported as a retryable failure.
func TestUnreachableWithoutCacheAnsweredRetryable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client, err := stream.NewClient(demo.URL, stream.WithHTTPClient(demo.UnreachableAgent(1).Client()))
		require.NoError(t, err)
		o := ask(t.Context(), &agent{name: "oracle", client: client}, "yes?")
		require.Equal(t, "unreachable after 3 attempts (stream: HTTP 503 Service Unavailable from POST http://demo.agent/ (SubscribeToTask)); no cached answer", o.text)
		require.Equal(t, "-32603 downstream agent oracle failed: connection lost; gave up after 3 attempts (retryable)", reportText(o.report))
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
	secured := httptest.NewServer(newCalendar())
	defer secured.Close()
	host := func(s *httptest.Server) string { return strings.TrimPrefix(s.URL, "http://") }

	code, out, errOut := callerRun(t.Context(), "-agent", quick.URL, "-agent", secured.URL, "-agent", "no-scheme", "-message", "free?")
	require.Equal(t, exitOK, code, errOut)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 7, out)
	require.Equal(t, "q1: free?", lines[0])
	require.Regexp(t, `^`+host(quick)+` +q1  answered: Sunny, 24°C\.$`, lines[1])
	require.Regexp(t, `^`+host(secured)+` +q1  needs credentials \(pass -token\): Sign in to the calendar to continue\.$`, lines[2])
	require.Regexp(t, `^no-scheme +q1  cannot call: stream: invalid base URL "no-scheme": it has no scheme; write "http://no-scheme" or "https://no-scheme"$`, lines[3])
	require.Equal(t, "errors this agent answers its own caller with:", lines[4])
	require.Regexp(t, `^`+host(secured)+` +q1  -32603 downstream agent `+host(secured)+` failed: task \S+ ended in state auth-required: Sign in to the calendar to continue\. \(not retryable\)$`, lines[5])
	require.Regexp(t, `^no-scheme +q1  -32603 downstream agent no-scheme failed: invalid option \(not retryable\)$`, lines[6])

	code, out, errOut = callerRun(t.Context(), "-agent", secured.URL, "-token", demo.Token)
	require.Equal(t, exitOK, code, errOut)
	require.Contains(t, out, host(secured)+"  q1  answered after signing in: Free slots: Tue 10:00, Thu 15:00\n")
	require.Contains(t, out, host(secured)+"  q2  answered after signing in: Free slots: Tue 10:00, Thu 15:00\n")

	code, out, _ = callerRun(t.Context(), "-agent", secured.URL, "-token", "Bearer wrong", "-message", "free?")
	require.Equal(t, exitNoAnswer, code)
	require.Equal(t, strings.Join([]string{
		"q1: free?",
		host(secured) + "  q1  credentials refused: HTTP 401 Unauthorized",
		"errors this agent answers its own caller with:",
		// The task still waits in auth-required: its ending is the chain's.
		host(secured) + "  q1  -32603 downstream agent " + host(secured) + " failed: task ID ended in state auth-required: Sign in to the calendar to continue. (not retryable)",
	}, "\n")+"\n", taskIDs.ReplaceAllString(out, "ID"))
}

// maxCredentialsCalls is how many times a stream calls its credentials
// hook at most (see stream.WithCredentials).
const maxCredentialsCalls = 5
