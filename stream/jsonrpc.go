package stream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/jsonrpc"
	"github.com/a2astream/a2astream/transport"
)

// jsonrpcBinding speaks JSON-RPC 2.0 over HTTP POST to one endpoint, with
// SSE for streaming calls. Its methods are the driver's agentCalls; each
// call is made with its callConfig k (version, headers, timeouts).
type jsonrpcBinding struct{ c *Client }

type rpcMethod int

const (
	rpcStream rpcMethod = iota
	rpcSubscribe
	rpcGet
	rpcCancel
	rpcSend
	rpcList // 1.0 only: never sent in 0.3, which has no ListTasks
	rpcExtendedCard
	rpcPushSet
	rpcPushGet
	rpcPushList
	rpcPushDelete
)

// name returns the method's name in version v.
func (m rpcMethod) name(v a2a.Version) string {
	if v == a2a.V03 {
		return [...]string{"message/stream", "tasks/resubscribe", "tasks/get", "tasks/cancel", "message/send", "tasks/list",
			"agent/getAuthenticatedExtendedCard", "tasks/pushNotificationConfig/set", "tasks/pushNotificationConfig/get",
			"tasks/pushNotificationConfig/list", "tasks/pushNotificationConfig/delete"}[m]
	}
	return [...]string{"SendStreamingMessage", "SubscribeToTask", "GetTask", "CancelTask", "SendMessage", "ListTasks",
		"GetExtendedAgentCard", "CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig",
		"ListTaskPushNotificationConfigs", "DeleteTaskPushNotificationConfig"}[m]
}

type idParams struct {
	ID            string `json:"id"`
	HistoryLength int    `json:"historyLength,omitempty"`
	Tenant        string `json:"tenant,omitempty"`
}

// fullHistory is the historyLength a get-task asks for: the whole history,
// which the stream needs to recover messages missed in a gap. Without it,
// @a2a-js/sdk 0.3 answers with no history at all.
const fullHistory = 1 << 20

type sendParams struct {
	Message       json.RawMessage `json:"message"`
	Configuration *sendConfig     `json:"configuration,omitempty"`
	Tenant        string          `json:"tenant,omitempty"`
}

// sendConfig is a send's configuration: it asks a unary send to return at
// once instead of waiting for the task to settle (blocking:false in 0.3,
// returnImmediately in 1.0), and carries the push-notification config of
// the call, if any (see callConfig.push), in its version's member.
type sendConfig struct {
	Blocking          *bool           `json:"blocking,omitempty"`
	ReturnImmediately bool            `json:"returnImmediately,omitempty"`
	PushConfig10      json.RawMessage `json:"taskPushNotificationConfig,omitempty"`
	PushConfig03      json.RawMessage `json:"pushNotificationConfig,omitempty"`
}

// sendConfigOf returns the configuration of a send made with k, unary or
// streaming, in binding b's JSON: nil when it has nothing to say (a
// streaming send without a push config).
func sendConfigOf(k callConfig, b a2a.Binding, unary bool) (*sendConfig, error) {
	var c *sendConfig
	if unary {
		c = unaryConfig(k.v)
	}
	if k.push == nil {
		return c, nil
	}
	raw, err := a2a.Codec{Version: k.v, Binding: b}.EncodePushConfig(*k.push)
	if err != nil {
		return nil, err
	}
	if c == nil {
		c = &sendConfig{}
	}
	if k.v == a2a.V03 {
		c.PushConfig03 = raw
	} else {
		c.PushConfig10 = raw
	}
	return c, nil
}

func (b jsonrpcBinding) tenant(v a2a.Version) string {
	if v == a2a.V10 {
		return b.c.cfg.tenant
	}
	return ""
}

func (b jsonrpcBinding) messageParams(k callConfig, m *a2a.Message, unary bool) (any, error) {
	raw, err := a2a.Codec{Version: k.v}.EncodeMessage(m)
	if err != nil {
		return nil, err
	}
	p := sendParams{Message: raw, Tenant: b.tenant(k.v)}
	if p.Configuration, err = sendConfigOf(k, a2a.BindingJSONRPC, unary); err != nil {
		return nil, err
	}
	return p, nil
}

// unaryConfig asks a unary send to return at once, in version v's terms.
func unaryConfig(v a2a.Version) *sendConfig {
	if v == a2a.V03 {
		no := false
		return &sendConfig{Blocking: &no}
	}
	return &sendConfig{ReturnImmediately: true}
}

func (b jsonrpcBinding) sendStream(ctx context.Context, k callConfig, m *a2a.Message) (*leg, error) {
	p, err := b.messageParams(k, m, false)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", transport.ErrInvalidMessage, err)
	}
	return legOf(b.stream(ctx, k, rpcStream, p))
}

func (b jsonrpcBinding) subscribe(ctx context.Context, k callConfig, taskID string) (*leg, error) {
	return legOf(b.stream(ctx, k, rpcSubscribe, idParams{ID: taskID, Tenant: b.tenant(k.v)}))
}

func (b jsonrpcBinding) getTask(ctx context.Context, k callConfig, taskID string) (taskAnswer, error) {
	return b.task(ctx, k, rpcGet, taskID)
}

func (b jsonrpcBinding) cancel(ctx context.Context, k callConfig, taskID string) (taskAnswer, error) {
	return b.task(ctx, k, rpcCancel, taskID)
}

func (b jsonrpcBinding) sendUnary(ctx context.Context, k callConfig, m *a2a.Message) (a2a.Event, error) {
	p, err := b.messageParams(k, m, true)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", transport.ErrInvalidMessage, err)
	}
	raw, _, err := b.unary(ctx, k, rpcSend, p)
	if err != nil {
		return nil, err
	}
	ev, err := a2a.Codec{Version: k.v}.DecodeEvent(raw)
	if err != nil {
		return nil, &transport.ProtocolError{Reason: "malformed result", Err: err}
	}
	return ev, nil
}

// task makes a get-task or cancel call and returns its result, the task
// undecoded: its bytes do not hold the request's ID, which changes with
// every call.
func (b jsonrpcBinding) task(ctx context.Context, k callConfig, m rpcMethod, taskID string) (taskAnswer, error) {
	p := idParams{ID: taskID, Tenant: b.tenant(k.v)}
	if m == rpcGet {
		p.HistoryLength = fullHistory
	}
	raw, asked, err := b.unary(ctx, k, m, p)
	if err != nil {
		return taskAnswer{}, err
	}
	return taskAnswer{raw: raw, codec: a2a.Codec{Version: k.v}, asked: asked}, nil
}

// post sends one JSON-RPC request on k and returns the 2xx response with its
// body open and the request's ID. Any other status is a *transport.HTTPError.
func (b jsonrpcBinding) post(k *call, v a2a.Version, m rpcMethod, params any, accept string) (*http.Response, string, error) {
	id := uuid.NewString()
	body, err := json.Marshal(jsonrpc.NewRequest(id, m.name(v), params))
	if err != nil {
		return nil, "", fmt.Errorf("%w: encoding the request: %w", transport.ErrInvalidMessage, err)
	}
	req, err := http.NewRequestWithContext(k.ctx, http.MethodPost, b.c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, "", fmt.Errorf("stream: building request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	if v == a2a.V10 {
		req.Header.Set("A2A-Version", string(a2a.V10))
	}
	k.rpcMethod, k.rpcID = m.name(v), id
	resp, err := b.c.do(k, req)
	if err != nil {
		return nil, "", err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, "", k.httpError(resp)
	}
	return resp, id, nil
}

// stream makes a streaming call.
func (b jsonrpcBinding) stream(ctx context.Context, cfg callConfig, m rpcMethod, params any) (transport.EventReader, error) {
	k := b.c.newCall(ctx, cfg)
	resp, id, err := b.post(k, cfg.v, m, params, "text/event-stream")
	if err != nil {
		k.close()
		return nil, err
	}
	dec := jsonrpc.NewStreamDecoder(cfg.v)
	return b.c.newSSEReader(k, resp, func(data []byte, pieces [][]byte) (a2a.Event, error) {
		return decodeEvent(dec, data, pieces, id)
	})
}

// decodeEvent decodes one JSON-RPC response carrying a stream result: data,
// or, when data is nil, the text made of pieces (see frameDecoder).
func decodeEvent(d *jsonrpc.StreamDecoder, data []byte, pieces [][]byte, reqID string) (a2a.Event, error) {
	var (
		r   *jsonrpc.Response
		ev  a2a.Event
		err error
	)
	if pieces != nil {
		r, ev, err = d.DecodePieces(pieces)
	} else {
		r, ev, err = d.Decode(data)
	}
	switch {
	case errors.Is(err, jsonrpc.ErrNotAResponse):
		return nil, &transport.ProtocolError{Reason: "malformed JSON-RPC response", Err: err}
	case err != nil:
		return nil, &transport.ProtocolError{Reason: "malformed result", Err: err}
	}
	if err := responseError(r.ID, reqID, r.Error); err != nil {
		return nil, err
	}
	return ev, nil
}

// responseError is the error a JSON-RPC response makes of its ID and error
// member, or nil: a *transport.ProtocolError when it answers another request, else the
// RPC error it carries.
func responseError(respID json.RawMessage, reqID string, rpcErr *a2a.RPCError) error {
	err := jsonrpc.Check(respID, reqID, rpcErr)
	if err == nil {
		// Every event of a stream comes this way: the target of
		// errors.As below escapes, one allocation per event.
		return nil
	}
	var mismatch *jsonrpc.IDMismatchError
	if errors.As(err, &mismatch) {
		return &transport.ProtocolError{Reason: mismatch.Error()}
	}
	return err
}

// unary makes a non-streaming call and returns its JSON-RPC result, and
// the wait its response asked for (see readUnary).
func (b jsonrpcBinding) unary(ctx context.Context, cfg callConfig, m rpcMethod, params any) (json.RawMessage, time.Duration, error) {
	k := b.c.newCall(ctx, cfg)
	defer k.close()
	resp, id, err := b.post(k, cfg.v, m, params, "application/json")
	if err != nil {
		return nil, 0, err
	}
	raw, asked, err := b.c.readUnary(k, resp)
	if err != nil {
		return nil, 0, err
	}
	r, result, err := jsonrpc.DecodeResponse(raw)
	if err != nil {
		return nil, 0, &transport.ProtocolError{Reason: "malformed JSON-RPC response", Err: err}
	}
	if err := responseError(r.ID, id, r.Error); err != nil {
		return nil, 0, err
	}
	return result, asked, nil
}
