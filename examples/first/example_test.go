package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/a2astream/a2astream/examples/internal/demo"
)

// Example_firstProgram runs the program's recipe against the demo agent that
// go run ./examples/agent serves (in its default mode, ask), over real HTTP
// on 127.0.0.1, answering its question with "Lisbon".
func Example_firstProgram() {
	agent := httptest.NewServer(demo.ServedAgent(demo.ModeAsk, time.Millisecond))
	defer agent.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	var out strings.Builder
	if _, err := run(ctx, agent.URL, "Plan a weekend trip", "", strings.NewReader("Lisbon\n"), &out); err != nil {
		panic(err)
	}
	// An Example's output cannot end a line in a space, and the agent's
	// words can ("market. " before its question): print it without them.
	for line := range strings.Lines(out.String()) {
		fmt.Println(strings.TrimRight(line, " \n"))
	}
	// A terminal shows the answer typed after the "> "; here stdin is not
	// echoed.

	// Output:
	// agent: a2astream demo agent (ask) (A2A 1.0 over JSONRPC)
	// Planning your trip…
	// Here is a three-day plan. Day one: a walk through the old town and a long lunch by the river. Day two: the museum quarter, then the night market.
	// Which city should the trip start from?
	// > Day three: a train to the coast from your starting city, a swim, and dinner by the harbour.
	// Have a good trip!
	// ended: completed
}
