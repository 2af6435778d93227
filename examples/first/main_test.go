package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/examples/internal/demo"
)

// programEnv, set to "1" in the environment of this test binary, makes it
// the first program itself (see runProgram).
const programEnv = "A2ASTREAM_TEST_RUN_FIRST_PROGRAM"

func TestMain(m *testing.M) {
	if os.Getenv(programEnv) == "1" {
		main()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// programRun is what one run of the program printed and its exit code.
type programRun struct {
	stdout, stderr string
	code           int
}

// endingLines returns the lines of the run's stdout that say how it ended.
func (r programRun) endingLines() []string {
	var lines []string
	for line := range strings.Lines(r.stdout) {
		if strings.Contains(line, "ended:") {
			lines = append(lines, strings.TrimSuffix(line, "\n"))
		}
	}
	return lines
}

// runProgram runs the first program, main and its exit code included, as a
// process (this test binary, made the program by programEnv) against the
// agent at url, with stdin as what the user types.
func runProgram(t *testing.T, url, stdin string) programRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-agent", url, "-message", "hi")
	cmd.Env = append(os.Environ(), programEnv+"=1")
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "the program did not end within 30 s; it printed:\n%s", stdout.String())
	run := programRun{stdout: stdout.String(), stderr: stderr.String()}
	if err != nil {
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit)
		run.code = exit.ExitCode()
	}
	return run
}

// The program prints one line about how the task ended, "ended: " and the
// ending once, and exits 0 only when the task completed or the agent
// answered with a message: a failed task, and a stream whose task did not
// end (the agent's executor threw, as a2a-js answers then), exit 1.
func TestFirstProgramPrintsOneEndingLineAndExitsNonZeroUnlessCompleted(t *testing.T) {
	t.Parallel()
	threw := a2atest.RPCError(a2a.CodeInternalError, "Error: the executor threw\n    at Agent.execute (agent.js:12:9)", a2atest.ErrorAsErrorEvent)
	for _, c := range []struct {
		name   string
		agent  http.Handler
		stdin  string
		ending string // the ending line, or its start when it ends in "…"
		code   int
	}{
		{"completed", demo.ServedAgent(demo.ModeAsk, time.Millisecond), "Lisbon\n", "ended: completed", 0},
		{"answered", a2atest.NewAgent(a2atest.WithScript(a2atest.Reply("pong"))), "", "ended: answered", 0},
		{"failed", demo.ServedAgent(demo.ModeFail, time.Millisecond), "", "ended: failed: " + demo.FailCode + ": " + demo.FailReason, 1},
		{"no answer to the question", demo.ServedAgent(demo.ModeAsk, time.Millisecond), "", "ended: input-required: no answer: EOF", 1},
		{"the task did not end", a2atest.NewAgent(a2atest.WithFaults(threw)), "", "ended: a2a: json-rpc error -32603 (internal error): Error: the executor threw …", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			agent := httptest.NewServer(c.agent)
			defer agent.Close()
			run := runProgram(t, agent.URL, c.stdin)
			lines := run.endingLines()
			require.Len(t, lines, 1, "one ending line; the program printed:\n%s", run.stdout)
			if head, prefix := strings.CutSuffix(c.ending, "…"); prefix {
				require.True(t, strings.HasPrefix(lines[0], head), "%q; want it to start with %q", lines[0], head)
				require.NotContains(t, lines[0], "ended: ended:")
			} else {
				require.Equal(t, c.ending, lines[0])
			}
			require.True(t, strings.HasSuffix(run.stdout, lines[0]+"\n"), "the ending line is the last; the program printed:\n%s", run.stdout)
			require.Equal(t, c.code, run.code, "the exit code; the program printed:\n%s\nstderr:\n%s", run.stdout, run.stderr)
			require.Empty(t, run.stderr)
		})
	}
}

// lockedBuffer is stdout for run, read by the test while run writes. When
// what is written holds want, seen is closed.
type lockedBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	if b.seen != nil && b.want != "" && strings.Contains(b.buf.String(), b.want) {
		close(b.seen)
		b.want = ""
	}
	return n, err
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestFirstProgramPrintsEachWordOnceAcrossACut(t *testing.T) {
	t.Parallel()
	agent := httptest.NewServer(demo.ServedAgent(demo.ModeCut, time.Millisecond))
	defer agent.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out lockedBuffer
	_, err := run(ctx, agent.URL, "hi", "", strings.NewReader(""), &out)
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(out.String(), demo.PlanStart+demo.PlanEnd), out.String())
	require.True(t, strings.HasSuffix(out.String(), "\nended: completed\n"), out.String())
}

func TestFirstProgramEndsInOneLineWhenTheTaskFails(t *testing.T) {
	t.Parallel()
	agent := httptest.NewServer(demo.ServedAgent(demo.ModeFail, time.Millisecond))
	defer agent.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out lockedBuffer
	_, err := run(ctx, agent.URL, "hi", "", strings.NewReader(""), &out)
	require.NoError(t, err)
	require.Contains(t, out.String(), "\nended: failed: "+demo.FailCode+": "+demo.FailReason+"\n")
}

func TestFirstProgramWithoutAnAnswerSaysSo(t *testing.T) {
	t.Parallel()
	agent := httptest.NewServer(demo.ServedAgent(demo.ModeAsk, time.Millisecond))
	defer agent.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out lockedBuffer
	_, err := run(ctx, agent.URL, "hi", "", strings.NewReader(""), &out) // stdin closed
	require.NoError(t, err)
	require.Contains(t, out.String(), "\nended: input-required")
}

// TestFirstProgramCancelsTheTaskOnInterrupt ends run's context (what Ctrl-C
// does) while the agent waits for an answer, and checks that the agent's
// task was canceled, not only abandoned.
func TestFirstProgramCancelsTheTaskOnInterrupt(t *testing.T) {
	t.Parallel()
	served := demo.ServedAgent(demo.ModeAsk, time.Millisecond)
	agent := httptest.NewServer(served)
	defer agent.Close()
	ctx, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	stdin, typing := newPipe()
	defer typing()
	out := lockedBuffer{want: "\n> ", seen: make(chan struct{})}
	done := make(chan error, 1)
	go func() {
		_, err := run(ctx, agent.URL, "hi", "", stdin, &out)
		done <- err
	}()

	// Interrupt once the program waits on the human.
	select {
	case <-out.seen:
	case err := <-done:
		t.Fatalf("the program ended (%v) without asking; it printed %q", err, out.String())
	}
	interrupt()
	require.NoError(t, <-done)

	ids := served.TaskIDs()
	require.Len(t, ids, 1)
	require.Equal(t, a2a.StateCanceled, served.Task(ids[0]).Status.State)
	require.Contains(t, out.String(), "\nended: ")
}

// newPipe is a stdin nobody types into until close is called.
func newPipe() (r *blockingReader, stop func()) {
	r = &blockingReader{closed: make(chan struct{})}
	return r, func() { r.once.Do(func() { close(r.closed) }) }
}

type blockingReader struct {
	once   sync.Once
	closed chan struct{}
}

func (r *blockingReader) Read([]byte) (int, error) {
	<-r.closed
	return 0, errors.New("closed")
}

func TestFirstProgramNamesTheURLsItTriedAtANonAgent(t *testing.T) {
	t.Parallel()
	site := httptest.NewServer(http.NotFoundHandler())
	defer site.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out lockedBuffer
	_, err := run(ctx, site.URL, "hi", "", strings.NewReader(""), &out)
	var invalid *agentcard.InvalidError
	require.ErrorAs(t, err, &invalid)
	require.NotEmpty(t, invalid.Tried)
	require.Contains(t, err.Error(), site.URL)
}

// TestFirstProgramSendsTheTokenWithItsCallOnly checks the per-call header:
// the token goes with the message and with the reply to the agent's
// question, and not with the card request, which the Client makes for
// every user.
func TestFirstProgramSendsTheTokenWithItsCallOnly(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[string][]string{} // Authorization values by "METHOD path"
	served := demo.ServedAgent(demo.ModeAsk, time.Millisecond)
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Method+" "+r.URL.Path] = append(seen[r.Method+" "+r.URL.Path], r.Header.Get("Authorization"))
		mu.Unlock()
		served.ServeHTTP(w, r)
	}))
	defer agent.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out lockedBuffer
	_, err := run(ctx, agent.URL, "hi", "t-42", strings.NewReader("Lisbon\n"), &out)
	require.NoError(t, err)
	require.Contains(t, out.String(), "\nended: completed\n")

	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{""}, seen["GET /.well-known/agent-card.json"], "no token on the card request")
	require.Equal(t, []string{"Bearer t-42", "Bearer t-42"}, seen["POST /"], "the message and the reply carry the token")
}
