// Command webchat is a small chat page for an A2A agent. A Go server drives
// the agent's task with a2astream and relays it to the browser with package
// relay, over Server-Sent Events: the streamed answer, the task state,
// reconnects and resumes, the agent's questions (answered in a form on the
// page) and the typed endings. A browser that reconnects gets exactly the
// events it missed (Last-Event-ID).
//
//	go run ./examples/webchat                       # the built-in demo trip planner
//	go run ./examples/webchat -agent https://agent.example
//	go run ./examples/webchat -addr 127.0.0.1:0     # any free port
//
// This command keeps the conversations in memory. Its twin in the nested
// module examples/webchat/redis adds -redis (the conversations in Redis)
// and -replicas (several replica processes behind a round-robin proxy,
// which take over each other's conversations):
//
//	go -C examples/webchat/redis run . -redis 127.0.0.1:6379 -replicas 2
//
// Once listening, it prints one line, "webchat listening on URL", to stdout.
// It stops on SIGINT or SIGTERM.
//
// The HTTP API the page uses:
//
//	POST /api/messages                    {"text": "...", "contextId": "..."} → 202 {"id": "..."}
//	GET  /api/conversations/{id}/events   text/event-stream of the conversation (relay.Handler)
//	POST /api/conversations/{id}/answer   {"prompt": <seq>, "text": "..."} + Idempotency-Key (relay.Handler)
//	POST /api/conversations/{id}/cancel   cancels the task (relay.Handler)
//	GET  /api/conversations/{id}/driver   200 {"owner", "pid"} of the replica that drives it, else 404
//
// The events' names and data are package relay's (see relay/event.go).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/a2astream/a2astream/examples/webchat/internal/chat"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := chat.Run(ctx, os.Args[1:], os.Stdout, os.Stderr, nil)
	stop()
	os.Exit(code)
}
