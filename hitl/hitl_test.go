package hitl_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/hitl"
)

func TestFuncImplementsHook(t *testing.T) {
	var got *hitl.Request
	var h hitl.Hook = hitl.Func(func(_ context.Context, req *hitl.Request) ([]a2a.Part, error) {
		got = req
		return hitl.Text("Oct 10-17"), nil
	})
	req := &hitl.Request{Task: &a2a.Task{ID: "t-2"}, Prompt: a2a.NewTextMessage(a2a.RoleAgent, "Which dates?")}
	parts, err := h.Ask(context.Background(), req)
	require.NoError(t, err)
	require.Same(t, req, got)
	require.Equal(t, []a2a.Part{{Text: "Oct 10-17"}}, parts)
	if req.Text() != "Which dates?" {
		t.Fatalf("got %q; want %q", req.Text(), "Which dates?")
	}
	if (&hitl.Request{}).Text() != "" {
		t.Fatal("a request without a prompt must have empty text")
	}
}

func TestError(t *testing.T) {
	e := &hitl.Error{Task: &a2a.Task{ID: "t-1"}, Prompt: a2a.NewTextMessage(a2a.RoleAgent, "Which dates?"), Err: hitl.ErrNoHook}
	want := "hitl: task t-1 needs input (Which dates?): hitl: no human-input hook configured"
	if e.Error() != want {
		t.Fatalf("got %q; want %q", e.Error(), want)
	}
	wrapped := fmt.Errorf("stream: %w", e)
	require.ErrorIs(t, wrapped, hitl.ErrNoHook)
	var he *hitl.Error
	require.ErrorAs(t, wrapped, &he)
	require.Equal(t, "t-1", he.Task.ID)

	timeout := &hitl.Error{Task: &a2a.Task{ID: "t-1"}, Err: context.DeadlineExceeded}
	require.ErrorIs(t, timeout, context.DeadlineExceeded)
	require.False(t, errors.Is(timeout, hitl.ErrNoHook))
	if got, want := timeout.Error(), "hitl: task t-1 needs input: context deadline exceeded"; got != want {
		t.Fatalf("got %q; want %q", got, want)
	}
}
