// Command first is the first hour's second program (the README's step 4,
// after examples/hello): it reads an A2A agent's card, sends it one message
// (with this user's token, when given, on that call only), prints the answer
// as it arrives, answers the agent's questions from stdin, cancels the task
// on Ctrl-C, and prints one line about how the task ended.
//
//	go run ./examples/agent &   # a demo agent on http://127.0.0.1:9999/
//	go run ./examples/first
//	go run ./examples/first -agent https://agent.example/ -message "hello" -token "$TOKEN"
//
// It exits 0 when the task completed or the agent answered with a message,
// 1 when the task ended otherwise (failed, rejected, canceled, waiting on
// input or credentials), when it did not end (the connection or the agent
// failed), and when it found no agent at the URL, and 130 after Ctrl-C.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/chatview"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/stream"
)

func main() {
	agent := flag.String("agent", "http://127.0.0.1:9999/", "the base URL of an A2A agent")
	message := flag.String("message", "Plan a weekend trip", "what to ask the agent")
	token := flag.String("token", "", "a bearer token for the agent, sent with this message only")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ending, err := run(ctx, *agent, *message, *token, os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "first:", err)
		os.Exit(1)
	}
	if ctx.Err() != nil {
		os.Exit(130) // the shell's code for a program that Ctrl-C ended
	}
	if ending.Err != nil {
		os.Exit(1) // the task did not complete: the line printed says why
	}
}

// run is the program's recipe: it reads the card of the agent at baseURL,
// sends it message (with token as a bearer token on this call, when it is
// not ""), and prints what the agent says as it arrives, reading answers to
// its questions from stdin, until the task ends or ctx does (Ctrl-C), in
// which case it asks the agent to cancel the task. It prints one line
// about how the stream ended, and returns that ending; it returns an error
// only when it found no agent at baseURL.
func run(ctx context.Context, baseURL, message, token string, stdin io.Reader, stdout io.Writer) (stream.Ending, error) {
	answers := make(chan string)
	go func() { // read stdin apart: the hook must return when ctx ends, and a read does not
		defer close(answers)
		for lines := bufio.NewScanner(stdin); lines.Scan(); {
			answers <- lines.Text()
		}
	}()
	var pane chatview.Pane // where the last text went
	ask := hitl.Func(func(ctx context.Context, req *hitl.Request) ([]a2a.Part, error) {
		fmt.Fprint(stdout, "\n> ") // the question itself was printed with its status
		pane = chatview.Pane{}     // the answer typed ends the line
		select {
		case answer, ok := <-answers:
			if !ok {
				return nil, io.EOF
			}
			return hitl.Text(answer), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})

	client, err := stream.Resolve(ctx, baseURL, stream.WithHumanInput(ask))
	if err != nil {
		return stream.Ending{}, err // no agent card there, or no connection: the error names the URL
	}
	fmt.Fprintf(stdout, "agent: %s (A2A %s over %s)\n", client.Card().Name, client.Version(), client.Binding())
	var perCall []stream.Option // this user's credentials, for this call only
	if token != "" {
		perCall = append(perCall, stream.WithHeader("Authorization", "Bearer "+token))
	}
	s := client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, message), perCall...)
	defer s.Close()
	var screen chatview.Screen
	for s.Next() {
		t := screen.Add(s.Event()) // the text this event adds, and where it goes
		if t.Content == "" && !t.Replace {
			continue // a state change without a message, or no text part
		}
		if t.Pane != pane || t.Replace { // another status, message or artifact, or one rewritten
			if pane != (chatview.Pane{}) {
				fmt.Fprintln(stdout)
			}
			pane = t.Pane
		}
		fmt.Fprint(stdout, t.Content)
	}
	if ctx.Err() != nil { // Ctrl-C stopped the stream here; ask the agent to stop too
		cancelCtx, done := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer done()
		if err := s.Cancel(cancelCtx); err != nil {
			fmt.Fprintln(stdout, "\ncancel:", err)
		}
	}
	ending := s.Ending()
	if ending.State == "" && ending.Err != nil {
		fmt.Fprintln(stdout, "\n"+ending.String()) // the task did not end: "ended: " and why
	} else {
		fmt.Fprintln(stdout, "\nended:", ending) // "ended: completed", "ended: failed: …"
	}
	return ending, nil
}
