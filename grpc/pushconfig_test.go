package a2agrpc_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/a2astream/a2astream/a2a"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	pbv03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	pbv1 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
	"github.com/a2astream/a2astream/internal/callmark"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// The push-config calls over gRPC (issue 33): the requests as sent, the
// refusals, the answers refused. The calls against an agent are in
// a2agrpctest's tests.

const (
	secretToken = "tok-SECRET-1"
	secretCreds = "creds-SECRET-2"
)

// pushCfg is a config with both secrets.
func pushCfg() a2a.PushConfig {
	return a2a.PushConfig{ID: "c1", URL: "https://app.example/hooks/1", Token: secretToken,
		Auth: &a2a.PushAuth{Scheme: "Bearer", Credentials: secretCreds}}
}

// pushRequests returns the requests of the calls of method the agent got.
func pushRequests(a *agent, method string) []any {
	var out []any
	for _, c := range a.seen() {
		if c.method == method {
			out = append(out, c.req)
		}
	}
	return out
}

func TestSetPushConfigRequest10(t *testing.T) {
	a := newAgent(t, true, false, handlers{pushSet10: func(_ context.Context, req *pbv1.TaskPushNotificationConfig) (*pbv1.TaskPushNotificationConfig, error) {
		return req, nil // the echo the servers send, tenant and secrets included
	}})
	c := newClient(t, a.client(t, a2agrpc.WithTenant("acme")), stream.WithVersion(a2a.V10), stream.WithHeader("X-Trace", "abc"))
	got, err := c.SetPushConfig(context.Background(), "t-1", pushCfg())
	require.NoError(t, err)
	want := pushCfg()
	want.TaskID = "t-1"
	require.Equal(t, want, got)

	reqs := pushRequests(a, pbv1.A2AService_CreateTaskPushNotificationConfig_FullMethodName)
	require.Len(t, reqs, 1)
	wantReq := &pbv1.TaskPushNotificationConfig{Tenant: "acme", Id: "c1", TaskId: "t-1", Url: "https://app.example/hooks/1",
		Token: secretToken, Authentication: &pbv1.AuthenticationInfo{Scheme: "Bearer", Credentials: secretCreds}}
	require.True(t, proto.Equal(wantReq, reqs[0].(proto.Message)), "got %v", reqs[0])
	md := a.seen()[0].md
	require.Equal(t, []string{"abc"}, md.Get("x-trace"))
	require.Equal(t, []string{"1.0"}, md.Get("a2a-version"))
}

func TestSetPushConfigRequest03(t *testing.T) {
	a := newAgent(t, false, true, handlers{pushSet03: func(_ context.Context, req *pbv03.CreateTaskPushNotificationConfigRequest) (*pbv03.TaskPushNotificationConfig, error) {
		return req.GetConfig(), nil
	}})
	c := newClient(t, a.client(t), stream.WithVersion(a2a.V03))
	got, err := c.SetPushConfig(context.Background(), "t-1", pushCfg())
	require.NoError(t, err)
	want := pushCfg()
	want.TaskID = "t-1" // read from the config's name
	require.Equal(t, want, got)

	reqs := pushRequests(a, pbv03.A2AService_CreateTaskPushNotificationConfig_FullMethodName)
	require.Len(t, reqs, 1)
	wantReq := &pbv03.CreateTaskPushNotificationConfigRequest{Parent: "tasks/t-1", ConfigId: "c1",
		Config: &pbv03.TaskPushNotificationConfig{Name: "tasks/t-1/pushNotificationConfigs/c1",
			PushNotificationConfig: &pbv03.PushNotificationConfig{Id: "c1", Url: "https://app.example/hooks/1", Token: secretToken,
				Authentication: &pbv03.AuthenticationInfo{Schemes: []string{"Bearer"}, Credentials: secretCreds}}}}
	require.True(t, proto.Equal(wantReq, reqs[0].(proto.Message)), "got %v", reqs[0])
}

// A Client that negotiates tries 1.0 first; a 0.3-only agent's "unknown
// service" makes it call in 0.3.
func TestSetPushConfigNegotiates(t *testing.T) {
	a := newAgent(t, false, true, handlers{pushSet03: func(_ context.Context, req *pbv03.CreateTaskPushNotificationConfigRequest) (*pbv03.TaskPushNotificationConfig, error) {
		return req.GetConfig(), nil
	}})
	c := newClient(t, a.client(t))
	got, err := c.SetPushConfig(context.Background(), "t-1", pushCfg())
	require.NoError(t, err)
	require.Equal(t, "t-1", got.TaskID)
	require.Equal(t, []string{pbv03.A2AService_CreateTaskPushNotificationConfig_FullMethodName}, a.methods())
}

// pushNotSupported is a 1.0 agent's refusal: FAILED_PRECONDITION with
// reason PUSH_NOTIFICATION_NOT_SUPPORTED.
func pushNotSupported(msg string) error {
	st, err := status.New(codes.FailedPrecondition, msg).WithDetails(
		&errdetails.ErrorInfo{Reason: "PUSH_NOTIFICATION_NOT_SUPPORTED", Domain: "a2a-protocol.org"})
	if err != nil {
		return status.Error(codes.Internal, "test: "+err.Error()) // the detail is linked in: never
	}
	return st.Err()
}

func TestSetPushConfigRefused(t *testing.T) {
	tests := []struct {
		name        string
		v10, v03    bool // the versions the agent serves
		opts        []stream.Option
		set10       func(context.Context, *pbv1.TaskPushNotificationConfig) (*pbv1.TaskPushNotificationConfig, error)
		set03       func(context.Context, *pbv03.CreateTaskPushNotificationConfigRequest) (*pbv03.TaskPushNotificationConfig, error)
		unsupported bool
		code        int // the *a2a.RPCError's
	}{
		{name: "1.0: PUSH_NOTIFICATION_NOT_SUPPORTED", v10: true, opts: versionOpts["1.0"], unsupported: true,
			code: a2a.CodePushNotificationNotSupported,
			set10: func(context.Context, *pbv1.TaskPushNotificationConfig) (*pbv1.TaskPushNotificationConfig, error) {
				return nil, pushNotSupported("Push Notification is not supported")
			}},
		{name: "1.0 without the RPC (the generated server's UNIMPLEMENTED)", v10: true, opts: versionOpts["1.0"],
			unsupported: true, code: a2a.CodeUnsupportedOperation},
		{name: "0.3: UNIMPLEMENTED, as 0.3.14 sends -32003", v03: true, opts: versionOpts["0.3"], unsupported: true,
			code: a2a.CodeUnsupportedOperation,
			set03: func(context.Context, *pbv03.CreateTaskPushNotificationConfigRequest) (*pbv03.TaskPushNotificationConfig, error) {
				return nil, status.Error(codes.Unimplemented, "Push Notification is not supported")
			}},
		{name: "negotiated, neither version has the RPC", v10: true, v03: true, unsupported: true, code: a2a.CodeUnsupportedOperation},
		{name: "1.0: NOT_FOUND is task not found", v10: true, opts: versionOpts["1.0"], code: a2a.CodeTaskNotFound,
			set10: func(context.Context, *pbv1.TaskPushNotificationConfig) (*pbv1.TaskPushNotificationConfig, error) {
				return nil, status.Error(codes.NotFound, "Task not found: t-1")
			}},
		{name: "0.3: NOT_FOUND is task not found", v03: true, opts: versionOpts["0.3"], code: a2a.CodeTaskNotFound,
			set03: func(context.Context, *pbv03.CreateTaskPushNotificationConfigRequest) (*pbv03.TaskPushNotificationConfig, error) {
				return nil, status.Error(codes.NotFound, "Task not found: t-1")
			}},
		{name: "an agent's message that quotes the secrets", v10: true, opts: versionOpts["1.0"], unsupported: true,
			code: a2a.CodePushNotificationNotSupported,
			set10: func(_ context.Context, req *pbv1.TaskPushNotificationConfig) (*pbv1.TaskPushNotificationConfig, error) {
				return nil, pushNotSupported("no push for token " + req.GetToken() + " and " + req.GetAuthentication().GetCredentials())
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAgent(t, tt.v10, tt.v03, handlers{pushSet10: tt.set10, pushSet03: tt.set03})
			c := newClient(t, a.client(t), tt.opts...)
			_, err := c.SetPushConfig(context.Background(), "t-1", pushCfg())
			require.Error(t, err)
			require.Equal(t, tt.unsupported, errors.Is(err, errors.ErrUnsupported), "%v", err)
			var rpc *a2a.RPCError
			require.ErrorAs(t, err, &rpc)
			require.Equal(t, tt.code, rpc.Code)
			var se *a2agrpc.StatusError
			require.ErrorAs(t, err, &se)
			for _, text := range []string{err.Error(), se.Message, se.GRPCStatus().Message(), rpc.Message, string(rpc.Data)} {
				require.NotContains(t, text, secretToken)
				require.NotContains(t, text, secretCreds)
			}
		})
	}
}

// The marks of a push-config call's failures are GetTask's: the agent's
// error is no sign the call went further; an open circuit sends nothing.
func TestPushConfigCallMarks(t *testing.T) {
	a := newAgent(t, true, false, handlers{pushSet10: func(context.Context, *pbv1.TaskPushNotificationConfig) (*pbv1.TaskPushNotificationConfig, error) {
		return nil, status.Error(codes.NotFound, "no")
	}})
	call := transport.Call{Version: a2a.V10}
	_, err := a.client(t).SetPushConfig(context.Background(), call, "t-1", pushCfg())
	require.ErrorIs(t, err, &a2a.RPCError{Code: a2a.CodeTaskNotFound})
	require.False(t, callmark.IsUnsent(err))
	require.False(t, callmark.IsResponded(err))

	open := &countingBreaker{refuse: errors.New("open")}
	tr := a.client(t, a2agrpc.WithBreaker(open))
	_, err = tr.GetPushConfig(context.Background(), call, "t-1", "c1")
	require.ErrorIs(t, err, transport.ErrCircuitOpen)
	require.True(t, callmark.IsUnsent(err))
	_, err = tr.ListPushConfigs(context.Background(), call, "t-1")
	require.True(t, callmark.IsUnsent(err))
	require.True(t, callmark.IsUnsent(tr.DeletePushConfig(context.Background(), call, "t-1", "c1")))
	require.Len(t, a.seen(), 1, "only the first call reached the agent")
}

// An answer that holds no config, or one of another task, is a
// *transport.ProtocolError.
func TestSetPushConfigHostileAnswer(t *testing.T) {
	tests := []struct {
		name   string
		v03    bool
		set10  *pbv1.TaskPushNotificationConfig
		set03  *pbv03.TaskPushNotificationConfig
		reason string // the ProtocolError's, in part
	}{
		{name: "1.0: an empty config", set10: &pbv1.TaskPushNotificationConfig{}, reason: "malformed result"},
		{name: "1.0: a config of another task", reason: `asked for a push config of task "t-1", got one of task "t-9"`,
			set10: &pbv1.TaskPushNotificationConfig{Id: "c1", TaskId: "t-9", Url: "https://app.example/hooks/1"}},
		{name: "0.3: no config", v03: true, set03: &pbv03.TaskPushNotificationConfig{Name: "tasks/t-1/pushNotificationConfigs/c1"},
			reason: "malformed result"},
		{name: "0.3: a name of another shape", v03: true, reason: "malformed result",
			set03: &pbv03.TaskPushNotificationConfig{Name: "projects/p/tasks/t-1",
				PushNotificationConfig: &pbv03.PushNotificationConfig{Id: "c1", Url: "https://app.example/hooks/1"}}},
		{name: "0.3: a config of another task", v03: true, reason: `got one of task "t-9"`,
			set03: &pbv03.TaskPushNotificationConfig{Name: "tasks/t-9/pushNotificationConfigs/c1",
				PushNotificationConfig: &pbv03.PushNotificationConfig{Id: "c1", Url: "https://app.example/hooks/1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAgent(t, !tt.v03, tt.v03, handlers{
				pushSet10: func(context.Context, *pbv1.TaskPushNotificationConfig) (*pbv1.TaskPushNotificationConfig, error) {
					return tt.set10, nil
				},
				pushSet03: func(context.Context, *pbv03.CreateTaskPushNotificationConfigRequest) (*pbv03.TaskPushNotificationConfig, error) {
					return tt.set03, nil
				},
			})
			v := versionOpts["1.0"]
			if tt.v03 {
				v = versionOpts["0.3"]
			}
			c := newClient(t, a.client(t), v...)
			_, err := c.SetPushConfig(context.Background(), "t-1", pushCfg())
			var pe *transport.ProtocolError
			require.ErrorAs(t, err, &pe)
			require.Contains(t, pe.Reason, tt.reason)
			require.NotContains(t, err.Error(), secretToken)
			require.Len(t, a.seen(), 1, "not made again")
		})
	}
}
