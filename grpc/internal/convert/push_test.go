package convert

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	pb03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	pb10 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
	"github.com/a2astream/a2astream/transport"
)

// pushConfigs are configs as an agent answers them: with and without an
// ID and an authentication.
func pushConfigs() []a2a.PushConfig {
	return []a2a.PushConfig{
		{ID: "c1", TaskID: "t1", URL: "https://app.example/hooks/1", Token: "tok",
			Auth: &a2a.PushAuth{Scheme: "Bearer", Credentials: "creds"}},
		{ID: "c2", TaskID: "t1", URL: "http://127.0.0.1/hooks/2"},
		{TaskID: "t1", URL: "http://127.0.0.1/hooks/3", Token: "tok", Auth: &a2a.PushAuth{Scheme: "Basic"}},
	}
}

func TestPushConfigRoundTrip(t *testing.T) {
	for _, c := range pushConfigs() {
		got, err := PushConfigOf10(PushConfig10("", c, "acme"))
		require.NoError(t, err)
		require.Equal(t, c, got, "1.0")

		p, err := PushConfig03("", c)
		require.NoError(t, err)
		require.Equal(t, "tasks/t1/pushNotificationConfigs/"+c.ID, p.GetName())
		got, err = PushConfigOf03(p)
		require.NoError(t, err)
		require.Equal(t, c, got, "0.3")
	}
	list10 := &pb10.ListTaskPushNotificationConfigsResponse{}
	list03 := &pb03.ListTaskPushNotificationConfigResponse{}
	for _, c := range pushConfigs() {
		list10.Configs = append(list10.Configs, PushConfig10("", c, ""))
		p, err := PushConfig03("", c)
		require.NoError(t, err)
		list03.Configs = append(list03.Configs, p)
	}
	got, err := PushConfigsOf10(list10)
	require.NoError(t, err)
	require.Equal(t, pushConfigs(), got)
	got, err = PushConfigsOf03(list03)
	require.NoError(t, err)
	require.Equal(t, pushConfigs(), got)
	got, err = PushConfigsOf03(&pb03.ListTaskPushNotificationConfigResponse{})
	require.NoError(t, err)
	require.Equal(t, []a2a.PushConfig{}, got, "none")
}

// A 0.3 answer: the config's ID from the name when the config has none;
// the first of several schemes; a name of the task alone, or none.
func TestPushConfigOf03Lenient(t *testing.T) {
	got, err := PushConfigOf03(&pb03.TaskPushNotificationConfig{Name: "tasks/t1/pushNotificationConfigs/c9",
		PushNotificationConfig: &pb03.PushNotificationConfig{Url: "https://a.example/h",
			Authentication: &pb03.AuthenticationInfo{Schemes: []string{"Bearer", "Basic"}, Credentials: "x"}}})
	require.NoError(t, err)
	require.Equal(t, a2a.PushConfig{ID: "c9", TaskID: "t1", URL: "https://a.example/h",
		Auth: &a2a.PushAuth{Scheme: "Bearer", Credentials: "x"}}, got)

	got, err = PushConfigOf03(&pb03.TaskPushNotificationConfig{Name: "tasks/t1",
		PushNotificationConfig: &pb03.PushNotificationConfig{Id: "c1", Url: "https://a.example/h"}})
	require.NoError(t, err)
	require.Equal(t, a2a.PushConfig{ID: "c1", TaskID: "t1", URL: "https://a.example/h"}, got)

	got, err = PushConfigOf03(&pb03.TaskPushNotificationConfig{
		PushNotificationConfig: &pb03.PushNotificationConfig{Id: "c1", Url: "https://a.example/h"}})
	require.NoError(t, err)
	require.Equal(t, a2a.PushConfig{ID: "c1", URL: "https://a.example/h"}, got, "no name: no task")
}

func TestHostilePushConfigsAreRefused(t *testing.T) {
	url := "https://a.example/h"
	for name, p := range map[string]*pb10.TaskPushNotificationConfig{
		"nil":       nil,
		"empty":     {},
		"no URL":    {Id: "c1", TaskId: "t1", Token: "tok"},
		"no URL II": {Authentication: &pb10.AuthenticationInfo{Scheme: "Bearer"}},
	} {
		_, err := PushConfigOf10(p)
		require.Error(t, err, name)
		requireMalformed(t, err, "push notification config")
		require.NotContains(t, err.Error(), "tok")
	}
	for name, p := range map[string]*pb03.TaskPushNotificationConfig{
		"nil":                  nil,
		"no config":            {Name: "tasks/t1/pushNotificationConfigs/c1"},
		"no URL":               {Name: "tasks/t1/pushNotificationConfigs/c1", PushNotificationConfig: &pb03.PushNotificationConfig{Id: "c1"}},
		"a name of a project":  {Name: "projects/p/tasks/t1", PushNotificationConfig: &pb03.PushNotificationConfig{Url: url}},
		"a name without task":  {Name: "tasks/", PushNotificationConfig: &pb03.PushNotificationConfig{Url: url}},
		"a name with a suffix": {Name: "tasks/t1/pushNotificationConfigs/c1/x", PushNotificationConfig: &pb03.PushNotificationConfig{Url: url}},
		"a name of a sub":      {Name: "tasks/t1/artifacts/a1", PushNotificationConfig: &pb03.PushNotificationConfig{Url: url}},
	} {
		_, err := PushConfigOf03(p)
		require.Error(t, err, name)
		requireMalformed(t, err, "push notification config")
	}
	bad10 := &pb10.ListTaskPushNotificationConfigsResponse{Configs: []*pb10.TaskPushNotificationConfig{
		PushConfig10("", pushConfigs()[0], ""), {}}}
	_, err := PushConfigsOf10(bad10)
	requireMalformed(t, err, "push config 1")
	_, err = PushConfigsOf10(nil)
	requireMalformed(t, err, "no list of push notification configs")
	bad03 := &pb03.ListTaskPushNotificationConfigResponse{Configs: []*pb03.TaskPushNotificationConfig{{}}}
	_, err = PushConfigsOf03(bad03)
	requireMalformed(t, err, "push config 0")
}

func TestPushConfigRequests(t *testing.T) {
	cfg := pushConfigs()[0]
	cfg.TaskID = "t-other" // not sent: the call's task is
	r10, err := CreatePushConfigRequest10("t1", cfg, "acme")
	require.NoError(t, err)
	require.Equal(t, "t1", r10.GetTaskId())
	require.Equal(t, "acme", r10.GetTenant())
	r03, err := CreatePushConfigRequest03("t1", cfg)
	require.NoError(t, err)
	require.Equal(t, "tasks/t1", r03.GetParent())
	require.Equal(t, "c1", r03.GetConfigId())
	require.Equal(t, "tasks/t1/pushNotificationConfigs/c1", r03.GetConfig().GetName())
	require.Equal(t, []string{"Bearer"}, r03.GetConfig().GetPushNotificationConfig().GetAuthentication().GetSchemes())

	g03, err := GetPushConfigRequest03("t1", "c1")
	require.NoError(t, err)
	require.Equal(t, "tasks/t1/pushNotificationConfigs/c1", g03.GetName())
	d03, err := DeletePushConfigRequest03("t1", "c1")
	require.NoError(t, err)
	require.Equal(t, "tasks/t1/pushNotificationConfigs/c1", d03.GetName())
	l03, err := ListPushConfigsRequest03("t1")
	require.NoError(t, err)
	require.Equal(t, "tasks/t1", l03.GetParent())

	taskID, configID, err := PushConfigIDsOfName(g03.GetName(), false)
	require.NoError(t, err)
	require.Equal(t, [2]string{"t1", "c1"}, [2]string{taskID, configID})
	for _, name := range []string{"", "tasks/t1", "tasks/t1/pushNotificationConfigs/", "tasks//pushNotificationConfigs/c1",
		"tasks/t1/pushNotificationConfigs/c1/x", "x/t1/pushNotificationConfigs/c1"} {
		_, _, err := PushConfigIDsOfName(name, false)
		require.ErrorIs(t, err, ErrBadTaskID, name)
	}
	taskID, configID, err = PushConfigIDsOfName("tasks/t1", true)
	require.NoError(t, err)
	require.Equal(t, [2]string{"t1", ""}, [2]string{taskID, configID})
}

func TestBadPushConfigIDsAreRefused(t *testing.T) {
	cfg := pushConfigs()[1]
	for _, f := range []func(string) error{
		func(id string) error { _, err := CreatePushConfigRequest10(id, cfg, ""); return err },
		func(id string) error { _, err := GetPushConfigRequest10(id, "c", ""); return err },
		func(id string) error { _, err := ListPushConfigsRequest10(id, ""); return err },
		func(id string) error { _, err := DeletePushConfigRequest10(id, "c", ""); return err },
		func(id string) error { _, err := CreatePushConfigRequest03(id, cfg); return err },
		func(id string) error { _, err := GetPushConfigRequest03(id, "c"); return err },
		func(id string) error { _, err := ListPushConfigsRequest03(id); return err },
		func(id string) error { _, err := DeletePushConfigRequest03(id, "c"); return err },
	} {
		require.ErrorIs(t, f(""), ErrBadTaskID)
	}
	_, err := GetPushConfigRequest03("a/b", "c")
	require.ErrorIs(t, err, ErrBadTaskID)
	_, err = GetPushConfigRequest10("a/b", "c/d", "")
	require.NoError(t, err, "1.0 names both by their IDs alone")
	_, err = GetPushConfigRequest03("t", "c/d")
	require.ErrorIs(t, err, transport.ErrInvalidMessage)
	cfg.ID = "c/d"
	_, err = CreatePushConfigRequest03("t", cfg)
	require.ErrorIs(t, err, transport.ErrInvalidMessage)
}
