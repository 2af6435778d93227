package credentials_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/credentials"
)

// A hook made of a function: it reads what the agent asked for and gives
// the header to send from then on.
func ExampleFunc() {
	hook := credentials.Func(func(ctx context.Context, req *credentials.Request) (http.Header, error) {
		fmt.Printf("the agent asks (attempt %d): %s\n", req.Attempt, req.Text())
		return http.Header{"Authorization": {"Bearer fresh-token"}}, nil
	})
	req := &credentials.Request{
		Task:    &a2a.Task{ID: "t-1", Status: a2a.TaskStatus{State: a2a.StateAuthRequired}},
		Message: a2a.NewTextMessage(a2a.RoleAgent, "Sign in at https://agent.example/login"),
		Attempt: 1,
	}
	h, err := hook.Credentials(context.Background(), req)
	fmt.Println(h.Get("Authorization"), err)
	// Output:
	// the agent asks (attempt 1): Sign in at https://agent.example/login
	// Bearer fresh-token <nil>
}
