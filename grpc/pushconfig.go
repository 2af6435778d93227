package a2agrpc

import (
	"context"
	"encoding/json"
	"errors"

	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/a2astream/a2astream/a2a"
	pbv03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	pbv1 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
	"github.com/a2astream/a2astream/grpc/internal/convert"
	"github.com/a2astream/a2astream/internal/httpx"
	"github.com/a2astream/a2astream/transport"
)

// The Transport makes the push-config calls of stream.Client
// (SetPushConfig, GetPushConfig, ListPushConfigs, DeletePushConfig) and so
// registers the push configs of stream.WithPush.
var _ transport.PushConfigurer = (*Transport)(nil)

// SetPushConfig registers cfg for task taskID and returns the config the
// agent answered with: in 1.0 CreateTaskPushNotificationConfig
// (lf.a2a.v1.A2AService, the config's fields with the task's ID and the
// tenant of WithTenant), in 0.3 CreateTaskPushNotificationConfig
// (a2a.v1.A2AService, parent "tasks/{id}", config_id and the config named
// "tasks/{id}/pushNotificationConfigs/{config_id}", its authentication the
// list of cfg's one scheme). It makes the Transport a
// transport.PushConfigurer, with GetPushConfig, ListPushConfigs and
// DeletePushConfig.
//
// Each push-config call is made as GetTask is: the call's headers as
// metadata, its breaker, its connect and idle timers (see Transport); its
// errors are GetTask's (see StatusError). NOT_FOUND is task not found
// (-32001). An agent without push notifications answers
// FAILED_PRECONDITION with reason PUSH_NOTIFICATION_NOT_SUPPORTED (1.0:
// a2a.CodePushNotificationNotSupported), UNIMPLEMENTED (0.3 servers send
// -32003 so: unsupported operation), or UNIMPLEMENTED for a method it
// does not have (method not found); stream's push-config calls give each
// as an error that matches errors.ErrUnsupported. An answer that holds no
// config (none, or one without a URL, or a 0.3 name of another shape) is a
// *transport.ProtocolError; the configs' task and config IDs are checked by
// the caller (stream). A task ID no request can name (empty, or with a "/"
// in 0.3) is a *transport.ProtocolError, as GetTask's, and a config ID with
// a "/" in 0.3 an error wrapping transport.ErrInvalidMessage, neither sent.
// The token and the credentials are never in the text of its error: an
// agent's status message that quotes them is redacted (in the StatusError,
// its status and the *a2a.RPCError read of it), as stream redacts the
// agent's errors of the other bindings.
func (t *Transport) SetPushConfig(ctx context.Context, call transport.Call, taskID string, cfg a2a.PushConfig) (a2a.PushConfig, error) {
	if v03(call) {
		req, err := convert.CreatePushConfigRequest03(taskID, cfg)
		if err != nil {
			return a2a.PushConfig{}, pushRequestError(err)
		}
		var resp pbv03.TaskPushNotificationConfig
		if err := t.unary(ctx, call, opPushConfig, pbv03.A2AService_CreateTaskPushNotificationConfig_FullMethodName, req, &resp); err != nil {
			return a2a.PushConfig{}, redactSecrets(err, cfg)
		}
		return convert.PushConfigOf03(&resp)
	}
	req, err := convert.CreatePushConfigRequest10(taskID, cfg, t.cfg.tenant)
	if err != nil {
		return a2a.PushConfig{}, pushRequestError(err)
	}
	var resp pbv1.TaskPushNotificationConfig
	if err := t.unary(ctx, call, opPushConfig, pbv1.A2AService_CreateTaskPushNotificationConfig_FullMethodName, req, &resp); err != nil {
		return a2a.PushConfig{}, redactSecrets(err, cfg)
	}
	return convert.PushConfigOf10(&resp)
}

// GetPushConfig returns the config configID of task taskID as the agent
// holds it: GetTaskPushNotificationConfig (0.3: by the name
// "tasks/{id}/pushNotificationConfigs/{config_id}"). Its errors are
// SetPushConfig's.
func (t *Transport) GetPushConfig(ctx context.Context, call transport.Call, taskID, configID string) (a2a.PushConfig, error) {
	if v03(call) {
		req, err := convert.GetPushConfigRequest03(taskID, configID)
		if err != nil {
			return a2a.PushConfig{}, pushRequestError(err)
		}
		var resp pbv03.TaskPushNotificationConfig
		if err := t.unary(ctx, call, opPushConfig, pbv03.A2AService_GetTaskPushNotificationConfig_FullMethodName, req, &resp); err != nil {
			return a2a.PushConfig{}, err
		}
		return convert.PushConfigOf03(&resp)
	}
	req, err := convert.GetPushConfigRequest10(taskID, configID, t.cfg.tenant)
	if err != nil {
		return a2a.PushConfig{}, pushRequestError(err)
	}
	var resp pbv1.TaskPushNotificationConfig
	if err := t.unary(ctx, call, opPushConfig, pbv1.A2AService_GetTaskPushNotificationConfig_FullMethodName, req, &resp); err != nil {
		return a2a.PushConfig{}, err
	}
	return convert.PushConfigOf10(&resp)
}

// ListPushConfigs returns the configs of task taskID, in the agent's
// order: 1.0 ListTaskPushNotificationConfigs, 0.3
// ListTaskPushNotificationConfig (the spec's names), one page (a next
// page's token is not read). Its errors are SetPushConfig's.
func (t *Transport) ListPushConfigs(ctx context.Context, call transport.Call, taskID string) ([]a2a.PushConfig, error) {
	if v03(call) {
		req, err := convert.ListPushConfigsRequest03(taskID)
		if err != nil {
			return nil, pushRequestError(err)
		}
		var resp pbv03.ListTaskPushNotificationConfigResponse
		if err := t.unary(ctx, call, opPushConfig, pbv03.A2AService_ListTaskPushNotificationConfig_FullMethodName, req, &resp); err != nil {
			return nil, err
		}
		return convert.PushConfigsOf03(&resp)
	}
	req, err := convert.ListPushConfigsRequest10(taskID, t.cfg.tenant)
	if err != nil {
		return nil, pushRequestError(err)
	}
	var resp pbv1.ListTaskPushNotificationConfigsResponse
	if err := t.unary(ctx, call, opPushConfig, pbv1.A2AService_ListTaskPushNotificationConfigs_FullMethodName, req, &resp); err != nil {
		return nil, err
	}
	return convert.PushConfigsOf10(&resp)
}

// DeletePushConfig removes the config configID of task taskID:
// DeleteTaskPushNotificationConfig, whose answer is empty. Its errors are
// SetPushConfig's.
func (t *Transport) DeletePushConfig(ctx context.Context, call transport.Call, taskID, configID string) error {
	var resp emptypb.Empty
	if v03(call) {
		req, err := convert.DeletePushConfigRequest03(taskID, configID)
		if err != nil {
			return pushRequestError(err)
		}
		return t.unary(ctx, call, opPushConfig, pbv03.A2AService_DeleteTaskPushNotificationConfig_FullMethodName, req, &resp)
	}
	req, err := convert.DeletePushConfigRequest10(taskID, configID, t.cfg.tenant)
	if err != nil {
		return pushRequestError(err)
	}
	return t.unary(ctx, call, opPushConfig, pbv1.A2AService_DeleteTaskPushNotificationConfig_FullMethodName, req, &resp)
}

// redactSecrets returns err, the error of a call that sent cfg, with cfg's
// token and credentials replaced by xxxxx wherever the agent's status
// quoted them: the StatusError's message and status, and the message and
// data of the *a2a.RPCError read of it. The chain keeps its types.
func redactSecrets(err error, cfg a2a.PushConfig) error {
	secrets := []string{cfg.Token}
	if cfg.Auth != nil {
		secrets = append(secrets, cfg.Auth.Credentials)
	}
	var se *StatusError
	if errors.As(err, &se) {
		se.Message = httpx.RedactSecrets(se.Message, secrets...)
		if se.status != nil {
			p := se.status.Proto()
			p.Message = httpx.RedactSecrets(p.GetMessage(), secrets...)
			se.status = status.FromProto(p)
		}
	}
	var rpc *a2a.RPCError
	if errors.As(err, &rpc) {
		rpc.Message = httpx.RedactSecrets(rpc.Message, secrets...)
		if len(rpc.Data) > 0 {
			rpc.Data = json.RawMessage(httpx.RedactSecrets(string(rpc.Data), secrets...))
		}
	}
	return err
}

// pushRequestError is the error of a push-config request that cannot be
// built: a task ID no request can name is badTaskID's; a config ID the
// proto cannot carry (wrapping transport.ErrInvalidMessage) is as it came.
func pushRequestError(err error) error {
	if errors.Is(err, convert.ErrBadTaskID) {
		return badTaskID(err)
	}
	return err
}
