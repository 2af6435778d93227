package reconnect_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// ExamplePolicy runs the same agent, whose every connection breaks after
// two events, under three policies: the default, a longer one, and Never.
// Attempts count the reconnects made without progress.
func ExamplePolicy() {
	fmt.Printf("default: %+v\n", reconnect.Default())
	for _, p := range []reconnect.Policy{{MaxAttempts: 5, Backoff: time.Millisecond}, reconnect.Never()} {
		agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Working("on it"), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")),
			a2atest.WithFaults(slices.Repeat([]a2atest.Fault{a2atest.CloseAfterEvents(0)}, 10)...),
			a2atest.WithNewTaskFault(a2atest.CloseAfterEvents(2)))
		client, _ := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()), stream.WithReconnect(p))
		_, err := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "go")).Wait()
		var gaveUp *reconnect.Error
		if errors.As(err, &gaveUp) {
			fmt.Println("attempts:", gaveUp.Attempts, "last state:", gaveUp.Task.Status.State)
		}
	}
	// Output:
	// default: {MaxAttempts:3 Backoff:500ms}
	// attempts: 5 last state: working
	// attempts: 0 last state: working
}

// ExampleErrNoTask: a connection that breaks before its first event leaves
// no task to resubscribe to, and the message is never sent twice, so the
// stream ends at once. The caller may send again, knowing it might be a
// second request.
func ExampleErrNoTask() {
	agent := a2atest.NewAgent(a2atest.WithFaults(a2atest.CutAfterBytes(0)))
	client, _ := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
	_, err := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "go")).Wait()
	fmt.Println(errors.Is(err, reconnect.ErrNoTask), stream.EndingOf(err).Task == nil)
	// Output:
	// true true
}
