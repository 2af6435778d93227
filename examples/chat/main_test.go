package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/examples/internal/demo"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// tripAnswer is everything the trip agent streams into its "answer"
// artifact, before and after its question.
const tripAnswer = "Here is a three-day plan. Day one: a walk through the old town and a long lunch by the river. " +
	"Day two: the museum quarter, then the night market. " +
	"Day three: a train to the coast from your starting city, a swim, and dinner by the harbour."

// chatRun runs the program with args and stdin and returns its exit status
// and what it wrote.
func chatRun(ctx context.Context, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	var out, errOut strings.Builder
	code = run(ctx, args, stdin, &out, &errOut)
	return code, out.String(), errOut.String()
}

// streamedText joins the lines of a transcript that carry streamed answer
// text, leaving out prompts, notices, status lines and other artifacts. The
// stream breaks the answer's line only to write another line, so the joined
// pieces are the answer exactly as it arrived.
func streamedText(transcript string) string {
	var b strings.Builder
	for l := range strings.Lines(transcript) {
		switch {
		case strings.HasPrefix(l, "you> "), strings.HasPrefix(l, "· "), strings.HasPrefix(l, "⟳ "),
			strings.HasPrefix(l, "✓ "), strings.HasPrefix(l, "agent asks: "), strings.HasPrefix(l, "summary: "):
		default:
			b.WriteString(strings.TrimSuffix(l, "\n"))
		}
	}
	return b.String()
}

// requireInOrder checks that each of want occurs in s, in this order.
func requireInOrder(t *testing.T, s string, want ...string) {
	t.Helper()
	rest := s
	for _, w := range want {
		i := strings.Index(rest, w)
		require.GreaterOrEqual(t, i, 0, "%q missing, or out of order, in:\n%s", w, s)
		rest = rest[i+len(w):]
	}
}

func TestTripAnsweredFromStdin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		code, out, errOut := chatRun(t.Context(), strings.NewReader("Lisbon\n"))
		require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
		require.Empty(t, errOut)

		// A word shown twice or lost would break the equality.
		require.Equal(t, tripAnswer, streamedText(out), "every word once, in order")
		requireInOrder(t, out,
			"you> Plan a weekend trip\n",
			"· working: Planning your trip…\n",
			"Here is a three-day plan.",
			"\n⟳ connection lost — reconnecting (1/3)…\n",
			"✓ resumed\n",
			"night market. \nagent asks: "+demo.Question+"\n",
			"you> Lisbon\n", // piped input is echoed
			"Day three:",
			"harbour.\nsummary: 3 days · old town · museums · coast\n",
			"· completed: Have a good trip!\n",
		)
		require.Equal(t, 1, strings.Count(out, "⟳"))
		require.Equal(t, 1, strings.Count(out, "✓ resumed"))
		require.True(t, strings.HasSuffix(out, "· completed: Have a good trip!\n"), out)
	})
}

func TestTripAnsweredByFlag(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		code, out, errOut := chatRun(t.Context(), strings.NewReader(""), "-answer", "Porto", "-message", "A weekend by the sea")
		require.Equal(t, exitOK, code, errOut)
		requireInOrder(t, out, "you> A weekend by the sea\n", "agent asks: "+demo.Question+"\n", "you> Porto\n", "summary: ")
		require.Equal(t, tripAnswer, streamedText(out))
	})
}

func TestStdinClosedWithoutAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The demo still runs to completion, with a stated default answer.
		code, out, errOut := chatRun(t.Context(), strings.NewReader(""))
		require.Equal(t, exitOK, code, errOut)
		requireInOrder(t, out, "agent asks: "+demo.Question+"\n",
			"you> "+demo.Answer+"   (stdin is closed, so the demo answers for you; -answer chooses)\n", "summary: ")
		require.Equal(t, tripAnswer, streamedText(out))
	})
}

func TestStdinClosedAgainstARealAgent(t *testing.T) {
	// A real agent's question is never answered on the user's behalf.
	asking := httptest.NewServer(a2atest.NewAgent(a2atest.WithScript(a2atest.AskInput("Which dates?"),
		a2atest.Finish(a2a.StateCompleted, ""))))
	defer asking.Close()
	code, out, errOut := chatRun(t.Context(), strings.NewReader(""), "-agent", asking.URL)
	require.Equal(t, exitTask, code)
	requireInOrder(t, out, "agent asks: Which dates?\n", "you> \n")
	require.Equal(t, "chat: the agent's question went unanswered: stdin closed before an answer (pass -answer to answer without a terminal)\n", errOut)
}

func TestBlankLinesAreSkipped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		code, out, errOut := chatRun(t.Context(), strings.NewReader("\n  \nFaro"))
		require.Equal(t, exitOK, code, errOut)
		require.Contains(t, out, "you> Faro\n")
	})
}

func TestAnswerTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stdin, typing := io.Pipe()
		defer typing.Close() // lets the abandoned read end
		start := time.Now()
		code, _, errOut := chatRun(t.Context(), stdin, "-timeout", "30s")
		require.Equal(t, exitTask, code)
		require.Equal(t, "chat: the agent's question went unanswered: no answer within -timeout\n", errOut)
		require.Less(t, time.Since(start), 35*time.Second)
	})
}

func TestInterrupt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, interrupt := context.WithCancel(t.Context())
		defer interrupt()
		stdin, typing := io.Pipe()
		defer typing.Close()
		out := &watchWriter{want: "agent asks: ", seen: make(chan struct{})}
		var errOut strings.Builder
		done := make(chan int)
		go func() { done <- run(ctx, nil, stdin, out, &errOut) }()

		<-out.seen // the human is being asked
		interrupt()
		require.Equal(t, exitInterrupt, <-done)
		// The task is known, so Ctrl-C cancels it on the agent too.
		require.Equal(t, "chat: asked the agent to cancel the task\ncanceled\n", errOut.String())
	})
}

// watchWriter collects output and closes seen once want has been written.
type watchWriter struct {
	mu   sync.Mutex
	buf  strings.Builder
	want string
	seen chan struct{}
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	had := strings.Contains(w.buf.String(), w.want)
	w.buf.Write(p)
	if !had && strings.Contains(w.buf.String(), w.want) {
		close(w.seen)
	}
	return len(p), nil
}

func TestDemoEndings(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		out     string // a line of stdout
		stderr  string // all of stderr
		hasHint bool
	}{
		{
			name:   "failed",
			args:   []string{"-demo", "fail"},
			code:   exitTask,
			out:    "request sent; \n· failed: upstream API timed out\n",
			stderr: "chat: the task failed: upstream API timed out\n",
		},
		{
			name:   "rejected",
			args:   []string{"-demo", "reject"},
			code:   exitTask,
			out:    "· rejected: I only answer questions about trains\n",
			stderr: "chat: the agent rejected the task: I only answer questions about trains\n",
		},
		{
			name: "auth required",
			args: []string{"-demo", "auth"},
			code: exitTask,
			out:  "· auth-required: Sign in to the calendar to continue.\n",
			stderr: "chat: the agent wants you to sign in: Sign in to the calendar to continue.\n" +
				"the agent needs credentials: pass -header 'Authorization: Bearer …'\n",
		},
		{
			name: "auth given",
			args: []string{"-demo", "auth", "-header", "Authorization: " + demo.Token},
			code: exitOK,
			out:  "Free slots: Tue 10:00, Thu 15:00\n· completed\n",
		},
		{
			name: "unreachable",
			args: []string{"-demo", "offline"},
			code: exitUsage,
			out: "⟳ connection lost — reconnecting (1/3)…\n" +
				"⟳ connection lost — reconnecting (2/3)…\n" +
				"⟳ connection lost — reconnecting (3/3)…\n",
			stderr: "chat: the agent is unreachable: gave up after 3 reconnect attempts: stream: HTTP 503 Service Unavailable from POST http://demo.agent/ (SubscribeToTask)\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				code, out, errOut := chatRun(t.Context(), strings.NewReader(""), tc.args...)
				require.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
				require.Contains(t, out, tc.out)
				require.Equal(t, tc.stderr, errOut)
				require.NotContains(t, out, "✓ resumed")
			})
		})
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"-agent", "agent.example"}, `chat: stream: invalid base URL "agent.example": it has no scheme; write "http://agent.example" or "https://agent.example"`},
		{[]string{"-agent", "ftp://agent.example/"}, `chat: stream: invalid base URL "ftp://agent.example/": want an absolute http or https URL`},
		{[]string{"-demo", "nope"}, `chat: unknown demo agent "nope"`},
		{[]string{"-header", "no colon"}, `invalid value "no colon" for flag -header`},
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
		{[]string{"hello"}, `chat: unexpected argument "hello"`},
	} {
		code, out, errOut := chatRun(t.Context(), strings.NewReader(""), tc.args...)
		require.Equal(t, exitUsage, code, tc.args)
		require.Empty(t, out, tc.args)
		require.Contains(t, errOut, tc.stderr, tc.args)
	}
}

func TestHelp(t *testing.T) {
	code, out, errOut := chatRun(t.Context(), strings.NewReader(""), "-help")
	require.Equal(t, exitOK, code)
	require.Empty(t, out)
	require.Contains(t, errOut, "demo agent to run when -agent is not given")
}

// TestAgentFlag resolves agents over real sockets (outside any bubble): the
// agent card picks the endpoint, and an unusable card is a connection error.
func TestAgentFlag(t *testing.T) {
	t.Cleanup(http.DefaultClient.CloseIdleConnections)

	quick := httptest.NewServer(demo.QuickAgent())
	defer quick.Close()
	code, out, errOut := chatRun(t.Context(), strings.NewReader(""), "-agent", quick.URL)
	require.Equal(t, exitOK, code, errOut)
	requireInOrder(t, out, "you> Plan a weekend trip\n", "Sunny, 24°C.\n", "· completed\n")

	broken := httptest.NewServer(a2atest.NewAgent(a2atest.WithCardJSON([]byte(`{"name":"no interfaces"}`))))
	defer broken.Close()
	code, out, errOut = chatRun(t.Context(), strings.NewReader(""), "-agent", broken.URL)
	require.Equal(t, exitUsage, code)
	require.Empty(t, out)
	require.Contains(t, errOut, "chat: no usable agent card at "+broken.URL+"/.well-known/agent-card.json: ")
}

// An agent that streams its answer as one status message, sent again
// longer each time, is shown word by word on one line: each version adds
// what chatview.Screen says it adds, and nothing is written twice.
func TestGrowingStatusMessageContinuesItsLine(t *testing.T) {
	t.Cleanup(http.DefaultClient.CloseIdleConnections)
	growing := httptest.NewServer(a2atest.NewAgent(a2atest.WithCumulativeMessage(), a2atest.WithScript(
		a2atest.Working("Hel"), a2atest.Working("lo, "), a2atest.Working("wor"), a2atest.Finish(a2a.StateCompleted, "ld."))))
	defer growing.Close()
	code, out, errOut := chatRun(t.Context(), strings.NewReader(""), "-agent", growing.URL)
	require.Equal(t, exitOK, code, errOut)
	require.Equal(t, "you> Plan a weekend trip\n· submitted\n· working: Hello, world.\n· completed\n", out)
}

func TestChatSaysWhenTheAgentIsDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + ln.Addr().String() + "/"
	require.NoError(t, ln.Close()) // nothing listens there now
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	code, _, errOut := chatRun(ctx, strings.NewReader(""), "-agent", url)
	require.Equal(t, exitUsage, code)
	require.True(t, strings.HasPrefix(errOut, "chat: the agent is down or the URL is wrong: stream: could not connect to "+url+".well-known/agent-card.json"), errOut)
}
