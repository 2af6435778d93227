package stream_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// A message that is nil, has no parts or does not encode ends the stream in
// transport.ErrInvalidMessage before any request: a local error, not a network
// fault, and no task.
func TestInvalidMessageIsRefusedBeforeAnythingIsSent(t *testing.T) {
	cases := []struct {
		name string
		msg  *a2a.Message
	}{
		{"nil", nil},
		{"no parts", &a2a.Message{Role: a2a.RoleUser}},
		{"empty parts slice", &a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{}}},
		{"NaN in message metadata", &a2a.Message{Role: a2a.RoleUser, Parts: textParts("x"), Metadata: map[string]any{"n": math.NaN()}}},
		{"NaN in part metadata", &a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{{Text: "x", Metadata: map[string]any{"score": math.NaN()}}}}},
		{"Inf in part metadata", &a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{{Text: "x", Metadata: map[string]any{"n": math.Inf(1)}}}}},
		{"channel in metadata", &a2a.Message{Role: a2a.RoleUser, Parts: textParts("x"), Metadata: map[string]any{"c": make(chan int)}}},
		{"invalid JSON data part", &a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{{Data: json.RawMessage(`{"a":`)}}}},
		{"data part that is not JSON", &a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{{Data: json.RawMessage("{not json")}}}},
	}
	for _, v := range versions {
		for _, c := range cases {
			t.Run(string(v)+"/"+c.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v))
					s := newClient(t, agent, v).Send(bounded(t), c.msg)
					_, err := drain(t, s)
					require.ErrorIs(t, err, transport.ErrInvalidMessage, "got %T: %v", err, err)
					var re *reconnect.Error
					require.False(t, errors.As(err, &re), "nothing was lost on the network")
					require.Empty(t, agent.Requests(), "no request reached the server")
					require.Nil(t, s.Task())
				})
			})
		}
	}
}

// A hook reply that is not a valid message (no parts, or parts that do not
// encode: NaN, Inf and channels in part metadata, data that is not JSON) is
// a local error, not a network fault: the stream ends in *hitl.Error wrapping
// transport.ErrInvalidMessage with the task still input-required, the human was
// asked once, nothing is sent again and nothing reconnects.
func TestHookReplyThatIsNotAValidMessageEndsInHITLError(t *testing.T) {
	cases := []struct {
		name  string
		parts []a2a.Part
	}{
		{"no parts", nil},
		{"data that is not JSON", []a2a.Part{{Data: json.RawMessage("{not json")}}},
		{"truncated JSON array data", []a2a.Part{{Data: json.RawMessage(`[1,`)}}},
		{"NaN in part metadata", []a2a.Part{{Text: "x", Metadata: map[string]any{"score": math.NaN()}}}},
		{"-Inf in part metadata", []a2a.Part{{Text: "x", Metadata: map[string]any{"n": math.Inf(-1)}}}},
		{"channel in part metadata", []a2a.Part{{Text: "x", Metadata: map[string]any{"c": make(chan int)}}}},
	}
	for _, v := range versions {
		for _, c := range cases {
			t.Run(string(v)+"/"+c.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(wirematrix.Asking()...))
					asked := 0
					hook := hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
						asked++
						return c.parts, nil
					})
					var rec reconnects
					s := newClient(t, agent, v, stream.WithHumanInput(hook), rec.option()).Send(bounded(t), hello())
					_, err := drain(t, s)
					var he *hitl.Error
					require.ErrorAs(t, err, &he, "got %T: %v", err, err)
					require.ErrorIs(t, err, transport.ErrInvalidMessage)
					var re *reconnect.Error
					require.False(t, errors.As(err, &re), "a local encoding error is not a network fault")
					require.NotNil(t, he.Task)
					require.Equal(t, a2a.StateInputRequired, he.Task.Status.State)
					require.Equal(t, 1, asked)
					require.Empty(t, rec.causes, "no reconnect")
					require.Equal(t, 0, wirematrix.Resubscribes(agent))
					require.Empty(t, wirematrix.FollowUps(agent))
					require.Len(t, agent.Requests(), 1, "only the first message reached the server")
				})
			})
		}
	}
}
