package stream_test

// What a Transport of another module (NewClientFor) tells the driver with
// this package's markers, as this package's HTTP bindings tell it from
// their own plumbing: the agent's "not authenticated" (ErrNotAuthenticated),
// a call that could not connect (CouldNotConnect), a call the agent
// answered before it failed (Responded); and the idle timeout it is given
// in Call.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/hitl"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// errUnauthenticated is a binding's "not authenticated", as a gRPC binding
// would return it for UNAUTHENTICATED.
var errUnauthenticated = fmt.Errorf("rpc error: code = Unauthenticated desc = token expired: %w", stream.ErrNotAuthenticated)

// A subscribe the binding answers with an error wrapping
// ErrNotAuthenticated asks the credentials hook, whose headers reach the
// next subscribe; without a hook it ends the stream at once, not retried
// as a drop.
func TestBindingsNotAuthenticatedAsksTheCredentialsHook(t *testing.T) {
	for _, withHook := range []bool{true, false} {
		t.Run(fmt.Sprintf("hook %v", withHook), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var (
					mu         sync.Mutex
					subscribes []http.Header
					causes     []error
				)
				b := &funcBinding{
					sendStream: func(context.Context, stream.Call, *a2a.Message) (stream.EventReader, error) {
						return &listReader{events: []a2a.Event{bTask(a2a.StateWorking)}, end: errors.New("connection reset")}, nil
					},
					subscribe: func(_ context.Context, call stream.Call, _ string) (stream.EventReader, error) {
						mu.Lock()
						defer mu.Unlock()
						subscribes = append(subscribes, call.Header)
						if call.Header.Get("Authorization") == "" {
							return nil, errUnauthenticated
						}
						return &listReader{events: []a2a.Event{bTask(a2a.StateWorking), bStatus(a2a.StateCompleted, "")}}, nil
					},
					getTask: func(context.Context, stream.Call, string) (*a2a.Task, error) { return bTask(a2a.StateWorking), nil },
				}
				opts := []stream.Option{stream.WithVersion(a2a.V10), stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: time.Second})}
				if withHook {
					opts = append(opts, stream.WithCredentials(stream.CredentialsFunc(func(_ context.Context, req *stream.AuthRequest) (http.Header, error) {
						causes = append(causes, req.Cause)
						return http.Header{"Authorization": {"Bearer fresh"}}, nil
					})))
				}
				c, err := stream.NewClientFor(b, opts...)
				require.NoError(t, err)
				got, err := drain(t, c.Send(background(), hello()))

				if !withHook {
					require.ErrorIs(t, err, stream.ErrNotAuthenticated)
					require.Len(t, subscribes, 1, "not authenticated is not a drop: it is not retried")
					return
				}
				require.NoError(t, err)
				require.Equal(t, a2a.StateCompleted, got.task.Status.State)
				require.Len(t, causes, 1, "the hook is asked once")
				require.ErrorIs(t, causes[0], stream.ErrNotAuthenticated)
				require.Len(t, subscribes, 2)
				require.Equal(t, "Bearer fresh", subscribes[1].Get("Authorization"))
			})
		})
	}
}

// An *HTTPError of status 401, the "not authenticated" of this package's
// bindings, matches ErrNotAuthenticated; no other status does.
func TestHTTPErrorOf401IsNotAuthenticated(t *testing.T) {
	require.ErrorIs(t, &stream.HTTPError{StatusCode: http.StatusUnauthorized}, stream.ErrNotAuthenticated)
	require.ErrorIs(t, fmt.Errorf("wrapped: %w", &stream.HTTPError{StatusCode: http.StatusUnauthorized}), stream.ErrNotAuthenticated)
	for _, code := range []int{http.StatusForbidden, http.StatusNotFound, http.StatusServiceUnavailable} {
		require.NotErrorIs(t, &stream.HTTPError{StatusCode: code}, stream.ErrNotAuthenticated, code)
	}
}

// A send the binding could not connect for is sent again within the
// budget, and a stream none of whose calls connected ends in a
// *reconnect.Error that matches reconnect.ErrCouldNotConnect and names
// the binding's address. A send lost after it left is never sent again; a
// call that never left but for another reason than the connection
// (NotSent) is sent again without the stream saying it could not connect;
// and a stream that reached the agent once does not say it.
func TestBindingsCouldNotConnectIsMatchedAndSentAgain(t *testing.T) {
	refused := errors.New("dial tcp 127.0.0.1:50051: connect: connection refused")
	cases := []struct {
		name string
		// send and subscribe answer every call; subscribe nil: never reached.
		send, subscribe func() (stream.EventReader, error)
		sends           int
		couldNotConnect bool
		unreachable     string
		noTask          bool
	}{
		{
			name:            "could not connect",
			send:            func() (stream.EventReader, error) { return nil, stream.CouldNotConnect("127.0.0.1:50051", refused) },
			sends:           3,
			couldNotConnect: true,
			unreachable:     "127.0.0.1:50051",
		},
		{
			name: "lost after it left",
			send: func() (stream.EventReader, error) {
				return nil, errors.New("rpc error: code = Unavailable desc = error reading from server: EOF")
			},
			sends:  1,
			noTask: true,
		},
		{
			name:  "never left, for another reason",
			send:  func() (stream.EventReader, error) { return nil, stream.NotSent(errors.New("client-side rate limit")) },
			sends: 3,
		},
		{
			name: "connected once, then could not",
			send: func() (stream.EventReader, error) {
				return &listReader{events: []a2a.Event{bTask(a2a.StateWorking)}, end: errors.New("connection reset")}, nil
			},
			subscribe: func() (stream.EventReader, error) { return nil, stream.CouldNotConnect("127.0.0.1:50051", refused) },
			sends:     1,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var sends int
				b := &funcBinding{
					sendStream: func(context.Context, stream.Call, *a2a.Message) (stream.EventReader, error) {
						sends++
						return tc.send()
					},
				}
				if tc.subscribe != nil {
					b.subscribe = func(context.Context, stream.Call, string) (stream.EventReader, error) { return tc.subscribe() }
				}
				c, err := stream.NewClientFor(b, stream.WithVersion(a2a.V10),
					stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: time.Second}))
				require.NoError(t, err)
				_, err = drain(t, c.Send(background(), hello()))

				var re *reconnect.Error
				require.ErrorAs(t, err, &re)
				require.Equal(t, tc.sends, sends, "the message is sent again only while it provably never left")
				require.Equal(t, tc.couldNotConnect, errors.Is(err, reconnect.ErrCouldNotConnect), err.Error())
				require.Equal(t, tc.unreachable, re.Unreachable)
				require.Equal(t, tc.noTask, errors.Is(err, reconnect.ErrNoTask), err.Error())
				if tc.couldNotConnect {
					require.ErrorIs(t, err, refused, "the binding's error is the cause")
					require.Equal(t, "reconnect: could not connect to 127.0.0.1:50051, gave up after 2 attempts: "+refused.Error(), err.Error())
				}
			})
		})
	}
}

// CouldNotConnect(addr, nil) is nil; an empty address makes it NotSent:
// the call never left, but the binding named no agent to say it could not
// reach. Either way the binding's error stays visible to errors.Is and
// errors.As.
func TestCouldNotConnectWrapsTheBindingsError(t *testing.T) {
	require.NoError(t, stream.CouldNotConnect("127.0.0.1:50051", nil))
	cause := &a2a.RPCError{Code: a2a.CodeInternalError, Message: "unavailable"}
	for _, addr := range []string{"127.0.0.1:50051", ""} {
		err := stream.CouldNotConnect(addr, cause)
		require.ErrorIs(t, err, cause)
		require.Equal(t, cause.Error(), err.Error())
		require.NotErrorIs(t, err, reconnect.ErrCouldNotConnect, "one call's error does not say the stream could not connect")
	}
	require.NoError(t, stream.Responded(nil))
	require.ErrorIs(t, stream.Responded(cause), cause)
	require.Equal(t, cause.Error(), stream.Responded(cause).Error())
}

// A reply whose streaming send failed after the agent responded
// (Responded) may have been taken: when a resubscribe still shows the
// prompt, it is not sent again. A reply whose send failed with no word of
// a response is sent again there, as the HTTP bindings do for a send that
// got no response.
func TestBindingsRespondedReplyIsNotSentAgain(t *testing.T) {
	cut := errors.New("rpc error: code = Unavailable desc = error reading from server: EOF")
	cases := []struct {
		name    string
		err     error
		replies int
	}{
		{"no response", cut, 2},
		{"responded", stream.Responded(cut), 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				prompt := bStatus(a2a.StateInputRequired, "which city?")
				prompt.Status.Message.ID = "q-1"
				var replies int
				b := &funcBinding{
					sendStream: func(_ context.Context, _ stream.Call, m *a2a.Message) (stream.EventReader, error) {
						if m.TaskID == "" {
							return &listReader{events: []a2a.Event{bTask(a2a.StateSubmitted), prompt}}, nil
						}
						replies++
						if replies == 1 {
							return nil, tc.err
						}
						return &listReader{events: []a2a.Event{bStatus(a2a.StateWorking, ""), bStatus(a2a.StateCompleted, "")}}, nil
					},
					subscribe: func(context.Context, stream.Call, string) (stream.EventReader, error) {
						// The task as it stood before the reply: it still
						// shows the prompt, and lists no reply.
						snap := bTask(a2a.StateInputRequired)
						snap.Status = prompt.Status
						return &listReader{events: []a2a.Event{snap, bStatus(a2a.StateWorking, ""), bStatus(a2a.StateCompleted, "")}}, nil
					},
				}
				hook := hitl.Func(func(context.Context, *hitl.Request) ([]a2a.Part, error) { return hitl.Text("Lisbon"), nil })
				c, err := stream.NewClientFor(b, stream.WithVersion(a2a.V10), stream.WithHumanInput(hook),
					stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: time.Second}))
				require.NoError(t, err)
				got, err := drain(t, c.Send(background(), hello()))
				require.NoError(t, err)
				require.Equal(t, a2a.StateCompleted, got.task.Status.State)
				require.Equal(t, tc.replies, replies)
			})
		})
	}
}

// A binding gets the idle timeout of its call in Call.IdleTimeout: the
// Client's, or the stream's own; GetTask and Cancel, which refuse a
// per-call WithIdleTimeout, get the Client's. A binding that times its
// reader with it drops a silent stream after that long.
func TestCallIdleTimeoutGivesABindingTheIdleTimeoutOfItsCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var got []time.Duration
		b := &funcBinding{
			sendStream: func(_ context.Context, call stream.Call, _ *a2a.Message) (stream.EventReader, error) {
				got = append(got, call.IdleTimeout)
				return &listReader{events: []a2a.Event{bTask(a2a.StateSubmitted), bStatus(a2a.StateCompleted, "")}}, nil
			},
			getTask: func(_ context.Context, call stream.Call, _ string) (*a2a.Task, error) {
				got = append(got, call.IdleTimeout)
				return bTask(a2a.StateCompleted), nil
			},
		}
		c, err := stream.NewClientFor(b, stream.WithVersion(a2a.V10), stream.WithIdleTimeout(5*time.Second))
		require.NoError(t, err)
		_, err = c.Send(background(), hello()).Wait()
		require.NoError(t, err)
		_, err = c.Send(background(), hello(), stream.WithIdleTimeout(7*time.Second)).Wait()
		require.NoError(t, err)
		_, err = c.GetTask(background(), "t-1")
		require.NoError(t, err)
		require.Equal(t, []time.Duration{5 * time.Second, 7 * time.Second, 5 * time.Second}, got)

		none, err := stream.NewClientFor(b, stream.WithVersion(a2a.V10))
		require.NoError(t, err)
		_, err = none.Send(background(), hello()).Wait()
		require.NoError(t, err)
		require.Equal(t, time.Duration(0), got[len(got)-1], "no idle timeout unless one is given")
	})

	synctest.Test(t, func(t *testing.T) {
		b := &funcBinding{
			sendStream: func(_ context.Context, call stream.Call, _ *a2a.Message) (stream.EventReader, error) {
				return &selfTimedReader{events: []a2a.Event{bTask(a2a.StateSubmitted)}, idle: call.IdleTimeout}, nil
			},
		}
		requireIdleTimeoutEndsSilence(t, b, stream.WithIdleTimeout(10*time.Second))
	})
}
