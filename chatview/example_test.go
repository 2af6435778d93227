package chatview_test

import (
	"context"
	"fmt"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/chatview"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// ExampleScreen prints an agent's answer as it arrives, without a switch
// over the event types. The connection is cut in the middle of the answer
// and the server replays the task from the start when the stream
// resubscribes; each word is printed once all the same.
func ExampleScreen() {
	agent := a2atest.NewAgent(a2atest.WithStyle(a2atest.FullReplay), a2atest.WithFaults(a2atest.CutAfterEvents(4)),
		a2atest.WithScript(a2atest.Working("Thinking."), a2atest.Chunk("answer", "Once ", false, false),
			a2atest.Chunk("answer", "upon ", true, false),
			a2atest.Chunk("answer", "a time.", true, true), a2atest.Finish(a2a.StateCompleted, "")))
	client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()),
		stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: time.Millisecond}))
	if err != nil {
		panic(err)
	}
	s := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "Tell me a story"))
	defer s.Close()

	var screen chatview.Screen
	for s.Next() {
		switch t := screen.Add(s.Event()); {
		case t.Pane.Kind == chatview.PaneStatus:
			fmt.Printf("(%s)\n", t.Content) // the agent's status, on a line of its own
		case t.Replace:
			fmt.Print("\n", t.Content) // the agent replaced what was shown: write it again
		default:
			fmt.Print(t.Content) // a word more
		}
	}
	fmt.Println()
	fmt.Println(s.Ending())
	// Output:
	// (Thinking.)
	// Once upon a time.
	// completed
}
