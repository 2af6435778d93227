package stream_test

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/push"
	"github.com/a2astream/a2astream/stream"
)

// ExampleWithPush follows a long task by push notifications once its
// connection drops: the stream registers a push config with the agent,
// whose notifications reach the receiver the application mounts on its
// own server, and each one makes the stream fetch the task. Here the agent
// reaches the application's server in-process.
func ExampleWithPush() {
	recv, err := push.NewReceiver("http://127.0.0.1:8080/hooks/a2a")
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux() // the application's own server
	mux.Handle("POST /hooks/a2a/{id}", recv)

	agent := a2atest.NewAgent(
		a2atest.WithPush(), a2atest.WithPushClient(a2atest.NewClient(mux)),
		a2atest.WithScript(
			a2atest.Chunk("report", "Collecting figures. ", false, false),
			a2atest.Pause(50*time.Millisecond),
			a2atest.Chunk("report", "Writing the summary. ", true, false),
			a2atest.Pause(50*time.Millisecond),
			a2atest.Chunk("report", "Done.", true, true),
			a2atest.Finish(a2a.StateCompleted, "")),
		a2atest.WithFaults(a2atest.CutAfterEvents(2))) // the connection drops after the first chunk
	defer agent.Close()

	client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()),
		stream.WithPush(recv),
		stream.WithNotify(func(n stream.Notice) { fmt.Println("notice:", n.Kind) }))
	if err != nil {
		panic(err)
	}
	s := client.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "The quarterly report, please."))
	task, err := s.Wait()
	if err != nil {
		panic(err)
	}
	fmt.Println(task.Artifacts[0].Text())
	fmt.Println(s.Ending())
	// Output:
	// notice: pushing
	// Collecting figures. Writing the summary. Done.
	// completed
}
