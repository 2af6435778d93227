package stream_test

import (
	"context"
	"fmt"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/chatview"
	"github.com/a2astream/a2astream/stream"
)

// Example_quickstart prints an agent's answer as it arrives, then one line
// about how the stream ended: the README's Quickstart loop.
func Example_quickstart() {
	// A fake agent in process; use stream.Resolve(ctx, "https://agent.example") for a real one.
	agent := a2atest.NewAgent()
	client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
	if err != nil {
		panic(err)
	}

	s := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hello"))
	defer s.Close()
	var screen chatview.Screen
	for s.Next() {
		t := screen.Add(s.Event()) // what this event adds: text, and where
		if t.Replace {
			fmt.Println() // the agent replaced what it had sent: write it again
		}
		fmt.Print(t.Content)
	}
	fmt.Println()
	fmt.Println("ended:", s.Ending()) // "completed", "failed: <reason>", ...
	// Output:
	// hello world
	// ended: completed
}
