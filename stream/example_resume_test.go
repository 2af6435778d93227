package stream_test

import (
	"context"
	"fmt"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// ExampleClient_Resume saves a checkpoint after each event it shows, stops
// (as a process that restarts would), and resumes from the checkpoint it
// saved last: what it showed is not shown again.
func ExampleClient_Resume() {
	agent := a2atest.NewAgent(a2atest.WithScript(
		a2atest.Chunk("answer", "Day one: the castle. ", false, false),
		a2atest.Chunk("answer", "Day two: the river. ", true, false),
		a2atest.Chunk("answer", "Day three: the coast.", true, true),
		a2atest.Finish(a2a.StateCompleted, "")))
	client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
	if err != nil {
		panic(err)
	}

	var saved []byte // a database row, a file, a Redis key
	var screen stream.Screen
	s := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "Three days in Lisbon?"))
	for shown := 0; shown < 2 && s.Next(); {
		if t := screen.Add(s.Event()); t.Content != "" {
			fmt.Printf("shown: %q\n", t.Content)
			shown++
		}
		if saved, err = s.Checkpoint().MarshalBinary(); err != nil {
			panic(err)
		}
	}
	s.Close() // the process stops here

	cp, err := stream.ParseCheckpoint(saved)
	if err != nil {
		panic(err) // a *stream.CheckpointError: corrupt, foreign or newer
	}
	s = client.Resume(context.Background(), cp)
	for s.Next() {
		if t := screen.Add(s.Event()); t.Content != "" {
			fmt.Printf("after the restart: %q\n", t.Content)
		}
	}
	fmt.Println(s.Ending())
	// Output:
	// shown: "Day one: the castle. "
	// shown: "Day two: the river. "
	// after the restart: "Day three: the coast."
	// completed
}
