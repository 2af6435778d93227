package stream_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
)

// List the tasks of a context, two a page, and tell a listing cut short
// from a complete one.
func ExampleClient_ListTasks() {
	// An agent with three tasks in context c-1, over HTTP+JSON.
	agent := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/a2a+json")
		if r.URL.Query().Get("pageToken") == "" {
			io.WriteString(w, `{"tasks":[{"id":"t-3","contextId":"c-1","status":{"state":"TASK_STATE_WORKING"}},`+
				`{"id":"t-2","contextId":"c-1","status":{"state":"TASK_STATE_COMPLETED"}}],"nextPageToken":"p2","pageSize":2,"totalSize":3}`)
			return
		}
		io.WriteString(w, `{"tasks":[{"id":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_FAILED"}}],"nextPageToken":"","pageSize":2,"totalSize":3}`)
	})
	c, err := stream.NewRESTClient("http://agent.test", stream.WithHTTPClient(a2atest.NewClient(agent)), stream.WithVersion(a2a.V10))
	if err != nil {
		fmt.Println(err)
		return
	}

	for task, err := range c.ListTasks(context.Background(), a2a.TaskFilter{ContextID: "c-1", PageSize: 2}).All() {
		var cut *stream.ListingCutError
		switch {
		case errors.As(err, &cut):
			fmt.Println("cut short: list again")
		case errors.Is(err, errors.ErrUnsupported):
			fmt.Println("the agent cannot list its tasks")
		case err != nil:
			fmt.Println(err)
		default:
			fmt.Println(task.ID, task.Status.State)
		}
	}
	// Output:
	// t-3 working
	// t-2 completed
	// t-1 failed
}
