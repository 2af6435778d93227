package agentcard_test

import (
	"context"
	"fmt"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/agentcard"
)

// ExampleFetch reads an agent's card twice through one Cache: the
// agent sends it with max-age, so the second read makes no request. Pass
// the same cache to stream.Resolve, with stream.WithCardCache, and
// Clients share it.
func ExampleFetch() {
	agent := a2atest.NewAgent(a2atest.WithName("trip planner"))
	cache := agentcard.NewCache()
	for range 2 {
		card, err := agentcard.Fetch(context.Background(), "http://agent.test/",
			agentcard.WithHTTPClient(agent.Client()), agentcard.WithCache(cache))
		if err != nil {
			panic(err)
		}
		streams := card.Capabilities.Streaming
		fmt.Println(card.Name, "streams:", streams != nil && *streams)
	}
	fmt.Println("requests for", agentcard.Path+":", agent.CardRequests())
	// Output:
	// trip planner streams: true
	// trip planner streams: true
	// requests for /.well-known/agent-card.json: 1
}
