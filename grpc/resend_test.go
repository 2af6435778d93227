package a2agrpc_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/a2astream/a2astream/a2a"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/stream"
)

// headerCut cuts the agent's connections as soon as the response headers of
// the call numbered at (from 1) reached the client: the agent answered,
// then the connection broke.
func headerCut(a *agent, at int32) grpc.DialOption {
	var n atomic.Int32
	return grpc.WithStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		cs, err := streamer(ctx, desc, cc, method, opts...)
		if err != nil {
			return nil, err
		}
		return &cutAfterHeader{ClientStream: cs, cut: n.Add(1) == at, a: a}, nil
	})
}

type cutAfterHeader struct {
	grpc.ClientStream
	cut bool
	a   *agent
}

func (c *cutAfterHeader) Header() (metadata.MD, error) {
	md, err := c.ClientStream.Header()
	if c.cut && md != nil {
		c.a.cut()
	}
	return md, err
}

// A reply whose call broke before any answer of the agent is sent again
// when a resubscribe still shows the prompt; one whose call broke after
// the agent's response headers came is not: the agent may have taken it.
func TestReplyResentOnlyWithoutAnswer(t *testing.T) {
	for _, answered := range []bool{false, true} {
		t.Run(map[bool]string{false: "cut before the headers", true: "cut after the headers"}[answered], func(t *testing.T) {
			var replies atomic.Int32
			ask := state("t-1", a2a.StateInputRequired)
			ask.Status.Message = a2a.NewTextMessage(a2a.RoleAgent, "Which city?")
			ask.Status.Message.ID = "prompt-1"
			asking := working("t-1")
			asking.Status = ask.Status
			var a *agent
			a = newAgent(t, true, false, handlers{
				stream: func(ctx context.Context, m *a2a.Message, send func(a2a.Event) error) error {
					if m.TaskID == "" {
						return sendAll(send, working("t-1"), ask)
					}
					switch replies.Add(1) {
					case 1:
						if answered {
							if err := grpc.SendHeader(ctx, metadata.MD{}); err != nil {
								return err
							}
						} else {
							a.cut() // the reply arrived; no answer leaves
						}
						<-ctx.Done()
						return ctx.Err()
					default:
						return sendAll(send, state("t-1", a2a.StateWorking), chunk("t-1", "Sunny", false), state("t-1", a2a.StateCompleted))
					}
				},
				subscribe: func(_ context.Context, id string, send func(a2a.Event) error) error {
					if answered {
						// The agent took the reply and moves on.
						return sendAll(send, asking, state(id, a2a.StateWorking), chunk(id, "Sunny", false), state(id, a2a.StateCompleted))
					}
					return sendAll(send, asking) // still asking
				},
			})
			var opts []a2agrpc.Option
			if answered {
				opts = append(opts, a2agrpc.WithDialOptions(headerCut(a, 2)))
			}
			hook := hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) {
				return []a2a.Part{{Text: "Paris"}}, nil
			})
			c := newClient(t, a.client(t, opts...), stream.WithVersion(a2a.V10), stream.WithHumanInput(hook))
			s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "Weather?"))
			defer s.Close()
			text, err := play(s, nil)
			require.NoError(t, err)
			require.Contains(t, text, "Sunny")
			if answered {
				require.Equal(t, int32(1), replies.Load(), "never sent twice once the agent answered")
			} else {
				require.Equal(t, int32(2), replies.Load(), "sent again: the agent never answered it")
			}
		})
	}
}
