package a2agrpctest_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/grpc/a2agrpctest"
	"github.com/a2astream/a2astream/push"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// The push-config calls over gRPC (issue 33): stream.Client's
// SetPushConfig, GetPushConfig, ListPushConfigs and DeletePushConfig, and
// stream.WithPush, through a2agrpc.Transport's transport.PushConfigurer,
// against an a2atest agent served by a2agrpctest in both versions.

// pushBase is where the tests' receivers are mounted, as the agent reaches
// them: in-process (a2atest.WithPushClient(a2atest.NewClient(receiver))).
const pushBase = "http://127.0.0.1/hooks"

// The secrets of the configs the tests register: no error's text may show
// them.
const (
	pushToken = "tok-SECRET-1"
	pushCreds = "creds-SECRET-2"
)

// versions are the two versions of A2A over gRPC.
var versions = []a2a.Version{a2a.V03, a2a.V10}

// finishedTask sends a message to the agent of c and returns the task it
// ran to its end.
func finishedTask(t *testing.T, c *stream.Client) string {
	t.Helper()
	s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hi"))
	defer s.Close()
	for s.Next() {
	}
	require.NoError(t, s.Err())
	return s.Task().ID
}

// requireNoSecret fails when err's text shows a secret of the configs.
func requireNoSecret(t *testing.T, err error) {
	t.Helper()
	require.NotContains(t, err.Error(), pushToken)
	require.NotContains(t, err.Error(), pushCreds)
}

// grpcMethods returns the JSON-RPC methods the agent got, in order.
func grpcMethods(agent *a2atest.Agent) []string {
	var out []string
	for _, r := range agent.Requests() {
		out = append(out, r.Method)
	}
	return out
}

func TestPushConfigCalls(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithPush())
			t.Cleanup(agent.Close)
			c := client(t, a2agrpctest.NewServer(agent), v)
			ctx := context.Background()
			taskID := finishedTask(t, c)

			cfg := a2a.PushConfig{ID: "cfg-1", URL: "https://app.example/hooks/1", Token: pushToken}
			if v == a2a.V10 { // 0.3.14 ignores Auth; a2atest's 0.3 keeps what the model sends
				cfg.Auth = &a2a.PushAuth{Scheme: "Bearer", Credentials: pushCreds}
			}
			got, err := c.SetPushConfig(ctx, taskID, cfg)
			require.NoError(t, err)
			want := cfg
			want.TaskID = taskID
			require.Equal(t, want, got, "the agent's echo, task named")

			// A config without an ID: the agent names it (0.3.14 after the
			// task, 1.0 with a UUID).
			anon, err := c.SetPushConfig(ctx, taskID, a2a.PushConfig{URL: "https://app.example/hooks/2", Token: "t2"})
			require.NoError(t, err)
			require.NotEmpty(t, anon.ID)
			require.Equal(t, taskID, anon.TaskID)
			if v == a2a.V03 {
				require.Equal(t, taskID, anon.ID)
			}

			one, err := c.GetPushConfig(ctx, taskID, "cfg-1")
			require.NoError(t, err)
			require.Equal(t, want, one)

			all, err := c.ListPushConfigs(ctx, taskID)
			require.NoError(t, err)
			require.Equal(t, []a2a.PushConfig{want, anon}, all)

			require.NoError(t, c.DeletePushConfig(ctx, taskID, "cfg-1"))
			require.NoError(t, c.DeletePushConfig(ctx, taskID, "cfg-1"), "idempotent")
			all, err = c.ListPushConfigs(ctx, taskID)
			require.NoError(t, err)
			require.Equal(t, []a2a.PushConfig{anon}, all)
			require.NoError(t, c.DeletePushConfig(ctx, taskID, anon.ID))
			all, err = c.ListPushConfigs(ctx, taskID)
			require.NoError(t, err)
			require.Equal(t, []a2a.PushConfig{}, all, "none: an empty slice")

			wantMethods := []string{"CreateTaskPushNotificationConfig", "CreateTaskPushNotificationConfig",
				"GetTaskPushNotificationConfig", "ListTaskPushNotificationConfigs", "DeleteTaskPushNotificationConfig",
				"DeleteTaskPushNotificationConfig", "ListTaskPushNotificationConfigs", "DeleteTaskPushNotificationConfig",
				"ListTaskPushNotificationConfigs"}
			if v == a2a.V03 {
				wantMethods = []string{"tasks/pushNotificationConfig/set", "tasks/pushNotificationConfig/set",
					"tasks/pushNotificationConfig/get", "tasks/pushNotificationConfig/list", "tasks/pushNotificationConfig/delete",
					"tasks/pushNotificationConfig/delete", "tasks/pushNotificationConfig/list", "tasks/pushNotificationConfig/delete",
					"tasks/pushNotificationConfig/list"}
			}
			require.Equal(t, wantMethods, grpcMethods(agent)[1:], "each call reached the agent as its JSON-RPC twin")
		})
	}
}

// An agent without push notifications refuses each call: FAILED_PRECONDITION
// with reason PUSH_NOTIFICATION_NOT_SUPPORTED in 1.0, UNIMPLEMENTED in 0.3
// (as @a2a-js/sdk 0.3.14 sends -32003). Both are errors.ErrUnsupported to
// the Client, the agent's error in the chain, no secret in the text.
func TestPushConfigRefusedWithoutPush(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v))
			t.Cleanup(agent.Close)
			c := client(t, a2agrpctest.NewServer(agent), v)
			ctx := context.Background()
			taskID := finishedTask(t, c)

			cfg := a2a.PushConfig{URL: "https://app.example/hooks/1", Token: pushToken,
				Auth: &a2a.PushAuth{Scheme: "Bearer", Credentials: pushCreds}}
			_, err := c.SetPushConfig(ctx, taskID, cfg)
			require.ErrorIs(t, err, errors.ErrUnsupported)
			requireNoSecret(t, err)
			var rpc *a2a.RPCError
			require.ErrorAs(t, err, &rpc)
			if v == a2a.V10 {
				require.Equal(t, a2a.CodePushNotificationNotSupported, rpc.Code)
			} else {
				require.Equal(t, a2a.CodeUnsupportedOperation, rpc.Code, "0.3's UNIMPLEMENTED without details")
			}

			_, err = c.GetPushConfig(ctx, taskID, "c")
			require.ErrorIs(t, err, errors.ErrUnsupported)
			_, err = c.ListPushConfigs(ctx, taskID)
			require.ErrorIs(t, err, errors.ErrUnsupported)
			require.ErrorIs(t, c.DeletePushConfig(ctx, taskID, "c"), errors.ErrUnsupported)
		})
	}
}

// An unknown task is NOT_FOUND: task not found (-32001), not unsupported.
func TestPushConfigUnknownTask(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithPush())
			t.Cleanup(agent.Close)
			c := client(t, a2agrpctest.NewServer(agent), v)
			_, err := c.SetPushConfig(context.Background(), "no-such-task",
				a2a.PushConfig{URL: "https://app.example/hooks/1", Token: pushToken})
			require.Error(t, err)
			require.NotErrorIs(t, err, errors.ErrUnsupported)
			requireNoSecret(t, err)
			var rpc *a2a.RPCError
			require.ErrorAs(t, err, &rpc)
			require.Equal(t, a2a.CodeTaskNotFound, rpc.Code)

			_, err = c.ListPushConfigs(context.Background(), "no-such-task")
			require.ErrorAs(t, err, &rpc)
			require.Equal(t, a2a.CodeTaskNotFound, rpc.Code)
		})
	}
}

// A task ID with a "/" cannot be named in 0.3's resource names: refused,
// nothing sent, as GetTask refuses it.
func TestPushConfigUnnameableIDs03(t *testing.T) {
	agent := a2atest.NewAgent(a2atest.WithVersions(a2a.V03), a2atest.WithPush())
	t.Cleanup(agent.Close)
	c := client(t, a2agrpctest.NewServer(agent), a2a.V03)
	ctx := context.Background()
	_, err := c.SetPushConfig(ctx, "a/b", a2a.PushConfig{URL: "https://app.example/hooks/1", Token: pushToken})
	var pe *transport.ProtocolError
	require.ErrorAs(t, err, &pe)
	requireNoSecret(t, err)
	_, err = c.GetPushConfig(ctx, "t", "c/d")
	require.ErrorIs(t, err, transport.ErrInvalidMessage)
	require.Empty(t, agent.Requests(), "nothing sent")
}

// pushNotices records a stream's notices (safe for the stream's
// goroutines).
type pushNotices struct {
	mu sync.Mutex
	ns []stream.Notice
}

func (n *pushNotices) option() stream.Option {
	return stream.WithNotify(func(x stream.Notice) {
		n.mu.Lock()
		defer n.mu.Unlock()
		n.ns = append(n.ns, x)
	})
}

func (n *pushNotices) of(k stream.NoticeKind) []stream.Notice {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []stream.Notice
	for _, x := range n.ns {
		if x.Kind == k {
			out = append(out, x)
		}
	}
	return out
}

// countMethods counts the agent's requests whose method contains part.
func countMethods(agent *a2atest.Agent, part string) int {
	n := 0
	for _, m := range grpcMethods(agent) {
		if strings.Contains(strings.ToLower(m), strings.ToLower(part)) {
			n++
		}
	}
	return n
}

// TestPushFollowsTheTaskAfterADrop over gRPC: a stream given WithPush
// whose connection drops registers a push config (over gRPC, the agent
// POSTing to the receiver) instead of resubscribing, and follows the task
// by its notifications to its end, long before its poll interval, with
// every part once.
func TestPushFollowsTheTaskAfterADrop(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				recv, err := push.NewReceiver(pushBase)
				require.NoError(t, err)
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithPush(),
					a2atest.WithPushClient(a2atest.NewClient(recv)),
					a2atest.WithScript(
						a2atest.Working("w"),
						a2atest.Chunk("a1", "one ", false, false),
						a2atest.Pause(10*time.Second),
						a2atest.Chunk("a1", "two ", true, false),
						a2atest.Pause(10*time.Second),
						a2atest.Chunk("a1", "three", true, true),
						a2atest.Finish(a2a.StateCompleted, "done"),
					),
					a2atest.WithFaults(a2atest.CutAfterEvents(3)))
				t.Cleanup(agent.Close)
				notices := &pushNotices{}
				c := serverClient(t, a2agrpctest.NewServer(agent), v,
					stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 100 * time.Millisecond}),
					stream.WithPollInterval(100*time.Millisecond),
					stream.WithPush(recv), stream.WithPushPollInterval(time.Hour), notices.option())
				start := time.Now()
				s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hello"))
				defer s.Close()
				for s.Next() {
				}
				require.NoError(t, s.Err())
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
				require.Len(t, s.Task().Artifacts, 1)
				require.Equal(t, "one two three", s.Task().Artifacts[0].Text(), "every part once")
				require.Equal(t, 20*time.Second, time.Since(start), "the last notification ended the wait")
				require.Zero(t, countMethods(agent, "subscri"), "no resubscribe")
				require.Equal(t, 1, countMethods(agent, "PushNotificationConfig"), "one push config registered")
				require.LessOrEqual(t, countMethods(agent, "get"), 4, "a catch-up, then a poll per burst of notifications")
				require.NotEmpty(t, agent.Pushes(), "the agent pushed")
				pushing := notices.of(stream.Pushing)
				require.Len(t, pushing, 1)
				require.Error(t, pushing[0].Cause, "the drop")
				require.Equal(t, time.Hour, pushing[0].Wait)
				require.Empty(t, notices.of(stream.PushUnavailable))
			})
		})
	}
}

// Without push on the agent, a stream given WithPush over gRPC resubscribes
// after its drop, as without WithPush, after a PushUnavailable notice.
func TestPushUnavailableResubscribes(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				recv, err := push.NewReceiver(pushBase)
				require.NoError(t, err)
				agent := a2atest.NewAgent(a2atest.WithVersions(v), a2atest.WithFaults(a2atest.CutAfterEvents(2)))
				t.Cleanup(agent.Close)
				notices := &pushNotices{}
				c := client(t, a2agrpctest.NewServer(agent), v, stream.WithPush(recv), notices.option())
				s := c.Send(context.Background(), a2a.NewTextMessage(a2a.RoleUser, "hello"))
				defer s.Close()
				for s.Next() {
				}
				require.NoError(t, s.Err())
				require.Equal(t, a2a.StateCompleted, s.Task().Status.State)
				require.Equal(t, 1, countMethods(agent, "subscri"), "resubscribed")
				unavailable := notices.of(stream.PushUnavailable)
				require.Len(t, unavailable, 1)
				var rpc *a2a.RPCError
				require.ErrorAs(t, unavailable[0].Cause, &rpc, "the agent's refusal")
				want := a2a.CodePushNotificationNotSupported
				if v == a2a.V03 {
					want = a2a.CodeUnsupportedOperation // 0.3's UNIMPLEMENTED without details
				}
				require.Equal(t, want, rpc.Code)
				require.Empty(t, notices.of(stream.Pushing))
				require.Equal(t, 1, countMethods(agent, "PushNotificationConfig"), "tried once")
			})
		})
	}
}
