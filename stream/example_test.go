package stream_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

// Example sends a message and reads the stream with Next.
func Example() {
	// A fake agent in process; use stream.Resolve(ctx, "https://agent.example") for a real one.
	agent := a2atest.NewAgent()
	client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
	if err != nil {
		panic(err)
	}

	s := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hello"))
	defer s.Close()
	for s.Next() {
		switch ev := s.Event().(type) {
		case *a2a.StatusUpdate:
			fmt.Println("status:", ev.Status.State)
		case *a2a.ArtifactUpdate:
			fmt.Printf("artifact %s: %q\n", ev.Artifact.ID, ev.Artifact.Text())
		case *a2a.Message:
			fmt.Println("message:", ev.Text())
		case *a2a.MessageRevision: // the agent sent a message again, changed
			fmt.Println("message revised:", ev.Message.Text())
		}
	}
	if err := s.Err(); err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println("result:", s.Task().Artifact("a1").Text())
	// Output:
	// status: submitted
	// status: working
	// artifact a1: "hello "
	// artifact a1: "world"
	// status: completed
	// result: hello world
}

// ExampleStream_All ranges over a stream; breaking out of the loop closes it.
func ExampleStream_All() {
	agent := a2atest.NewAgent()
	client, _ := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))

	for ev, err := range client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hello")).All() {
		if err != nil {
			fmt.Println("error:", err)
			break
		}
		if u, ok := ev.(*a2a.ArtifactUpdate); ok {
			fmt.Print(u.Artifact.Text())
		}
	}
	fmt.Println()
	// Output:
	// hello world
}

// ExampleWithHumanInput answers an input-required prompt with a hitl.Func;
// the task continues on the same stream.
func ExampleWithHumanInput() {
	agent := a2atest.NewAgent(a2atest.WithScript(
		a2atest.AskInput("Which dates?"),
		a2atest.Chunk("plan", "Booked.", false, true),
		a2atest.Finish(a2a.StateCompleted, ""),
	))
	answer := hitl.Func(func(ctx context.Context, req *hitl.Request) ([]a2a.Part, error) {
		fmt.Println("agent asks:", req.Text())
		return hitl.Text("Oct 10-17"), nil
	})
	client, _ := stream.NewClient("http://agent.test/",
		stream.WithHTTPClient(agent.Client()), stream.WithHumanInput(answer))

	task, err := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "book a trip")).Wait()
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(task.Status.State, task.Artifact("plan").Text())
	// Output:
	// agent asks: Which dates?
	// completed Booked.
}

// Example_terminalError tells the typed endings apart with errors.As.
func Example_terminalError() {
	agent := a2atest.NewAgent(a2atest.WithScript(
		a2atest.Chunk("log", "step 1 ok", false, false),
		a2atest.Finish(a2a.StateFailed, "upstream API timed out"),
	))
	client, _ := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))

	_, err := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "go")).Wait()
	var failed *terminal.FailedError
	if errors.As(err, &failed) {
		fmt.Println("failed:", failed.Task.Status.Message.Text())
		fmt.Println("partial output:", failed.Task.Artifact("log").Text())
	}
	var te terminal.Error
	fmt.Println("is a terminal.Error:", errors.As(err, &te))
	// Output:
	// failed: upstream API timed out
	// partial output: step 1 ok
	// is a terminal.Error: true
}

// Example_perCallOptions gives one stream its own human-input hook and
// header, on top of the Client's options, which the Client's other streams
// keep.
func Example_perCallOptions() {
	agent := a2atest.NewAgent(a2atest.WithScript(a2atest.AskInput("Which city?"), a2atest.Finish(a2a.StateCompleted, "booked")))
	client, _ := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()),
		stream.WithHeader("X-Team", "travel"))

	ask := hitl.Func(func(ctx context.Context, req *hitl.Request) ([]a2a.Part, error) {
		fmt.Println("asked:", req.Text())
		return hitl.Text("Lisbon"), nil
	})
	msg := a2a.NewTextMessage(a2a.RoleUser, "book me a trip")
	task, err := client.Send(context.Background(), msg,
		stream.WithHumanInput(ask), stream.WithHeader("Authorization", "Bearer user-42")).Wait()
	fmt.Println("ended:", task.Status.State, err)
	for _, r := range agent.Requests() {
		fmt.Println(r.Method, r.Header.Get("X-Team"), r.Header.Get("Authorization"))
	}
	// Output:
	// asked: Which city?
	// ended: completed <nil>
	// SendStreamingMessage travel Bearer user-42
	// SendStreamingMessage travel Bearer user-42
}

// Example_progress shows reconnects to the user with WithNotify, and logs
// them with WithLogger: the agent cuts the first connection after two
// events, and the stream resubscribes on its own.
func Example_progress() {
	agent := a2atest.NewAgent(a2atest.WithFaults(a2atest.CutAfterEvents(2)))
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "task" {
				return slog.Attr{} // keep the output stable
			}
			return a
		},
	}))
	client, _ := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()), stream.WithLogger(logger),
		stream.WithReconnect(reconnect.Policy{Backoff: 10 * time.Millisecond}))

	show := func(n stream.Notice) {
		switch n.Kind {
		case stream.Reconnecting:
			fmt.Printf("connection lost: retrying (%d/%d) in %s\n", n.Attempt, n.MaxAttempts, n.Wait)
		case stream.Resumed:
			fmt.Println("resumed")
		}
	}
	task, err := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hello"), stream.WithNotify(show)).Wait()
	fmt.Println(task.Status.State, task.Artifact("a1").Text(), err)
	// Output:
	// level=INFO msg="a2a: reconnecting" attempt=1 max=3 wait=10ms
	// connection lost: retrying (1/3) in 10ms
	// resumed
	// completed hello world <nil>
}

// ExampleStream_Cancel stops the agent's task, not only the local stream:
// Close and the end of the context leave the task running on the agent.
func ExampleStream_Cancel() {
	agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Working("thinking"), a2atest.Pause(time.Hour), a2atest.Finish(a2a.StateCompleted, "")))
	client, _ := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))

	s := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "write a novel"))
	defer s.Close()
	for s.Next() {
		if u, ok := s.Event().(*a2a.StatusUpdate); ok && u.Status.State == a2a.StateWorking {
			if err := s.Cancel(context.Background()); err != nil {
				fmt.Println("cancel:", err)
			}
		}
	}
	fmt.Println("ended:", s.Ending().State)
	fmt.Println("on the agent:", agent.Task(s.Task().ID).Status.State)
	// Output:
	// ended: canceled
	// on the agent: canceled
}

// ExampleClient_Subscribe follows a task another process started, by its
// ID, with GetTask for its state first.
func ExampleClient_Subscribe() {
	agent := a2atest.NewAgent(a2atest.WithScript(a2atest.Working(""), a2atest.Pause(300*time.Millisecond), // long enough for GetTask to see it working
		a2atest.Chunk("a1", "done", false, true), a2atest.Finish(a2a.StateCompleted, "")))
	client, _ := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
	// Another process sent the message and kept the task ID.
	first := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hello"))
	first.Next()
	id := first.Task().ID
	first.Close()

	t, err := client.GetTask(context.Background(), id)
	fmt.Println("now:", t.Status.State, err)
	task, err := client.Subscribe(context.Background(), id).Wait()
	fmt.Println("at the end:", task.Status.State, task.Artifact("a1").Text(), err)
	// Output:
	// now: working <nil>
	// at the end: completed done <nil>
}
