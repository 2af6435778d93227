package a2a

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
)

// PushConfig is a push-notification config: a webhook the agent POSTs the
// events of one task to (A2A 0.3 PushNotificationConfig, 1.0
// TaskPushNotificationConfig). The application registers it, in a send's
// configuration or with the push-config calls of a client, and the agent
// answers those calls with the configs it holds.
//
// The URL and the secrets are the application's. A config decoded from an
// agent's answer is what the agent said, echo included: an agent may
// answer with another URL or token than the one registered, and nothing in
// this module sends to, or trusts, a URL or a secret read from an answer;
// the application keeps what it registered and checks notifications
// against that.
//
// Its String, Format and LogValue never show Token or Auth's Credentials
// (nor the URL's user, query or fragment, which may hold a key): printing a
// config with fmt, or logging it with log/slog, is safe. Its JSON
// (encoding/json of the struct) is not redacted: do not marshal it into a
// log.
type PushConfig struct {
	// ID names the config within its task: "" asks the agent to pick one
	// (a random UUID on @a2a-js/sdk 1.3.0; the task's ID on 0.3.14).
	// Registering a config with the ID of one the task has replaces it.
	ID string
	// TaskID is the task the config belongs to, as an agent's answer names
	// it. The calls that register a config take the task's ID apart and
	// do not encode this field.
	TaskID string
	// URL is the webhook: an absolute http or https URL, which the agent
	// POSTs to (it must reach it).
	URL string
	// Token, when set, is sent back by the agent with every notification
	// in the X-A2A-Notification-Token header: the secret the receiver
	// checks. Use a fresh random one per task.
	Token string
	// Auth, when set, asks the agent to authenticate its notifications
	// with an Authorization header of Auth's scheme and credentials
	// (@a2a-js/sdk 1.3.0 then sends no token header; 0.3.14 ignores Auth).
	Auth *PushAuth
}

// PushAuth is how the agent authenticates the notifications of a
// [PushConfig]. A2A 1.0 writes it {"scheme", "credentials"}, 0.3
// {"schemes": [...], "credentials"}: one scheme in this model, written
// as the 0.3 list of that one scheme, and read from a 0.3 list as its first
// scheme (the others are left out; no server seen uses more than one).
type PushAuth struct {
	// Scheme is the HTTP authentication scheme, such as "Bearer".
	Scheme string
	// Credentials are the scheme's credentials, which the agent sends as
	// Authorization: <Scheme> <Credentials>. A secret: never printed.
	Credentials string
}

// Check reports the first value of c that a config cannot be registered
// with: a URL that is not an absolute http or https URL, a token, scheme
// or credentials with a control character (they travel in headers), or an
// Auth without a scheme. Its error never quotes the token, the credentials
// or the URL's user, query or fragment. nil means c may be sent.
func (c PushConfig) Check() error {
	u, err := url.Parse(c.URL)
	if err != nil || !u.IsAbs() || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("a2a: invalid push config: URL %q: want an absolute http or https URL", redactURL(c.URL))
	}
	if !headerSafe(c.Token) {
		return errors.New("a2a: invalid push config: the token holds a control character")
	}
	if c.Auth != nil {
		if c.Auth.Scheme == "" || !headerSafe(c.Auth.Scheme) || strings.ContainsAny(c.Auth.Scheme, " \t") {
			return errors.New("a2a: invalid push config: Auth needs a scheme, one word")
		}
		if !headerSafe(c.Auth.Credentials) {
			return errors.New("a2a: invalid push config: the credentials hold a control character")
		}
	}
	return nil
}

// headerSafe reports s free of control characters (and of DEL).
func headerSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 || b == 0x7f {
			return false
		}
	}
	return true
}

// String reads like a2a.PushConfig{ID:"c1" TaskID:"t1"
// URL:"https://app.example/hook" Token:xxxxx Auth:Bearer xxxxx}: the
// token and the credentials are shown as xxxxx when set, and so are the
// user, the query and the fragment of the URL.
func (c PushConfig) String() string {
	var b strings.Builder
	b.WriteString("a2a.PushConfig{ID:")
	b.WriteString(strconv.Quote(c.ID))
	b.WriteString(" TaskID:")
	b.WriteString(strconv.Quote(c.TaskID))
	b.WriteString(" URL:")
	b.WriteString(strconv.Quote(redactURL(c.URL)))
	b.WriteString(" Token:")
	b.WriteString(secret(c.Token))
	if c.Auth != nil {
		b.WriteString(" Auth:")
		b.WriteString(c.Auth.String())
	}
	b.WriteString("}")
	return b.String()
}

// Format writes String for every verb (%v, %+v, %#v, %s, %q …), so that
// no verb of fmt prints the secrets.
func (c PushConfig) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(c.String())) }

// LogValue returns String as a log/slog value, so that a handler that
// would marshal the struct (slog.JSONHandler) logs no secret.
func (c PushConfig) LogValue() slog.Value { return slog.StringValue(c.String()) }

// String reads like "Bearer xxxxx": the scheme, and xxxxx for the
// credentials when set.
func (a PushAuth) String() string { return strconv.Quote(a.Scheme) + " " + secret(a.Credentials) }

// Format writes String for every verb, as PushConfig's.
func (a PushAuth) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(a.String())) }

// LogValue returns String as a log/slog value.
func (a PushAuth) LogValue() slog.Value { return slog.StringValue(a.String()) }

// secret shows a secret as xxxxx when it is set, as "" when it is not.
func secret(s string) string {
	if s == "" {
		return `""`
	}
	return "xxxxx"
}

// redactURL returns raw with its user, query and fragment replaced by
// xxxxx; text that does not parse is replaced whole.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "xxxxx"
	}
	if u.User != nil {
		u.User = url.User("xxxxx")
	}
	if u.RawQuery != "" || u.ForceQuery {
		u.RawQuery, u.ForceQuery = "xxxxx", false
	}
	if u.Fragment != "" || u.RawFragment != "" {
		u.Fragment, u.RawFragment = "xxxxx", ""
	}
	return u.String()
}

// pushAuth10 and pushAuth03 are PushAuth on the wire of each version.
type pushAuth10 struct {
	Scheme      string `json:"scheme"`
	Credentials string `json:"credentials,omitempty"`
}

type pushAuth03 struct {
	Schemes     []string `json:"schemes"`
	Credentials string   `json:"credentials,omitempty"`
}

// pushConfig10 is a 1.0 TaskPushNotificationConfig, as a create call's
// params (with the task's ID and the tenant) and as a send's
// configuration and an HTTP+JSON create body carry it (without).
type pushConfig10 struct {
	Tenant         string      `json:"tenant,omitempty"`
	TaskID         string      `json:"taskId,omitempty"`
	ID             string      `json:"id,omitempty"`
	URL            string      `json:"url"`
	Token          string      `json:"token,omitempty"`
	Authentication *pushAuth10 `json:"authentication,omitempty"`
}

// pushConfig03 is a 0.3 PushNotificationConfig.
type pushConfig03 struct {
	ID             string      `json:"id,omitempty"`
	URL            string      `json:"url"`
	Token          string      `json:"token,omitempty"`
	Authentication *pushAuth03 `json:"authentication,omitempty"`
}

func (c PushConfig) wire10(taskID, tenant string) pushConfig10 {
	w := pushConfig10{Tenant: tenant, TaskID: taskID, ID: c.ID, URL: c.URL, Token: c.Token}
	if c.Auth != nil {
		w.Authentication = &pushAuth10{Scheme: c.Auth.Scheme, Credentials: c.Auth.Credentials}
	}
	return w
}

func (c PushConfig) wire03() pushConfig03 {
	w := pushConfig03{ID: c.ID, URL: c.URL, Token: c.Token}
	if c.Auth != nil {
		w.Authentication = &pushAuth03{Schemes: []string{c.Auth.Scheme}, Credentials: c.Auth.Credentials}
	}
	return w
}

// EncodePushConfig encodes cfg as a send's configuration carries it (1.0
// configuration.taskPushNotificationConfig, 0.3
// configuration.pushNotificationConfig), on either binding, and as the
// body of the 1.0 HTTP+JSON call POST /tasks/{id}/pushNotificationConfigs:
// {"id"?, "url", "token"?, "authentication"?}, with the authentication of
// c's version (see PushAuth). cfg's TaskID is not written. A config Check
// refuses is refused with its error.
func (c Codec) EncodePushConfig(cfg PushConfig) ([]byte, error) {
	if err := checkVersion(c.Version); err != nil {
		return nil, err
	}
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if c.Version == V03 {
		return marshal(cfg.wire03())
	}
	return marshal(cfg.wire10("", ""))
}

// EncodeSetPushConfig encodes the JSON-RPC params of the call that
// registers cfg for task taskID: 1.0 CreateTaskPushNotificationConfig
// {"tenant"?, "taskId", "id"?, "url", "token"?, "authentication"?}, with
// tenant, the 1.0 interface's tenant ("" for none); 0.3
// tasks/pushNotificationConfig/set {"taskId", "pushNotificationConfig"},
// which has no tenant. A config Check refuses is refused with its error.
func (c Codec) EncodeSetPushConfig(taskID string, cfg PushConfig, tenant string) ([]byte, error) {
	if err := checkVersion(c.Version); err != nil {
		return nil, err
	}
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if c.Version == V03 {
		return marshal(struct {
			TaskID string       `json:"taskId"`
			Config pushConfig03 `json:"pushNotificationConfig"`
		}{taskID, cfg.wire03()})
	}
	return marshal(cfg.wire10(taskID, tenant))
}

// wirePushConfig is the union of the config shapes of both versions: the
// 1.0 TaskPushNotificationConfig, flat, and the 0.3
// TaskPushNotificationConfig {taskId, pushNotificationConfig}, whose
// config holds the 0.3 authentication.
type wirePushConfig struct {
	ID             string          `json:"id"`
	TaskID         string          `json:"taskId"`
	URL            string          `json:"url"`
	Token          string          `json:"token"`
	Authentication *wirePushAuth   `json:"authentication"`
	Nested         json.RawMessage `json:"pushNotificationConfig"`
}

type wirePushAuth struct {
	Scheme      string   `json:"scheme"`
	Schemes     []string `json:"schemes"`
	Credentials string   `json:"credentials"`
}

// DecodePushConfig decodes one config as an agent answers a push-config
// call in either version and binding: the 1.0 TaskPushNotificationConfig
// {"id", "taskId", "url", "token"?, "authentication"?{"scheme",
// "credentials"}}, or the 0.3 {"taskId", "pushNotificationConfig": {"id",
// "url", "token"?, "authentication"?{"schemes", "credentials"}}}. What is
// not a config (not a JSON object, or a config without a URL) is refused
// with an error wrapping [ErrUnknownResult]; the config is not checked
// further (see PushConfig.Check), and holds what the agent said.
func DecodePushConfig(data []byte) (PushConfig, error) {
	var w wirePushConfig
	if err := json.Unmarshal(data, &w); err != nil {
		return PushConfig{}, fmt.Errorf("a2a: decoding a push notification config: %w", err)
	}
	return w.config()
}

// DecodePushConfigs decodes the configs of a task as an agent answers the
// list call: 1.0 {"configs": [...]} (a "nextPageToken", which no server
// seen sends, is not read), or the 0.3 bare array; each config as
// DecodePushConfig decodes it, and refused as it refuses one. null, and a
// 1.0 answer without "configs", are no configs.
func DecodePushConfigs(data []byte) ([]PushConfig, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(data, &raws); err != nil {
		var w struct {
			Configs []json.RawMessage `json:"configs"`
		}
		if err2 := json.Unmarshal(data, &w); err2 != nil {
			return nil, fmt.Errorf("a2a: decoding push notification configs: %w", err2)
		}
		raws = w.Configs
	}
	out := make([]PushConfig, 0, len(raws))
	for i, raw := range raws {
		c, err := DecodePushConfig(raw)
		if err != nil {
			return nil, fmt.Errorf("a2a: decoding push notification configs: config %d: %w", i, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// config returns the config w holds, in either shape.
func (w *wirePushConfig) config() (PushConfig, error) {
	if len(w.Nested) > 0 && string(w.Nested) != "null" {
		var n wirePushConfig
		if err := json.Unmarshal(w.Nested, &n); err != nil {
			return PushConfig{}, fmt.Errorf("a2a: decoding a push notification config: %w", err)
		}
		if len(n.Nested) > 0 {
			return PushConfig{}, fmt.Errorf("%w: want a push notification config, got one nested in another", ErrUnknownResult)
		}
		n.TaskID = w.TaskID
		w = &n
	}
	if w.URL == "" {
		return PushConfig{}, fmt.Errorf("%w: want a push notification config, got none with a URL", ErrUnknownResult)
	}
	c := PushConfig{ID: w.ID, TaskID: w.TaskID, URL: w.URL, Token: w.Token}
	if a := w.Authentication; a != nil {
		c.Auth = &PushAuth{Scheme: a.Scheme, Credentials: a.Credentials}
		if c.Auth.Scheme == "" && len(a.Schemes) > 0 {
			c.Auth.Scheme = a.Schemes[0]
		}
	}
	return c, nil
}
