package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/examples/internal/demo"
)

// Example_hello runs the README's first program against the demo agent
// that go run ./examples/agent -mode answer serves, over real HTTP on
// 127.0.0.1.
func Example_hello() {
	agent := httptest.NewServer(demo.ServedAgent(demo.ModeAnswer, time.Millisecond))
	defer agent.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	fmt.Println("completed:", run(ctx, agent.URL))
	// Output:
	// Planning your trip…
	// Here is a three-day plan. Day one: a walk through the old town and a long lunch by the river. Day two: the museum quarter, then the night market. Day three: a train to the coast from your starting city, a swim, and dinner by the harbour.
	// Have a good trip!
	// completed
	// completed: true
}

// Example_helloFailed runs it against an agent whose task fails: the last
// line says how it ended, and run reports that the task did not complete,
// so main exits 1.
func Example_helloFailed() {
	agent := httptest.NewServer(a2atest.NewAgent(a2atest.WithScript(
		a2atest.Working("Checking train times…"),
		a2atest.Finish(a2a.StateFailed, "the train API timed out"))))
	defer agent.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	fmt.Println("completed:", run(ctx, agent.URL))
	// Output:
	// Checking train times…
	// the train API timed out
	// failed: the train API timed out
	// completed: false
}
