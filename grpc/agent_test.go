package a2agrpc_test

import (
	"context"
	"net"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/test/bufconn"

	"github.com/a2astream/a2astream/a2a"
	a2agrpc "github.com/a2astream/a2astream/grpc"
	pbv03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	pbv1 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
	"github.com/a2astream/a2astream/grpc/internal/convert"
)

// handlers script an in-process agent, in terms of the a2a model: the same
// script answers on either version's service. A nil handler answers
// UNIMPLEMENTED, as the generated server does. An error a handler returns
// (a status.Error) is the call's status.
type handlers struct {
	stream    func(ctx context.Context, m *a2a.Message, send func(a2a.Event) error) error
	subscribe func(ctx context.Context, id string, send func(a2a.Event) error) error
	unary     func(ctx context.Context, m *a2a.Message) (a2a.Event, error)
	get       func(ctx context.Context, id string) (*a2a.Task, error)
	cancel    func(ctx context.Context, id string) (*a2a.Task, error)
	// list answers 1.0 ListTasks in terms of the proto, so that a test
	// reads the request as sent and may answer a page the model refuses.
	list func(ctx context.Context, req *pbv1.ListTasksRequest) (*pbv1.ListTasksResponse, error)
	// pushSet10 and pushSet03 answer each version's
	// CreateTaskPushNotificationConfig in terms of the proto, as list.
	pushSet10 func(ctx context.Context, req *pbv1.TaskPushNotificationConfig) (*pbv1.TaskPushNotificationConfig, error)
	pushSet03 func(ctx context.Context, req *pbv03.CreateTaskPushNotificationConfigRequest) (*pbv03.TaskPushNotificationConfig, error)
	// card answers 1.0 GetExtendedAgentCard and 0.3 GetAgentCard with a
	// card of the model (nil: an answer with no name).
	card func(ctx context.Context) (*a2a.AgentCard, error)
}

// seenCall is one call the agent got: its full method and metadata.
type seenCall struct {
	method string
	md     metadata.MD
	req    any // a unary call's request
}

// agent is an in-process gRPC A2A agent on a bufconn listener, serving
// A2A 1.0 (lf.a2a.v1.A2AService), 0.3 (a2a.v1.A2AService) or both. cut
// closes every connection it accepted, as a network failure would.
type agent struct {
	h     handlers
	lis   *bufconn.Listener
	srv   *grpc.Server
	mu    sync.Mutex
	conns []net.Conn
	calls []seenCall
}

// newAgent starts an agent serving the versions named, with the server
// options given; it stops when the test ends.
func newAgent(t *testing.T, v10, v03 bool, h handlers, opts ...grpc.ServerOption) *agent {
	t.Helper()
	a := &agent{h: h, lis: bufconn.Listen(1 << 20)}
	a.srv = grpc.NewServer(append([]grpc.ServerOption{
		grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
			a.note(ctx, info.FullMethod, req)
			return next(ctx, req)
		}),
		grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, next grpc.StreamHandler) error {
			a.note(ss.Context(), info.FullMethod, nil)
			return next(srv, ss)
		}),
	}, opts...)...)
	if v10 {
		pbv1.RegisterA2AServiceServer(a.srv, service10{a: a})
	}
	if v03 {
		pbv03.RegisterA2AServiceServer(a.srv, service03{a: a})
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = a.srv.Serve(trackingListener{a})
	}()
	t.Cleanup(func() {
		a.srv.Stop()
		<-done
	})
	return a
}

// trackingListener keeps the agent's accepted connections, for cut.
type trackingListener struct{ a *agent }

func (l trackingListener) Accept() (net.Conn, error) {
	c, err := l.a.lis.Accept()
	if err == nil {
		l.a.mu.Lock()
		l.a.conns = append(l.a.conns, c)
		l.a.mu.Unlock()
	}
	return c, err
}
func (l trackingListener) Close() error   { return l.a.lis.Close() }
func (l trackingListener) Addr() net.Addr { return l.a.lis.Addr() }

// cut closes every connection the agent accepted so far.
func (a *agent) cut() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, c := range a.conns {
		_ = c.Close()
	}
	a.conns = nil
}

func (a *agent) note(ctx context.Context, method string, req any) {
	md, _ := metadata.FromIncomingContext(ctx)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, seenCall{method: method, md: md.Copy(), req: req})
}

// seen returns the calls the agent got so far.
func (a *agent) seen() []seenCall {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]seenCall(nil), a.calls...)
}

// methods returns the full methods of the calls the agent got so far.
func (a *agent) methods() []string {
	var out []string
	for _, c := range a.seen() {
		out = append(out, c.method)
	}
	return out
}

// client returns a Transport to the agent, closed when the test ends.
func (a *agent) client(t *testing.T, opts ...a2agrpc.Option) *a2agrpc.Transport {
	t.Helper()
	opts = append([]a2agrpc.Option{
		a2agrpc.WithInsecure(),
		a2agrpc.WithDialOptions(grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			return a.lis.DialContext(ctx)
		})),
	}, opts...)
	tr, err := a2agrpc.New("passthrough:///agent", opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, tr.Close()) })
	return tr
}

// service10 serves A2A 1.0 with the agent's handlers.
type service10 struct {
	pbv1.UnimplementedA2AServiceServer
	a *agent
}

func (s service10) SendStreamingMessage(req *pbv1.SendMessageRequest, ss grpc.ServerStreamingServer[pbv1.StreamResponse]) error {
	if s.a.h.stream == nil {
		return s.UnimplementedA2AServiceServer.SendStreamingMessage(req, ss)
	}
	m, err := convert.MessageOf10(req.GetMessage())
	if err != nil {
		return err
	}
	return s.a.h.stream(ss.Context(), m, send10(ss))
}

func (s service10) SubscribeToTask(req *pbv1.SubscribeToTaskRequest, ss grpc.ServerStreamingServer[pbv1.StreamResponse]) error {
	if s.a.h.subscribe == nil {
		return s.UnimplementedA2AServiceServer.SubscribeToTask(req, ss)
	}
	return s.a.h.subscribe(ss.Context(), req.GetId(), send10(ss))
}

func send10(ss grpc.ServerStreamingServer[pbv1.StreamResponse]) func(a2a.Event) error {
	return func(e a2a.Event) error {
		r, err := convert.StreamResponse10(e)
		if err != nil {
			return err
		}
		return ss.Send(r)
	}
}

func (s service10) SendMessage(ctx context.Context, req *pbv1.SendMessageRequest) (*pbv1.SendMessageResponse, error) {
	if s.a.h.unary == nil {
		return s.UnimplementedA2AServiceServer.SendMessage(ctx, req)
	}
	m, err := convert.MessageOf10(req.GetMessage())
	if err != nil {
		return nil, err
	}
	ev, err := s.a.h.unary(ctx, m)
	if err != nil {
		return nil, err
	}
	r, err := convert.StreamResponse10(ev)
	if err != nil {
		return nil, err
	}
	if t := r.GetTask(); t != nil {
		return &pbv1.SendMessageResponse{Payload: &pbv1.SendMessageResponse_Task{Task: t}}, nil
	}
	return &pbv1.SendMessageResponse{Payload: &pbv1.SendMessageResponse_Message{Message: r.GetMessage()}}, nil
}

func (s service10) GetTask(ctx context.Context, req *pbv1.GetTaskRequest) (*pbv1.Task, error) {
	if s.a.h.get == nil {
		return s.UnimplementedA2AServiceServer.GetTask(ctx, req)
	}
	t, err := s.a.h.get(ctx, req.GetId())
	if err != nil {
		return nil, err
	}
	return convert.Task10(t)
}

func (s service10) CancelTask(ctx context.Context, req *pbv1.CancelTaskRequest) (*pbv1.Task, error) {
	if s.a.h.cancel == nil {
		return s.UnimplementedA2AServiceServer.CancelTask(ctx, req)
	}
	t, err := s.a.h.cancel(ctx, req.GetId())
	if err != nil {
		return nil, err
	}
	return convert.Task10(t)
}

func (s service10) ListTasks(ctx context.Context, req *pbv1.ListTasksRequest) (*pbv1.ListTasksResponse, error) {
	if s.a.h.list == nil {
		return s.UnimplementedA2AServiceServer.ListTasks(ctx, req)
	}
	return s.a.h.list(ctx, req)
}

func (s service10) CreateTaskPushNotificationConfig(ctx context.Context, req *pbv1.TaskPushNotificationConfig) (*pbv1.TaskPushNotificationConfig, error) {
	if s.a.h.pushSet10 == nil {
		return s.UnimplementedA2AServiceServer.CreateTaskPushNotificationConfig(ctx, req)
	}
	return s.a.h.pushSet10(ctx, req)
}

func (s service03) CreateTaskPushNotificationConfig(ctx context.Context, req *pbv03.CreateTaskPushNotificationConfigRequest) (*pbv03.TaskPushNotificationConfig, error) {
	if s.a.h.pushSet03 == nil {
		return s.UnimplementedA2AServiceServer.CreateTaskPushNotificationConfig(ctx, req)
	}
	return s.a.h.pushSet03(ctx, req)
}

// service03 serves A2A 0.3 with the agent's handlers.
type service03 struct {
	pbv03.UnimplementedA2AServiceServer
	a *agent
}

func (s service03) SendStreamingMessage(req *pbv03.SendMessageRequest, ss grpc.ServerStreamingServer[pbv03.StreamResponse]) error {
	if s.a.h.stream == nil {
		return s.UnimplementedA2AServiceServer.SendStreamingMessage(req, ss)
	}
	m, err := convert.MessageOf03(req.GetRequest())
	if err != nil {
		return err
	}
	return s.a.h.stream(ss.Context(), m, send03(ss))
}

func (s service03) TaskSubscription(req *pbv03.TaskSubscriptionRequest, ss grpc.ServerStreamingServer[pbv03.StreamResponse]) error {
	if s.a.h.subscribe == nil {
		return s.UnimplementedA2AServiceServer.TaskSubscription(req, ss)
	}
	id, err := convert.TaskIDOfName(req.GetName())
	if err != nil {
		return err
	}
	return s.a.h.subscribe(ss.Context(), id, send03(ss))
}

func send03(ss grpc.ServerStreamingServer[pbv03.StreamResponse]) func(a2a.Event) error {
	return func(e a2a.Event) error {
		r, err := convert.StreamResponse03(e)
		if err != nil {
			return err
		}
		return ss.Send(r)
	}
}

func (s service03) SendMessage(ctx context.Context, req *pbv03.SendMessageRequest) (*pbv03.SendMessageResponse, error) {
	if s.a.h.unary == nil {
		return s.UnimplementedA2AServiceServer.SendMessage(ctx, req)
	}
	m, err := convert.MessageOf03(req.GetRequest())
	if err != nil {
		return nil, err
	}
	ev, err := s.a.h.unary(ctx, m)
	if err != nil {
		return nil, err
	}
	r, err := convert.StreamResponse03(ev)
	if err != nil {
		return nil, err
	}
	if t := r.GetTask(); t != nil {
		return &pbv03.SendMessageResponse{Payload: &pbv03.SendMessageResponse_Task{Task: t}}, nil
	}
	return &pbv03.SendMessageResponse{Payload: &pbv03.SendMessageResponse_Msg{Msg: r.GetMsg()}}, nil
}

func (s service03) GetTask(ctx context.Context, req *pbv03.GetTaskRequest) (*pbv03.Task, error) {
	if s.a.h.get == nil {
		return s.UnimplementedA2AServiceServer.GetTask(ctx, req)
	}
	id, err := convert.TaskIDOfName(req.GetName())
	if err != nil {
		return nil, err
	}
	t, err := s.a.h.get(ctx, id)
	if err != nil {
		return nil, err
	}
	return convert.Task03(t)
}

func (s service03) CancelTask(ctx context.Context, req *pbv03.CancelTaskRequest) (*pbv03.Task, error) {
	if s.a.h.cancel == nil {
		return s.UnimplementedA2AServiceServer.CancelTask(ctx, req)
	}
	id, err := convert.TaskIDOfName(req.GetName())
	if err != nil {
		return nil, err
	}
	t, err := s.a.h.cancel(ctx, id)
	if err != nil {
		return nil, err
	}
	return convert.Task03(t)
}

func (s service10) GetExtendedAgentCard(ctx context.Context, req *pbv1.GetExtendedAgentCardRequest) (*pbv1.AgentCard, error) {
	if s.a.h.card == nil {
		return s.UnimplementedA2AServiceServer.GetExtendedAgentCard(ctx, req)
	}
	card, err := s.a.h.card(ctx)
	if err != nil || card == nil {
		return &pbv1.AgentCard{}, err
	}
	return convert.AgentCard10(card)
}

func (s service03) GetAgentCard(ctx context.Context, req *pbv03.GetAgentCardRequest) (*pbv03.AgentCard, error) {
	if s.a.h.card == nil {
		return s.UnimplementedA2AServiceServer.GetAgentCard(ctx, req)
	}
	card, err := s.a.h.card(ctx)
	if err != nil || card == nil {
		return &pbv03.AgentCard{}, err
	}
	return convert.AgentCard03(card)
}
