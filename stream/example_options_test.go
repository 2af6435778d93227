package stream_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// Example_options sets the limits and timeouts a Client has; each has a
// default, and a value that makes no sense is refused before anything is
// sent.
func Example_options() {
	agent := a2atest.NewAgent(a2atest.WithoutStreaming(), a2atest.WithScript(
		a2atest.Working("checking"), a2atest.Pause(5*time.Millisecond), a2atest.Finish(a2a.StateCompleted, "done")))
	var notices []stream.NoticeKind
	opts := []stream.Option{
		stream.WithHTTPClient(agent.Client()),
		stream.WithVersion(a2a.V10),
		stream.WithIdleTimeout(30 * time.Second),            // silence that counts as a drop; off by default
		stream.WithMaxEventSize(stream.DefaultMaxEventSize), // 16 MiB
		stream.WithPollInterval(time.Millisecond),           // for agents that cannot stream; default 1 s
		stream.WithStallTimeout(time.Minute),                // polled tasks that show nothing new
		stream.WithInputTimeout(10 * time.Minute),           // how long the human may take
		stream.WithNotify(func(n stream.Notice) { notices = append(notices, n.Kind) }),
	}
	client, err := stream.NewClient("http://agent.test/", opts...)
	if err != nil {
		panic(err)
	}
	task, err := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "check")).Wait()
	fmt.Println(task.Status.State, err, notices, "default poll interval:", stream.DefaultPollInterval)

	_, err = stream.NewClient("http://agent.test/", stream.WithPollInterval(0), stream.WithMaxEventSize(-1))
	fmt.Println("refused:", errors.Is(err, stream.ErrInvalidOption))
	_, err = client.Send(context.Background(), &a2a.Message{Role: a2a.RoleUser}).Wait()
	fmt.Println("a message without parts:", errors.Is(err, transport.ErrInvalidMessage))
	// Output:
	// completed <nil> [polling] default poll interval: 1s
	// refused: true
	// a message without parts: true
}

// ExampleEnding_answer reads an agent that answers with a message instead
// of a task: Wait returns no task and no error, and Ending's Answer holds
// the reply.
func ExampleEnding_answer() {
	agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Reply("It is sunny in Lisbon.")))
	client, _ := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))

	var s *stream.Stream = client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "weather?"))
	task, err := s.Wait()
	fmt.Println(task == nil, err, s.Ending().Answer.Text())
	// Output:
	// true <nil> It is sunny in Lisbon.
}

// ExampleWithInputTimeout bounds the time a human may take: a hook that
// does not answer in time ends the stream in a *hitl.Error carrying the
// question and the task, which a later Send with the task's ID can answer.
func ExampleWithInputTimeout() {
	agent := a2atest.NewAgent(a2atest.WithScript(a2atest.AskInput("Which city?"), a2atest.Finish(a2a.StateCompleted, "")))
	var away hitl.Hook = hitl.Func(func(ctx context.Context, req *hitl.Request) ([]a2a.Part, error) {
		<-ctx.Done() // nobody answers
		return nil, ctx.Err()
	})
	client, _ := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()),
		stream.WithHumanInput(away), stream.WithInputTimeout(10*time.Millisecond))
	_, err := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "plan a trip")).Wait()
	var unanswered *hitl.Error
	if errors.As(err, &unanswered) {
		fmt.Println(unanswered.Prompt.Text(), errors.Is(err, context.DeadlineExceeded), unanswered.Task.Status.State)
	}

	// Without any hook the stream ends at once, the same way.
	plain, _ := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
	_, err = plain.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "plan a trip")).Wait()
	fmt.Println("no hook:", errors.Is(err, hitl.ErrNoHook))
	// Output:
	// Which city? true input-required
	// no hook: true
}

// ExampleNewRESTClient talks to an agent over HTTP+JSON without reading its
// card: here an A2A 0.3 agent, whose routes are under /v1.
func ExampleNewRESTClient() {
	agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03), a2atest.WithBindings(a2a.BindingHTTPJSON))
	client, err := stream.NewRESTClient("http://agent.test/", stream.WithHTTPClient(agent.Client()), stream.WithVersion(a2a.V03))
	if err != nil {
		panic(err)
	}
	task, err := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hello")).Wait()
	fmt.Println(task.Status.State, err, task.Artifact("a1").Text())
	fmt.Println(agent.Requests()[0].HTTPMethod, agent.Requests()[0].Path)
	// Output:
	// completed <nil> hello world
	// POST /v1/message:stream
}
