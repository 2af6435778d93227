package transport

import (
	"context"

	"github.com/a2astream/a2astream/a2a"
)

// PushConfigurer is a [Transport] that can also make the push-config calls
// of A2A (0.3 tasks/pushNotificationConfig/{set,get,list,delete}, 1.0
// Create/Get/List/DeleteTaskPushNotificationConfig(s)). It is optional, as
// [TaskLister] is, so that Transport keeps its methods: the push-config
// calls of a stream.Client of stream.NewClientFor call these methods when
// its Transport implements PushConfigurer, and otherwise fail with an
// error that matches errors.ErrUnsupported, sending nothing.
//
// Each method makes one call in the version of [Call]. The config given to
// SetPushConfig has been checked ([a2a.PushConfig.Check]); the configs
// returned are checked by the caller (each names the task asked for, when
// it names one) and returned as the agent said them: nothing acts on a URL
// or a secret an agent answers with. The errors are those of GetTask (see
// Transport): an agent without push notifications answers -32003 (gRPC's
// FAILED_PRECONDITION with reason PUSH_NOTIFICATION_NOT_SUPPORTED is
// a2a.CodePushNotificationNotSupported), an unknown task or config -32001.
// DeletePushConfig of a config the task does not have succeeds, as the
// servers answer it.
type PushConfigurer interface {
	Transport
	SetPushConfig(ctx context.Context, call Call, taskID string, cfg a2a.PushConfig) (a2a.PushConfig, error)
	GetPushConfig(ctx context.Context, call Call, taskID, configID string) (a2a.PushConfig, error)
	ListPushConfigs(ctx context.Context, call Call, taskID string) ([]a2a.PushConfig, error)
	DeletePushConfig(ctx context.Context, call Call, taskID, configID string) error
}
