package relay_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

// A chat backend relays one task's stream to browsers: Drive writes it to
// the store's log, and the Handler serves the log as Server-Sent Events.
// Here the "browser" reads the events and folds them into the screen.
func Example() {
	agent := a2atest.NewAgent(a2atest.WithScript(
		a2atest.Working(""),
		a2atest.Chunk("answer", "Hello, ", false, false),
		a2atest.Chunk("answer", "world.", true, true),
		a2atest.Finish(a2a.StateCompleted, ""),
	))
	client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
	if err != nil {
		fmt.Println(err)
		return
	}

	// The driver: one per stream, holding the stream's lease.
	ctx := context.Background()
	store, err := relay.NewMemoryStore()
	if err != nil {
		fmt.Println(err)
		return
	}
	log, err := store.Open(ctx, "chat-1")
	if err != nil {
		fmt.Println(err)
		return
	}
	fence, err := log.Acquire(ctx, "replica-1", time.Minute)
	if err != nil {
		fmt.Println(err)
		return
	}
	done := make(chan error, 1)
	go func() {
		done <- relay.Drive(ctx, log, fence, relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "Say hello")))
	}()

	// The browsers' side: GET /chats/chat-1/events, POST .../answer and
	// .../cancel.
	handler, err := relay.NewHandler(store, func(r *http.Request) (string, bool) {
		id := r.PathValue("id")
		return id, id == "chat-1" // only the streams the application made
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/chats/{id}/", handler)
	browser := a2atest.NewClient(mux) // an *http.Client that reaches mux in memory
	resp, err := browser.Get("http://chat.test/chats/chat-1/events")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()

	var (
		screen relay.View
		entry  relay.Entry
	)
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		field, value, _ := strings.Cut(lines.Text(), ": ")
		switch field {
		case "id":
			id, _ := relay.ParseID(value)
			entry.Seq = id.Seq
		case "event":
			entry.Name = value
			fmt.Println(value)
		case "data":
			entry.Data = []byte(value)
		case "":
			if entry.Name != "" {
				if err := screen.Apply(entry); err != nil {
					fmt.Println(err)
				}
			}
			entry = relay.Entry{}
		}
	}
	fmt.Println("drive:", <-done)
	fmt.Printf("screen: %s, %q\n", screen.State, screen.Pane("artifact:answer").Text())
	// Output:
	// status
	// status
	// artifact
	// artifact
	// status
	// end
	// drive: <nil>
	// screen: completed, "Hello, world."
}
