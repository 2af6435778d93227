package stream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// A message that is nil, has no parts or does not encode ends the stream in
// stream.ErrInvalidMessage before any request, and is not a drop.
func TestInvalidMessageIsRefusedBeforeAnythingIsSent(t *testing.T) {
	cases := []struct {
		name string
		msg  *a2a.Message
	}{
		{"nil", nil},
		{"no parts", &a2a.Message{Role: a2a.RoleUser}},
		{"empty parts slice", &a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{}}},
		{"NaN in message metadata", &a2a.Message{Role: a2a.RoleUser, Parts: textParts("x"), Metadata: map[string]any{"n": math.NaN()}}},
		{"Inf in part metadata", &a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{{Text: "x", Metadata: map[string]any{"n": math.Inf(1)}}}}},
		{"channel in metadata", &a2a.Message{Role: a2a.RoleUser, Parts: textParts("x"), Metadata: map[string]any{"c": make(chan int)}}},
		{"invalid JSON data part", &a2a.Message{Role: a2a.RoleUser, Parts: []a2a.Part{{Data: json.RawMessage(`{"a":`)}}}},
	}
	for _, v := range versions {
		for _, c := range cases {
			t.Run(string(v)+"/"+c.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v))
					s := newClient(t, agent, v).Send(bounded(t), c.msg)
					_, err := drain(t, s)
					require.ErrorIs(t, err, stream.ErrInvalidMessage, "got %T: %v", err, err)
					var re *reconnect.Error
					require.False(t, errors.As(err, &re))
					require.Empty(t, agent.Requests())
				})
			})
		}
	}
}

// A hook reply that does not encode because of message-level content the
// hook controls (parts only): NaN, Inf and channels in part metadata.
func TestHookReplyWithUnencodablePartsEndsInHITLError(t *testing.T) {
	bad := [][]a2a.Part{
		{{Text: "x", Metadata: map[string]any{"n": math.Inf(-1)}}},
		{{Text: "x", Metadata: map[string]any{"c": make(chan int)}}},
		{{Data: json.RawMessage(`[1,`)}},
	}
	for _, v := range versions {
		for i, parts := range bad {
			t.Run(fmt.Sprintf("%s/%d", v, i), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithScript(asking()...))
					hook := hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) { return parts, nil })
					s := newClient(t, agent, v, stream.WithHumanInput(hook)).Send(bounded(t), hello())
					_, err := drain(t, s)
					var he *hitl.Error
					require.ErrorAs(t, err, &he, "got %T: %v", err, err)
					require.ErrorIs(t, err, stream.ErrInvalidMessage)
					require.Empty(t, followUps(agent))
				})
			})
		}
	}
}
