package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/callmark"
	"github.com/a2astream/a2astream/internal/httpx"
	"github.com/a2astream/a2astream/transport"
)

// SetPushConfig registers cfg for task taskID and returns the config as
// the agent answered it, with the ID the agent gave it when cfg has none
// (a random UUID on @a2a-js/sdk 1.3.0, the task's ID on 0.3.14); a config
// with the ID of one the task has replaces it. cfg is refused, with an
// error matching ErrInvalidOption and nothing sent, when
// a2a.PushConfig.Check refuses it; its TaskID is not sent.
//
// The push-config calls register, read and remove the webhooks an agent
// POSTs a task's events to (A2A push notifications): in 0.3
// tasks/pushNotificationConfig/{set,get,list,delete}; in 1.0 the JSON-RPC
// methods CreateTaskPushNotificationConfig, GetTaskPushNotificationConfig,
// ListTaskPushNotificationConfigs and DeleteTaskPushNotificationConfig, or
// over HTTP+JSON POST, GET and DELETE on
// /tasks/{id}/pushNotificationConfigs[/{configId}] (under the tenant of the
// interface Resolve chose). The HTTP+JSON binding of 0.3 names no route for
// them: a call in 0.3 over HTTP+JSON fails, sending nothing, with an error
// that matches errors.ErrUnsupported.
//
// Each takes ctx and opts as GetTask does, and refuses with an error
// matching ErrInvalidOption, sending nothing, an option GetTask refuses
// and an empty task ID (or, for get and delete, config ID). Each
// negotiates the version as
// it does: a Client whose version is not known yet calls in 1.0 first, and
// in 0.3 when the agent refuses 1.0 (-32601 for the 1.0 method names,
// -32009, or an HTTP 404 without an A2A error).
//
// An agent that cannot take push configs fails the call with an error that
// matches errors.ErrUnsupported, the agent's *a2a.RPCError (or
// *transport.HTTPError) still in its chain for errors.As: -32003 (push
// notifications not supported; over HTTP+JSON a 400 FAILED_PRECONDITION
// with reason PUSH_NOTIFICATION_NOT_SUPPORTED), -32004 (unsupported
// operation), -32601 (method not found) once no other version is left to
// try, or over HTTP+JSON 405, 501 or a 404 without an A2A error. So does a
// Client of NewClientFor whose Transport does not implement
// transport.PushConfigurer, with nothing sent. An unknown task, or an
// unknown config on get, is the agent's *a2a.RPCError -32001 (task not
// found), as GetTask gives it; @a2a-js/sdk 0.3.14 answers a get of an
// unknown config -32603 (internal error), which the Client returns as it
// came. Any other failure is as GetTask's: an *a2a.RPCError, a
// *transport.HTTPError, a *transport.ProtocolError for an answer that is
// not a config or names another task.
//
// The configs returned are what the agent said, its echo of the secrets
// included (the servers seen send the token and credentials back): the
// Client sends nothing to a URL an agent answers with, and the application
// checks notifications against the config it registered, never against
// one read back. The token and the credentials never appear in the text of
// an error of these calls (an agent's error message that quotes them is
// redacted) nor in the request log of WithLogger.
func (c *Client) SetPushConfig(ctx context.Context, taskID string, cfg a2a.PushConfig, opts ...Option) (a2a.PushConfig, error) {
	if err := cfg.Check(); err != nil {
		return a2a.PushConfig{}, fmt.Errorf("%w: SetPushConfig: %w", ErrInvalidOption, err)
	}
	var got a2a.PushConfig
	err := c.pushCall(ctx, "SetPushConfig", pushIDs{task: taskID}, opts, cfg, func(ctx context.Context, k callConfig) error {
		var err error
		got, err = c.calls.setPushConfig(ctx, k, taskID, cfg)
		return err
	})
	if err == nil {
		err = checkPushConfig(got, taskID, "")
	}
	if err != nil {
		return a2a.PushConfig{}, err
	}
	return got, nil
}

// GetPushConfig returns the config configID of task taskID as the agent
// holds it. configID is required (the config @a2a-js/sdk 0.3.14 registers
// from a send without an ID has the task's ID as its ID). Its errors are
// SetPushConfig's.
func (c *Client) GetPushConfig(ctx context.Context, taskID, configID string, opts ...Option) (a2a.PushConfig, error) {
	var got a2a.PushConfig
	err := c.pushCall(ctx, "GetPushConfig", pushIDs{taskID, configID, true}, opts, a2a.PushConfig{}, func(ctx context.Context, k callConfig) error {
		var err error
		got, err = c.calls.getPushConfig(ctx, k, taskID, configID)
		return err
	})
	if err == nil {
		err = checkPushConfig(got, taskID, configID)
	}
	if err != nil {
		return a2a.PushConfig{}, err
	}
	return got, nil
}

// ListPushConfigs returns the configs task taskID has, in the agent's
// order: none (an empty slice) when it has none. Its errors are SetPushConfig's.
func (c *Client) ListPushConfigs(ctx context.Context, taskID string, opts ...Option) ([]a2a.PushConfig, error) {
	var got []a2a.PushConfig
	err := c.pushCall(ctx, "ListPushConfigs", pushIDs{task: taskID}, opts, a2a.PushConfig{}, func(ctx context.Context, k callConfig) error {
		var err error
		got, err = c.calls.listPushConfigs(ctx, k, taskID)
		return err
	})
	if err != nil {
		return nil, err
	}
	if got == nil {
		got = []a2a.PushConfig{}
	}
	for _, p := range got {
		if err := checkPushConfig(p, taskID, ""); err != nil {
			return nil, err
		}
	}
	return got, nil
}

// DeletePushConfig removes the config configID of task taskID. It is
// idempotent, as the servers answer it: removing a config the task does not
// have succeeds (an unknown task is -32001). Its errors are SetPushConfig's.
func (c *Client) DeletePushConfig(ctx context.Context, taskID, configID string, opts ...Option) error {
	return c.pushCall(ctx, "DeletePushConfig", pushIDs{taskID, configID, true}, opts, a2a.PushConfig{}, func(ctx context.Context, k callConfig) error {
		return c.calls.deletePushConfig(ctx, k, taskID, configID)
	})
}

// pushIDs are the IDs a push-config call names: the task's, and the
// config's for a call that takes one.
type pushIDs struct {
	task, config string
	hasConfig    bool
}

// check refuses an empty ID of a call named name.
func (ids pushIDs) check(name string) error {
	if err := needTaskID(name, ids.task); err != nil {
		return err
	}
	if ids.hasConfig && ids.config == "" {
		return refuseArg("%s: the config ID is empty; pass the ID of one of the task's configs (ListPushConfigs lists them)", name)
	}
	return nil
}

// pushCall makes one push-config call named name, do, in the Client's
// version, negotiated as GetTask's is: it checks ids and opts, and sorts
// the agent's refusals (see cannotPush). cfg is the config the call
// sends, whose secrets an error's text never shows.
func (c *Client) pushCall(ctx context.Context, name string, ids pushIDs, opts []Option, cfg a2a.PushConfig,
	do func(ctx context.Context, k callConfig) error) error {
	if err := ids.check(name); err != nil {
		return err
	}
	conf, err := c.configWith(opts, name, false)
	if err != nil {
		return err
	}
	v, negotiable := c.currentVersion()
	err = do(ctx, conf.call(v, conf.header))
	if negotiable && isVersionRefusal(err) {
		v = a2a.V03
		err = do(ctx, conf.call(v, conf.header))
	}
	if err != nil {
		err, _ = callmark.UnwrapResponded(err)
		err = redactSecrets(err, cfg)
		if cannotPush(err) && !errors.Is(err, errors.ErrUnsupported) {
			err = fmt.Errorf("stream: %s: %w: %w", name, errors.ErrUnsupported, err)
		}
		return err
	}
	c.remember(v)
	return nil
}

// cannotPush reports an agent's answer to a push-config call that says it
// cannot take push configs: -32003, -32004 or -32601 (after negotiation,
// a method of no version the agent speaks), or HTTP 405, 501, or 404
// without an A2A error (no such route). A 400 FAILED_PRECONDITION with
// reason PUSH_NOTIFICATION_NOT_SUPPORTED carries -32003.
func cannotPush(err error) bool {
	var (
		rpc     *a2a.RPCError
		httpErr *transport.HTTPError
	)
	if errors.As(err, &httpErr) {
		switch httpErr.StatusCode {
		case http.StatusMethodNotAllowed, http.StatusNotImplemented:
			return true
		case http.StatusNotFound:
			if httpErr.Err == nil {
				return true
			}
		}
	}
	if errors.As(err, &rpc) {
		switch rpc.Code {
		case a2a.CodePushNotificationNotSupported, a2a.CodeUnsupportedOperation, a2a.CodeMethodNotFound:
			return true
		}
	}
	return false
}

// checkPushConfig checks a config an agent answered a call about task
// taskID (and config configID, when not "") with: it names that task, when
// it names one, and that config, when it has an ID. What else it holds
// is the agent's, returned as it is.
func checkPushConfig(p a2a.PushConfig, taskID, configID string) error {
	switch {
	case p.TaskID != "" && p.TaskID != taskID:
		return &transport.ProtocolError{Reason: fmt.Sprintf("asked for a push config of task %q, got one of task %q",
			quote([]byte(taskID)), quote([]byte(p.TaskID)))}
	case configID != "" && p.ID != "" && p.ID != configID:
		return &transport.ProtocolError{Reason: fmt.Sprintf("asked for push config %q, got push config %q",
			quote([]byte(configID)), quote([]byte(p.ID)))}
	}
	return nil
}

// redactSecrets returns err with the token and the credentials of cfg
// replaced in its text, when an agent's error quotes them: the message and
// data of the *a2a.RPCError (an *a2a.RPCError wrapped in a
// *transport.HTTPError is the same value), and the body the
// *transport.HTTPError kept, are rewritten. The chain is kept:
// errors.As finds the same types.
func redactSecrets(err error, cfg a2a.PushConfig) error {
	secrets := []string{cfg.Token}
	if cfg.Auth != nil {
		secrets = append(secrets, cfg.Auth.Credentials)
	}
	var (
		rpc     *a2a.RPCError
		httpErr *transport.HTTPError
	)
	if errors.As(err, &rpc) {
		rpc.Message = httpx.RedactSecrets(rpc.Message, secrets...)
		if len(rpc.Data) > 0 {
			rpc.Data = json.RawMessage(httpx.RedactSecrets(string(rpc.Data), secrets...))
		}
	}
	if errors.As(err, &httpErr) && len(httpErr.Body) > 0 {
		httpErr.Body = []byte(httpx.RedactSecrets(string(httpErr.Body), secrets...))
	}
	return err
}
