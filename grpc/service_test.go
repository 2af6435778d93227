package a2agrpc_test

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	a2apbv03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	a2apbv1 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The paths the SDKs' servers register (@a2a-js/sdk's A2AService and
// LegacyA2AService, a2a-go's a2agrpc): a client that names another is
// answered UNIMPLEMENTED.
var (
	methods10 = []string{
		"/lf.a2a.v1.A2AService/SendMessage",
		"/lf.a2a.v1.A2AService/SendStreamingMessage",
		"/lf.a2a.v1.A2AService/GetTask",
		"/lf.a2a.v1.A2AService/ListTasks",
		"/lf.a2a.v1.A2AService/CancelTask",
		"/lf.a2a.v1.A2AService/SubscribeToTask",
		"/lf.a2a.v1.A2AService/CreateTaskPushNotificationConfig",
		"/lf.a2a.v1.A2AService/GetTaskPushNotificationConfig",
		"/lf.a2a.v1.A2AService/ListTaskPushNotificationConfigs",
		"/lf.a2a.v1.A2AService/GetExtendedAgentCard",
		"/lf.a2a.v1.A2AService/DeleteTaskPushNotificationConfig",
	}
	methods03 = []string{
		"/a2a.v1.A2AService/SendMessage",
		"/a2a.v1.A2AService/SendStreamingMessage",
		"/a2a.v1.A2AService/GetTask",
		"/a2a.v1.A2AService/CancelTask",
		"/a2a.v1.A2AService/TaskSubscription",
		"/a2a.v1.A2AService/CreateTaskPushNotificationConfig",
		"/a2a.v1.A2AService/GetTaskPushNotificationConfig",
		"/a2a.v1.A2AService/ListTaskPushNotificationConfig",
		"/a2a.v1.A2AService/GetAgentCard",
		"/a2a.v1.A2AService/DeleteTaskPushNotificationConfig",
	}
	streaming = map[string]bool{
		"/lf.a2a.v1.A2AService/SendStreamingMessage": true,
		"/lf.a2a.v1.A2AService/SubscribeToTask":      true,
		"/a2a.v1.A2AService/SendStreamingMessage":    true,
		"/a2a.v1.A2AService/TaskSubscription":        true,
	}
)

// fullMethods lists the paths a service descriptor gives its methods.
func fullMethods(desc grpc.ServiceDesc) []string {
	var out []string
	for _, m := range desc.Methods {
		out = append(out, "/"+desc.ServiceName+"/"+m.MethodName)
	}
	for _, s := range desc.Streams {
		out = append(out, "/"+desc.ServiceName+"/"+s.StreamName)
	}
	return out
}

func TestServicesHaveTheMethodsServersRegister(t *testing.T) {
	tests := []struct {
		name    string
		desc    grpc.ServiceDesc
		service protoreflect.FullName
		want    []string
		// A message of the version, and the proto package it registers
		// under.
		task     proto.Message
		messages protoreflect.FullName
	}{
		{"1.0", a2apbv1.A2AService_ServiceDesc, "lf.a2a.v1.A2AService", methods10, &a2apbv1.Task{}, "a2astream.grpc.v1"},
		{"0.3", a2apbv03.A2AService_ServiceDesc, "a2a.v1.A2AService", methods03, &a2apbv03.Task{}, "a2astream.grpc.v03"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, string(tt.service), tt.desc.ServiceName)
			require.ElementsMatch(t, tt.want, fullMethods(tt.desc))
			for _, m := range tt.desc.Methods {
				full := "/" + tt.desc.ServiceName + "/" + m.MethodName
				require.False(t, streaming[full], "%s is unary", full)
			}
			for _, s := range tt.desc.Streams {
				full := "/" + tt.desc.ServiceName + "/" + s.StreamName
				require.True(t, streaming[full], "%s streams", full)
				require.True(t, s.ServerStreams, full)
				require.False(t, s.ClientStreams, full)
			}

			// Nothing under the spec's names reaches protobuf-go's global
			// registry (a program that also links a2a-go's generated
			// a2apb, which registers a2a.v1.*, would panic at start): the
			// service is only the strings of its ServiceDesc, and the
			// messages register under this module's own package, from a
			// file that imports only well-known types (no google.api
			// annotations).
			_, err := protoregistry.GlobalFiles.FindDescriptorByName(tt.service)
			require.ErrorIs(t, err, protoregistry.NotFound)
			_, err = protoregistry.GlobalFiles.FindDescriptorByName(tt.service.Parent().Append("Task"))
			require.ErrorIs(t, err, protoregistry.NotFound)
			require.Equal(t, tt.messages, tt.task.ProtoReflect().Descriptor().ParentFile().Package())
			require.Zero(t, tt.task.ProtoReflect().Descriptor().ParentFile().Services().Len())
			imports := tt.task.ProtoReflect().Descriptor().ParentFile().Imports()
			for i := range imports.Len() {
				require.True(t, strings.HasPrefix(imports.Get(i).Path(), "google/protobuf/"), imports.Get(i).Path())
			}
		})
	}
}

// Both versions' messages register in one binary, each under this module's
// own path and package, and no file of the global registry declares the
// spec's packages (lf.a2a.v1, a2a.v1), which a2a-go's generated code and
// others register.
func TestBothVersionsRegisterSideBySide(t *testing.T) {
	for path, pkg := range map[string]protoreflect.FullName{
		"a2astream/grpc/v1/a2a.proto":  "a2astream.grpc.v1",
		"a2astream/grpc/v03/a2a.proto": "a2astream.grpc.v03",
	} {
		fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
		require.NoError(t, err, path)
		require.Equal(t, pkg, fd.Package(), path)
	}
	for _, path := range []string{"lf/a2a/v1/a2a.proto", "a2a/v0/a2a.proto", "lf/a2a/v1/service.proto", "a2a/v0/service.proto"} {
		_, err := protoregistry.GlobalFiles.FindFileByPath(path)
		require.ErrorIs(t, err, protoregistry.NotFound, path)
	}
	for _, pkg := range []protoreflect.FullName{"lf.a2a.v1", "a2a.v1"} {
		require.Zero(t, protoregistry.GlobalFiles.NumFilesByPackage(pkg), pkg)
	}
}

// The generated clients call, and the generated servers answer, exactly the
// paths above: one in-process server with both services (as @a2a-js/sdk
// 1.3.0 serves them), every method called through the generated client.
func TestGeneratedClientsCallTheRegisteredPaths(t *testing.T) {
	var (
		mu   sync.Mutex
		seen []string
	)
	note := func(method string) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, method)
	}
	srv := grpc.NewServer(
		grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			note(info.FullMethod)
			return h(ctx, req)
		}),
		grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			note(info.FullMethod)
			return h(srv, ss)
		}),
	)
	a2apbv1.RegisterA2AServiceServer(srv, agent10{})
	a2apbv03.RegisterA2AServiceServer(srv, agent03{})
	lis := bufconn.Listen(1 << 16)
	var served sync.WaitGroup
	served.Go(func() { _ = srv.Serve(lis) })
	t.Cleanup(func() {
		srv.Stop()
		served.Wait()
	})

	conn, err := grpc.NewClient("passthrough:///bufconn",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, conn.Close()) })

	ctx := t.Context()
	c10, c03 := a2apbv1.NewA2AServiceClient(conn), a2apbv03.NewA2AServiceClient(conn)
	unimplemented := func(_ any, err error) {
		t.Helper()
		require.Equal(t, codes.Unimplemented, status.Code(err), "%v", err)
	}
	recvUnimplemented := func(s interface{ Recv() (any, error) }, err error) {
		t.Helper()
		require.NoError(t, err)
		_, err = s.Recv()
		require.NotErrorIs(t, err, io.EOF)
		unimplemented(nil, err)
	}

	unimplemented(c10.SendMessage(ctx, &a2apbv1.SendMessageRequest{}))
	recvUnimplemented(recv(c10.SendStreamingMessage(ctx, &a2apbv1.SendMessageRequest{})))
	unimplemented(c10.GetTask(ctx, &a2apbv1.GetTaskRequest{Id: "t"}))
	unimplemented(c10.ListTasks(ctx, &a2apbv1.ListTasksRequest{}))
	unimplemented(c10.CancelTask(ctx, &a2apbv1.CancelTaskRequest{Id: "t"}))
	recvUnimplemented(recv(c10.SubscribeToTask(ctx, &a2apbv1.SubscribeToTaskRequest{Id: "t"})))
	unimplemented(c10.CreateTaskPushNotificationConfig(ctx, &a2apbv1.TaskPushNotificationConfig{}))
	unimplemented(c10.GetTaskPushNotificationConfig(ctx, &a2apbv1.GetTaskPushNotificationConfigRequest{}))
	unimplemented(c10.ListTaskPushNotificationConfigs(ctx, &a2apbv1.ListTaskPushNotificationConfigsRequest{}))
	unimplemented(c10.GetExtendedAgentCard(ctx, &a2apbv1.GetExtendedAgentCardRequest{}))
	unimplemented(c10.DeleteTaskPushNotificationConfig(ctx, &a2apbv1.DeleteTaskPushNotificationConfigRequest{}))

	unimplemented(c03.SendMessage(ctx, &a2apbv03.SendMessageRequest{}))
	recvUnimplemented(recv(c03.SendStreamingMessage(ctx, &a2apbv03.SendMessageRequest{})))
	unimplemented(c03.GetTask(ctx, &a2apbv03.GetTaskRequest{Name: "tasks/t"}))
	unimplemented(c03.CancelTask(ctx, &a2apbv03.CancelTaskRequest{Name: "tasks/t"}))
	recvUnimplemented(recv(c03.TaskSubscription(ctx, &a2apbv03.TaskSubscriptionRequest{Name: "tasks/t"})))
	unimplemented(c03.CreateTaskPushNotificationConfig(ctx, &a2apbv03.CreateTaskPushNotificationConfigRequest{Parent: "tasks/t"}))
	unimplemented(c03.GetTaskPushNotificationConfig(ctx, &a2apbv03.GetTaskPushNotificationConfigRequest{Name: "tasks/t/pushNotificationConfigs/c"}))
	unimplemented(c03.ListTaskPushNotificationConfig(ctx, &a2apbv03.ListTaskPushNotificationConfigRequest{Parent: "tasks/t"}))
	unimplemented(c03.GetAgentCard(ctx, &a2apbv03.GetAgentCardRequest{}))
	unimplemented(c03.DeleteTaskPushNotificationConfig(ctx, &a2apbv03.DeleteTaskPushNotificationConfigRequest{Name: "tasks/t/pushNotificationConfigs/c"}))

	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, append(append([]string(nil), methods10...), methods03...), seen)
}

// recv adapts a generated server-streaming client to one Recv signature.
func recv[T any](s grpc.ServerStreamingClient[T], err error) (interface{ Recv() (any, error) }, error) {
	return recvFunc(func() (any, error) { return s.Recv() }), err
}

type recvFunc func() (any, error)

func (f recvFunc) Recv() (any, error) { return f() }

// The agents implement nothing: every call is answered UNIMPLEMENTED by the
// generated server, after the interceptors saw its path.
type (
	agent10 struct {
		a2apbv1.UnimplementedA2AServiceServer
	}
	agent03 struct {
		a2apbv03.UnimplementedA2AServiceServer
	}
)
