package stream

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/transport"
)

// The rows of cannotPush: which answers of an agent to a push-config call
// say it cannot take push configs.
func TestCannotPush(t *testing.T) {
	rpc := func(code int) error { return &a2a.RPCError{Code: code} }
	httpErr := func(status int, inner error) error { return &transport.HTTPError{StatusCode: status, Err: inner} }
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"-32003 push notification not supported", rpc(a2a.CodePushNotificationNotSupported), true},
		{"-32004 unsupported operation", rpc(a2a.CodeUnsupportedOperation), true},
		{"-32601 method not found", rpc(a2a.CodeMethodNotFound), true},
		{"-32003 wrapped", fmt.Errorf("x: %w", rpc(a2a.CodePushNotificationNotSupported)), true},
		{"REST 400 carrying -32003", httpErr(http.StatusBadRequest, rpc(a2a.CodePushNotificationNotSupported)), true},
		{"HTTP 405", httpErr(http.StatusMethodNotAllowed, nil), true},
		{"HTTP 501", httpErr(http.StatusNotImplemented, nil), true},
		{"HTTP 404 without an A2A error", httpErr(http.StatusNotFound, nil), true},
		{"HTTP 404 task not found", httpErr(http.StatusNotFound, rpc(a2a.CodeTaskNotFound)), false},
		{"-32001 task not found", rpc(a2a.CodeTaskNotFound), false},
		{"-32603 internal error (0.3.14's unknown config)", rpc(a2a.CodeInternalError), false},
		{"-32602 invalid params", rpc(a2a.CodeInvalidParams), false},
		{"-32009 version not supported", rpc(a2a.CodeVersionNotSupported), false},
		{"HTTP 400 without an A2A error", httpErr(http.StatusBadRequest, nil), false},
		{"HTTP 500", httpErr(http.StatusInternalServerError, nil), false},
		{"a protocol error", &transport.ProtocolError{Reason: "x"}, false},
		{"another error", errors.New("x"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, cannotPush(tc.err))
		})
	}
}

// The rows of checkPushConfig: an answer about task "t" (and config "c",
// when asked for) is refused only when it names another.
func TestCheckPushConfig(t *testing.T) {
	for _, tc := range []struct {
		name     string
		got      a2a.PushConfig
		configID string
		ok       bool
	}{
		{"the task and the config", a2a.PushConfig{ID: "c", TaskID: "t"}, "c", true},
		{"no task named", a2a.PushConfig{ID: "c"}, "c", true},
		{"no ID", a2a.PushConfig{TaskID: "t"}, "c", true},
		{"any ID when none asked for", a2a.PushConfig{ID: "other", TaskID: "t"}, "", true},
		{"another task", a2a.PushConfig{ID: "c", TaskID: "other"}, "c", false},
		{"another config", a2a.PushConfig{ID: "other", TaskID: "t"}, "c", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkPushConfig(tc.got, "t", tc.configID)
			if tc.ok {
				require.NoError(t, err)
				return
			}
			var pe *transport.ProtocolError
			require.ErrorAs(t, err, &pe)
		})
	}
}
