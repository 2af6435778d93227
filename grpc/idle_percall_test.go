package a2agrpc_test

import (
	"context"
	"io"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/a2astream/a2astream/a2a"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	pbv1 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// A call's idle timer follows its own stream, not its connection: a silent
// stream beside a busy one on the same Transport (two tasks of one Client)
// ends one idle timeout after its last event, as it would alone, and the
// busy one goes on (a fifth stranger round's G1 and G2). A silent unary
// call beside a busy stream is timed the same way.
func TestIdleTimeoutIsPerCall(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newAgent(t, true, true, handlers{
					stream: busyOrSilent(false),
					get: func(ctx context.Context, _ string) (*a2a.Task, error) {
						<-ctx.Done()
						return nil, ctx.Err()
					},
				})
				tr := a.client(t)
				call := transport.Call{Version: v, IdleTimeout: time.Minute}
				busy, err := tr.SendStream(context.Background(), call, a2a.NewTextMessage(a2a.RoleUser, "busy"))
				require.NoError(t, err)
				defer busy.Close()
				done := make(chan int)
				go func() {
					n := 0
					for {
						if _, err := busy.Next(); err != nil {
							done <- n
							return
						}
						n++
					}
				}()

				start := time.Now()
				silent, err := tr.SendStream(context.Background(), call, a2a.NewTextMessage(a2a.RoleUser, "silent"))
				require.NoError(t, err)
				defer silent.Close()
				_, err = silent.Next()
				require.NoError(t, err)
				_, err = silent.Next()
				require.ErrorIs(t, err, transport.ErrIdleTimeout)
				require.Equal(t, time.Minute, time.Since(start))

				start = time.Now()
				_, err = tr.GetTask(context.Background(), call, "t-1")
				require.ErrorIs(t, err, transport.ErrIdleTimeout)
				require.Equal(t, time.Minute, time.Since(start))

				busy.Close()
				require.Equal(t, 1+120/7, <-done, "the busy stream read every event until closed")
			})
		})
	}
}

// The driver over one Transport, two tasks of one Client: the stream whose
// agent went silent times out one idle timeout after its last event and
// heals by resubscribing, while the other task's stream stays busy; it no
// longer runs to the stall limit (the fifth stranger round's G2).
func TestSilentStreamBesideBusyOneResubscribes(t *testing.T) {
	for name, opts := range versionOpts {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var subscribes atomic.Int32
				a := newAgent(t, true, true, handlers{
					stream: busyOrSilent(true),
					subscribe: func(_ context.Context, id string, send func(a2a.Event) error) error {
						subscribes.Add(1)
						return sendAll(send, chunk(id, "healed", false), state(id, a2a.StateCompleted))
					},
				})
				c := newClient(t, a.client(t), append([]stream.Option{stream.WithIdleTimeout(time.Minute), stream.WithStallTimeout(5 * time.Minute)}, opts...)...)
				busy := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "busy"))
				defer busy.Close()
				require.True(t, busy.Next())
				busyDone := make(chan error)
				go func() {
					for busy.Next() {
					}
					busyDone <- busy.Err()
				}()
				start := time.Now()
				silent := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "silent"))
				defer silent.Close()
				text, err := play(silent, nil)
				require.NoError(t, err)
				require.Equal(t, "healed", text)
				require.Equal(t, int32(1), subscribes.Load())
				require.Equal(t, time.Minute+time.Millisecond, time.Since(start), "one idle timeout, then the reconnect's backoff")
				require.NoError(t, <-busyDone, "the busy stream ran to its end")
				require.Equal(t, 7*time.Minute, time.Since(start))
			})
		})
	}
}

// busyOrSilent is the agent of two tasks, named by their message's text:
// "busy" sends an event every 7 s for 7 minutes (then completes, when
// complete), any other goes silent after its first event.
func busyOrSilent(complete bool) func(ctx context.Context, m *a2a.Message, send func(a2a.Event) error) error {
	return func(ctx context.Context, m *a2a.Message, send func(a2a.Event) error) error {
		id := m.Parts[0].Text
		if err := send(working(id)); err != nil {
			return err
		}
		if id == "busy" {
			for range 60 {
				select {
				case <-time.After(7 * time.Second):
				case <-ctx.Done():
					return ctx.Err()
				}
				if err := send(chunk(id, "more", true)); err != nil {
					return err
				}
			}
			if complete {
				return send(state(id, a2a.StateCompleted))
			}
		}
		<-ctx.Done()
		return ctx.Err()
	}
}

// tokenCreds are a caller's per-RPC credentials: a fixed bearer token.
type tokenCreds struct{}

func (tokenCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer service-token"}, nil
}

func (tokenCreds) RequireTransportSecurity() bool { return false }

// The call's number survives what a caller's WithDialOptions do to a call:
// an interceptor that sets the call's metadata anew (the common way to add
// a token), credentials given as a default call option, an interceptor
// that adds credentials to the call's options. Each call still follows its
// own stream: the silent one beside a busy one is cut one idle timeout
// after its last event, and the caller's token still goes (a sixth
// stranger round's H1; a seventh's K1 and K2, where a call option of the
// Transport's own displaced the caller's credentials, or theirs its).
func TestIdleTimeoutIsPerCallWhateverTheDialOptions(t *testing.T) {
	replace := grpc.WithStreamInterceptor(func(ctx context.Context, d *grpc.StreamDesc, cc *grpc.ClientConn, method string, s grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		md, _ := metadata.FromOutgoingContext(ctx)
		out := metadata.Pairs("authorization", "Bearer service-token")
		if v := md.Get("a2a-version"); len(v) > 0 {
			out.Set("a2a-version", v...)
		}
		return s(metadata.NewOutgoingContext(ctx, out), d, cc, method, opts...)
	})
	addCreds := grpc.WithStreamInterceptor(func(ctx context.Context, d *grpc.StreamDesc, cc *grpc.ClientConn, method string, s grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		return s(ctx, d, cc, method, append(opts, grpc.PerRPCCredentials(tokenCreds{}))...)
	})
	for name, dial := range map[string]grpc.DialOption{
		"interceptor replaces metadata": replace,
		"default call credentials":      grpc.WithDefaultCallOptions(grpc.PerRPCCredentials(tokenCreds{})),
		"interceptor adds credentials":  addCreds,
		"connection credentials":        grpc.WithPerRPCCredentials(tokenCreds{}),
	} {
		for _, v := range versions {
			t.Run(name+"/"+string(v), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					a := newAgent(t, true, true, handlers{stream: busyOrSilent(true)})
					tr := a.client(t, a2agrpc.WithDialOptions(dial))
					call := transport.Call{Version: v, IdleTimeout: time.Minute}
					busy, err := tr.SendStream(context.Background(), call, a2a.NewTextMessage(a2a.RoleUser, "busy"))
					require.NoError(t, err)
					defer busy.Close()
					done := make(chan error)
					go func() {
						for {
							if _, err := busy.Next(); err != nil {
								done <- err
								return
							}
						}
					}()
					start := time.Now()
					silent, err := tr.SendStream(context.Background(), call, a2a.NewTextMessage(a2a.RoleUser, "silent"))
					require.NoError(t, err)
					defer silent.Close()
					_, err = silent.Next()
					require.NoError(t, err)
					_, err = silent.Next()
					require.ErrorIs(t, err, transport.ErrIdleTimeout)
					require.Equal(t, time.Minute, time.Since(start))
					require.ErrorIs(t, <-done, io.EOF, "the busy stream ran to its end")
					seen := a.seen()
					require.Len(t, seen, 2)
					for _, c := range seen {
						require.Equal(t, []string{"Bearer service-token"}, c.md.Get("authorization"), "the caller's token went")
						require.Len(t, c.md.Get("a2astream-call"), 1, "the call's number went")
					}
				})
			})
		}
	}
}

// gRPC's retries are off whatever a service config given with
// WithDialOptions says: a send the agent read, then answered UNAVAILABLE,
// is not sent again by a retry policy (a sixth stranger round's H3).
func TestARetryPolicyDoesNotSendAgain(t *testing.T) {
	const cfg = `{"methodConfig":[{"name":[{}],"retryPolicy":{"maxAttempts":4,"initialBackoff":"0.01s","maxBackoff":"0.01s","backoffMultiplier":1,"retryableStatusCodes":["UNAVAILABLE"]}}]}`
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			var sends atomic.Int32
			a := newAgent(t, true, true, handlers{stream: func(context.Context, *a2a.Message, func(a2a.Event) error) error {
				sends.Add(1)
				return status.Error(codes.Unavailable, "taken, then lost")
			}})
			tr := a.client(t, a2agrpc.WithDialOptions(grpc.WithDefaultServiceConfig(cfg)))
			r, err := tr.SendStream(context.Background(), transport.Call{Version: v}, hello())
			if err == nil {
				_, err = r.Next()
				r.Close()
			}
			require.Error(t, err)
			require.Equal(t, int32(1), sends.Load(), "sent once")
		})
	}
}

// A side call an interceptor of WithDialOptions makes on the Transport's
// connection with the call's context (an audit, a token fetch) is not
// named the call: the number goes only on a stream of the call's own
// method, so the side stream's frames do not keep a silent call alive,
// whether it opens before the call's stream or after (an eighth stranger
// round's L5). The call's own stream still carries its number.
func TestASideCallWithTheCallsContextIsNotTheCall(t *testing.T) {
	const subscribe = "/lf.a2a.v1.A2AService/SubscribeToTask"
	for _, order := range []string{"side first", "side after"} {
		t.Run(order, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				side := func(ctx context.Context, cc *grpc.ClientConn, s grpc.Streamer) {
					ss, err := s(ctx, &grpc.StreamDesc{ServerStreams: true}, cc, subscribe)
					require.NoError(t, err)
					require.NoError(t, ss.SendMsg(&pbv1.SubscribeToTaskRequest{Id: "busy"}))
					require.NoError(t, ss.CloseSend())
					go func() {
						for ss.RecvMsg(new(pbv1.StreamResponse)) == nil {
						}
					}()
				}
				ic := grpc.WithStreamInterceptor(func(ctx context.Context, d *grpc.StreamDesc, cc *grpc.ClientConn, method string, s grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
					if method == subscribe {
						return s(ctx, d, cc, method, opts...) // the side call itself
					}
					if order == "side first" {
						side(ctx, cc, s)
					}
					cs, err := s(ctx, d, cc, method, opts...)
					if order == "side after" {
						side(ctx, cc, s)
					}
					return cs, err
				})
				busy := func(ctx context.Context, id string, send func(a2a.Event) error) error {
					for range 60 {
						if err := send(working(id)); err != nil {
							return err
						}
						select {
						case <-ctx.Done(): // the side call ends with the call's context
							return ctx.Err()
						case <-time.After(7 * time.Second):
						}
					}
					return nil
				}
				a := newAgent(t, true, true, handlers{stream: busyOrSilent(true), subscribe: busy})
				tr := a.client(t, a2agrpc.WithDialOptions(ic))
				start := time.Now()
				silent, err := tr.SendStream(context.Background(), transport.Call{Version: a2a.V10, IdleTimeout: time.Minute},
					a2a.NewTextMessage(a2a.RoleUser, "silent"))
				require.NoError(t, err)
				defer silent.Close()
				_, err = silent.Next()
				require.NoError(t, err)
				_, err = silent.Next()
				require.ErrorIs(t, err, transport.ErrIdleTimeout)
				require.Equal(t, time.Minute, time.Since(start), "cut at its own idle timeout, the side stream busy")
				for _, c := range a.seen() {
					if c.method == subscribe {
						require.Empty(t, c.md.Get("a2astream-call"), "the side call is not named the call")
					} else {
						require.Len(t, c.md.Get("a2astream-call"), 1, "the call's own stream is")
					}
				}
			})
		})
	}
}
