package a2atest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/google/uuid"
)

// The push-config calls and the webhook of a send, in the shapes of the
// captures in testdata/push (@a2a-js/sdk 1.3.0 for 1.0, 0.3.14 for 0.3).

// hook10 is a 1.0 TaskPushNotificationConfig: the config, flat, with its
// task's ID.
type hook10 struct {
	ID             string  `json:"id,omitempty"`
	TaskID         string  `json:"taskId,omitempty"`
	URL            string  `json:"url"`
	Token          string  `json:"token,omitempty"`
	Authentication *auth10 `json:"authentication,omitempty"`
}

type auth10 struct {
	Scheme      string `json:"scheme"`
	Credentials string `json:"credentials,omitempty"`
}

// hook03 is a 0.3 PushNotificationConfig.
type hook03 struct {
	ID             string  `json:"id,omitempty"`
	URL            string  `json:"url"`
	Token          string  `json:"token,omitempty"`
	Authentication *auth03 `json:"authentication,omitempty"`
}

type auth03 struct {
	Schemes     []string `json:"schemes"`
	Credentials string   `json:"credentials,omitempty"`
}

// taskHook03 is a 0.3 TaskPushNotificationConfig.
type taskHook03 struct {
	TaskID                 string `json:"taskId"`
	PushNotificationConfig hook03 `json:"pushNotificationConfig"`
}

// readHook reads a webhook's config in version v; ok is false when raw is
// no config with a URL.
func readHook(v a2a.Version, raw json.RawMessage) (webhook, bool) {
	if isNull(raw) {
		return webhook{}, false
	}
	w := webhook{v: v}
	if v == a2a.V03 {
		var h hook03
		if json.Unmarshal(raw, &h) != nil || h.URL == "" {
			return webhook{}, false
		}
		w.id, w.url, w.token = h.ID, h.URL, h.Token
		if h.Authentication != nil {
			if len(h.Authentication.Schemes) > 0 {
				w.scheme = h.Authentication.Schemes[0]
			}
			w.credentials = h.Authentication.Credentials
		}
		return w, true
	}
	var h hook10
	if json.Unmarshal(raw, &h) != nil || h.URL == "" {
		return webhook{}, false
	}
	w.id, w.url, w.token = h.ID, h.URL, h.Token
	if h.Authentication != nil {
		w.scheme, w.credentials = h.Authentication.Scheme, h.Authentication.Credentials
	}
	return w, true
}

// sendHook returns the webhook a send's configuration carries in version
// v, in the member of v's name (raw10 for 1.0, raw03 for 0.3), if any.
func sendHook(v a2a.Version, raw10, raw03 json.RawMessage) *webhook {
	raw := raw10
	if v == a2a.V03 {
		raw = raw03
	}
	if w, ok := readHook(v, raw); ok {
		return &w
	}
	return nil
}

// hookJSON is the config of webhook w of task taskID as version v answers
// it: 1.0 the flat TaskPushNotificationConfig, 0.3 {taskId,
// pushNotificationConfig}. The secrets are echoed, as the SDKs echo them.
func hookJSON(v a2a.Version, taskID string, w webhook) any {
	if v == a2a.V03 {
		h := hook03{ID: w.id, URL: w.url, Token: w.token}
		if w.scheme != "" || w.credentials != "" {
			h.Authentication = &auth03{Schemes: []string{w.scheme}, Credentials: w.credentials}
		}
		return taskHook03{TaskID: taskID, PushNotificationConfig: h}
	}
	h := hook10{ID: w.id, TaskID: taskID, URL: w.url, Token: w.token}
	if w.scheme != "" || w.credentials != "" {
		h.Authentication = &auth10{Scheme: w.scheme, Credentials: w.credentials}
	}
	return h
}

// pushParams are the parameters of the push-config calls over JSON-RPC,
// both versions' names: 1.0 {taskId, id (the config's), url, …}; 0.3 set
// {taskId, pushNotificationConfig}, get, list and delete {id (the task's),
// pushNotificationConfigId}.
type pushParams struct {
	TaskID                   string          `json:"taskId"`
	ID                       string          `json:"id"`
	PushNotificationConfigID string          `json:"pushNotificationConfigId"`
	PushNotificationConfig   json.RawMessage `json:"pushNotificationConfig"`
}

// readPushCall fills c's task ID, webhook and config ID from the
// JSON-RPC params of a push-config call; complaint is why the params are
// invalid, "" if they are not.
func readPushCall(c *call, raw json.RawMessage) (complaint string) {
	var p pushParams
	if json.Unmarshal(raw, &p) != nil {
		return "invalid params"
	}
	switch {
	case c.v == a2a.V03 && c.op == opPushSet:
		c.taskID = p.TaskID
		w, ok := readHook(a2a.V03, p.PushNotificationConfig)
		if !ok {
			return "invalid params: pushNotificationConfig needs a url"
		}
		c.hook = &w
	case c.v == a2a.V03:
		c.taskID, c.configID = p.ID, p.PushNotificationConfigID
	case c.op == opPushSet:
		c.taskID = p.TaskID
		w, ok := readHook(a2a.V10, raw)
		if !ok {
			return "invalid params: a push notification config needs a url"
		}
		c.hook = &w
	default:
		c.taskID, c.configID = p.TaskID, p.ID
	}
	if c.taskID == "" {
		return "invalid params: no task ID"
	}
	return ""
}

// pushCall answers a push-config call whose parameters were read.
func (x *exchange) pushCall(c call) {
	a := x.a
	if !a.cfg.push {
		x.w.fail(a2a.CodePushNotificationNotSupported, "Push Notification is not supported")
		return
	}
	a.mu.Lock()
	t := a.tasks[c.taskID]
	if t == nil {
		a.mu.Unlock()
		x.w.fail(a2a.CodeTaskNotFound, "Task not found: "+c.taskID)
		return
	}
	var hooks []webhook
	if t.push != nil {
		hooks = t.push.hooks
	}
	switch c.op {
	case opPushSet:
		w := *c.hook
		switch {
		case w.id != "":
		case c.v == a2a.V03:
			w.id = t.id // 0.3.14 names a config without an ID after its task
		default:
			w.id = uuid.NewString()
		}
		w.from = t.dueCount(time.Now())
		a.register(t, w)
		a.mu.Unlock()
		x.answerConfig(http.StatusCreated, hookJSON(c.v, t.id, w))
	case opPushGet:
		id := c.configID
		if id == "" && c.v == a2a.V03 {
			id = t.id
		}
		i := slices.IndexFunc(hooks, func(h webhook) bool { return h.id == id })
		if i < 0 {
			a.mu.Unlock()
			text := fmt.Sprintf("Push notification config with id '%s' not found for task %s.", id, t.id)
			if c.v == a2a.V03 {
				x.w.fail(a2a.CodeInternalError, text) // as 0.3.14 answers it
				return
			}
			x.w.fail(a2a.CodeTaskNotFound, text)
			return
		}
		w := hooks[i]
		a.mu.Unlock()
		x.answerConfig(http.StatusOK, hookJSON(c.v, t.id, w))
	case opPushList:
		list := make([]any, 0, len(hooks))
		for _, h := range hooks {
			list = append(list, hookJSON(c.v, t.id, h))
		}
		a.mu.Unlock()
		if c.v == a2a.V03 {
			x.answerConfig(http.StatusOK, list)
			return
		}
		x.answerConfig(http.StatusOK, struct {
			Configs []any `json:"configs"`
		}{list})
	case opPushDelete:
		if t.push != nil {
			t.push.hooks = slices.DeleteFunc(slices.Clone(hooks), func(h webhook) bool { return h.id == c.configID })
		}
		a.mu.Unlock()
		x.answerConfig(http.StatusNoContent, nil) // idempotent, as the SDKs answer
	}
}

// answerConfig answers a push-config call with v as JSON (nil: JSON-RPC's
// null result, or HTTP+JSON's empty 204); status is HTTP+JSON's.
func (x *exchange) answerConfig(status int, v any) {
	raw := []byte("null")
	if v != nil {
		b, err := json.Marshal(v)
		if err != nil {
			x.w.fail(a2a.CodeInternalError, "a2atest: "+err.Error())
			return
		}
		raw = b
	}
	switch w := x.w.(type) {
	case *rpcAnswers:
		w.unary(resultJSON(w.id, raw))
	case *restAnswers:
		if v == nil {
			w.unary(status, nil)
			return
		}
		w.unary(status, raw)
	}
}
