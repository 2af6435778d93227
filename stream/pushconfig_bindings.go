package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/jsonrpc"
	"github.com/a2astream/a2astream/transport"
)

// The push-config calls of each binding (see Client.SetPushConfig): the
// JSON-RPC methods of both versions, the 1.0 HTTP+JSON routes, and a
// Transport of another module through transport.PushConfigurer.

// pushConfigParams are the params of the 1.0 JSON-RPC calls that name a
// task and, but for the list, a config.
type pushConfigParams struct {
	Tenant string `json:"tenant,omitempty"`
	TaskID string `json:"taskId"`
	ID     string `json:"id,omitempty"`
}

// pushConfigParams03 are those of 0.3, where "id" is the task's.
type pushConfigParams03 struct {
	ID       string `json:"id"`
	ConfigID string `json:"pushNotificationConfigId,omitempty"`
}

// params returns the params of a call about task taskID and config
// configID ("" for the list) in version k.v.
func (b jsonrpcBinding) pushParams(v a2a.Version, taskID, configID string) any {
	if v == a2a.V03 {
		return pushConfigParams03{ID: taskID, ConfigID: configID}
	}
	return pushConfigParams{Tenant: b.tenant(v), TaskID: taskID, ID: configID}
}

func (b jsonrpcBinding) setPushConfig(ctx context.Context, k callConfig, taskID string, cfg a2a.PushConfig) (a2a.PushConfig, error) {
	params, err := a2a.Codec{Version: k.v}.EncodeSetPushConfig(taskID, cfg, b.tenant(k.v))
	if err != nil {
		return a2a.PushConfig{}, fmt.Errorf("%w: SetPushConfig: %w", ErrInvalidOption, err)
	}
	raw, _, err := b.unary(ctx, k, rpcPushSet, json.RawMessage(params))
	if err != nil {
		return a2a.PushConfig{}, err
	}
	return decodePushConfig(raw)
}

func (b jsonrpcBinding) getPushConfig(ctx context.Context, k callConfig, taskID, configID string) (a2a.PushConfig, error) {
	raw, _, err := b.unary(ctx, k, rpcPushGet, b.pushParams(k.v, taskID, configID))
	if err != nil {
		return a2a.PushConfig{}, err
	}
	return decodePushConfig(raw)
}

func (b jsonrpcBinding) listPushConfigs(ctx context.Context, k callConfig, taskID string) ([]a2a.PushConfig, error) {
	raw, _, err := b.unary(ctx, k, rpcPushList, b.pushParams(k.v, taskID, ""))
	if err != nil {
		return nil, err
	}
	return decodePushConfigs(raw)
}

// deletePushConfig makes a delete, whose result is null: any result is
// success.
func (b jsonrpcBinding) deletePushConfig(ctx context.Context, k callConfig, taskID, configID string) error {
	call := b.c.newCall(ctx, k)
	defer call.close()
	resp, id, err := b.post(call, k.v, rpcPushDelete, b.pushParams(k.v, taskID, configID), "application/json")
	if err != nil {
		return err
	}
	raw, _, err := b.c.readUnary(call, resp)
	if err != nil {
		return err
	}
	r, err := jsonrpc.DecodeVoidResponse(raw)
	if err != nil {
		return &transport.ProtocolError{Reason: "malformed JSON-RPC response", Err: err}
	}
	return responseError(r.ID, id, r.Error)
}

// pushResource is the HTTP+JSON resource of task taskID's push configs,
// or of config configID of them.
func pushResource(taskID, configID string) resource {
	segs := []string{"tasks", taskID, "pushNotificationConfigs"}
	if configID != "" {
		segs = append(segs, configID)
	}
	return resource{segs: segs}
}

// noPushRoutes refuses a push-config call over the HTTP+JSON binding of
// 0.3, which names no route for it.
func noPushRoutes(v a2a.Version) error {
	if v == a2a.V03 {
		return fmt.Errorf("stream: %w: the HTTP+JSON binding of A2A 0.3 has no push-config routes", errors.ErrUnsupported)
	}
	return nil
}

func (b restBinding) setPushConfig(ctx context.Context, k callConfig, taskID string, cfg a2a.PushConfig) (a2a.PushConfig, error) {
	if err := noPushRoutes(k.v); err != nil {
		return a2a.PushConfig{}, err
	}
	body, err := a2a.Codec{Version: k.v, Binding: a2a.BindingHTTPJSON}.EncodePushConfig(cfg)
	if err != nil {
		return a2a.PushConfig{}, fmt.Errorf("%w: SetPushConfig: %w", ErrInvalidOption, err)
	}
	raw, _, err := b.unary(ctx, k, http.MethodPost, pushResource(taskID, ""), body)
	if err != nil {
		return a2a.PushConfig{}, err
	}
	return decodePushConfig(raw)
}

func (b restBinding) getPushConfig(ctx context.Context, k callConfig, taskID, configID string) (a2a.PushConfig, error) {
	if err := noPushRoutes(k.v); err != nil {
		return a2a.PushConfig{}, err
	}
	raw, _, err := b.unary(ctx, k, http.MethodGet, pushResource(taskID, configID), nil)
	if err != nil {
		return a2a.PushConfig{}, err
	}
	return decodePushConfig(raw)
}

func (b restBinding) listPushConfigs(ctx context.Context, k callConfig, taskID string) ([]a2a.PushConfig, error) {
	if err := noPushRoutes(k.v); err != nil {
		return nil, err
	}
	raw, _, err := b.unary(ctx, k, http.MethodGet, pushResource(taskID, ""), nil)
	if err != nil {
		return nil, err
	}
	return decodePushConfigs(raw)
}

// deletePushConfig makes a DELETE, which @a2a-js/sdk 1.3.0 answers 204 with
// an empty body: any 2xx is success, and its body is not read.
func (b restBinding) deletePushConfig(ctx context.Context, k callConfig, taskID, configID string) error {
	if err := noPushRoutes(k.v); err != nil {
		return err
	}
	call := b.c.newCall(ctx, k)
	defer call.close()
	resp, err := b.request(call, k.v, http.MethodDelete, pushResource(taskID, configID), nil, "application/json")
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// decodePushConfig decodes a config an agent answered with, which a
// *transport.ProtocolError reports malformed.
func decodePushConfig(raw []byte) (a2a.PushConfig, error) {
	p, err := a2a.DecodePushConfig(raw)
	if err != nil {
		return a2a.PushConfig{}, &transport.ProtocolError{Reason: "malformed push notification config", Err: err}
	}
	return p, nil
}

// decodePushConfigs decodes the configs of a list, which a
// *transport.ProtocolError reports malformed.
func decodePushConfigs(raw []byte) ([]a2a.PushConfig, error) {
	ps, err := a2a.DecodePushConfigs(raw)
	if err != nil {
		return nil, &transport.ProtocolError{Reason: "malformed push notification configs", Err: err}
	}
	return ps, nil
}

// pushConfigurer returns the Transport as a transport.PushConfigurer, or
// an error that matches errors.ErrUnsupported when it is not one.
func (s seam) pushConfigurer() (transport.PushConfigurer, error) {
	p, ok := s.b.(transport.PushConfigurer)
	if !ok {
		return nil, fmt.Errorf("stream: %w: the Transport does not implement transport.PushConfigurer", errors.ErrUnsupported)
	}
	return p, nil
}

func (s seam) setPushConfig(ctx context.Context, k callConfig, taskID string, cfg a2a.PushConfig) (a2a.PushConfig, error) {
	p, err := s.pushConfigurer()
	if err != nil {
		return a2a.PushConfig{}, err
	}
	return p.SetPushConfig(ctx, s.call(k), taskID, cfg)
}

func (s seam) getPushConfig(ctx context.Context, k callConfig, taskID, configID string) (a2a.PushConfig, error) {
	p, err := s.pushConfigurer()
	if err != nil {
		return a2a.PushConfig{}, err
	}
	return p.GetPushConfig(ctx, s.call(k), taskID, configID)
}

func (s seam) listPushConfigs(ctx context.Context, k callConfig, taskID string) ([]a2a.PushConfig, error) {
	p, err := s.pushConfigurer()
	if err != nil {
		return nil, err
	}
	return p.ListPushConfigs(ctx, s.call(k), taskID)
}

func (s seam) deletePushConfig(ctx context.Context, k callConfig, taskID, configID string) error {
	p, err := s.pushConfigurer()
	if err != nil {
		return err
	}
	return p.DeletePushConfig(ctx, s.call(k), taskID, configID)
}
