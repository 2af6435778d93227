// Command chat is a terminal chat client for A2A agents, built on a2astream.
//
// It sends one message, prints the agent's answer word by word as it
// streams in, shows task states and dropped-and-healed connections as
// one-line notices, asks you on the terminal when the agent needs input, and
// explains plainly how the task ended.
//
// Without flags it talks to an in-process demo agent whose connection drops
// in the middle of its answer:
//
//	go run ./examples/chat
//	go run ./examples/chat -agent https://agent.example -header 'Authorization: Bearer …'
//
// Exit status: 0 when the task completed, 1 when it ended unsuccessfully
// (failed, rejected, canceled, needs credentials, or a question went
// unanswered), 2 for usage and connection errors, 130 when interrupted.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/chatview"
	"github.com/a2astream/a2astream/examples/internal/demo"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// Exit statuses.
const (
	exitOK        = 0   // the task completed
	exitTask      = 1   // the task ended unsuccessfully
	exitUsage     = 2   // bad flags, or the agent could not be reached or understood
	exitInterrupt = 130 // Ctrl-C
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// demos are the in-process agents -demo chooses from, by name.
var demos = map[string]func() *http.Client{
	"trip":    func() *http.Client { return demo.TripAgent().Client() },
	"fail":    func() *http.Client { return demo.FailingAgent().Client() },
	"reject":  func() *http.Client { return demo.RejectingAgent().Client() },
	"auth":    func() *http.Client { return a2atest.NewClient(demo.SecuredAgent()) },
	"offline": func() *http.Client { return demo.UnreachableAgent(1).Client() },
}

// run is the whole program: it parses args, talks to the agent, writes the
// conversation to stdout and problems to stderr, and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	agentURL := fs.String("agent", "", "base `URL` of an A2A agent; its agent card picks the endpoint and protocol version")
	message := fs.String("message", "Plan a weekend trip", "the first message to send")
	answer := fs.String("answer", "", "answer the agent's questions with `TEXT` instead of reading stdin")
	timeout := fs.Duration("timeout", 0, "time allowed to answer each question (0: no limit)")
	demoName := fs.String("demo", "trip", "demo agent to run when -agent is not given: trip, fail, reject, auth or offline")
	var headers headerFlag
	fs.Var(&headers, "header", "add the header `'K: V'` to every request to the agent (repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: chat [flags]\n\nchat sends a message to an A2A agent and streams its answer.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "chat: unexpected argument %q (the message goes in -message)\n", fs.Arg(0))
		return exitUsage
	}

	c := &chat{out: stdout, answer: *answer, in: newLineReader(stdin), tty: isTerminal(stdin)}
	opts := []stream.Option{
		stream.WithNotify(c.notice),
		stream.WithHumanInput(hitl.Func(c.ask)),
		stream.WithInputTimeout(*timeout),
	}
	for _, h := range headers {
		opts = append(opts, stream.WithHeader(h.key, h.value))
	}

	var client *stream.Client
	var err error
	if *agentURL != "" {
		client, err = stream.Resolve(ctx, *agentURL, opts...)
	} else {
		newHTTPClient, ok := demos[*demoName]
		if !ok {
			fmt.Fprintf(stderr, "chat: unknown demo agent %q (want trip, fail, reject, auth or offline)\n", *demoName)
			return exitUsage
		}
		client, err = stream.NewClient(demo.URL, append(opts, stream.WithHTTPClient(newHTTPClient()))...)
		c.fallback = demo.Answer
	}
	if err != nil {
		return report(ctx, stderr, stream.EndingOf(err))
	}

	c.line("you> %s", *message)
	s := client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, *message))
	defer s.Close()
	for s.Next() {
		c.show(s.Event(), s.Task())
	}
	c.endLine()
	end := s.Ending()
	if ctx.Err() != nil && end.Task != nil {
		// Ctrl-C: the stream stopped here; ask the agent to stop too, or the
		// task would run on without anyone reading it.
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Cancel(cctx); err != nil {
			fmt.Fprintf(stderr, "chat: could not cancel the agent's task: %v\n", err)
		} else {
			fmt.Fprintln(stderr, "chat: asked the agent to cancel the task")
		}
	}
	return report(ctx, stderr, end)
}

// chat renders one conversation on out. Stream.Next calls its notice and ask
// methods on the goroutine that reads the stream, so it needs no locking.
type chat struct {
	out      io.Writer
	in       *lineReader
	tty      bool   // stdin is a terminal, which echoes what is typed
	answer   string // the -answer flag
	fallback string // the demo's answer when stdin is closed; "" for a real agent
	midLine  bool   // the last thing written did not end its line

	screen   chatview.Screen // what each event adds to the screen
	first    string          // ID of the task's first artifact: the answer, shown bare
	current  chatview.Pane   // the pane whose text is on the current line
	state    a2a.TaskState   // the last state shown
	prompted bool            // the input-required prompt was shown
}

// show writes what one stream event adds: its text, as chatview.Screen says
// where it goes, and the task's state when it changes. The text of one pane
// (an artifact, a message, a status message) runs on one line while nothing
// else is written; it starts a line of its own, with a label, otherwise.
func (c *chat) show(ev a2a.Event, task *a2a.Task) {
	t := c.screen.Add(ev)
	if su, ok := ev.(*a2a.StatusUpdate); ok {
		c.showStatus(su.Status.State, t)
		return
	}
	if t.Role == a2a.RoleUser || t.Content == "" && !t.Replace {
		return // our own words (already on screen), or no text
	}
	if t.Pane != c.current || t.Replace || !c.midLine {
		c.endLine()
		fmt.Fprint(c.out, c.label(t, task))
	}
	fmt.Fprint(c.out, t.Content)
	c.midLine, c.current = true, t.Pane
}

// label is what starts a line of text t: nothing for the answer (the
// task's first artifact), the name of any other artifact, "agent: " for a
// new message, and a mark for a message continued or rewritten.
func (c *chat) label(t chatview.Text, task *a2a.Task) string {
	switch {
	case t.Pane.Kind == chatview.PaneArtifact:
		if c.first == "" {
			c.first = t.Pane.ID
		}
		if t.Pane.ID == c.first {
			return ""
		}
		if art := artifact(task, t.Pane.ID); art != nil && art.Name != "" {
			return art.Name + ": "
		}
		return t.Pane.ID + ": "
	case t.Replace:
		return "· revised: "
	case t.Opens:
		return "agent: "
	}
	return "  … "
}

// showStatus writes a state change, with the agent's status message if any
// (t is what the status update adds). A later version of the message that
// only adds to it continues the line.
func (c *chat) showStatus(state a2a.TaskState, t chatview.Text) {
	text := t.Content
	if state == c.state && text == "" {
		return
	}
	c.state = state
	c.endLine()
	switch {
	case state == a2a.StateInputRequired && text != "":
		fmt.Fprintf(c.out, "agent asks: %s", text)
		c.prompted = true
	case text != "":
		fmt.Fprintf(c.out, "· %s: %s", state, text)
	default:
		fmt.Fprintf(c.out, "· %s", state)
	}
	c.midLine, c.current = true, t.Pane
}

// notice writes a reconnect or resume notice; see stream.WithNotify.
func (c *chat) notice(n stream.Notice) {
	switch n.Kind {
	case stream.Reconnecting:
		c.line("⟳ connection lost — reconnecting (%d/%d)…", n.Attempt, n.MaxAttempts)
	case stream.Resumed:
		c.line("✓ resumed")
	}
}

// ask is the human-input hook: it answers with -answer, or reads a line.
func (c *chat) ask(ctx context.Context, req *hitl.Request) ([]a2a.Part, error) {
	if !c.prompted {
		c.line("agent asks: %s", orElse(req.Text(), "(the agent needs input)"))
	}
	c.prompted = false
	c.endLine()
	fmt.Fprint(c.out, "you> ")
	if c.answer != "" {
		fmt.Fprintln(c.out, c.answer)
		return hitl.Text(c.answer), nil
	}
	for {
		line, err := c.in.readLine(ctx)
		if err != nil {
			if errors.Is(err, io.EOF) && c.fallback != "" {
				// The demo runs to the end without a terminal (in CI, say).
				fmt.Fprintf(c.out, "%s   (stdin is closed, so the demo answers for you; -answer chooses)\n", c.fallback)
				return hitl.Text(c.fallback), nil
			}
			fmt.Fprintln(c.out)
			if errors.Is(err, io.EOF) {
				return nil, errors.New("stdin closed before an answer (pass -answer to answer without a terminal)")
			}
			return nil, err
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		if !c.tty {
			fmt.Fprintln(c.out, line) // piped input is not echoed: show it
		}
		return hitl.Text(line), nil
	}
}

// line writes one whole line, ending a streamed line first.
func (c *chat) line(format string, args ...any) {
	c.endLine()
	fmt.Fprintf(c.out, format+"\n", args...)
}

// endLine ends the line the streamed text is on, if any.
func (c *chat) endLine() {
	if c.midLine {
		fmt.Fprintln(c.out)
		c.midLine = false
	}
}

// report explains how the conversation ended on w and returns the exit
// status. The task's own endings read from e.State; the others from the
// error, matched with errors.As.
func report(ctx context.Context, w io.Writer, e stream.Ending) int {
	var (
		noAnswer *hitl.Error
		gaveUp   *reconnect.Error
		rpcErr   *a2a.RPCError
		httpErr  *transport.HTTPError
		badCard  *agentcard.InvalidError
		protoErr *transport.ProtocolError
	)
	const hint = "the agent needs credentials: pass -header 'Authorization: Bearer …'"
	err := e.Err
	switch {
	case err == nil:
		return exitOK
	case ctx.Err() != nil:
		fmt.Fprintln(w, "canceled")
		return exitInterrupt
	case e.State == a2a.StateInputRequired && errors.As(err, &noAnswer):
		why := noAnswer.Err.Error()
		if errors.Is(noAnswer.Err, context.DeadlineExceeded) {
			why = "no answer within -timeout"
		}
		fmt.Fprintf(w, "chat: the agent's question went unanswered: %s\n", why)
		return exitTask
	case e.State != "":
		fmt.Fprintf(w, "chat: %s: %s\n", ending(e.State), orElse(statusText(e.Task), "no reason given"))
		if e.State == a2a.StateAuthRequired {
			fmt.Fprintln(w, hint)
		}
		return exitTask
	case errors.Is(err, reconnect.ErrCouldNotConnect):
		fmt.Fprintf(w, "chat: the agent is down or the URL is wrong: %v\n", err)
		return exitUsage
	case errors.As(err, &gaveUp) && errors.Is(err, reconnect.ErrNoTask):
		fmt.Fprintf(w, "chat: the connection dropped before the agent started a task: %v\n", gaveUp.Err)
		return exitUsage
	case errors.As(err, &gaveUp):
		fmt.Fprintf(w, "chat: the agent is unreachable: gave up after %d reconnect attempts: %v\n", gaveUp.Attempts, gaveUp.Err)
		return exitUsage
	case errors.As(err, &rpcErr):
		fmt.Fprintf(w, "chat: the agent answered with JSON-RPC error %d: %s\n", rpcErr.Code, rpcErr.Message)
		return exitUsage
	case errors.As(err, &httpErr):
		fmt.Fprintf(w, "chat: the agent answered HTTP %s\n", httpErr.Status)
		if httpErr.StatusCode == http.StatusUnauthorized || httpErr.StatusCode == http.StatusForbidden {
			fmt.Fprintln(w, hint)
		}
		return exitUsage
	case errors.As(err, &badCard):
		fmt.Fprintf(w, "chat: no usable agent card at %s: %s\n", badCard.URL, badCard.Reason)
		return exitUsage
	case errors.As(err, &protoErr):
		fmt.Fprintf(w, "chat: the agent broke the protocol: %s\n", protoErr.Reason)
		return exitUsage
	default:
		fmt.Fprintf(w, "chat: %v\n", err)
		return exitUsage
	}
}

// ending says how a typed ending reads.
func ending(state a2a.TaskState) string {
	switch state {
	case a2a.StateFailed:
		return "the task failed"
	case a2a.StateRejected:
		return "the agent rejected the task"
	case a2a.StateCanceled:
		return "the agent canceled the task"
	}
	return "the agent wants you to sign in" // auth-required
}

// artifact returns the task's artifact of that ID, or nil; nil for a nil
// task.
func artifact(t *a2a.Task, id string) *a2a.Artifact {
	if t == nil {
		return nil
	}
	return t.Artifact(id)
}

// statusText returns the text of a task's status message, or "".
func statusText(t *a2a.Task) string {
	if t == nil || t.Status.Message == nil {
		return ""
	}
	return t.Status.Message.Text()
}

// orElse returns s, or fallback when s is empty.
func orElse(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// isTerminal reports whether r is a character device such as a terminal.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// lineReader reads lines from stdin without blocking past a context: each
// read runs on its own goroutine, and a read abandoned by its context is
// picked up by the next call.
type lineReader struct {
	r       *bufio.Reader
	lines   chan lineResult
	pending bool
}

type lineResult struct {
	line string
	err  error
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReader(r), lines: make(chan lineResult, 1)}
}

// readLine returns the next line without its line ending. A last line
// without a newline is returned with a nil error; io.EOF comes after it.
func (l *lineReader) readLine(ctx context.Context) (string, error) {
	if !l.pending {
		l.pending = true
		go func() {
			s, err := l.r.ReadString('\n')
			if err == io.EOF && s != "" {
				err = nil
			}
			l.lines <- lineResult{strings.TrimRight(s, "\r\n"), err}
		}()
	}
	select {
	case res := <-l.lines:
		l.pending = false
		return res.line, res.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// headerFlag collects repeated -header 'K: V' flags.
type headerFlag []header

type header struct{ key, value string }

func (h *headerFlag) String() string {
	var parts []string
	for _, kv := range *h {
		parts = append(parts, kv.key+": …") // values may be secrets
	}
	return strings.Join(parts, ", ")
}

func (h *headerFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, ":")
	k = strings.TrimSpace(k)
	if !ok || k == "" || strings.ContainsAny(k, " \t") {
		return fmt.Errorf("want 'Key: value', got %q", s)
	}
	*h = append(*h, header{k, strings.TrimSpace(v)})
	return nil
}
