package a2agrpctest

import (
	"context"
	"encoding/json"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/a2astream/a2astream/a2a"
	pbv03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	pbv1 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
	"github.com/a2astream/a2astream/grpc/internal/convert"
)

// sendParams are the params of a JSON-RPC send.
type sendParams struct {
	Message       json.RawMessage `json:"message"`
	Configuration *sendConfig     `json:"configuration,omitempty"`
	Tenant        string          `json:"tenant,omitempty"`
}

// sendConfig is a send's configuration: 0.3's blocking, 1.0's
// returnImmediately.
type sendConfig struct {
	Blocking          *bool `json:"blocking,omitempty"`
	ReturnImmediately bool  `json:"returnImmediately,omitempty"`
}

// idParams are the params of a JSON-RPC call about one task.
type idParams struct {
	ID            string `json:"id"`
	HistoryLength *int32 `json:"historyLength,omitempty"`
	Tenant        string `json:"tenant,omitempty"`
}

// badRequest is the status of a request that does not convert.
func badRequest(err error) error { return status.Error(codes.InvalidArgument, err.Error()) }

// messageParams encodes a send's message in version v.
func messageParams(v a2a.Version, m *a2a.Message, tenant string, cfg *sendConfig) (sendParams, error) {
	raw, err := a2a.Codec{Version: v, Binding: a2a.BindingJSONRPC}.EncodeMessage(m)
	if err != nil {
		return sendParams{}, badRequest(err)
	}
	return sendParams{Message: raw, Configuration: cfg, Tenant: tenant}, nil
}

// decodeTask decodes a JSON-RPC task result of version v.
func decodeTask(v a2a.Version, raw json.RawMessage) (*a2a.Task, error) {
	t, err := a2a.Codec{Version: v, Binding: a2a.BindingJSONRPC}.DecodeTask(raw)
	if err != nil {
		return nil, status.Error(codes.Internal, "a2agrpctest: the agent's task: "+err.Error())
	}
	return t, nil
}

// decodeResult decodes a JSON-RPC send result of version v: a task or a
// message.
func decodeResult(v a2a.Version, raw json.RawMessage) (a2a.Event, error) {
	ev, err := a2a.Codec{Version: v, Binding: a2a.BindingJSONRPC}.DecodeEvent(raw)
	if err != nil {
		return nil, status.Error(codes.Internal, "a2agrpctest: the agent's result: "+err.Error())
	}
	return ev, nil
}

// convErr is the status of a value the agent sent that does not convert.
func convErr(err error) error { return status.Error(codes.Internal, "a2agrpctest: "+err.Error()) }

func registerV10(g *grpc.Server, s *Server) { pbv1.RegisterA2AServiceServer(g, service10{s: s}) }
func registerV03(g *grpc.Server, s *Server) { pbv03.RegisterA2AServiceServer(g, service03{s: s}) }

// service10 serves lf.a2a.v1.A2AService.
type service10 struct {
	pbv1.UnimplementedA2AServiceServer
	s *Server
}

func send10(ss grpc.ServerStreamingServer[pbv1.StreamResponse]) func(a2a.Event) error {
	return func(e a2a.Event) error {
		r, err := convert.StreamResponse10(e)
		if err != nil {
			return convErr(err)
		}
		return ss.Send(r)
	}
}

func header(ss grpc.ServerStream) func() error { return func() error { return ss.SendHeader(nil) } }

func (x service10) SendStreamingMessage(req *pbv1.SendMessageRequest, ss grpc.ServerStreamingServer[pbv1.StreamResponse]) error {
	m, err := convert.MessageOf10(req.GetMessage())
	if err != nil {
		return badRequest(err)
	}
	p, err := messageParams(a2a.V10, m, req.GetTenant(), nil)
	if err != nil {
		return err
	}
	return x.s.stream(ss.Context(), a2a.V10, "SendStreamingMessage", p, header(ss), send10(ss))
}

func (x service10) SubscribeToTask(req *pbv1.SubscribeToTaskRequest, ss grpc.ServerStreamingServer[pbv1.StreamResponse]) error {
	p := idParams{ID: req.GetId(), Tenant: req.GetTenant()}
	return x.s.stream(ss.Context(), a2a.V10, "SubscribeToTask", p, header(ss), send10(ss))
}

func (x service10) SendMessage(ctx context.Context, req *pbv1.SendMessageRequest) (*pbv1.SendMessageResponse, error) {
	m, err := convert.MessageOf10(req.GetMessage())
	if err != nil {
		return nil, badRequest(err)
	}
	var cfg *sendConfig
	if c := req.GetConfiguration(); c != nil {
		cfg = &sendConfig{ReturnImmediately: c.GetReturnImmediately()}
	}
	p, err := messageParams(a2a.V10, m, req.GetTenant(), cfg)
	if err != nil {
		return nil, err
	}
	raw, err := x.s.unary(ctx, a2a.V10, "SendMessage", p)
	if err != nil {
		return nil, err
	}
	ev, err := decodeResult(a2a.V10, raw)
	if err != nil {
		return nil, err
	}
	r, err := convert.StreamResponse10(ev)
	if err != nil {
		return nil, convErr(err)
	}
	if t := r.GetTask(); t != nil {
		return &pbv1.SendMessageResponse{Payload: &pbv1.SendMessageResponse_Task{Task: t}}, nil
	}
	if msg := r.GetMessage(); msg != nil {
		return &pbv1.SendMessageResponse{Payload: &pbv1.SendMessageResponse_Message{Message: msg}}, nil
	}
	return nil, status.Error(codes.Internal, "a2agrpctest: a send result that is neither a task nor a message")
}

func (x service10) GetTask(ctx context.Context, req *pbv1.GetTaskRequest) (*pbv1.Task, error) {
	p := idParams{ID: req.GetId(), Tenant: req.GetTenant()}
	if req.HistoryLength != nil {
		n := req.GetHistoryLength()
		p.HistoryLength = &n
	}
	return x.task(ctx, "GetTask", p)
}

func (x service10) CancelTask(ctx context.Context, req *pbv1.CancelTaskRequest) (*pbv1.Task, error) {
	return x.task(ctx, "CancelTask", idParams{ID: req.GetId(), Tenant: req.GetTenant()})
}

func (x service10) task(ctx context.Context, method string, p idParams) (*pbv1.Task, error) {
	raw, err := x.s.unary(ctx, a2a.V10, method, p)
	if err != nil {
		return nil, err
	}
	t, err := decodeTask(a2a.V10, raw)
	if err != nil {
		return nil, err
	}
	pt, err := convert.Task10(t)
	if err != nil {
		return nil, convErr(err)
	}
	return pt, nil
}

// service03 serves a2a.v1.A2AService.
type service03 struct {
	pbv03.UnimplementedA2AServiceServer
	s *Server
}

func send03(ss grpc.ServerStreamingServer[pbv03.StreamResponse]) func(a2a.Event) error {
	return func(e a2a.Event) error {
		r, err := convert.StreamResponse03(e)
		if err != nil {
			return convErr(err)
		}
		return ss.Send(r)
	}
}

func (x service03) SendStreamingMessage(req *pbv03.SendMessageRequest, ss grpc.ServerStreamingServer[pbv03.StreamResponse]) error {
	m, err := convert.MessageOf03(req.GetRequest())
	if err != nil {
		return badRequest(err)
	}
	p, err := messageParams(a2a.V03, m, "", nil)
	if err != nil {
		return err
	}
	return x.s.stream(ss.Context(), a2a.V03, "message/stream", p, header(ss), send03(ss))
}

func (x service03) TaskSubscription(req *pbv03.TaskSubscriptionRequest, ss grpc.ServerStreamingServer[pbv03.StreamResponse]) error {
	id, err := convert.TaskIDOfName(req.GetName())
	if err != nil {
		return badRequest(err)
	}
	return x.s.stream(ss.Context(), a2a.V03, "tasks/resubscribe", idParams{ID: id}, header(ss), send03(ss))
}

func (x service03) SendMessage(ctx context.Context, req *pbv03.SendMessageRequest) (*pbv03.SendMessageResponse, error) {
	m, err := convert.MessageOf03(req.GetRequest())
	if err != nil {
		return nil, badRequest(err)
	}
	var cfg *sendConfig
	if c := req.GetConfiguration(); c != nil {
		// proto3 cannot tell blocking false from unset: a configuration
		// sent says what its blocking says.
		b := c.GetBlocking()
		cfg = &sendConfig{Blocking: &b}
	}
	p, err := messageParams(a2a.V03, m, "", cfg)
	if err != nil {
		return nil, err
	}
	raw, err := x.s.unary(ctx, a2a.V03, "message/send", p)
	if err != nil {
		return nil, err
	}
	ev, err := decodeResult(a2a.V03, raw)
	if err != nil {
		return nil, err
	}
	r, err := convert.StreamResponse03(ev)
	if err != nil {
		return nil, convErr(err)
	}
	if t := r.GetTask(); t != nil {
		return &pbv03.SendMessageResponse{Payload: &pbv03.SendMessageResponse_Task{Task: t}}, nil
	}
	if msg := r.GetMsg(); msg != nil {
		return &pbv03.SendMessageResponse{Payload: &pbv03.SendMessageResponse_Msg{Msg: msg}}, nil
	}
	return nil, status.Error(codes.Internal, "a2agrpctest: a send result that is neither a task nor a message")
}

func (x service03) GetTask(ctx context.Context, req *pbv03.GetTaskRequest) (*pbv03.Task, error) {
	id, err := convert.TaskIDOfName(req.GetName())
	if err != nil {
		return nil, badRequest(err)
	}
	p := idParams{ID: id}
	if n := req.GetHistoryLength(); n != 0 {
		p.HistoryLength = &n
	}
	return x.task(ctx, "tasks/get", p)
}

func (x service03) CancelTask(ctx context.Context, req *pbv03.CancelTaskRequest) (*pbv03.Task, error) {
	id, err := convert.TaskIDOfName(req.GetName())
	if err != nil {
		return nil, badRequest(err)
	}
	return x.task(ctx, "tasks/cancel", idParams{ID: id})
}

func (x service03) task(ctx context.Context, method string, p idParams) (*pbv03.Task, error) {
	raw, err := x.s.unary(ctx, a2a.V03, method, p)
	if err != nil {
		return nil, err
	}
	t, err := decodeTask(a2a.V03, raw)
	if err != nil {
		return nil, err
	}
	pt, err := convert.Task03(t)
	if err != nil {
		return nil, convErr(err)
	}
	return pt, nil
}

// pushParams10 are the params of the 1.0 JSON-RPC calls that name a task
// and, but for the list, a config.
type pushParams10 struct {
	Tenant string `json:"tenant,omitempty"`
	TaskID string `json:"taskId"`
	ID     string `json:"id,omitempty"`
}

// pushParams03 are those of 0.3, where "id" is the task's.
type pushParams03 struct {
	ID       string `json:"id"`
	ConfigID string `json:"pushNotificationConfigId,omitempty"`
}

// setPushParams are the JSON-RPC params of a set of cfg for task taskID
// in version v (a config the model refuses is a bad request).
func setPushParams(v a2a.Version, taskID string, cfg a2a.PushConfig, tenant string) (json.RawMessage, error) {
	raw, err := a2a.Codec{Version: v}.EncodeSetPushConfig(taskID, cfg, tenant)
	if err != nil {
		return nil, badRequest(err)
	}
	return raw, nil
}

// pushConfigOf decodes one config of the agent's JSON-RPC answer.
func pushConfigOf(raw json.RawMessage) (a2a.PushConfig, error) {
	c, err := a2a.DecodePushConfig(raw)
	if err != nil {
		return a2a.PushConfig{}, status.Error(codes.Internal, "a2agrpctest: the agent's push config: "+err.Error())
	}
	return c, nil
}

// pushConfigsOf decodes the configs of the agent's JSON-RPC answer.
func pushConfigsOf(raw json.RawMessage) ([]a2a.PushConfig, error) {
	cs, err := a2a.DecodePushConfigs(raw)
	if err != nil {
		return nil, status.Error(codes.Internal, "a2agrpctest: the agent's push configs: "+err.Error())
	}
	return cs, nil
}

func (x service10) CreateTaskPushNotificationConfig(ctx context.Context, req *pbv1.TaskPushNotificationConfig) (*pbv1.TaskPushNotificationConfig, error) {
	cfg, err := convert.PushConfigOf10(req)
	if err != nil {
		return nil, badRequest(err)
	}
	params, err := setPushParams(a2a.V10, req.GetTaskId(), cfg, req.GetTenant())
	if err != nil {
		return nil, err
	}
	raw, err := x.s.unary(ctx, a2a.V10, "CreateTaskPushNotificationConfig", params)
	if err != nil {
		return nil, err
	}
	c, err := pushConfigOf(raw)
	if err != nil {
		return nil, err
	}
	return convert.PushConfig10("", c, ""), nil
}

func (x service10) GetTaskPushNotificationConfig(ctx context.Context, req *pbv1.GetTaskPushNotificationConfigRequest) (*pbv1.TaskPushNotificationConfig, error) {
	raw, err := x.s.unary(ctx, a2a.V10, "GetTaskPushNotificationConfig",
		pushParams10{Tenant: req.GetTenant(), TaskID: req.GetTaskId(), ID: req.GetId()})
	if err != nil {
		return nil, err
	}
	c, err := pushConfigOf(raw)
	if err != nil {
		return nil, err
	}
	return convert.PushConfig10("", c, ""), nil
}

func (x service10) ListTaskPushNotificationConfigs(ctx context.Context, req *pbv1.ListTaskPushNotificationConfigsRequest) (*pbv1.ListTaskPushNotificationConfigsResponse, error) {
	raw, err := x.s.unary(ctx, a2a.V10, "ListTaskPushNotificationConfigs",
		pushParams10{Tenant: req.GetTenant(), TaskID: req.GetTaskId()})
	if err != nil {
		return nil, err
	}
	cs, err := pushConfigsOf(raw)
	if err != nil {
		return nil, err
	}
	out := &pbv1.ListTaskPushNotificationConfigsResponse{}
	for _, c := range cs {
		out.Configs = append(out.Configs, convert.PushConfig10("", c, ""))
	}
	return out, nil
}

func (x service10) DeleteTaskPushNotificationConfig(ctx context.Context, req *pbv1.DeleteTaskPushNotificationConfigRequest) (*emptypb.Empty, error) {
	if err := x.s.unaryVoid(ctx, a2a.V10, "DeleteTaskPushNotificationConfig",
		pushParams10{Tenant: req.GetTenant(), TaskID: req.GetTaskId(), ID: req.GetId()}); err != nil {
		return nil, err
	}
	return &emptypb.Empty{}, nil
}

// pushConfig03 converts a config of the agent's to 0.3's message.
func pushConfig03(c a2a.PushConfig) (*pbv03.TaskPushNotificationConfig, error) {
	p, err := convert.PushConfig03("", c)
	if err != nil {
		return nil, convErr(err)
	}
	return p, nil
}

func (x service03) CreateTaskPushNotificationConfig(ctx context.Context, req *pbv03.CreateTaskPushNotificationConfigRequest) (*pbv03.TaskPushNotificationConfig, error) {
	taskID, err := convert.TaskIDOfName(req.GetParent())
	if err != nil {
		return nil, badRequest(err)
	}
	cfg, err := convert.PushConfigOf03(req.GetConfig())
	if err != nil {
		return nil, badRequest(err)
	}
	if cfg.ID == "" {
		cfg.ID = req.GetConfigId()
	}
	params, err := setPushParams(a2a.V03, taskID, cfg, "")
	if err != nil {
		return nil, err
	}
	raw, err := x.s.unary(ctx, a2a.V03, "tasks/pushNotificationConfig/set", params)
	if err != nil {
		return nil, err
	}
	c, err := pushConfigOf(raw)
	if err != nil {
		return nil, err
	}
	return pushConfig03(c)
}

func (x service03) GetTaskPushNotificationConfig(ctx context.Context, req *pbv03.GetTaskPushNotificationConfigRequest) (*pbv03.TaskPushNotificationConfig, error) {
	taskID, configID, err := convert.PushConfigIDsOfName(req.GetName(), false)
	if err != nil {
		return nil, badRequest(err)
	}
	raw, err := x.s.unary(ctx, a2a.V03, "tasks/pushNotificationConfig/get", pushParams03{ID: taskID, ConfigID: configID})
	if err != nil {
		return nil, err
	}
	c, err := pushConfigOf(raw)
	if err != nil {
		return nil, err
	}
	return pushConfig03(c)
}

func (x service03) ListTaskPushNotificationConfig(ctx context.Context, req *pbv03.ListTaskPushNotificationConfigRequest) (*pbv03.ListTaskPushNotificationConfigResponse, error) {
	taskID, err := convert.TaskIDOfName(req.GetParent())
	if err != nil {
		return nil, badRequest(err)
	}
	raw, err := x.s.unary(ctx, a2a.V03, "tasks/pushNotificationConfig/list", pushParams03{ID: taskID})
	if err != nil {
		return nil, err
	}
	cs, err := pushConfigsOf(raw)
	if err != nil {
		return nil, err
	}
	out := &pbv03.ListTaskPushNotificationConfigResponse{}
	for _, c := range cs {
		p, err := pushConfig03(c)
		if err != nil {
			return nil, err
		}
		out.Configs = append(out.Configs, p)
	}
	return out, nil
}

func (x service03) DeleteTaskPushNotificationConfig(ctx context.Context, req *pbv03.DeleteTaskPushNotificationConfigRequest) (*emptypb.Empty, error) {
	taskID, configID, err := convert.PushConfigIDsOfName(req.GetName(), false)
	if err != nil {
		return nil, badRequest(err)
	}
	if err := x.s.unaryVoid(ctx, a2a.V03, "tasks/pushNotificationConfig/delete", pushParams03{ID: taskID, ConfigID: configID}); err != nil {
		return nil, err
	}
	return &emptypb.Empty{}, nil
}

// tenantParams are the params of 1.0 GetExtendedAgentCard: {} with the
// tenant, if any.
type tenantParams struct {
	Tenant string `json:"tenant,omitempty"`
}

// cardOf decodes the card the agent answered an extended card call with.
func cardOf(raw json.RawMessage) (*a2a.AgentCard, error) {
	var card a2a.AgentCard
	if err := json.Unmarshal(raw, &card); err != nil {
		return nil, status.Error(codes.Internal, "a2agrpctest: the agent's card: "+err.Error())
	}
	return &card, nil
}

func (x service10) GetExtendedAgentCard(ctx context.Context, req *pbv1.GetExtendedAgentCardRequest) (*pbv1.AgentCard, error) {
	raw, err := x.s.unary(ctx, a2a.V10, "GetExtendedAgentCard", tenantParams{Tenant: req.GetTenant()})
	if err != nil {
		return nil, err
	}
	card, err := cardOf(raw)
	if err != nil {
		return nil, err
	}
	c, err := convert.AgentCard10(card)
	if err != nil {
		return nil, convErr(err)
	}
	return c, nil
}

func (x service03) GetAgentCard(ctx context.Context, _ *pbv03.GetAgentCardRequest) (*pbv03.AgentCard, error) {
	raw, err := x.s.unary(ctx, a2a.V03, "agent/getAuthenticatedExtendedCard", nil)
	if err != nil {
		return nil, err
	}
	card, err := cardOf(raw)
	if err != nil {
		return nil, err
	}
	c, err := convert.AgentCard03(card)
	if err != nil {
		return nil, convErr(err)
	}
	return c, nil
}
