package a2agrpc_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/chatview"
	"github.com/a2astream/a2astream/credentials"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// The whole driver over the gRPC Transport: stream.NewClientFor, unchanged.

// noWait makes the driver's waits between attempts short.
var noWait = stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: time.Millisecond})

// versionOpts are the ways a Client picks its version: negotiated (1.0
// first), or fixed.
var versionOpts = map[string][]stream.Option{
	"negotiated": nil,
	"1.0":        {stream.WithVersion(a2a.V10)},
	"0.3":        {stream.WithVersion(a2a.V03)},
}

// play reads s to its end, feeding a screen, and returns the text shown
// and the stream's error.
func play(s *stream.Stream, each func(a2a.Event)) (string, error) {
	var (
		screen chatview.Screen
		b      strings.Builder
	)
	for s.Next() {
		if each != nil {
			each(s.Event())
		}
		b.WriteString(screen.Add(s.Event()).Content)
	}
	return b.String(), s.Err()
}

func newClient(t *testing.T, tr transport.Transport, opts ...stream.Option) *stream.Client {
	t.Helper()
	c, err := stream.NewClientFor(tr, append([]stream.Option{noWait}, opts...)...)
	require.NoError(t, err)
	return c
}

func TestDriverHappyPath(t *testing.T) {
	for name, opts := range versionOpts {
		t.Run(name, func(t *testing.T) {
			a := newAgent(t, true, true, handlers{stream: func(_ context.Context, _ *a2a.Message, send func(a2a.Event) error) error {
				return sendAll(send, working("t-1"), chunk("t-1", "Hello, ", false), chunk("t-1", "world", true), state("t-1", a2a.StateCompleted))
			}})
			c := newClient(t, a.client(t), opts...)
			s := c.Send(context.Background(), hello())
			defer s.Close()
			text, err := play(s, nil)
			require.NoError(t, err)
			require.Equal(t, "Hello, world", text)
			task, err := s.Wait()
			require.NoError(t, err)
			require.Equal(t, a2a.StateCompleted, task.Status.State)
			require.Equal(t, "Hello, world", task.Artifacts[0].Parts[0].Text+task.Artifacts[0].Parts[1].Text)
			want := a2a.V10
			if name == "0.3" {
				want = a2a.V03
			}
			require.Equal(t, want, c.Version())
		})
	}
}

// cutThenResumed is an agent whose stream sends "Hello, " and then waits
// for the cut (agent.cut), and whose subscribe answers the snapshot
// "Hello, world", then "!" and the completed state.
func cutThenResumed(t *testing.T) *agent {
	return newAgent(t, true, true, handlers{
		stream: func(ctx context.Context, _ *a2a.Message, send func(a2a.Event) error) error {
			if err := sendAll(send, working("t-1"), chunk("t-1", "Hello, ", false)); err != nil {
				return err
			}
			<-ctx.Done() // until the cut
			return ctx.Err()
		},
		subscribe: func(_ context.Context, id string, send func(a2a.Event) error) error {
			snap := working(id)
			snap.Artifacts = []a2a.Artifact{{ID: "answer", Parts: []a2a.Part{{Text: "Hello, "}, {Text: "world"}}}}
			return sendAll(send, snap, chunk(id, "!", true), state(id, a2a.StateCompleted))
		},
	})
}

// A connection cut mid-stream: the driver resubscribes, the snapshot covers
// the gap, and the task completes with its text whole, shown once.
func TestDriverCutAndResume(t *testing.T) {
	for name, opts := range versionOpts {
		t.Run(name, func(t *testing.T) {
			a := cutThenResumed(t)
			var notices []stream.NoticeKind
			c := newClient(t, a.client(t), append(opts, stream.WithNotify(func(n stream.Notice) { notices = append(notices, n.Kind) }))...)
			s := c.Send(context.Background(), hello())
			defer s.Close()
			cut := false
			text, err := play(s, func(ev a2a.Event) {
				if u, ok := ev.(*a2a.ArtifactUpdate); ok && !cut && u.Artifact.Parts[0].Text == "Hello, " {
					cut = true
					a.cut()
				}
			})
			require.NoError(t, err)
			require.True(t, cut)
			require.Equal(t, "Hello, world!", text)
			task, err := s.Wait()
			require.NoError(t, err)
			require.Equal(t, a2a.StateCompleted, task.Status.State)
			require.Contains(t, notices, stream.Reconnecting)
			methods := a.methods()
			require.Len(t, methods, 2)
			require.True(t, strings.HasSuffix(methods[0], "/SendStreamingMessage"), methods[0])
			require.Contains(t, []string{"/lf.a2a.v1.A2AService/SubscribeToTask", "/a2a.v1.A2AService/TaskSubscription"}, methods[1])
		})
	}
}

// An input-required prompt goes to the hook, whose reply continues the
// task over gRPC.
func TestDriverHumanInput(t *testing.T) {
	for name, opts := range versionOpts {
		t.Run(name, func(t *testing.T) {
			var replies atomic.Int32
			a := newAgent(t, true, true, handlers{stream: func(_ context.Context, m *a2a.Message, send func(a2a.Event) error) error {
				if m.TaskID == "" {
					ask := state("t-1", a2a.StateInputRequired)
					ask.Status.Message = a2a.NewTextMessage(a2a.RoleAgent, "Which city?")
					return sendAll(send, working("t-1"), ask)
				}
				replies.Add(1)
				if m.TaskID != "t-1" || m.Parts[0].Text != "Paris" {
					return status.Error(codes.InvalidArgument, "unexpected reply")
				}
				return sendAll(send, state("t-1", a2a.StateWorking), chunk("t-1", "Sunny in Paris", false), state("t-1", a2a.StateCompleted))
			}})
			var asked string
			hook := hitl.Func(func(_ context.Context, req *hitl.Request) ([]a2a.Part, error) {
				asked = req.Text()
				return []a2a.Part{{Text: "Paris"}}, nil
			})
			c := newClient(t, a.client(t), append(opts, stream.WithHumanInput(hook))...)
			s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "Weather?"))
			defer s.Close()
			text, err := play(s, nil)
			require.NoError(t, err)
			require.Contains(t, text, "Sunny in Paris")
			require.Equal(t, "Which city?", asked)
			require.Equal(t, int32(1), replies.Load())
			task, err := s.Wait()
			require.NoError(t, err)
			require.Equal(t, a2a.StateCompleted, task.Status.State)
		})
	}
}

// A negotiating Client against a server of 0.3 only: its 1.0 call is
// refused UNIMPLEMENTED (unknown service), and it speaks 0.3 from then on.
// The server refuses the unknown service before its interceptors, so the
// calls are recorded on the client's side.
func TestDriverFallsBackToZeroThree(t *testing.T) {
	a := newAgent(t, false, true, handlers{stream: func(_ context.Context, _ *a2a.Message, send func(a2a.Event) error) error {
		return sendAll(send, working("t-1"), chunk("t-1", "Hi", false), state("t-1", a2a.StateCompleted))
	}})
	var (
		methods []string
		version [][]string
	)
	record := grpc.WithStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		md, _ := metadata.FromOutgoingContext(ctx)
		methods = append(methods, method)
		version = append(version, md.Get("a2a-version"))
		return streamer(ctx, desc, cc, method, opts...)
	})
	c := newClient(t, a.client(t, a2agrpc.WithDialOptions(record)))
	s := c.Send(context.Background(), hello())
	defer s.Close()
	text, err := play(s, nil)
	require.NoError(t, err)
	require.Equal(t, "Hi", text)
	require.Equal(t, a2a.V03, c.Version())
	require.Equal(t, []string{"/lf.a2a.v1.A2AService/SendStreamingMessage", "/a2a.v1.A2AService/SendStreamingMessage"}, methods)
	require.Equal(t, [][]string{{"1.0"}, nil}, version)
	require.Equal(t, []string{"/a2a.v1.A2AService/SendStreamingMessage"}, a.methods())
}

// Nothing listening: each send is refused before it leaves, and the stream
// ends saying no call could connect, naming the target.
func TestDriverRefusedDial(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	tr, err := a2agrpc.New(addr, a2agrpc.WithInsecure())
	require.NoError(t, err)
	defer tr.Close()
	s := newClient(t, tr, stream.WithVersion(a2a.V10)).Send(context.Background(), hello())
	defer s.Close()
	_, err = play(s, nil)
	var re *reconnect.Error
	require.ErrorAs(t, err, &re)
	require.ErrorIs(t, err, reconnect.ErrCouldNotConnect)
	require.Equal(t, addr, re.Unreachable)
	require.Equal(t, codes.Unavailable, status.Code(errors.Unwrap(re)))
}

// PERMISSION_DENIED on a resubscribe ends the stream at once, matching
// transport.ErrPermissionDenied: the call is not made again as a drop's is,
// and the credentials hook is not asked (the agent knew who called).
func TestDriverPermissionDenied(t *testing.T) {
	retry, err := status.New(codes.PermissionDenied, "not now").WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(time.Second)})
	require.NoError(t, err)
	for name, st := range map[string]*status.Status{
		"bare":           status.New(codes.PermissionDenied, "not your task"),
		"RetryInfo":      retry, // a hint to retry does not make it a drop
		"task not found": statusWith(t, codes.PermissionDenied, "not yours", a2aInfo("TASK_NOT_FOUND")),
		"unsupported":    statusWith(t, codes.PermissionDenied, "not yours", a2aInfo("UNSUPPORTED_OPERATION")),
	} {
		for version, opts := range versionOpts {
			t.Run(name+"/"+version, func(t *testing.T) { permissionDenied(t, st, opts) })
		}
	}
}

func permissionDenied(t *testing.T, st *status.Status, opts []stream.Option) {
	var subscribes, asked atomic.Int32
	a := newAgent(t, true, true, handlers{
		stream: func(_ context.Context, _ *a2a.Message, send func(a2a.Event) error) error {
			if err := sendAll(send, working("t-1")); err != nil {
				return err
			}
			return status.Error(codes.Unavailable, "going away") // a drop
		},
		subscribe: func(context.Context, string, func(a2a.Event) error) error {
			subscribes.Add(1)
			return st.Err()
		},
	})
	hook := credentials.Func(func(context.Context, *credentials.Request) (http.Header, error) {
		asked.Add(1)
		return http.Header{"Authorization": {"Bearer other"}}, nil
	})
	s := newClient(t, a.client(t), append(opts, stream.WithCredentials(hook))...).Send(context.Background(), hello())
	defer s.Close()
	_, err := play(s, nil)
	require.ErrorIs(t, err, transport.ErrPermissionDenied)
	require.Equal(t, codes.PermissionDenied, status.Code(err))
	require.Equal(t, int32(1), subscribes.Load(), "not made again")
	require.Zero(t, asked.Load(), "the hook is not asked")
}

// A Client whose Transport was closed fails at once: a stream begun after
// Close ends with transport.ErrClosed without reaching the agent, GetTask
// returns it, and a stream in flight when the Transport closes ends with
// it instead of reconnecting until its budget is spent.
func TestDriverClosedTransport(t *testing.T) {
	t.Run("closed before", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			a := newAgent(t, true, false, handlers{})
			tr := a.client(t)
			c := newClient(t, tr, stream.WithVersion(a2a.V10), stream.WithReconnect(reconnect.Policy{MaxAttempts: 5, Backoff: time.Hour}))
			require.NoError(t, tr.Close())
			s := c.Send(context.Background(), hello())
			defer s.Close()
			_, err := play(s, nil)
			require.ErrorIs(t, err, transport.ErrClosed)
			var re *reconnect.Error
			require.False(t, errors.As(err, &re), "no reconnect was tried: %v", err)
			_, err = c.GetTask(context.Background(), "t-1")
			require.ErrorIs(t, err, transport.ErrClosed)
			require.Empty(t, a.methods(), "nothing reached the agent")
		})
	})
	t.Run("closed while streaming", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			closing := make(chan struct{})
			a := newAgent(t, true, false, handlers{stream: func(ctx context.Context, _ *a2a.Message, send func(a2a.Event) error) error {
				if err := sendAll(send, working("t-1")); err != nil {
					return err
				}
				close(closing)
				<-ctx.Done()
				return ctx.Err()
			}})
			tr := a.client(t)
			c := newClient(t, tr, stream.WithVersion(a2a.V10), stream.WithReconnect(reconnect.Policy{MaxAttempts: 5, Backoff: time.Hour}))
			s := c.Send(context.Background(), hello())
			defer s.Close()
			require.True(t, s.Next())
			<-closing
			require.NoError(t, tr.Close())
			for s.Next() {
			}
			require.ErrorIs(t, s.Err(), transport.ErrClosed)
			require.Equal(t, []string{"/lf.a2a.v1.A2AService/SendStreamingMessage"}, a.methods(), "no resubscribe")
		})
	})
}

// UNAUTHENTICATED on a resubscribe reaches the credentials hook; the call is
// made again with its headers, as metadata.
func TestDriverCredentials(t *testing.T) {
	for name, opts := range versionOpts {
		t.Run(name, func(t *testing.T) {
			a := newAgent(t, true, true, handlers{
				stream: func(_ context.Context, _ *a2a.Message, send func(a2a.Event) error) error {
					if err := sendAll(send, working("t-1"), chunk("t-1", "Hello", false)); err != nil {
						return err
					}
					return status.Error(codes.Unavailable, "going away") // a drop
				},
				subscribe: func(ctx context.Context, id string, send func(a2a.Event) error) error {
					md, _ := metadata.FromIncomingContext(ctx)
					if got := md.Get("authorization"); len(got) != 1 || got[0] != "Bearer fresh" {
						return status.Error(codes.Unauthenticated, "token expired")
					}
					return sendAll(send, working(id), state(id, a2a.StateCompleted))
				},
			})
			var hookCalls atomic.Int32
			hook := credentials.Func(func(_ context.Context, req *credentials.Request) (http.Header, error) {
				hookCalls.Add(1)
				if !errors.Is(req.Cause, transport.ErrNotAuthenticated) {
					return nil, errors.New("unexpected cause")
				}
				return http.Header{"Authorization": {"Bearer fresh"}}, nil
			})
			c := newClient(t, a.client(t), append(opts, stream.WithCredentials(hook), stream.WithHeader("Authorization", "Bearer old"))...)
			s := c.Send(context.Background(), hello())
			defer s.Close()
			_, err := play(s, nil)
			require.NoError(t, err)
			require.Equal(t, int32(1), hookCalls.Load())
			seen := a.seen()
			require.Equal(t, []string{"Bearer old"}, seen[0].md.Get("authorization"))
			require.Equal(t, []string{"Bearer fresh"}, seen[len(seen)-1].md.Get("authorization"))
		})
	}
}

// RESOURCE_EXHAUSTED on a send is busy: sent again only for a caller who
// said the agent deduplicates sends (stream.WithIdempotentSends), and the
// end of the stream otherwise, as a 429 is over HTTP.
func TestDriverBusySend(t *testing.T) {
	for _, idempotent := range []bool{false, true} {
		t.Run(map[bool]string{false: "once", true: "idempotent"}[idempotent], func(t *testing.T) {
			var sends atomic.Int32
			a := newAgent(t, true, false, handlers{stream: func(_ context.Context, _ *a2a.Message, send func(a2a.Event) error) error {
				if sends.Add(1) == 1 {
					return status.Error(codes.ResourceExhausted, "too many tasks")
				}
				return sendAll(send, working("t-1"), state("t-1", a2a.StateCompleted))
			}})
			opts := []stream.Option{stream.WithVersion(a2a.V10)}
			if idempotent {
				opts = append(opts, stream.WithIdempotentSends())
			}
			s := newClient(t, a.client(t), opts...).Send(context.Background(), hello())
			defer s.Close()
			_, err := play(s, nil)
			if !idempotent {
				require.Equal(t, codes.ResourceExhausted, status.Code(err))
				require.Equal(t, int32(1), sends.Load())
				return
			}
			require.NoError(t, err)
			require.Equal(t, int32(2), sends.Load())
		})
	}
}
