package main

import (
	"context"
	"errors"
	"flag"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/examples/internal/demo"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testTimeout bounds every test that runs the agent.
const testTimeout = 30 * time.Second

// wire is one protocol version over one binding, as the flags name them.
type wire struct{ version, binding string }

func (w wire) String() string { return w.binding + "/" + w.version }

func wires() []wire {
	return []wire{{"0.3", "jsonrpc"}, {"0.3", "rest"}, {"1.0", "jsonrpc"}, {"1.0", "rest"}}
}

// output collects what the agent writes and hands its first line over as
// soon as it is complete.
type output struct {
	mu    sync.Mutex
	buf   strings.Builder
	first chan string // gets the first line, once
	sent  bool
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf.Write(p)
	if line, _, ok := strings.Cut(o.buf.String(), "\n"); ok && !o.sent {
		o.sent = true
		o.first <- line
	}
	return len(p), nil
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// agent is a demo agent run in process by run.
type agent struct {
	url  string  // from its first line
	out  *output // everything it wrote
	stop func() error
}

// startAgent runs the program with args on a free port until the test ends
// (or stop is called), and returns once it has printed its URL. ctx bounds
// the whole run.
func startAgent(ctx context.Context, t *testing.T, args ...string) *agent {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	out := &output{first: make(chan string, 1)}
	done := make(chan error, 1)
	go func() { done <- run(ctx, append([]string{"-addr", "127.0.0.1:0", "-delay", "1ms"}, args...), out) }()
	var once sync.Once
	var runErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			runErr = <-done
		})
		return runErr
	}
	t.Cleanup(func() { require.NoError(t, stop(), "output:\n%s", out) })

	select {
	case line := <-out.first:
		url, ok := strings.CutPrefix(line, "a2a demo agent at ")
		require.True(t, ok, "first line %q", line)
		require.True(t, strings.HasPrefix(url, "http://127.0.0.1:"), "url %q", url)
		require.True(t, strings.HasSuffix(url, "/"), "url %q", url)
		return &agent{url: url, out: out, stop: stop}
	case err := <-done:
		done <- err // for stop
		require.FailNow(t, "the agent did not start", "%v\noutput:\n%s", err, out)
	case <-ctx.Done():
		require.FailNow(t, "the agent printed no URL in time", "output:\n%s", out)
	}
	return nil
}

// httpClient is a client of its own, whose idle connections are closed when
// the test ends, so that no goroutine outlives it.
func httpClient(t *testing.T) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// requests returns the request lines of the agent's output.
func requests(out string) []string {
	var reqs []string
	for l := range strings.Lines(out) {
		if r, ok := strings.CutPrefix(l, "← "); ok {
			reqs = append(reqs, strings.TrimSuffix(r, "\n"))
		}
	}
	return reqs
}

// resolve points a stream client at the agent through its card, on wire w.
func resolve(ctx context.Context, t *testing.T, a *agent, w wire, opts ...stream.Option) *stream.Client {
	t.Helper()
	opts = append([]stream.Option{
		stream.WithHTTPClient(httpClient(t)),
		stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: time.Millisecond}),
		stream.WithPollInterval(5 * time.Millisecond),
	}, opts...)
	c, err := stream.Resolve(ctx, a.url, opts...)
	require.NoError(t, err)
	require.Equal(t, a2a.Version(w.version), c.Version(), "the card's version")
	wantBinding := a2a.BindingJSONRPC
	if w.binding == "rest" {
		wantBinding = a2a.BindingHTTPJSON
	}
	require.Equal(t, wantBinding, c.Binding(), "the card's binding")
	return c
}

// ask sends the first message and reads the stream to its end; it returns
// the answer artifact's text, the final task and the stream's error.
func ask(ctx context.Context, c *stream.Client) (string, *a2a.Task, error) {
	s := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "Plan a weekend trip"))
	defer s.Close()
	for s.Next() {
	}
	task := s.Task()
	if task == nil {
		return "", nil, s.Err()
	}
	return task.Artifact("answer").Text(), task, s.Err()
}

func TestAgentAnswersOnEveryWire(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
			defer cancel()
			a := startAgent(ctx, t, "-mode", "answer", "-version", w.version, "-binding", w.binding)
			text, task, err := ask(ctx, resolve(ctx, t, a, w))
			require.NoError(t, err)
			require.Equal(t, a2a.StateCompleted, task.Status.State)
			require.Equal(t, demo.PlanStart+demo.PlanEnd, text, "every word once, in order")
			require.Equal(t, "Have a good trip!", task.Status.Message.Text())
		})
	}
}

func TestAgentAsksAndTakesTheAnswerOnEveryWire(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
			defer cancel()
			a := startAgent(ctx, t, "-mode", "ask", "-version", w.version, "-binding", w.binding)
			var prompts []string
			answer := hitl.Func(func(_ context.Context, req *hitl.Request) ([]a2a.Part, error) {
				prompts = append(prompts, req.Text())
				return hitl.Text(demo.Answer), nil
			})
			text, task, err := ask(ctx, resolve(ctx, t, a, w, stream.WithHumanInput(answer)))
			require.NoError(t, err)
			require.Equal(t, []string{demo.Question}, prompts)
			require.Equal(t, a2a.StateCompleted, task.Status.State)
			require.Equal(t, demo.PlanStart+demo.PlanEnd, text, "every word once, in order")

			var said []string
			for _, m := range task.History {
				if m.Role == a2a.RoleUser {
					said = append(said, m.Text())
				}
			}
			require.Equal(t, []string{"Plan a weekend trip", demo.Answer}, said)
		})
	}
}

func TestAgentFailsWithAStructuredFailureOnEveryWire(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
			defer cancel()
			a := startAgent(ctx, t, "-mode", "fail", "-version", w.version, "-binding", w.binding)
			text, task, err := ask(ctx, resolve(ctx, t, a, w))
			require.Equal(t, "Checking train times… ", text)

			var failed *terminal.FailedError
			require.ErrorAs(t, err, &failed)
			require.Equal(t, a2a.StateFailed, task.Status.State)
			require.Equal(t, demo.FailReason, task.Status.Message.Text())
			f, ok := failed.Failure()
			require.True(t, ok, "a structured failure")
			require.Equal(t, terminal.Failure{
				ObjectType: "error",
				Type:       demo.FailType,
				Code:       demo.FailCode,
				Message:    demo.FailReason,
				TaskState:  "failed",
			}, f)
		})
	}
}

func TestAgentCutsEveryFirstStreamAndTheClientResumesOnEveryWire(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
			defer cancel()
			a := startAgent(ctx, t, "-mode", "cut", "-version", w.version, "-binding", w.binding)
			var notices []stream.NoticeKind
			c := resolve(ctx, t, a, w, stream.WithNotify(func(n stream.Notice) { notices = append(notices, n.Kind) }))
			for range 2 { // every task's first stream is cut, not only the agent's first
				notices = nil
				text, task, err := ask(ctx, c)
				require.NoError(t, err)
				require.Equal(t, []stream.NoticeKind{stream.Reconnecting, stream.Resumed}, notices)
				require.Equal(t, a2a.StateCompleted, task.Status.State)
				require.Equal(t, demo.PlanStart+demo.PlanEnd, text, "every word once, in order")
			}
			require.Equal(t, 2, strings.Count(a.out.String(), "✂ cut the connection"), "output:\n%s", a.out)
		})
	}
}

func TestAgentWithoutStreamingIsPolledOnEveryWire(t *testing.T) {
	t.Parallel()
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
			defer cancel()
			a := startAgent(ctx, t, "-mode", "answer", "-nostream", "-version", w.version, "-binding", w.binding)
			var notices []stream.NoticeKind
			c := resolve(ctx, t, a, w, stream.WithNotify(func(n stream.Notice) { notices = append(notices, n.Kind) }))
			text, task, err := ask(ctx, c)
			require.NoError(t, err)
			require.Equal(t, a2a.StateCompleted, task.Status.State)
			require.Equal(t, demo.PlanStart+demo.PlanEnd, text)
			require.Equal(t, []stream.NoticeKind{stream.Polling}, notices)
			reqs := requests(a.out.String())
			require.NotEmpty(t, reqs)
			for _, r := range reqs {
				require.NotContains(t, strings.ToLower(r), "stream", "no streaming call was made")
			}
		})
	}
}

// By default the agent speaks both versions over both bindings, and its
// card lists the four interfaces at the agent's own URL.
func TestAgentServesEveryWireByDefault(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	a := startAgent(ctx, t, "-mode", "answer")
	card, err := agentcard.Fetch(ctx, a.url, agentcard.WithHTTPClient(httpClient(t)))
	require.NoError(t, err)
	var got []string
	for _, i := range card.SupportedInterfaces {
		require.Equal(t, a.url, i.URL)
		got = append(got, i.ProtocolBinding+" "+i.ProtocolVersion)
	}
	require.Equal(t, []string{"JSONRPC 1.0", "HTTP+JSON 1.0", "JSONRPC 0.3", "HTTP+JSON 0.3"}, got)

	for _, w := range wires() {
		bind := a2a.BindingJSONRPC
		if w.binding == "rest" {
			bind = a2a.BindingHTTPJSON
		}
		c, err := stream.Resolve(ctx, a.url, stream.WithHTTPClient(httpClient(t)),
			stream.WithVersion(a2a.Version(w.version)), stream.WithBinding(bind))
		require.NoError(t, err, "%s", w)
		require.Equal(t, a2a.Version(w.version), c.Version(), "%s", w)
		require.Equal(t, bind, c.Binding(), "%s", w)
		text, _, err := ask(ctx, c)
		require.NoError(t, err, "%s", w)
		require.Equal(t, demo.PlanStart+demo.PlanEnd, text, "%s", w)
	}
}

// The first line names the URL, the rest say what the agent is and what
// it was asked; after the context ends the agent stops, says so, and
// refuses connections.
func TestAgentPrintsItsURLFirstAndStopsWhenAsked(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	a := startAgent(ctx, t, "-mode", "ask", "-version", "1.0", "-binding", "jsonrpc")
	hc := httpClient(t)
	c, err := stream.Resolve(ctx, a.url, stream.WithHTTPClient(hc))
	require.NoError(t, err)
	_, task, err := ask(ctx, c)
	require.ErrorIs(t, err, hitl.ErrNoHook, "the agent asked and nobody answered")
	require.Equal(t, a2a.StateInputRequired, task.Status.State)

	require.NoError(t, a.stop())
	lines := strings.Split(strings.TrimSuffix(a.out.String(), "\n"), "\n")
	require.Equal(t, []string{
		"a2a demo agent at " + a.url,
		"mode ask · A2A 1.0 · JSON-RPC · streaming · Ctrl-C stops it",
	}, lines[:2])
	require.Contains(t, lines, "← POST / SendStreamingMessage (A2A-Version: 1.0)")
	require.Equal(t, "stopped", lines[len(lines)-1])

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.url+".well-known/agent-card.json", nil)
	require.NoError(t, err)
	resp, err := hc.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	require.Error(t, err, "nothing listens any more")
}

// Shutting down waits for a stream under way, which ends as the agent's
// script says.
func TestAgentShutdownLetsAStreamUnderWayFinish(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	a := startAgent(ctx, t, "-mode", "answer", "-version", "1.0", "-binding", "rest", "-delay", "20ms")
	c, err := stream.Resolve(ctx, a.url, stream.WithHTTPClient(httpClient(t)), stream.WithReconnect(reconnect.Never()))
	require.NoError(t, err)
	s := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "Plan a weekend trip"))
	defer s.Close()
	require.True(t, s.Next(), "%v", s.Err())

	stopped := make(chan error, 1)
	go func() { stopped <- a.stop() }()
	for s.Next() {
	}
	require.NoError(t, s.Err())
	require.Equal(t, demo.PlanStart+demo.PlanEnd, s.Task().Artifact("answer").Text())
	select {
	case err := <-stopped:
		require.NoError(t, err)
	case <-ctx.Done():
		require.FailNow(t, "the agent did not stop")
	}
}

func TestAgentRefusesBadFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-mode", "sing"},
		{"-version", "2.0"},
		{"-binding", "grpc"},
		{"-mode", "cut", "-nostream"},
		{"-delay", "-1s"},
		{"-nosuchflag"},
		{"extra"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			err := run(t.Context(), args, &out)
			require.ErrorIs(t, err, errUsage)
			require.Contains(t, out.String(), "usage: agent [flags]")
		})
	}
	var out strings.Builder
	require.ErrorIs(t, run(t.Context(), []string{"-h"}, &out), flag.ErrHelp)
	require.Contains(t, out.String(), "-mode")
}

// An address already taken ends run with the listener's error, before it
// prints anything.
func TestAgentReportsAnAddressInUse(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	a := startAgent(ctx, t, "-mode", "answer")
	var out strings.Builder
	err := run(ctx, []string{"-addr", strings.TrimSuffix(strings.TrimPrefix(a.url, "http://"), "/")}, &out)
	require.Error(t, err)
	require.False(t, errors.Is(err, errUsage))
	require.Empty(t, out.String())
}

func TestAgentLogsThatARequestCarriedAuthorizationButNotItsValue(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	a := startAgent(ctx, t, "-mode", "answer", "-version", "1.0", "-binding", "jsonrpc")
	w := wire{binding: "jsonrpc", version: "1.0"}
	client := resolve(ctx, t, a, w)
	_, err := client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hi"), stream.WithHeader("Authorization", "Bearer t-secret")).Wait()
	require.NoError(t, err)
	out := a.out.String()
	require.Contains(t, requests(out), "POST / SendStreamingMessage (A2A-Version: 1.0) with Authorization")
	require.NotContains(t, out, "t-secret")
}

// A request with W3C trace context is logged with its trace and its
// caller's span; a traceparent that does not parse is not logged at all.
func TestAgentLogsTheTraceOfARequest(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	a := startAgent(ctx, t, "-mode", "answer", "-version", "1.0", "-binding", "jsonrpc")
	client := resolve(ctx, t, a, wire{binding: "jsonrpc", version: "1.0"})
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	_, err := client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hi"), stream.WithHeader("traceparent", tp)).Wait()
	require.NoError(t, err)
	_, err = client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hi"), stream.WithHeader("traceparent", "00-secret-token-01")).Wait()
	require.NoError(t, err)
	out := a.out.String()
	require.Contains(t, requests(out),
		"POST / SendStreamingMessage (A2A-Version: 1.0) in trace 4bf92f3577b34da6a3ce929d0e0e4736 from span 00f067aa0ba902b7")
	require.Contains(t, requests(out), "POST / SendStreamingMessage (A2A-Version: 1.0)")
	require.NotContains(t, out, "secret")
}

// traceOf reads a traceparent as W3C trace context defines it, and
// nothing else.
func TestTraceOf(t *testing.T) {
	const (
		id     = "4bf92f3577b34da6a3ce929d0e0e4736"
		parent = "00f067aa0ba902b7"
	)
	good := map[string]bool{
		"00-" + id + "-" + parent + "-01":                       true,
		"00-" + id + "-" + parent + "-00":                       true,
		"01-" + id + "-" + parent + "-01-whatever":              true, // a later version's fields
		"01-" + id + "-" + parent + "-01":                       true,
		"00-" + id + "-" + parent + "-01-x":                     false, // version 00 has four fields
		"ff-" + id + "-" + parent + "-01":                       false,
		"00-" + strings.ToUpper(id) + "-" + parent + "-01":      false,
		"00-00000000000000000000000000000000-" + parent + "-01": false,
		"00-" + id + "-0000000000000000-01":                     false,
		"00-" + id[:31] + "-" + parent + "-01":                  false,
		"01-" + id + "-" + parent + "-01x":                      false,
		"":                                                      false,
		"Bearer " + id:                                          false,
	}
	for v, want := range good {
		h := http.Header{}
		if v != "" {
			h.Set("traceparent", v)
		}
		gotID, gotParent, ok := traceOf(h)
		require.Equal(t, want, ok, v)
		if want {
			require.Equal(t, id, gotID)
			require.Equal(t, parent, gotParent)
		} else {
			require.Empty(t, gotID+gotParent)
		}
	}
	two := http.Header{"Traceparent": {"00-" + id + "-" + parent + "-01", "00-" + id + "-" + parent + "-01"}}
	_, _, ok := traceOf(two)
	require.False(t, ok, "two traceparent headers")
}
