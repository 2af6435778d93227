package fanout_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/fanout"
	"github.com/a2astream/a2astream/stream"
)

// ExampleQuorum asks three agents and needs two answers; the third agent is
// down. Each call is a Send on the agent's own Client.
func ExampleQuorum() {
	weather := a2atest.NewAgent(a2atest.WithScript(a2atest.Chunk("a", "Sunny", false, true), a2atest.Finish(a2a.StateCompleted, "")))
	news := a2atest.NewAgent(a2atest.WithScript(a2atest.Chunk("a", "Calm", false, true), a2atest.Finish(a2a.StateCompleted, "")))
	down := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })

	var calls []func(context.Context) (string, error)
	for _, hc := range []*http.Client{weather.Client(), news.Client(), a2atest.NewClient(down)} {
		// Give every Client of one agent the same stream.WithBreaker to skip
		// the agent while its circuit is open.
		c, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(hc))
		if err != nil {
			panic(err)
		}
		calls = append(calls, func(ctx context.Context) (string, error) {
			task, err := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hello")).Wait()
			if err != nil {
				return "", err
			}
			return task.Artifact("a").Text(), nil
		})
	}

	results, err := fanout.Quorum(context.Background(), 2, calls...)
	var qe *fanout.QuorumError
	if errors.As(err, &qe) {
		fmt.Println("only", qe.Succeeded, "answers")
		return
	}
	for i, r := range results {
		switch {
		case r.Err == nil:
			fmt.Printf("agent %d: %s\n", i+1, r.Value)
		default: // failed, or cancelled once two had answered (ErrNotNeeded)
			fmt.Printf("agent %d: no answer\n", i+1)
		}
	}
	// Output:
	// agent 1: Sunny
	// agent 2: Calm
	// agent 3: no answer
}
