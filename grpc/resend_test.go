package a2agrpc_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

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

// A reply whose call broke before any answer of the agent may have reached
// it: it is sent again, when a resubscribe still shows the prompt, only to
// an agent that WithIdempotentSends says takes a message ID twice as once;
// otherwise never. One whose call broke after the agent's response headers
// came is not sent again either way: the agent may have taken it.
func TestReplyResentOnlyWithoutAnswer(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		answered, idempotent bool
	}{
		{"cut before the headers, to an idempotent agent", false, true},
		{"cut before the headers", false, false},
		{"cut after the headers", true, false},
		{"cut after the headers, to an idempotent agent", true, true},
	} {
		answered := tc.answered
		t.Run(tc.name, func(t *testing.T) {
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
			sopts := []stream.Option{stream.WithVersion(a2a.V10), stream.WithHumanInput(hook)}
			if tc.idempotent {
				sopts = append(sopts, stream.WithIdempotentSends())
			}
			c := newClient(t, a.client(t, opts...), sopts...)
			s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "Weather?"))
			defer s.Close()
			text, err := play(s, nil)
			switch {
			case answered:
				require.NoError(t, err)
				require.Contains(t, text, "Sunny")
				require.Equal(t, int32(1), replies.Load(), "never sent twice once the agent answered")
			case tc.idempotent:
				require.NoError(t, err)
				require.Contains(t, text, "Sunny")
				require.Equal(t, int32(2), replies.Load(), "sent again: the agent never answered it, and takes a message ID twice as once")
			default:
				require.Error(t, err, "the task still waits on its prompt")
				require.Equal(t, int32(1), replies.Load(), "never sent twice once it may have reached the agent")
			}
		})
	}
}

// A 1.0 send answered with response headers, then UNIMPLEMENTED "unknown
// method": a handler ran (a server without the method answers with its
// status alone), so the message may have reached the agent, and it is not
// sent again in 0.3. The stream ends without a task (a fourth stranger
// round's F3). Answered with the status alone, the same send falls back to
// 0.3, as a server without the 1.0 service answers.
func TestUnknownMethodAfterHeadersIsNoVersionRefusal(t *testing.T) {
	for _, headersFirst := range []bool{true, false} {
		t.Run(map[bool]string{true: "after headers", false: "trailers only"}[headersFirst], func(t *testing.T) {
			var sends10, sends03 atomic.Int32
			a := newAgent(t, true, true, handlers{stream: func(ctx context.Context, _ *a2a.Message, send func(a2a.Event) error) error {
				method, _ := grpc.Method(ctx)
				if strings.HasPrefix(method, "/lf.a2a.v1.") {
					sends10.Add(1)
					if headersFirst {
						if err := grpc.SendHeader(ctx, metadata.MD{}); err != nil {
							return err
						}
					}
					return status.Error(codes.Unimplemented, "unknown method SendStreamingMessage for service lf.a2a.v1.A2AService")
				}
				sends03.Add(1)
				if err := send(&a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateCompleted}}); err != nil {
					return err
				}
				return nil
			}})
			c, err := stream.NewClientFor(a.client(t))
			require.NoError(t, err)
			_, err = c.Send(context.Background(), hello()).Wait()
			require.Equal(t, int32(1), sends10.Load())
			if headersFirst {
				require.Error(t, err)
				require.Zero(t, sends03.Load(), "the message is not sent again in 0.3")
				return
			}
			require.NoError(t, err)
			require.Equal(t, int32(1), sends03.Load(), "a server without the method: 0.3")
		})
	}
}
