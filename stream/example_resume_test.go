package stream_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/chatview"
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
	var screen chatview.Screen
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

// ExampleClient_Resume_withWhatWasShown saves what the program showed and
// the checkpoint that goes with it together, in one atomic write: a file
// replaced by a rename, so that a process killed at any point leaves the
// old pair or the new one, never text without its checkpoint or the
// reverse. After the restart the program shows the saved text again, then
// resumes: no word is lost and none is shown twice.
func ExampleClient_Resume_withWhatWasShown() {
	agent := a2atest.NewAgent(a2atest.WithScript(
		a2atest.Chunk("answer", "Day one: the castle. ", false, false),
		a2atest.Chunk("answer", "Day two: the river. ", true, false),
		a2atest.Chunk("answer", "Day three: the coast.", true, true),
		a2atest.Finish(a2a.StateCompleted, "")))
	client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "chat")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "chat-1.json")

	type saved struct {
		Shown      string          // what the user saw
		Screen     chatview.Screen // the panes it opened (JSON: no text)
		Checkpoint []byte          // the checkpoint taken after it was shown
	}
	save := func(shown string, screen chatview.Screen, cp *stream.Checkpoint) error {
		b, err := cp.MarshalBinary()
		if err != nil {
			return err
		}
		data, err := json.Marshal(saved{Shown: shown, Screen: screen, Checkpoint: b})
		if err != nil {
			return err
		}
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			return err
		}
		return os.Rename(tmp, path) // both, or neither
	}

	var shown strings.Builder
	var screen chatview.Screen
	s := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "Three days in Lisbon?"))
	for chunks := 0; chunks < 2 && s.Next(); {
		if t := screen.Add(s.Event()); t.Content != "" {
			shown.WriteString(t.Content) // shown to the user
			chunks++
		}
		if err := save(shown.String(), screen, s.Checkpoint()); err != nil {
			panic(err)
		}
	}
	s.Close() // the process is killed here

	data, err := os.ReadFile(path) // a new process starts
	if err != nil {
		panic(err)
	}
	var last saved
	if err := json.Unmarshal(data, &last); err != nil {
		panic(err)
	}
	cp, err := stream.ParseCheckpoint(last.Checkpoint)
	if err != nil {
		panic(err)
	}
	fmt.Printf("on screen again: %q\n", last.Shown)
	s = client.Resume(context.Background(), cp)
	defer s.Close()
	screen = last.Screen // the panes the user saw go on; they do not open again
	for s.Next() {
		if t := screen.Add(s.Event()); t.Content != "" {
			fmt.Printf("after the restart: %q (opens a pane: %v)\n", t.Content, t.Opens)
		}
	}
	fmt.Println(s.Ending())
	// Output:
	// on screen again: "Day one: the castle. Day two: the river. "
	// after the restart: "Day three: the coast." (opens a pane: false)
	// completed
}
