package a2agrpc_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/a2astream/a2astream/a2a"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	pbv03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	pbv1 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/transport"
)

var versions = []a2a.Version{a2a.V10, a2a.V03}

func working(id string) *a2a.Task {
	return &a2a.Task{ID: id, ContextID: "c-1", Status: a2a.TaskStatus{State: a2a.StateWorking}}
}

func chunk(id, text string, appendIt bool) *a2a.ArtifactUpdate {
	return &a2a.ArtifactUpdate{TaskID: id, ContextID: "c-1", Append: appendIt,
		Artifact: a2a.Artifact{ID: "answer", Parts: []a2a.Part{{Text: text}}}}
}

func state(id string, s a2a.TaskState) *a2a.StatusUpdate {
	return &a2a.StatusUpdate{TaskID: id, ContextID: "c-1", Status: a2a.TaskStatus{State: s}}
}

func sendAll(send func(a2a.Event) error, evs ...a2a.Event) error {
	for _, e := range evs {
		if err := send(e); err != nil {
			return err
		}
	}
	return nil
}

// readAll reads r to its end and closes it.
func readAll(t *testing.T, r transport.EventReader) ([]a2a.Event, error) {
	t.Helper()
	defer r.Close()
	var evs []a2a.Event
	for {
		ev, err := r.Next()
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

func hello() *a2a.Message { return a2a.NewTextMessage(a2a.RoleUser, "hello") }

// A streaming send on either version: the events in order, then io.EOF;
// the method of the version's service; a2a-version on 1.0 calls only.
func TestSendStreamBothVersions(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			a := newAgent(t, true, true, handlers{stream: func(_ context.Context, m *a2a.Message, send func(a2a.Event) error) error {
				if m.Parts[0].Text != "hello" {
					return status.Error(codes.InvalidArgument, "unexpected message")
				}
				return sendAll(send, working("t-1"), chunk("t-1", "Hello, ", false), chunk("t-1", "world", true), state("t-1", a2a.StateCompleted))
			}})
			tr := a.client(t)
			r, err := tr.SendStream(context.Background(), transport.Call{Version: v}, hello())
			require.NoError(t, err)
			evs, err := readAll(t, r)
			require.Equal(t, io.EOF, err)
			require.Len(t, evs, 4)
			require.Equal(t, "t-1", evs[0].(*a2a.Task).ID)
			require.Equal(t, "world", evs[2].(*a2a.ArtifactUpdate).Artifact.Parts[0].Text)
			require.True(t, evs[2].(*a2a.ArtifactUpdate).Append)
			require.Equal(t, a2a.StateCompleted, evs[3].(*a2a.StatusUpdate).Status.State)

			seen := a.seen()
			require.Len(t, seen, 1)
			if v == a2a.V10 {
				require.Equal(t, "/lf.a2a.v1.A2AService/SendStreamingMessage", seen[0].method)
				require.Equal(t, []string{"1.0"}, seen[0].md.Get("a2a-version"))
			} else {
				require.Equal(t, "/a2a.v1.A2AService/SendStreamingMessage", seen[0].method)
				require.Empty(t, seen[0].md.Get("a2a-version"))
			}
		})
	}
}

// A subscribe answered with the task's snapshot first, then the live
// events; GetTask, Cancel and SendUnary read their answers.
func TestSubscribeAndUnaryCalls(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			snapshot := working("t-1")
			snapshot.Artifacts = []a2a.Artifact{{ID: "answer", Parts: []a2a.Part{{Text: "Hello, "}}}}
			a := newAgent(t, true, true, handlers{
				subscribe: func(_ context.Context, id string, send func(a2a.Event) error) error {
					if id != "t-1" {
						return status.Error(codes.NotFound, "no such task")
					}
					return sendAll(send, snapshot, chunk("t-1", "world", true), state("t-1", a2a.StateCompleted))
				},
				get: func(_ context.Context, id string) (*a2a.Task, error) { return snapshot, nil },
				cancel: func(_ context.Context, id string) (*a2a.Task, error) {
					t := working(id)
					t.Status.State = a2a.StateCanceled
					return t, nil
				},
				unary: func(context.Context, *a2a.Message) (a2a.Event, error) { return working("t-2"), nil },
			})
			tr := a.client(t)
			call := transport.Call{Version: v}
			r, err := tr.Subscribe(context.Background(), call, "t-1")
			require.NoError(t, err)
			evs, err := readAll(t, r)
			require.Equal(t, io.EOF, err)
			require.Len(t, evs, 3)
			require.Equal(t, "Hello, ", evs[0].(*a2a.Task).Artifacts[0].Parts[0].Text)

			got, err := tr.GetTask(context.Background(), call, "t-1")
			require.NoError(t, err)
			require.Equal(t, "t-1", got.ID)
			canceled, err := tr.Cancel(context.Background(), call, "t-1")
			require.NoError(t, err)
			require.Equal(t, a2a.StateCanceled, canceled.Status.State)
			ev, err := tr.SendUnary(context.Background(), call, hello())
			require.NoError(t, err)
			require.Equal(t, "t-2", ev.(*a2a.Task).ID)

			_, err = tr.Subscribe(context.Background(), call, "t-9")
			require.ErrorIs(t, err, &a2a.RPCError{Code: a2a.CodeTaskNotFound})
		})
	}
}

// A connection lost mid-stream is a drop: a *StatusError of UNAVAILABLE with
// no A2A meaning (never busy), marked as answered, not as unsent.
func TestDropMidStream(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			a := newAgent(t, true, true, handlers{stream: func(ctx context.Context, _ *a2a.Message, send func(a2a.Event) error) error {
				if err := sendAll(send, working("t-1"), chunk("t-1", "Hello, ", false)); err != nil {
					return err
				}
				<-ctx.Done()
				return ctx.Err()
			}})
			tr := a.client(t)
			r, err := tr.SendStream(context.Background(), transport.Call{Version: v}, hello())
			require.NoError(t, err)
			defer r.Close()
			for range 2 {
				_, err := r.Next()
				require.NoError(t, err)
			}
			a.cut()
			_, err = r.Next()
			require.Error(t, err)
			var se *a2agrpc.StatusError
			require.ErrorAs(t, err, &se)
			require.Equal(t, codes.Unavailable, se.Code)
			require.NoError(t, se.Err)
			var rpcErr *a2a.RPCError
			require.False(t, errors.As(err, &rpcErr), "a lost connection is no A2A error (never busy)")
			require.Equal(t, codes.Unavailable, status.Code(err))
			// Next after the end says the same again.
			_, again := r.Next()
			require.Equal(t, err, again)
		})
	}
}

func statusWith(t *testing.T, c codes.Code, msg string, details ...*errdetails.ErrorInfo) *status.Status {
	t.Helper()
	st := status.New(c, msg)
	for _, d := range details {
		var err error
		st, err = st.WithDetails(d)
		require.NoError(t, err)
	}
	return st
}

func a2aInfo(reason string) *errdetails.ErrorInfo {
	return &errdetails.ErrorInfo{Reason: reason, Domain: "a2a-protocol.org"}
}

// What each status reads as, with and without A2A details, on a subscribe
// and on a cancel (where FAILED_PRECONDITION without details differs).
func TestStatusTable(t *testing.T) {
	const (
		plain  = 0 // no A2A meaning: a drop
		noAuth = 1 // transport.ErrNotAuthenticated
		denied = 2 // transport.ErrPermissionDenied, no A2A meaning
	)
	tests := []struct {
		name   string
		st     func(t *testing.T) *status.Status
		cancel bool
		want   int // an A2A code, or plain, or noAuth
	}{
		{"1.0 task not found", func(t *testing.T) *status.Status {
			return statusWith(t, codes.NotFound, "gone", a2aInfo("TASK_NOT_FOUND"))
		}, false, a2a.CodeTaskNotFound},
		{"1.0 unsupported operation", func(t *testing.T) *status.Status {
			return statusWith(t, codes.FailedPrecondition, "terminal", a2aInfo("UNSUPPORTED_OPERATION"))
		}, false, a2a.CodeUnsupportedOperation},
		{"1.0 version not supported", func(t *testing.T) *status.Status {
			return statusWith(t, codes.FailedPrecondition, "version", a2aInfo("VERSION_NOT_SUPPORTED"))
		}, false, a2a.CodeVersionNotSupported},
		{"1.0 not cancelable", func(t *testing.T) *status.Status {
			return statusWith(t, codes.FailedPrecondition, "done", a2aInfo("TASK_NOT_CANCELABLE"))
		}, true, a2a.CodeTaskNotCancelable},
		{"1.0 invalid params", func(t *testing.T) *status.Status {
			return statusWith(t, codes.InvalidArgument, "bad", a2aInfo("INVALID_PARAMS"))
		}, false, a2a.CodeInvalidParams},
		{"ErrorInfo of another domain reads by code", func(t *testing.T) *status.Status {
			return statusWith(t, codes.NotFound, "x", &errdetails.ErrorInfo{Reason: "TASK_NOT_FOUND", Domain: "example.com"})
		}, false, a2a.CodeTaskNotFound},
		{"0.3 not found", func(*testing.T) *status.Status { return status.New(codes.NotFound, "task not found") }, false, a2a.CodeTaskNotFound},
		{"0.3 invalid argument", func(*testing.T) *status.Status { return status.New(codes.InvalidArgument, "bad") }, false, a2a.CodeInvalidParams},
		{"0.3 unimplemented by the agent", func(*testing.T) *status.Status {
			return status.New(codes.Unimplemented, "This operation is not supported")
		}, false, a2a.CodeUnsupportedOperation},
		{"grpc-go unknown service", func(*testing.T) *status.Status {
			return status.New(codes.Unimplemented, "unknown service lf.a2a.v1.A2AService")
		}, false, a2a.CodeMethodNotFound},
		{"grpc-js no such method", func(*testing.T) *status.Status {
			return status.New(codes.Unimplemented, "The server does not implement the method /lf.a2a.v1.A2AService/SubscribeToTask")
		}, false, a2a.CodeMethodNotFound},
		{"0.3 failed precondition on a subscribe", func(*testing.T) *status.Status {
			return status.New(codes.FailedPrecondition, "no")
		}, false, a2a.CodeUnsupportedOperation},
		{"0.3 failed precondition on a cancel", func(*testing.T) *status.Status {
			return status.New(codes.FailedPrecondition, "no")
		}, true, a2a.CodeTaskNotCancelable},
		{"unauthenticated", func(*testing.T) *status.Status { return status.New(codes.Unauthenticated, "who?") }, false, noAuth},
		{"unauthenticated with details", func(t *testing.T) *status.Status {
			return statusWith(t, codes.Unauthenticated, "who?", a2aInfo("INVALID_PARAMS"))
		}, false, noAuth},
		{"server's unavailable", func(*testing.T) *status.Status { return status.New(codes.Unavailable, "later") }, false, plain},
		{"internal", func(*testing.T) *status.Status { return status.New(codes.Internal, "boom") }, false, plain},
		{"permission denied", func(*testing.T) *status.Status { return status.New(codes.PermissionDenied, "no") }, false, denied},
		{"an A2A reason A2A does not define reads by code: ABORTED a drop", func(t *testing.T) *status.Status {
			return statusWith(t, codes.Aborted, "try again", a2aInfo("SOME_LATER_REASON"))
		}, false, plain},
		{"an A2A reason A2A does not define reads by code: NOT_FOUND", func(t *testing.T) *status.Status {
			return statusWith(t, codes.NotFound, "gone", a2aInfo("SOME_LATER_REASON"))
		}, false, a2a.CodeTaskNotFound},
		{"permission denied with details", func(t *testing.T) *status.Status {
			return statusWith(t, codes.PermissionDenied, "not yours", a2aInfo("TASK_NOT_FOUND"))
		}, false, a2a.CodeTaskNotFound},
	}
	for _, tt := range tests {
		for _, v := range versions {
			t.Run(tt.name+"/"+string(v), func(t *testing.T) {
				st := tt.st(t)
				a := newAgent(t, true, true, handlers{
					subscribe: func(context.Context, string, func(a2a.Event) error) error { return st.Err() },
					cancel:    func(context.Context, string) (*a2a.Task, error) { return nil, st.Err() },
				})
				tr := a.client(t)
				var err error
				if tt.cancel {
					_, err = tr.Cancel(context.Background(), transport.Call{Version: v}, "t-1")
				} else {
					var r transport.EventReader
					r, err = tr.Subscribe(context.Background(), transport.Call{Version: v}, "t-1")
					require.Nil(t, r)
				}
				var se *a2agrpc.StatusError
				require.ErrorAs(t, err, &se)
				require.Equal(t, st.Code(), se.Code)
				require.Equal(t, st.Code(), status.Code(err))
				var rpcErr *a2a.RPCError
				require.Equal(t, st.Code() == codes.PermissionDenied, errors.Is(err, transport.ErrPermissionDenied), "permission denied matches its code, details or none")
				switch tt.want {
				case plain, denied:
					require.NoError(t, se.Err)
					require.False(t, errors.As(err, &rpcErr))
				case noAuth:
					require.ErrorIs(t, err, transport.ErrNotAuthenticated)
					require.False(t, errors.As(err, &rpcErr))
				default:
					require.ErrorAs(t, err, &rpcErr)
					require.Equal(t, tt.want, rpcErr.Code)
					require.False(t, rpcErr.Retryable())
				}
			})
		}
	}
}

// RESOURCE_EXHAUSTED is busy (a retryable error), and a RetryInfo's delay is
// read as the retry hint, as Retry-After is over HTTP.
func TestBusyAndRetryInfo(t *testing.T) {
	withRetry, err := status.New(codes.Unavailable, "overloaded").WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(5 * time.Second)})
	require.NoError(t, err)
	withReason, err := statusWith(t, codes.NotFound, "gone", a2aInfo("TASK_NOT_FOUND")).WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(3 * time.Second)})
	require.NoError(t, err)
	tests := []struct {
		name  string
		st    *status.Status
		code  int
		after time.Duration
	}{
		{"resource exhausted", status.New(codes.ResourceExhausted, "slow down"), a2a.CodeInternalError, 0},
		{"retry info", withRetry, a2a.CodeInternalError, 5 * time.Second},
		{"retry info with an A2A reason", withReason, a2a.CodeTaskNotFound, 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAgent(t, true, false, handlers{stream: func(context.Context, *a2a.Message, func(a2a.Event) error) error { return tt.st.Err() }})
			_, err := a.client(t).SendStream(context.Background(), transport.Call{Version: a2a.V10}, hello())
			var rpcErr *a2a.RPCError
			require.ErrorAs(t, err, &rpcErr)
			require.Equal(t, tt.code, rpcErr.Code)
			require.True(t, rpcErr.Retryable())
			require.Equal(t, tt.after, rpcErr.RetryAfter())
		})
	}
}

// A RetryInfo whose delay is no valid Duration (seconds out of range, or
// seconds and nanos of other signs) is no hint: the status means what its
// code and its other details say. (A stranger's red-team found it read as
// a fatal internal error that hid the A2A reason.)
func TestABadRetryInfoIsIgnored(t *testing.T) {
	for name, d := range map[string]*durationpb.Duration{
		"seconds out of range": {Seconds: 1 << 62},
		"signs differ":         {Seconds: 1, Nanos: -5},
	} {
		t.Run(name, func(t *testing.T) {
			unavailable, err := status.New(codes.Unavailable, "restarting").WithDetails(&errdetails.RetryInfo{RetryDelay: d})
			require.NoError(t, err)
			notFound, err := statusWith(t, codes.NotFound, "gone", a2aInfo("TASK_NOT_FOUND")).WithDetails(&errdetails.RetryInfo{RetryDelay: d})
			require.NoError(t, err)

			a := newAgent(t, true, false, handlers{stream: func(context.Context, *a2a.Message, func(a2a.Event) error) error { return unavailable.Err() }})
			_, err = a.client(t).SendStream(context.Background(), transport.Call{Version: a2a.V10}, hello())
			require.Error(t, err)
			var rpcErr *a2a.RPCError
			require.False(t, errors.As(err, &rpcErr), "UNAVAILABLE without a valid hint is a drop: %v", err)

			a = newAgent(t, true, false, handlers{stream: func(context.Context, *a2a.Message, func(a2a.Event) error) error { return notFound.Err() }})
			_, err = a.client(t).SendStream(context.Background(), transport.Call{Version: a2a.V10}, hello())
			require.ErrorAs(t, err, &rpcErr)
			require.Equal(t, a2a.CodeTaskNotFound, rpcErr.Code)
			require.Zero(t, rpcErr.RetryAfter())
		})
	}
}

// A 1.0 call to a server of 0.3 only is method not found, which the Client
// reads as a refusal of the version.
func TestOneZeroCallToAZeroThreeServer(t *testing.T) {
	a := newAgent(t, false, true, handlers{stream: func(_ context.Context, _ *a2a.Message, send func(a2a.Event) error) error {
		return sendAll(send, working("t-1"))
	}})
	tr := a.client(t)
	_, err := tr.SendStream(context.Background(), transport.Call{Version: a2a.V10}, hello())
	require.ErrorIs(t, err, &a2a.RPCError{Code: a2a.CodeMethodNotFound})
	require.Equal(t, codes.Unimplemented, status.Code(err))
	r, err := tr.SendStream(context.Background(), transport.Call{Version: a2a.V03}, hello())
	require.NoError(t, err)
	evs, err := readAll(t, r)
	require.Equal(t, io.EOF, err)
	require.Len(t, evs, 1)
}

// A refused dial fails from NewStream: UNAVAILABLE, before anything was
// sent (the driver's test in driver_test.go shows it read as such).
func TestRefusedDial(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	tr, err := a2agrpc.New(addr, a2agrpc.WithInsecure())
	require.NoError(t, err)
	defer tr.Close()
	_, err = tr.SendStream(context.Background(), transport.Call{Version: a2a.V10}, hello())
	require.Equal(t, codes.Unavailable, status.Code(err))
	require.Contains(t, err.Error(), addr)
}

// A connection that does not come up within the connect timeout: an error
// wrapping transport.ErrConnectTimeout.
func TestConnectTimeout(t *testing.T) {
	tr, err := a2agrpc.New("passthrough:///blackhole", a2agrpc.WithInsecure(),
		a2agrpc.WithConnectTimeout(20*time.Millisecond),
		a2agrpc.WithDialOptions(grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			<-ctx.Done() // a black-holed agent
			return nil, ctx.Err()
		})))
	require.NoError(t, err)
	defer tr.Close()
	_, err = tr.GetTask(context.Background(), transport.Call{Version: a2a.V10}, "t-1")
	require.ErrorIs(t, err, transport.ErrConnectTimeout)
}

// The caller's context ending is its own error.
func TestCallerCancel(t *testing.T) {
	a := newAgent(t, true, false, handlers{stream: func(ctx context.Context, _ *a2a.Message, send func(a2a.Event) error) error {
		if err := send(working("t-1")); err != nil {
			return err
		}
		<-ctx.Done()
		return nil
	}})
	ctx, cancel := context.WithCancel(context.Background())
	r, err := a.client(t).SendStream(ctx, transport.Call{Version: a2a.V10}, hello())
	require.NoError(t, err)
	defer r.Close()
	_, err = r.Next()
	require.NoError(t, err)
	cancel()
	_, err = r.Next()
	require.Equal(t, context.Canceled, err)
}

// Headers go as metadata with lower-case names; reserved names are dropped;
// one gRPC metadata cannot carry is refused before anything is sent.
func TestHeadersAsMetadata(t *testing.T) {
	a := newAgent(t, true, true, handlers{get: func(context.Context, string) (*a2a.Task, error) { return working("t-1"), nil }})
	tr := a.client(t)
	h := http.Header{}
	h.Set("Authorization", "Bearer s3cret")
	h.Add("X-Trace", "a")
	h.Add("X-Trace", "b")
	h.Set("Content-Type", "text/plain")
	h.Set("User-Agent", "mine")
	h.Set("Te", "gzip")
	h.Set("Grpc-Timeout", "1S")
	h.Set("A2a-Version", "0.3")
	h[":authority"] = []string{"evil.example"}
	h.Set("Key-Bin", "\x00\x01")
	for _, v := range versions {
		_, err := tr.GetTask(context.Background(), transport.Call{Version: v, Header: h}, "t-1")
		require.NoError(t, err)
	}
	seen := a.seen()
	require.Len(t, seen, 2)
	for i, c := range seen {
		md := c.md
		require.Equal(t, []string{"Bearer s3cret"}, md.Get("authorization"))
		require.Equal(t, []string{"a", "b"}, md.Get("x-trace"))
		require.Equal(t, []string{"application/grpc"}, md.Get("content-type"))
		require.NotContains(t, md.Get("user-agent")[0], "mine")
		require.Empty(t, md.Get("te"))
		require.Empty(t, md.Get("grpc-timeout"))
		require.Empty(t, md.Get(":authority-x"))
		require.NotEqual(t, []string{"evil.example"}, md.Get(":authority"))
		require.Equal(t, []string{"\x00\x01"}, md.Get("key-bin"))
		if i == 0 {
			require.Equal(t, []string{"1.0"}, md.Get("a2a-version"))
		} else {
			require.Empty(t, md.Get("a2a-version"))
		}
	}

	for name, hdr := range map[string]http.Header{
		"value":  {"X-Key": {"line\nbreak"}},
		"name":   {"X Key": {"v"}},
		"emptyk": {"": {"v"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tr.GetTask(context.Background(), transport.Call{Version: a2a.V10, Header: hdr}, "t-1")
			var he *a2agrpc.HeaderError
			require.ErrorAs(t, err, &he)
			require.ErrorIs(t, err, transport.ErrInvalidMessage)
			require.NotContains(t, err.Error(), "line\nbreak")
		})
	}
	require.Len(t, a.seen(), 2, "a refused header sends nothing")
}

// Headers of one call go with that call only: the Transport keeps none.
func TestHeadersArePerCall(t *testing.T) {
	a := newAgent(t, true, false, handlers{get: func(context.Context, string) (*a2a.Task, error) { return working("t-1"), nil }})
	tr := a.client(t)
	_, err := tr.GetTask(context.Background(), transport.Call{Version: a2a.V10, Header: http.Header{"Authorization": {"Bearer 1"}}}, "t-1")
	require.NoError(t, err)
	_, err = tr.GetTask(context.Background(), transport.Call{Version: a2a.V10}, "t-1")
	require.NoError(t, err)
	seen := a.seen()
	require.Equal(t, []string{"Bearer 1"}, seen[0].md.Get("authorization"))
	require.Empty(t, seen[1].md.Get("authorization"))
}

func TestOptionsRefused(t *testing.T) {
	tests := map[string]struct {
		target string
		opts   []a2agrpc.Option
		option string
	}{
		"empty target":     {"", []a2agrpc.Option{a2agrpc.WithInsecure()}, "New"},
		"no credentials":   {"127.0.0.1:1", nil, "New"},
		"both credentials": {"127.0.0.1:1", []a2agrpc.Option{a2agrpc.WithInsecure(), a2agrpc.WithTransportCredentials(insecureCreds())}, "New"},
		"nil credentials":  {"127.0.0.1:1", []a2agrpc.Option{a2agrpc.WithTransportCredentials(nil)}, "WithTransportCredentials"},
		"negative connect": {"127.0.0.1:1", []a2agrpc.Option{a2agrpc.WithInsecure(), a2agrpc.WithConnectTimeout(-1)}, "WithConnectTimeout"},
		"nil dial option":  {"127.0.0.1:1", []a2agrpc.Option{a2agrpc.WithInsecure(), a2agrpc.WithDialOptions(nil)}, "WithDialOptions"},
		"nil option":       {"127.0.0.1:1", []a2agrpc.Option{a2agrpc.WithInsecure(), nil}, "New"},
		"zero max message": {"127.0.0.1:1", []a2agrpc.Option{a2agrpc.WithInsecure(), a2agrpc.WithMaxMessageSize(0)}, "WithMaxMessageSize"},
		// gRPC panics on a nil inside its own option (an eighth stranger round's L4).
		"nil inside a dial option": {"127.0.0.1:1", []a2agrpc.Option{a2agrpc.WithInsecure(), a2agrpc.WithDialOptions(grpc.WithPerRPCCredentials(nil))}, "WithDialOptions"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			tr, err := a2agrpc.New(tt.target, tt.opts...)
			require.Nil(t, tr)
			require.ErrorIs(t, err, a2agrpc.ErrInvalidOption)
			var oe *a2agrpc.OptionError
			require.ErrorAs(t, err, &oe)
			require.Equal(t, tt.option, oe.Option)
		})
	}
}

// A nil inside an option of WithDialOptions that gRPC reads only as a call
// opens (a nil interceptor, a nil call option) makes gRPC panic there; the
// call ends with an *OptionError instead, and nothing reaches the agent
// (an eighth stranger round's L4).
func TestANilInsideADialOptionFailsTheCall(t *testing.T) {
	for name, dial := range map[string]grpc.DialOption{
		"nil interceptor": grpc.WithChainStreamInterceptor(nil),
		"nil call option": grpc.WithDefaultCallOptions(nil),
	} {
		t.Run(name, func(t *testing.T) {
			a := newAgent(t, true, true, handlers{})
			tr := a.client(t, a2agrpc.WithDialOptions(dial))
			r, err := tr.SendStream(context.Background(), transport.Call{Version: a2a.V10}, hello())
			require.Nil(t, r)
			require.ErrorIs(t, err, a2agrpc.ErrInvalidOption)
			var oe *a2agrpc.OptionError
			require.ErrorAs(t, err, &oe)
			require.Equal(t, "WithDialOptions", oe.Option)
			_, err = tr.GetTask(context.Background(), transport.Call{Version: a2a.V10}, "t-1")
			require.ErrorIs(t, err, a2agrpc.ErrInvalidOption)
			require.Empty(t, a.seen(), "nothing reached the agent")

			// Through the driver, the stream ends with it.
			_, err = newClient(t, tr).Send(context.Background(), hello()).Wait()
			require.ErrorIs(t, err, a2agrpc.ErrInvalidOption)
			require.ErrorIs(t, err, transport.ErrMisconfigured)
			var lost *reconnect.Error
			require.False(t, errors.As(err, &lost), "the caller's option, not a lost connection: %v", err)
			require.Empty(t, a.seen(), "nothing reached the agent")
		})
	}
}

// countingBreaker lets calls through, or refuses them, and records what
// it is told.
type countingBreaker struct {
	mu      sync.Mutex
	refuse  error
	allowed int
	results []error
}

func (b *countingBreaker) Allow() (func(error), error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.refuse != nil {
		return nil, b.refuse
	}
	b.allowed++
	return func(err error) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.results = append(b.results, err)
	}, nil
}

func TestBreaker(t *testing.T) {
	a := newAgent(t, true, false, handlers{
		get: func(_ context.Context, id string) (*a2a.Task, error) {
			if id == "busy" {
				return nil, status.Error(codes.Unavailable, "down")
			}
			if id == "none" {
				return nil, status.Error(codes.NotFound, "none")
			}
			return working(id), nil
		},
		stream: func(_ context.Context, _ *a2a.Message, send func(a2a.Event) error) error {
			return send(working("t-1"))
		},
	})
	b := &countingBreaker{}
	tr := a.client(t, a2agrpc.WithBreaker(b))
	call := transport.Call{Version: a2a.V10}
	_, err := tr.GetTask(context.Background(), call, "t-1")
	require.NoError(t, err)
	_, err = tr.GetTask(context.Background(), call, "busy")
	require.Error(t, err)
	_, err = tr.GetTask(context.Background(), call, "none")
	require.Error(t, err)
	r, err := tr.SendStream(context.Background(), call, hello())
	require.NoError(t, err)
	_, err = readAll(t, r)
	require.Equal(t, io.EOF, err)
	b.mu.Lock()
	require.Equal(t, 4, b.allowed)
	require.Len(t, b.results, 4)
	require.NoError(t, b.results[0])
	require.Equal(t, codes.Unavailable, status.Code(b.results[1]))
	require.NoError(t, b.results[2], "the agent's answer is no failure of the agent")
	require.NoError(t, b.results[3])
	b.refuse = errors.New("open")
	b.mu.Unlock()

	before := len(a.seen())
	_, err = tr.GetTask(context.Background(), call, "t-1")
	require.ErrorIs(t, err, transport.ErrCircuitOpen)
	require.Len(t, a.seen(), before)
}

func insecureCreds() credentials.TransportCredentials { return insecure.NewCredentials() }

// A message over the size limit ends the call as a protocol error, never as
// busy: RESOURCE_EXHAUSTED of grpc-go's own limit is no agent's answer.
func TestMessageTooLarge(t *testing.T) {
	big := strings.Repeat("x", 2048)
	a := newAgent(t, true, false, handlers{
		stream: func(_ context.Context, _ *a2a.Message, send func(a2a.Event) error) error {
			return sendAll(send, working("t-1"), chunk("t-1", big, false))
		},
		get: func(_ context.Context, id string) (*a2a.Task, error) {
			task := working(id)
			task.Artifacts = []a2a.Artifact{{ID: "answer", Parts: []a2a.Part{{Text: big}}}}
			return task, nil
		},
	})
	tr := a.client(t, a2agrpc.WithMaxMessageSize(1024))
	call := transport.Call{Version: a2a.V10}
	r, err := tr.SendStream(context.Background(), call, hello())
	require.NoError(t, err)
	evs, err := readAll(t, r)
	require.Len(t, evs, 1)
	var pe *transport.ProtocolError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "event too large", pe.Reason)
	var rpcErr *a2a.RPCError
	require.False(t, errors.As(err, &rpcErr))

	_, err = tr.GetTask(context.Background(), call, "t-1")
	require.ErrorAs(t, err, &pe)

	// The default is 16 MiB, not grpc-go's 4 MiB.
	huge := strings.Repeat("y", 5<<20)
	b := newAgent(t, true, false, handlers{get: func(_ context.Context, id string) (*a2a.Task, error) {
		task := working(id)
		task.Artifacts = []a2a.Artifact{{ID: "answer", Parts: []a2a.Part{{Text: huge}}}}
		return task, nil
	}})
	got, err := b.client(t).GetTask(context.Background(), call, "t-1")
	require.NoError(t, err)
	require.Len(t, got.Artifacts[0].Parts[0].Text, 5<<20)

	// The agent refusing the request for its size: the caller's message
	// cannot be sent, never busy.
	small := newAgent(t, true, false, handlers{stream: func(_ context.Context, _ *a2a.Message, send func(a2a.Event) error) error {
		return send(working("t-1"))
	}}, grpc.MaxRecvMsgSize(1024))
	_, err = small.client(t).SendStream(context.Background(), call, a2a.NewTextMessage(a2a.RoleUser, big))
	require.ErrorIs(t, err, transport.ErrInvalidMessage)
	require.False(t, errors.As(err, &rpcErr))
}

// A task ID no request can name (empty, or with a "/" in 0.3) came from the
// agent: a protocol error, and nothing is sent.
func TestUnnameableTaskID(t *testing.T) {
	a := newAgent(t, true, true, handlers{get: func(_ context.Context, id string) (*a2a.Task, error) { return working(id), nil }})
	tr := a.client(t)
	for _, tt := range []struct {
		v  a2a.Version
		id string
	}{{a2a.V10, ""}, {a2a.V03, ""}, {a2a.V03, "a/b"}} {
		_, err := tr.GetTask(context.Background(), transport.Call{Version: tt.v}, tt.id)
		var pe *transport.ProtocolError
		require.ErrorAs(t, err, &pe, "%s %q", tt.v, tt.id)
		_, err = tr.Subscribe(context.Background(), transport.Call{Version: tt.v}, tt.id)
		require.ErrorAs(t, err, &pe)
		_, err = tr.Cancel(context.Background(), transport.Call{Version: tt.v}, tt.id)
		require.ErrorAs(t, err, &pe)
	}
	require.Empty(t, a.seen())
}

// A message the proto cannot carry is the caller's error: nothing is sent.
func TestUnsendableMessage(t *testing.T) {
	a := newAgent(t, true, true, handlers{})
	tr := a.client(t)
	bad := &a2a.Message{Role: a2a.RoleUser, ID: "m-1", Parts: []a2a.Part{{Data: []byte("{not json")}}}
	for _, v := range versions {
		_, err := tr.SendStream(context.Background(), transport.Call{Version: v}, bad)
		require.ErrorIs(t, err, transport.ErrInvalidMessage)
		_, err = tr.SendUnary(context.Background(), transport.Call{Version: v}, bad)
		require.ErrorIs(t, err, transport.ErrInvalidMessage)
	}
	require.Empty(t, a.seen())
}

// SendUnary reads a message answer too.
func TestSendUnaryMessageAnswer(t *testing.T) {
	a := newAgent(t, true, true, handlers{unary: func(context.Context, *a2a.Message) (a2a.Event, error) {
		return a2a.NewTextMessage(a2a.RoleAgent, "hi"), nil
	}})
	tr := a.client(t)
	for _, v := range versions {
		ev, err := tr.SendUnary(context.Background(), transport.Call{Version: v}, hello())
		require.NoError(t, err)
		require.Equal(t, "hi", ev.(*a2a.Message).Parts[0].Text)
	}
}

// WithTenant's tenant goes with 1.0 requests; 0.3 has none. A get-task asks
// for the whole history.
func TestTenant(t *testing.T) {
	a := newAgent(t, true, true, handlers{get: func(_ context.Context, id string) (*a2a.Task, error) { return working(id), nil }})
	tr := a.client(t, a2agrpc.WithTenant("acme"))
	for _, v := range versions {
		_, err := tr.GetTask(context.Background(), transport.Call{Version: v}, "t-1")
		require.NoError(t, err)
	}
	seen := a.seen()
	req10 := seen[0].req.(*pbv1.GetTaskRequest)
	require.Equal(t, "acme", req10.GetTenant())
	require.Equal(t, "t-1", req10.GetId())
	require.Positive(t, req10.GetHistoryLength())
	req03 := seen[1].req.(*pbv03.GetTaskRequest)
	require.Equal(t, "tasks/t-1", req03.GetName())
	require.Positive(t, req03.GetHistoryLength())
}

// One Transport serves concurrent streams of either version.
func TestConcurrentStreams(t *testing.T) {
	a := newAgent(t, true, true, handlers{stream: func(_ context.Context, m *a2a.Message, send func(a2a.Event) error) error {
		id := m.Parts[0].Text
		return sendAll(send, working(id), chunk(id, "a", false), chunk(id, "b", true), state(id, a2a.StateCompleted))
	}})
	tr := a.client(t)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := "t-" + string(rune('a'+i))
			r, err := tr.SendStream(context.Background(), transport.Call{Version: versions[i%2]}, a2a.NewTextMessage(a2a.RoleUser, id))
			if err != nil {
				errs <- err
				return
			}
			defer r.Close()
			n := 0
			for {
				ev, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					errs <- err
					return
				}
				if got := taskIDOf(ev); got != id {
					errs <- errors.New("event of another stream: " + got)
					return
				}
				n++
			}
			if n != 4 {
				errs <- errors.New("missing events")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func taskIDOf(ev a2a.Event) string {
	switch e := ev.(type) {
	case *a2a.Task:
		return e.ID
	case *a2a.ArtifactUpdate:
		return e.TaskID
	case *a2a.StatusUpdate:
		return e.TaskID
	}
	return ""
}
