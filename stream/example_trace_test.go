package stream_test

import (
	"context"
	"fmt"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// ExampleWithTrace follows a stream whose connection drops once: the send,
// its drop, the backoff, the resubscribe that heals the gap, the prompt
// answered, the reply, and the end.
// A Trace is for tools (spans, metrics); WithNotify is for users.
func ExampleWithTrace() {
	agent := a2atest.NewAgent(
		a2atest.WithScript(
			a2atest.Working(""),
			a2atest.Chunk("answer", "Day one. ", false, false),
			a2atest.AskInput("Which city?"), // the task waits for the reply
			a2atest.Chunk("answer", "Day two.", true, true),
			a2atest.Finish(a2a.StateCompleted, "")),
		a2atest.WithFaults(a2atest.CutAfterEvents(2))) // the first stream drops after two events
	client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()),
		stream.WithReconnect(reconnect.Policy{Backoff: time.Millisecond}),
		stream.WithHumanInput(hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
			return hitl.Text("Lisbon"), nil
		})))
	if err != nil {
		panic(err)
	}
	trace := &stream.Trace{
		AttemptStart: func(a stream.AttemptInfo) { fmt.Printf("call %d: %s (attempt %d)\n", a.Call, a.Kind, a.Attempt) },
		AttemptDone:  func(d stream.AttemptDoneInfo) { fmt.Printf("call %d: %s\n", d.Call, d.Outcome) },
		Wait:         func(w stream.WaitInfo) { fmt.Printf("%s %d of %d\n", w.Kind, w.Attempt, w.MaxAttempts) },
		Gap:          func(g stream.GapInfo) { fmt.Printf("gap %s\n", g.Kind) },
		Ask:          func(a stream.AskInfo) { fmt.Printf("%s hook: returned %t\n", a.Kind, a.Returned) },
		Done:         func(d stream.DoneInfo) { fmt.Printf("done: %s, %d calls, err %v\n", d.State, d.Calls, d.Err) },
	}
	s := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "Two days in Lisbon?"), stream.WithTrace(trace))
	if _, err := s.Wait(); err != nil {
		panic(err)
	}
	// Output:
	// call 1: send (attempt 0)
	// call 1: drop
	// backoff 1 of 3
	// call 2: subscribe (attempt 1)
	// gap opened
	// gap healed
	// call 2: ok
	// human-input hook: returned false
	// human-input hook: returned true
	// call 3: reply (attempt 0)
	// call 3: ok
	// done: completed, 3 calls, err <nil>
}
