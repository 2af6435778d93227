package push_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/push"
)

// The application mounts one Receiver on its server, registers a push
// config per task, and waits for notifications beside a timer. Here the
// agent's POST is served in memory.
func ExampleReceiver() {
	recv, err := push.NewReceiver("http://127.0.0.1:8080/hooks/a2a")
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux()
	mux.Handle("POST /hooks/a2a/{id}", recv)

	reg, err := recv.Register(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer reg.Close()
	// reg.ID(), reg.URL() and reg.Token() go in the push config the client
	// registers with the agent for task "task-1".
	if err := reg.Bind(context.Background(), "task-1"); err != nil {
		fmt.Println(err)
		return
	}

	// What the agent POSTs for each event of the task.
	req := httptest.NewRequest(http.MethodPost, reg.URL(), strings.NewReader(
		`{"statusUpdate":{"taskId":"task-1","contextId":"ctx-1","status":{"state":"TASK_STATE_COMPLETED"}}}`))
	req.Header.Set("Content-Type", "application/a2a+json")
	req.Header.Set(push.TokenHeader, reg.Token())
	answer := httptest.NewRecorder()
	mux.ServeHTTP(answer, req)
	fmt.Println("agent answered", answer.Code)

	timer := time.NewTimer(30 * time.Second)
	defer timer.Stop()
	select {
	case <-reg.Ready():
		notifications, lost := reg.Take()
		for _, n := range notifications {
			if u, ok := n.Event.(*a2a.StatusUpdate); ok {
				fmt.Println(n.Version, u.TaskID, u.Status.State)
			}
		}
		fmt.Println("lost:", lost)
	case <-timer.C:
		fmt.Println("nothing pushed: poll the task")
	}
	// Output:
	// agent answered 204
	// 1.0 task-1 completed
	// lost: false
}
