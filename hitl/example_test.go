package hitl_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/hitl"
)

// ExampleFunc makes a Hook of a function. A stream calls Ask with the
// agent's question and the task so far; the parts returned go back to the
// agent on the same task. Here the "human" is a lookup table.
func ExampleFunc() {
	answers := map[string]string{"Which city?": "Lisbon", "How many days?": "3"}
	var hook hitl.Hook = hitl.Func(func(ctx context.Context, req *hitl.Request) ([]a2a.Part, error) {
		a, ok := answers[req.Text()]
		if !ok {
			return nil, fmt.Errorf("no answer to %q", req.Text())
		}
		return hitl.Text(a), nil
	})
	for _, q := range []string{"Which city?", "Pets allowed?"} {
		req := &hitl.Request{
			Task:   &a2a.Task{ID: "t-1", Status: a2a.TaskStatus{State: a2a.StateInputRequired}},
			Prompt: a2a.NewTextMessage(a2a.RoleAgent, q),
		}
		parts, err := hook.Ask(context.Background(), req)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(q, strings.TrimSpace((&a2a.Message{Parts: parts}).Text()))
	}
	// Output:
	// Which city? Lisbon
	// error: no answer to "Pets allowed?"
}
