package stream_test

import (
	"context"
	"fmt"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// ExampleStream_Ending prints one line about how each stream ended,
// whatever the ending: the task's own (completed, failed, rejected,
// canceled, a prompt nobody answered), a message answer, or one of the
// connection.
func ExampleStream_Ending() {
	agents := []struct {
		name  string
		agent *a2atest.Agent
	}{
		{"done", a2atest.NewAgent()},
		{"chatty", a2atest.NewAgent(a2atest.WithScript(a2atest.Reply("Hi there!")))},
		{"broken", a2atest.NewAgent(a2atest.WithScript(a2atest.Working("on it"), a2atest.Finish(a2a.StateFailed, "the flight API is down")))},
		{"picky", a2atest.NewAgent(a2atest.WithScript(a2atest.Finish(a2a.StateRejected, "I only book trains")))},
		{"curious", a2atest.NewAgent(a2atest.WithScript(a2atest.AskInput("Which city?")))},
		{"gone", a2atest.NewAgent(a2atest.WithFaults(a2atest.CutAfterEvents(0)))},
	}
	for _, a := range agents {
		client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(a.agent.Client()),
			stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: time.Millisecond}))
		if err != nil {
			panic(err)
		}
		s := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "Book me a flight"))
		_, _ = s.Wait() // a UI shows the events here, in a Next loop
		e := s.Ending()
		fmt.Printf("%s: %s\n", a.name, e)
		if e.Answer != nil {
			fmt.Printf("  the answer: %s\n", e.Answer.Text())
		}
		if e.State == a2a.StateFailed {
			fmt.Printf("  artifacts kept: %d\n", len(e.Task.Artifacts))
		}
	}
	// Output:
	// done: completed
	// chatty: answered
	//   the answer: Hi there!
	// broken: failed: the flight API is down
	//   artifacts kept: 0
	// picky: rejected: I only book trains
	// curious: input-required: no answer: hitl: no human-input hook configured
	// gone: ended: reconnect: connection lost before any task was known: unexpected EOF
}

// ExampleEndingOf reads the ending of an error whose stream is gone, such
// as Wait's.
func ExampleEndingOf() {
	agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Working("on it"), a2atest.Finish(a2a.StateCanceled, "stopped by the operator")))
	client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
	if err != nil {
		panic(err)
	}
	_, err = client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "go")).Wait()
	e := stream.EndingOf(err)
	fmt.Println(e.State, e.Task != nil)
	fmt.Println(e)
	// Output:
	// canceled true
	// canceled: stopped by the operator
}
