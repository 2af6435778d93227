// Command caller is an agent that calls other agents: it sends the same
// questions to several A2A agents at once and turns each way a call can end
// into a decision.
//
// Every agent has one stream.Client, shared by all the goroutines that call
// it: each question to each agent runs on its own goroutine, so several
// streams go through one Client at the same time. The caller waits for
// every outcome (it is not fanout.Quorum, which is for a quorum and cancels
// the calls it no longer needs). The outcomes are handled by type with
// errors.As:
//
//   - auth-required: with a token, the Client's credentials hook
//     (stream.WithCredentials) gives it as the Authorization header and the
//     same task goes on; the question is not sent again. Without one, the
//     question ends with a *terminal.AuthRequiredError;
//   - *terminal.FailedError, *terminal.RejectedError: report the agent's
//     reason, read from the final task's status message;
//   - *reconnect.Error: the agent is unreachable; fall back on a cached
//     answer;
//   - nil: the answer is the text of the task's artifacts.
//
// For each question that got no answer, it also prints the error it would
// answer its own caller with: chain.Error, a JSON-RPC internal error
// whose data names this agent and the downstream one, which chain.Of
// reads back.
//
// Without flags it calls five in-process demo agents, one for each outcome:
//
//	go run ./examples/caller
//	go run ./examples/caller -agent https://a.example -agent https://b.example -token 'Bearer …'
//
// Exit status: 0 when at least one question got an answer (cached answers
// count), 1 when none did, 2 for usage errors, 130 when interrupted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"sync"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/chain"
	"github.com/a2astream/a2astream/credentials"
	"github.com/a2astream/a2astream/examples/internal/demo"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
	"github.com/a2astream/a2astream/transport"
)

// Exit statuses.
const (
	exitOK        = 0
	exitNoAnswer  = 1
	exitUsage     = 2
	exitInterrupt = 130
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// agent is one agent the caller talks to.
type agent struct {
	name   string
	client *stream.Client // shared by every question to this agent
	// signsIn reports whether client has a credentials hook: a token to
	// sign in with when the agent asks for credentials.
	signsIn bool
	cached  string // the answer to fall back on when the agent is unreachable
	err     error  // why the agent could not be set up, if it could not
}

// clientOptions returns the options of an agent's Client: with a token,
// a credentials hook that signs in with it.
func clientOptions(token string, opts ...stream.Option) []stream.Option {
	if token == "" {
		return opts
	}
	return append(opts, stream.WithCredentials(signIn(token)))
}

// signIn is the credentials hook: it gives the Authorization header token
// whenever an agent asks for credentials. A hook could instead ask a token
// endpoint, or the user.
func signIn(token string) credentials.Func {
	return func(context.Context, *credentials.Request) (http.Header, error) {
		return http.Header{"Authorization": {token}}, nil
	}
}

// run is the whole program: it parses args, asks every agent every
// question concurrently, prints one line per outcome on stdout, in the order
// of the agents and then of the questions, then the error this agent would
// answer its own caller with for each question that got no answer, and
// returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("caller", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var urls, questions stringsFlag
	fs.Var(&urls, "agent", "base `URL` of an A2A agent to call (repeatable); without it, five demo agents run in process")
	fs.Var(&questions, "message", "a question to send to every agent (repeatable; default: two weekend questions)")
	token := fs.String("token", "", "Authorization header `value` to sign in with when an -agent asks for credentials")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "caller: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if len(questions) == 0 {
		questions = stringsFlag{"What should I do on Saturday?", "What should I do on Sunday?"}
	}

	var agents []*agent
	if len(urls) == 0 {
		agents = demoAgents(len(questions))
	} else {
		for _, u := range urls {
			agents = append(agents, remoteAgent(ctx, u, *token))
		}
	}

	outcomes := fanOut(ctx, agents, questions)
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "canceled")
		return exitInterrupt
	}
	for j, q := range questions {
		fmt.Fprintf(stdout, "q%d: %s\n", j+1, q)
	}
	width := 0
	for _, a := range agents {
		width = max(width, len(a.name))
	}
	answered := false
	var reports []string
	for i, a := range agents {
		for j, o := range outcomes[i] {
			fmt.Fprintf(stdout, "%-*s  q%d  %s\n", width, a.name, j+1, o.text)
			answered = answered || o.answered
			if o.report != nil {
				reports = append(reports, fmt.Sprintf("%-*s  q%d  %s", width, a.name, j+1, reportText(o.report)))
			}
		}
	}
	if len(reports) > 0 {
		fmt.Fprintln(stdout, "errors this agent answers its own caller with:")
		for _, r := range reports {
			fmt.Fprintln(stdout, r)
		}
	}
	if !answered {
		return exitNoAnswer
	}
	return exitOK
}

// fanOut asks every agent every question, all at once, and returns the
// outcomes by agent and then by question. The questions to one agent share
// its Client.
//
// It is not fanout.Quorum: that one is for a quorum, and cancels the calls
// it no longer needs once the quorum is reached or out of reach (with need
// equal to the number of calls, at the first failure). This caller wants
// every outcome, each with its own fallback, so it waits for them all.
func fanOut(ctx context.Context, agents []*agent, questions []string) [][]outcome {
	outcomes := make([][]outcome, len(agents))
	var wg sync.WaitGroup
	for i, a := range agents {
		outcomes[i] = make([]outcome, len(questions))
		for j, q := range questions {
			// Each goroutine writes only its own slot.
			wg.Go(func() { outcomes[i][j] = ask(ctx, a, q) })
		}
	}
	wg.Wait()
	return outcomes
}

// outcome is how one question to one agent ended.
type outcome struct {
	text     string // one line, e.g. "failed: upstream API timed out"
	answered bool   // an answer, possibly a cached one, came out of it
	// report is the error this agent answers its own caller with when the
	// question got no answer: chain.Error of the call's error.
	report *a2a.RPCError
}

// self is this agent's name in the errors it answers its own caller with.
const self = "caller"

// answerVersion is the A2A version of the errors this agent answers its
// own caller with.
const answerVersion = a2a.V10

// ask sends question to a and decides what its ending means.
func ask(ctx context.Context, a *agent, question string) outcome {
	if a.err != nil {
		return outcome{text: "cannot call: " + a.err.Error(), report: chain.Error(a.err, answerVersion, self, a.name)}
	}
	answer, askedAuth, err := send(ctx, a.client, question)
	o := decide(ctx, a, answer, askedAuth && a.signsIn, err)
	if !o.answered && ctx.Err() == nil {
		o.report = chain.Error(err, answerVersion, self, a.name)
	}
	return o
}

// decide turns how a question to a ended into an outcome: answer and err
// as send returned them, signedIn when the agent asked for credentials and
// the Client gave them.
func decide(ctx context.Context, a *agent, answer string, signedIn bool, err error) outcome {
	var (
		auth     *terminal.AuthRequiredError
		failed   *terminal.FailedError
		rejected *terminal.RejectedError
		gaveUp   *reconnect.Error
		httpErr  *transport.HTTPError
	)
	switch {
	case err == nil && signedIn:
		return outcome{text: "answered after signing in: " + answer, answered: true}
	case err == nil:
		return outcome{text: "answered: " + answer, answered: true}
	case ctx.Err() != nil:
		return outcome{text: "canceled"}
	case signedIn && errors.As(err, &httpErr) &&
		(httpErr.StatusCode == http.StatusUnauthorized || httpErr.StatusCode == http.StatusForbidden):
		// The agent refused the token itself (the stream asked the hook
		// again on each 401, up to its limit).
		return outcome{text: "credentials refused: HTTP " + httpErr.Status}
	case errors.As(err, &auth) && errors.Is(err, stream.ErrCredentialsLimit):
		return outcome{text: "still needs credentials after signing in: " + statusText(auth.Task)}
	case errors.As(err, &auth):
		return outcome{text: "needs credentials (pass -token): " + statusText(auth.Task)}
	case errors.As(err, &failed):
		return outcome{text: "failed: " + statusText(failed.Task)}
	case errors.As(err, &rejected):
		return outcome{text: "rejected: " + statusText(rejected.Task)}
	case errors.As(err, &gaveUp) && a.cached != "":
		return outcome{
			text:     fmt.Sprintf("unreachable after %d attempts (%v); using cached answer: %s", gaveUp.Attempts, gaveUp.Err, a.cached),
			answered: true,
		}
	case errors.As(err, &gaveUp):
		return outcome{text: fmt.Sprintf("unreachable after %d attempts (%v); no cached answer", gaveUp.Attempts, gaveUp.Err)}
	default:
		return outcome{text: "error: " + err.Error()}
	}
}

// send asks one question on its own stream and returns the answer: the
// text of the task's artifacts, or of the agent's message when it answered
// with a message instead of a task. askedAuth reports whether the agent
// asked for credentials on the way (the stream then went on with the
// credentials hook's, if the Client has one).
func send(ctx context.Context, c *stream.Client, question string) (answer string, askedAuth bool, err error) {
	s := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, question))
	defer s.Close()
	var reply string
	for s.Next() {
		switch e := s.Event().(type) {
		case *a2a.Message:
			if e.Role != a2a.RoleUser {
				reply = e.Text()
			}
		case *a2a.StatusUpdate:
			askedAuth = askedAuth || e.Status.State == a2a.StateAuthRequired
		case *a2a.Task:
			askedAuth = askedAuth || e.Status.State == a2a.StateAuthRequired
		}
	}
	if err := s.Err(); err != nil {
		return "", askedAuth, err
	}
	task := s.Task()
	if task == nil {
		return reply, askedAuth, nil
	}
	var texts []string
	for _, art := range task.Artifacts {
		if t := art.Text(); t != "" {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, " / "), askedAuth, nil
}

// reportText is one line of an error this agent answers its caller with:
// its code and message, and its retry hint.
func reportText(e *a2a.RPCError) string {
	text := fmt.Sprintf("%d %s", e.Code, e.Message)
	if !e.Retryable() {
		return text + " (not retryable)"
	}
	if d := e.RetryAfter(); d > 0 {
		return fmt.Sprintf("%s (retryable after %v)", text, d)
	}
	return text + " (retryable)"
}

// demoAgents returns the in-process demo agents, one per kind of ending.
// questions is how many questions each will be asked at once.
func demoAgents(questions int) []*agent {
	demoAgent := func(name string, hc *http.Client, cached string) *agent {
		client, err := stream.NewClient(demo.URL, clientOptions(demo.Token, stream.WithHTTPClient(hc))...)
		return &agent{name: name, client: client, signsIn: true, cached: cached, err: err}
	}
	return []*agent{
		demoAgent("weather", demo.QuickAgent().Client(), ""),
		demoAgent("calendar", a2atest.NewClient(newCalendar()), ""),
		demoAgent("backend", demo.FailingAgent().Client(), ""),
		demoAgent("trains", demo.RejectingAgent().Client(), ""),
		demoAgent("oracle", demo.UnreachableAgent(questions).Client(), "Probably yes (cached yesterday)."),
	}
}

// remoteAgent resolves the agent at baseURL. With a token, its Client signs
// in with it when the agent asks for credentials.
func remoteAgent(ctx context.Context, baseURL, token string) *agent {
	a := &agent{name: baseURL, signsIn: token != ""}
	if u, err := url.Parse(baseURL); err == nil && u.Host != "" {
		a.name = u.Host
	}
	a.client, a.err = stream.Resolve(ctx, baseURL, clientOptions(token)...)
	return a
}

// statusText returns the text of a task's status message, or a placeholder.
func statusText(t *a2a.Task) string {
	if t == nil || t.Status.Message == nil || t.Status.Message.Text() == "" {
		return "(no reason given)"
	}
	return t.Status.Message.Text()
}

// stringsFlag collects a repeatable string flag.
type stringsFlag []string

func (s *stringsFlag) String() string { return strings.Join(*s, ", ") }

func (s *stringsFlag) Set(v string) error {
	*s = append(*s, v)
	return nil
}
