// Command hello sends one message to an A2A agent and prints the answer as it arrives.
package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/chatview"
	"github.com/a2astream/a2astream/stream"
	"os"
)

func main() {
	agent := flag.String("agent", "http://127.0.0.1:9999/", "the base URL of an A2A agent")
	flag.Parse()
	if !run(context.Background(), *agent) {
		os.Exit(1) // the task did not complete (nor did the agent answer with a message)
	}
}

func run(ctx context.Context, agent string) (completed bool) {
	client, err := stream.Resolve(ctx, agent)
	if err != nil {
		fmt.Println(err) // no agent card at that URL, or no connection
		return false
	}
	s := client.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "Plan a weekend trip"))
	defer s.Close()
	var screen chatview.Screen
	for s.Next() {
		t := screen.Add(s.Event()) // the text this event adds, and where
		if t.NewLine {
			fmt.Println() // a new pane, one the agent rewrote, or another pane's text
		}
		fmt.Print(t.Content)
	}
	fmt.Println("\n" + s.Ending().String()) // one line: "completed", "failed: …", "ended: …"
	return s.Ending().Err == nil
}
