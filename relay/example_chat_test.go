package relay_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

// newChatBackend is a chat backend for browsers. POST /chats with a text
// starts a conversation with the agent of client and answers its ID;
// GET /chats/{id}/events serves the conversation as Server-Sent Events,
// which a browser resumes with Last-Event-ID; POST /chats/{id}/answer and
// /chats/{id}/cancel answer the agent's question and cancel the task.
func newChatBackend(ctx context.Context, client *stream.Client) (http.Handler, error) {
	store, err := relay.NewMemoryStore()
	if err != nil {
		return nil, err
	}
	var chats sync.Map // the conversations this backend started
	events, err := relay.NewHandler(store, func(r *http.Request) (string, bool) {
		_, ok := chats.Load(r.PathValue("id"))
		return r.PathValue("id"), ok
	})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/chats/{id}/", events)
	mux.HandleFunc("POST /chats", func(w http.ResponseWriter, r *http.Request) {
		text, err := io.ReadAll(io.LimitReader(r.Body, 4096))
		id := rand.Text()
		var log relay.Log
		if err == nil {
			log, err = store.Open(ctx, id)
		}
		if err != nil {
			http.Error(w, "the chat could not start", http.StatusInternalServerError)
			return
		}
		chats.Store(id, true)
		go func() { // drives the task, and ends when its stream does
			src := relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, string(text)))
			if err := relay.Run(ctx, log, "replica-1", src); err != nil {
				slog.Warn("chat", "id", id, "err", err)
			}
		}()
		fmt.Fprint(w, id)
	})
	return mux, nil
}

// A chat backend of 40 lines (newChatBackend): it drives one task of an
// agent, serves it over SSE to a browser that reconnects with
// Last-Event-ID, takes the browser's answer to the agent's question, and
// its cancel.
func Example_chatBackend() {
	agent := a2atest.NewAgent(a2atest.WithScript(
		a2atest.AskInput("Which city?"),
		a2atest.Chunk("answer", "Booking a table in ", false, false),
		a2atest.Pause(time.Hour), // the browser cancels meanwhile
		a2atest.Finish(a2a.StateCompleted, ""),
	))
	client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
	if err != nil {
		fmt.Println(err)
		return
	}
	backend, err := newChatBackend(context.Background(), client)
	if err != nil {
		fmt.Println(err)
		return
	}
	browser := a2atest.NewClient(backend) // an *http.Client that reaches backend in memory
	resp, err := browser.Post("http://chat.test/chats", "text/plain", strings.NewReader("Book me a table"))
	if err != nil {
		fmt.Println(err)
		return
	}
	id, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	url := "http://chat.test/chats/" + string(id)

	// The browser reads up to the agent's question, and answers it.
	last, data := browse(browser, url+"/events", "", relay.EventInput)
	var question relay.InputData
	if err := json.Unmarshal([]byte(data), &question); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("asked:", question.Text)
	post(browser, url+"/answer", fmt.Sprintf(`{"prompt":%d,"text":"Paris"}`, question.Prompt))
	// Its connection dropped: it reconnects with the ID of the last event
	// it saw (EventSource does so on its own), and cancels the task as the
	// answer comes.
	last, _ = browse(browser, url+"/events", last, relay.EventArtifact)
	post(browser, url+"/cancel", `{}`)
	_, data = browse(browser, url+"/events", last, relay.EventFailure)
	fmt.Println("ended:", data)
	// Output:
	// events: status status message input
	// asked: Which city?
	// events: answered artifact
	// events: status failure
	// ended: {"kind":"canceled","state":"canceled","text":"canceled"}
}

// browse reads the events of url as a browser does, after the event of ID
// lastID (none when empty), up to the first event named until, and
// prints their names on one line: it returns that event's ID and data.
func browse(browser *http.Client, url, lastID, until string) (id, data string) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return "", err.Error()
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := browser.Do(req)
	if err != nil {
		return "", err.Error()
	}
	defer resp.Body.Close()
	var name string
	var names []string
	defer func() { fmt.Println("events:", strings.Join(names, " ")) }()
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		field, value, _ := strings.Cut(lines.Text(), ": ")
		switch field {
		case "id":
			id = value
		case "event":
			name = value
			names = append(names, value)
		case "data":
			data = value
		case "":
			if name == until {
				return id, data
			}
		}
	}
	return id, "the events ended before " + until
}

// post posts JSON to url as the page of the chat does.
func post(browser *http.Client, url, body string) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", rand.Text())
	resp, err := browser.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		fmt.Println(url, resp.Status)
	}
}
