package convert

import (
	"fmt"
	"strings"

	"github.com/a2astream/a2astream/a2a"
	pb03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	pb "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
)

// The push-config calls: 1.0 Create/Get/List/DeleteTaskPushNotificationConfig(s)
// (the IDs as fields, the tenant of the interface), 0.3
// Create/Get/DeleteTaskPushNotificationConfig and
// ListTaskPushNotificationConfig (the IDs as resource names,
// "tasks/{id}/pushNotificationConfigs/{config_id}", as @a2a-js/sdk 0.3.14
// writes and reads them). A config the proto cannot carry is the caller's
// (an error wrapping transport.ErrInvalidMessage); an answer that holds no
// config (none, or one without a URL) is a *transport.ProtocolError.

// configsSegment is the 0.3 resource name's segment of a task's configs.
const configsSegment = "/pushNotificationConfigs/"

// checkConfigID refuses a config ID no 0.3 resource name can hold: one with
// a "/" (the name would name another resource). An empty one is left to
// the caller.
func checkConfigID(id string) error {
	if strings.Contains(id, "/") {
		return invalid("push config ID %q holds a \"/\", so tasks/{id}/pushNotificationConfigs/{config_id} would name another resource", id)
	}
	return nil
}

// --- 1.0 ---

// PushConfig10 is cfg as 1.0's TaskPushNotificationConfig, of task taskID
// ("" for a config's own TaskID) under tenant.
func PushConfig10(taskID string, cfg a2a.PushConfig, tenant string) *pb.TaskPushNotificationConfig {
	if taskID == "" {
		taskID = cfg.TaskID
	}
	p := &pb.TaskPushNotificationConfig{Tenant: tenant, Id: cfg.ID, TaskId: taskID, Url: cfg.URL, Token: cfg.Token}
	if cfg.Auth != nil {
		p.Authentication = &pb.AuthenticationInfo{Scheme: cfg.Auth.Scheme, Credentials: cfg.Auth.Credentials}
	}
	return p
}

// CreatePushConfigRequest10 builds the request of
// CreateTaskPushNotificationConfig: cfg registered for task taskID, under
// tenant. cfg's TaskID is not sent.
func CreatePushConfigRequest10(taskID string, cfg a2a.PushConfig, tenant string) (*pb.TaskPushNotificationConfig, error) {
	if err := checkTaskID(taskID); err != nil {
		return nil, err
	}
	return PushConfig10(taskID, cfg, tenant), nil
}

// GetPushConfigRequest10 builds the request of GetTaskPushNotificationConfig.
func GetPushConfigRequest10(taskID, configID, tenant string) (*pb.GetTaskPushNotificationConfigRequest, error) {
	if err := checkTaskID(taskID); err != nil {
		return nil, err
	}
	return &pb.GetTaskPushNotificationConfigRequest{Tenant: tenant, TaskId: taskID, Id: configID}, nil
}

// ListPushConfigsRequest10 builds the request of
// ListTaskPushNotificationConfigs: every config of the task, in one page
// (no page size, no token, as the other bindings ask).
func ListPushConfigsRequest10(taskID, tenant string) (*pb.ListTaskPushNotificationConfigsRequest, error) {
	if err := checkTaskID(taskID); err != nil {
		return nil, err
	}
	return &pb.ListTaskPushNotificationConfigsRequest{Tenant: tenant, TaskId: taskID}, nil
}

// DeletePushConfigRequest10 builds the request of
// DeleteTaskPushNotificationConfig.
func DeletePushConfigRequest10(taskID, configID, tenant string) (*pb.DeleteTaskPushNotificationConfigRequest, error) {
	if err := checkTaskID(taskID); err != nil {
		return nil, err
	}
	return &pb.DeleteTaskPushNotificationConfigRequest{Tenant: tenant, TaskId: taskID, Id: configID}, nil
}

// PushConfigOf10 reads a 1.0 TaskPushNotificationConfig as the agent
// answered it: none, or one without a URL, is refused with a
// *transport.ProtocolError; the rest is returned as it came (its tenant is
// not kept).
func PushConfigOf10(p *pb.TaskPushNotificationConfig) (a2a.PushConfig, error) {
	if p == nil {
		return a2a.PushConfig{}, malformed("no push notification config")
	}
	if p.GetUrl() == "" {
		return a2a.PushConfig{}, malformed("a push notification config without a URL")
	}
	c := a2a.PushConfig{ID: p.GetId(), TaskID: p.GetTaskId(), URL: p.GetUrl(), Token: p.GetToken()}
	if a := p.GetAuthentication(); a != nil {
		c.Auth = &a2a.PushAuth{Scheme: a.GetScheme(), Credentials: a.GetCredentials()}
	}
	return c, nil
}

// PushConfigsOf10 reads the answer of ListTaskPushNotificationConfigs: each
// config as PushConfigOf10 reads one (one it refuses refuses the list, with
// its index). A next page's token, which no server seen sends, is not read.
func PushConfigsOf10(r *pb.ListTaskPushNotificationConfigsResponse) ([]a2a.PushConfig, error) {
	if r == nil {
		return nil, malformed("no list of push notification configs")
	}
	out := make([]a2a.PushConfig, 0, len(r.GetConfigs()))
	for i, p := range r.GetConfigs() {
		c, err := PushConfigOf10(p)
		if err != nil {
			return nil, within(fmt.Sprintf("push config %d", i), err)
		}
		out = append(out, c)
	}
	return out, nil
}

// --- 0.3 ---

// PushConfigName returns the 0.3 resource name of config configID of task
// taskID, "tasks/{id}/pushNotificationConfigs/{config_id}". A task ID
// TaskName refuses is refused with its error (wrapping ErrBadTaskID); a
// config ID with a "/" with an error wrapping transport.ErrInvalidMessage.
func PushConfigName(taskID, configID string) (string, error) {
	name, err := TaskName(taskID)
	if err != nil {
		return "", err
	}
	if err := checkConfigID(configID); err != nil {
		return "", err
	}
	return name + configsSegment + configID, nil
}

// PushConfigIDsOfName reads a 0.3 resource name as a server reads a
// request's: "tasks/{id}/pushNotificationConfigs/{config_id}", both IDs
// given; "tasks/{id}" with an empty configID when configOptional. Any other
// shape is refused with an error wrapping ErrBadTaskID.
func PushConfigIDsOfName(name string, configOptional bool) (taskID, configID string, err error) {
	rest, ok := strings.CutPrefix(name, "tasks/")
	if ok {
		taskID, configID, _ = strings.Cut(rest, configsSegment)
		switch {
		case taskID == "" || strings.Contains(taskID, "/") || strings.Contains(configID, "/"):
			ok = false
		case configID == "" && !configOptional:
			ok = false
		}
	}
	if !ok {
		return "", "", fmt.Errorf("%w: resource name %q is not tasks/{id}/pushNotificationConfigs/{config_id}", ErrBadTaskID, name)
	}
	return taskID, configID, nil
}

// PushConfig03 is cfg as 0.3's TaskPushNotificationConfig of task taskID
// ("" for cfg's own TaskID), named as @a2a-js/sdk 0.3.14 names one:
// "tasks/{id}/pushNotificationConfigs/{config_id}", the config ID empty
// when cfg has none. Its authentication is the list of cfg's one scheme.
// A config ID with a "/" is refused (see PushConfigName).
func PushConfig03(taskID string, cfg a2a.PushConfig) (*pb03.TaskPushNotificationConfig, error) {
	if taskID == "" {
		taskID = cfg.TaskID
	}
	name, err := PushConfigName(taskID, cfg.ID)
	if err != nil {
		return nil, err
	}
	p := &pb03.PushNotificationConfig{Id: cfg.ID, Url: cfg.URL, Token: cfg.Token}
	if cfg.Auth != nil {
		p.Authentication = &pb03.AuthenticationInfo{Schemes: []string{cfg.Auth.Scheme}, Credentials: cfg.Auth.Credentials}
	}
	return &pb03.TaskPushNotificationConfig{Name: name, PushNotificationConfig: p}, nil
}

// CreatePushConfigRequest03 builds the request of
// CreateTaskPushNotificationConfig: parent "tasks/{id}", config_id cfg's
// ID, and the config (PushConfig03), as @a2a-js/sdk 0.3.14's client sends
// them. cfg's TaskID is not sent.
func CreatePushConfigRequest03(taskID string, cfg a2a.PushConfig) (*pb03.CreateTaskPushNotificationConfigRequest, error) {
	parent, err := TaskName(taskID)
	if err != nil {
		return nil, err
	}
	cfg.TaskID = ""
	p, err := PushConfig03(taskID, cfg)
	if err != nil {
		return nil, err
	}
	return &pb03.CreateTaskPushNotificationConfigRequest{Parent: parent, ConfigId: cfg.ID, Config: p}, nil
}

// GetPushConfigRequest03 builds the request of GetTaskPushNotificationConfig.
func GetPushConfigRequest03(taskID, configID string) (*pb03.GetTaskPushNotificationConfigRequest, error) {
	name, err := PushConfigName(taskID, configID)
	if err != nil {
		return nil, err
	}
	return &pb03.GetTaskPushNotificationConfigRequest{Name: name}, nil
}

// ListPushConfigsRequest03 builds the request of
// ListTaskPushNotificationConfig: parent "tasks/{id}", one page.
func ListPushConfigsRequest03(taskID string) (*pb03.ListTaskPushNotificationConfigRequest, error) {
	parent, err := TaskName(taskID)
	if err != nil {
		return nil, err
	}
	return &pb03.ListTaskPushNotificationConfigRequest{Parent: parent}, nil
}

// DeletePushConfigRequest03 builds the request of
// DeleteTaskPushNotificationConfig.
func DeletePushConfigRequest03(taskID, configID string) (*pb03.DeleteTaskPushNotificationConfigRequest, error) {
	name, err := PushConfigName(taskID, configID)
	if err != nil {
		return nil, err
	}
	return &pb03.DeleteTaskPushNotificationConfigRequest{Name: name}, nil
}

// PushConfigOf03 reads a 0.3 TaskPushNotificationConfig as the agent
// answered it: the task's ID from its name ("tasks/{id}", followed or not
// by "/pushNotificationConfigs/{config_id}", as @a2a-js/sdk 0.3.14 reads
// one; an empty name names no task), the config's ID from the config, or
// from the name when the config has none, and the first scheme of its
// authentication (see a2a.PushAuth). None, one without a config or a URL,
// and a name of another shape, are refused with a
// *transport.ProtocolError.
func PushConfigOf03(p *pb03.TaskPushNotificationConfig) (a2a.PushConfig, error) {
	n := p.GetPushNotificationConfig()
	if n == nil {
		return a2a.PushConfig{}, malformed("no push notification config")
	}
	if n.GetUrl() == "" {
		return a2a.PushConfig{}, malformed("a push notification config without a URL")
	}
	c := a2a.PushConfig{ID: n.GetId(), URL: n.GetUrl(), Token: n.GetToken()}
	if name := p.GetName(); name != "" {
		taskID, configID, err := PushConfigIDsOfName(name, true)
		if err != nil {
			return a2a.PushConfig{}, malformed("a push notification config named %q, not tasks/{id}/pushNotificationConfigs/{config_id}", name)
		}
		c.TaskID = taskID
		if c.ID == "" {
			c.ID = configID
		}
	}
	if a := n.GetAuthentication(); a != nil {
		c.Auth = &a2a.PushAuth{Credentials: a.GetCredentials()}
		if s := a.GetSchemes(); len(s) > 0 {
			c.Auth.Scheme = s[0]
		}
	}
	return c, nil
}

// PushConfigsOf03 reads the answer of ListTaskPushNotificationConfig: each
// config as PushConfigOf03 reads one (one it refuses refuses the list, with
// its index).
func PushConfigsOf03(r *pb03.ListTaskPushNotificationConfigResponse) ([]a2a.PushConfig, error) {
	if r == nil {
		return nil, malformed("no list of push notification configs")
	}
	out := make([]a2a.PushConfig, 0, len(r.GetConfigs()))
	for i, p := range r.GetConfigs() {
		c, err := PushConfigOf03(p)
		if err != nil {
			return nil, within(fmt.Sprintf("push config %d", i), err)
		}
		out = append(out, c)
	}
	return out, nil
}
