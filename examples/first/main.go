// Command first is the program the README's first hour builds: it sends
// one message to an A2A agent, prints the answer as it arrives, answers
// the agent's questions from stdin, cancels the task on Ctrl-C, and prints
// one line about how the task ended.
//
//	go run ./examples/agent &   # a demo agent on http://127.0.0.1:9999/
//	go run ./examples/first
//	go run ./examples/first -agent https://agent.example/ -message "hello"
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
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/stream"
)

func main() {
	agent := flag.String("agent", "http://127.0.0.1:9999/", "the base URL of an A2A agent")
	message := flag.String("message", "Plan a weekend trip", "what to ask the agent")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *agent, *message, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "first:", err)
		os.Exit(1)
	}
}

// run is the README's recipe: it sends message to the agent at baseURL and
// prints what the agent says as it arrives, reading answers to its
// questions from stdin, until the task ends or ctx does (Ctrl-C), in which
// case it asks the agent to cancel the task. It returns an error only when
// it could not reach an agent at baseURL.
func run(ctx context.Context, baseURL, message string, stdin io.Reader, stdout io.Writer) error {
	answers := make(chan string)
	go func() { // read stdin apart, so that Ctrl-C is not stuck behind a read
		defer close(answers)
		for lines := bufio.NewScanner(stdin); lines.Scan(); {
			answers <- lines.Text()
		}
	}()
	ask := hitl.Func(func(ctx context.Context, req *hitl.Request) ([]a2a.Part, error) {
		fmt.Fprint(stdout, "\n> ") // the question itself was printed with the status
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
		return err // the error names the URLs it tried
	}
	s := client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, message))
	defer s.Close()
	var screen stream.Screen
	var pane stream.Pane
	for s.Next() {
		t := screen.Add(s.Event()) // the text this event adds, and where it goes
		if t.Pane != pane || t.Replace {
			fmt.Fprintln(stdout) // a new status, message or artifact, or one rewritten
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
	fmt.Fprintln(stdout, "\nended:", s.Ending())
	return nil
}
