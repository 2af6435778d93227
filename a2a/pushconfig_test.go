package a2a_test

import (
	"bytes"

	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// The wire literals below are the SDKs' own, from the captures of
// ../shared/push/captures/push/ (copied into stream/testdata/push-*.json, whose
// tests replay them whole): 1.0-rest-config.json, 1.0-jsonrpc-config-calls.json,
// 0.3-js0.3.14-config-calls.json and 0.3-js0.3.14-no-push-server.json, with
// 127.0.0.1:PORT written 127.0.0.1:8080.

const pushTask = "53ea3101-b885-4cb3-9852-3a6860f3fba6"

func TestEncodePushConfigAsTheSDKsSendIt(t *testing.T) {
	bearer := &a2a.PushAuth{Scheme: "Bearer", Credentials: "cred-a3b"}
	for _, tc := range []struct {
		name string
		c    a2a.Codec
		cfg  a2a.PushConfig
		want string
	}{
		{"1.0 in a REST send (1.0-rest-config)", a2a.Codec{Version: a2a.V10, Binding: a2a.BindingHTTPJSON},
			a2a.PushConfig{URL: "http://127.0.0.1:8080/ok/a3", Token: "tok-a3"},
			`{"url":"http://127.0.0.1:8080/ok/a3","token":"tok-a3"}`},
		{"1.0 REST create body (1.0-rest-config)", a2a.Codec{Version: a2a.V10, Binding: a2a.BindingHTTPJSON},
			a2a.PushConfig{ID: "r1", TaskID: "not written", URL: "http://127.0.0.1:8080/ok/a3b", Auth: bearer},
			`{"id":"r1","url":"http://127.0.0.1:8080/ok/a3b","authentication":{"scheme":"Bearer","credentials":"cred-a3b"}}`},
		{"0.3 in a send (0.3-js0.3.14-no-push-server)", a2a.Codec{Version: a2a.V03},
			a2a.PushConfig{URL: "http://127.0.0.1:8080/ok/n1"},
			`{"url":"http://127.0.0.1:8080/ok/n1"}`},
		{"0.3 with authentication", a2a.Codec{Version: a2a.V03},
			a2a.PushConfig{ID: "mine", URL: "http://127.0.0.1:8080/ok/b2b", Auth: &a2a.PushAuth{Scheme: "Bearer", Credentials: "cred-b2b"}},
			`{"id":"mine","url":"http://127.0.0.1:8080/ok/b2b","authentication":{"schemes":["Bearer"],"credentials":"cred-b2b"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.c.EncodePushConfig(tc.cfg)
			require.NoError(t, err)
			require.JSONEq(t, tc.want, string(got))
		})
	}
}

func TestEncodeSetPushConfigAsTheSDKsSendIt(t *testing.T) {
	const task = "1c47d9b5-74f9-45e1-b4b2-408b9ad78a2f"
	for _, tc := range []struct {
		name   string
		v      a2a.Version
		cfg    a2a.PushConfig
		tenant string
		want   string
	}{
		{"1.0 with a token (1.0-jsonrpc-config-calls)", a2a.V10,
			a2a.PushConfig{ID: "mine", URL: "http://127.0.0.1:8080/ok/a2b", Token: "tok-a2b"}, "",
			`{"taskId":"` + task + `","id":"mine","url":"http://127.0.0.1:8080/ok/a2b","token":"tok-a2b"}`},
		{"1.0 with authentication (1.0-jsonrpc-config-calls)", a2a.V10,
			a2a.PushConfig{URL: "http://127.0.0.1:8080/ok/a2", Auth: &a2a.PushAuth{Scheme: "Bearer", Credentials: "cred-a2"}}, "",
			`{"taskId":"` + task + `","url":"http://127.0.0.1:8080/ok/a2","authentication":{"scheme":"Bearer","credentials":"cred-a2"}}`},
		{"1.0 with a tenant", a2a.V10, a2a.PushConfig{URL: "https://app.example/hook"}, "acme",
			`{"tenant":"acme","taskId":"` + task + `","url":"https://app.example/hook"}`},
		{"0.3 set (0.3-js0.3.14-config-calls)", a2a.V03,
			a2a.PushConfig{ID: "mine", URL: "http://127.0.0.1:8080/ok/b2b", Auth: &a2a.PushAuth{Scheme: "Bearer", Credentials: "cred-b2b"}}, "acme",
			`{"taskId":"` + task + `","pushNotificationConfig":{"id":"mine","url":"http://127.0.0.1:8080/ok/b2b","authentication":{"schemes":["Bearer"],"credentials":"cred-b2b"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := a2a.Codec{Version: tc.v}.EncodeSetPushConfig(task, tc.cfg, tc.tenant)
			require.NoError(t, err)
			require.JSONEq(t, tc.want, string(got))
		})
	}
}

func TestEncodePushConfigRefusesWhatCheckRefuses(t *testing.T) {
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		_, err := a2a.Codec{Version: v}.EncodePushConfig(a2a.PushConfig{URL: "/relative"})
		require.Error(t, err)
		_, err = a2a.Codec{Version: v}.EncodeSetPushConfig("t", a2a.PushConfig{URL: "ftp://x/"}, "")
		require.Error(t, err)
	}
	_, err := a2a.Codec{Version: "2.0"}.EncodePushConfig(a2a.PushConfig{URL: "https://app.example/hook"})
	require.ErrorContains(t, err, "unsupported protocol version")
}

func TestPushConfigCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  a2a.PushConfig
		ok   bool
	}{
		{"https", a2a.PushConfig{URL: "https://app.example/hook?k=v"}, true},
		{"http with token and auth", a2a.PushConfig{URL: "http://127.0.0.1:1/x", Token: "t", Auth: &a2a.PushAuth{Scheme: "Bearer", Credentials: "c"}}, true},
		{"auth without credentials", a2a.PushConfig{URL: "https://a/", Auth: &a2a.PushAuth{Scheme: "Bearer"}}, true},
		{"no URL", a2a.PushConfig{}, false},
		{"relative", a2a.PushConfig{URL: "/hook"}, false},
		{"no host", a2a.PushConfig{URL: "https:///hook"}, false},
		{"other scheme", a2a.PushConfig{URL: "ws://app.example/hook"}, false},
		{"does not parse", a2a.PushConfig{URL: "https://a b/%zz"}, false},
		{"token with a newline", a2a.PushConfig{URL: "https://a/", Token: "t\r\nX-Evil: 1"}, false},
		{"auth without scheme", a2a.PushConfig{URL: "https://a/", Auth: &a2a.PushAuth{Credentials: "c"}}, false},
		{"scheme of two words", a2a.PushConfig{URL: "https://a/", Auth: &a2a.PushAuth{Scheme: "Bearer x", Credentials: "c"}}, false},
		{"credentials with a control character", a2a.PushConfig{URL: "https://a/", Auth: &a2a.PushAuth{Scheme: "Bearer", Credentials: "c\x00"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Check()
			if tc.ok {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
		})
	}
}

func TestDecodePushConfigAsTheSDKsAnswer(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
		want a2a.PushConfig
	}{
		{"1.0 REST create answer (1.0-rest-config)",
			`{"id":"r1","taskId":"` + pushTask + `","url":"http://127.0.0.1:8080/ok/a3b","authentication":{"scheme":"Bearer","credentials":"cred-a3b"}}`,
			a2a.PushConfig{ID: "r1", TaskID: pushTask, URL: "http://127.0.0.1:8080/ok/a3b", Auth: &a2a.PushAuth{Scheme: "Bearer", Credentials: "cred-a3b"}}},
		{"1.0 JSON-RPC get answer (1.0-jsonrpc-config-calls)",
			`{"id":"mine","taskId":"` + pushTask + `","url":"http://127.0.0.1:8080/ok/a2b","token":"tok-a2b"}`,
			a2a.PushConfig{ID: "mine", TaskID: pushTask, URL: "http://127.0.0.1:8080/ok/a2b", Token: "tok-a2b"}},
		{"0.3 set answer (0.3-js0.3.14-config-calls)",
			`{"taskId":"` + pushTask + `","pushNotificationConfig":{"url":"http://127.0.0.1:8080/ok/b2","token":"tok-b2","id":"` + pushTask + `"}}`,
			a2a.PushConfig{ID: pushTask, TaskID: pushTask, URL: "http://127.0.0.1:8080/ok/b2", Token: "tok-b2"}},
		{"0.3 with schemes, the first kept",
			`{"taskId":"t","pushNotificationConfig":{"id":"mine","url":"http://h/","authentication":{"schemes":["Bearer","Basic"],"credentials":"c"}}}`,
			a2a.PushConfig{ID: "mine", TaskID: "t", URL: "http://h/", Auth: &a2a.PushAuth{Scheme: "Bearer", Credentials: "c"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := a2a.DecodePushConfig([]byte(tc.data))
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestDecodePushConfigsAsTheSDKsAnswer(t *testing.T) {
	got, err := a2a.DecodePushConfigs([]byte(`{"configs":[{"id":"a8e7","taskId":"` + pushTask + `","url":"http://127.0.0.1:8080/ok/a3","token":"tok-a3"},` +
		`{"id":"r1","taskId":"` + pushTask + `","url":"http://127.0.0.1:8080/ok/a3b","authentication":{"scheme":"Bearer","credentials":"cred-a3b"}}]}`))
	require.NoError(t, err)
	require.Equal(t, []a2a.PushConfig{
		{ID: "a8e7", TaskID: pushTask, URL: "http://127.0.0.1:8080/ok/a3", Token: "tok-a3"},
		{ID: "r1", TaskID: pushTask, URL: "http://127.0.0.1:8080/ok/a3b", Auth: &a2a.PushAuth{Scheme: "Bearer", Credentials: "cred-a3b"}},
	}, got)

	got, err = a2a.DecodePushConfigs([]byte(`[{"taskId":"t","pushNotificationConfig":{"url":"http://h/b2","token":"tok-b2","id":"t"}}]`))
	require.NoError(t, err)
	require.Equal(t, []a2a.PushConfig{{ID: "t", TaskID: "t", URL: "http://h/b2", Token: "tok-b2"}}, got)

	for _, none := range []string{`[]`, `null`, `{"configs":[]}`, `{}`} {
		got, err := a2a.DecodePushConfigs([]byte(none))
		require.NoError(t, err, none)
		require.Empty(t, got, none)
	}
	for _, bad := range []string{`1`, `"x"`, `[{"url":""}]`, `{"configs":[{}]}`, `{"configs":{}}`, `[1]`} {
		_, err := a2a.DecodePushConfigs([]byte(bad))
		require.Error(t, err, bad)
	}
}

func TestDecodePushConfigRefusesWhatIsNotAConfig(t *testing.T) {
	for _, bad := range []string{`{}`, `null`, `{"id":"c","taskId":"t"}`, `{"taskId":"t","pushNotificationConfig":{}}`,
		`{"pushNotificationConfig":{"pushNotificationConfig":{"url":"http://h/"}}}`,
		`{"kind":"task","id":"t","contextId":"c","status":{"state":"working"}}`} {
		_, err := a2a.DecodePushConfig([]byte(bad))
		require.ErrorIs(t, err, a2a.ErrUnknownResult, bad)
	}
	for _, bad := range []string{``, `[]`, `"x"`, `{"url":1}`, `{"pushNotificationConfig":"x"}`, `{"authentication":[]}`} {
		_, err := a2a.DecodePushConfig([]byte(bad))
		require.Error(t, err, bad)
	}
}

// TestPushConfigNeverPrintsItsSecrets prints a config every way fmt and
// log/slog can, and finds neither the token, the credentials nor the URL's
// key in any of them.
func TestPushConfigNeverPrintsItsSecrets(t *testing.T) {
	const token, cred, key = "tok-SECRET-1", "cred-SECRET-2", "key-SECRET-3"
	cfg := a2a.PushConfig{ID: "c1", TaskID: "t1", URL: "https://user:pw-SECRET@app.example/hook?api_key=" + key + "#frag-SECRET",
		Token: token, Auth: &a2a.PushAuth{Scheme: "Bearer", Credentials: cred}}
	var texts []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
		texts = append(texts, fmt.Sprintf(verb, cfg), fmt.Sprintf(verb, &cfg), fmt.Sprintf(verb, *cfg.Auth), fmt.Sprintf(verb, cfg.Auth),
			fmt.Sprintf(verb, []a2a.PushConfig{cfg}), fmt.Sprintf(verb, struct{ C a2a.PushConfig }{cfg}))
	}
	texts = append(texts, cfg.String(), fmt.Sprint(cfg), fmt.Sprintln(cfg))
	var logs bytes.Buffer
	for _, h := range []slog.Handler{slog.NewJSONHandler(&logs, nil), slog.NewTextHandler(&logs, nil)} {
		slog.New(h).Info("registered", "config", cfg, "auth", cfg.Auth)
	}
	texts = append(texts, logs.String())
	bad := cfg
	bad.URL = "ftp://app.example/hook?api_key=" + key
	texts = append(texts, bad.Check().Error())
	bad = cfg
	bad.Token = token + "\n"
	texts = append(texts, bad.Check().Error())
	bad = cfg
	bad.Auth = &a2a.PushAuth{Scheme: "Bearer", Credentials: cred + "\x00"}
	texts = append(texts, bad.Check().Error())
	for _, s := range texts {
		for _, secret := range []string{token, cred, key, "SECRET"} {
			require.NotContains(t, s, secret)
		}
	}
	require.Contains(t, cfg.String(), `ID:"c1"`)
	require.Contains(t, cfg.String(), "app.example/hook")
	require.Contains(t, cfg.String(), "Token:xxxxx")
	require.Contains(t, a2a.PushConfig{URL: "https://a/"}.String(), `Token:""`)
}

// FuzzDecodePushConfig checks that decoding any bytes as a config, or as a
// list of configs, never panics; that a config decoded has a URL; and that
// one Check accepts is written in both versions and read back the same.
func FuzzDecodePushConfig(f *testing.F) {
	for _, seed := range []string{
		`{"id":"r1","taskId":"t","url":"http://127.0.0.1:8080/ok/a3b","authentication":{"scheme":"Bearer","credentials":"cred-a3b"}}`,
		`{"taskId":"t","pushNotificationConfig":{"url":"http://h/b2","token":"tok-b2","id":"t"}}`,
		`{"taskId":"t","pushNotificationConfig":{"id":"m","url":"https://h/","authentication":{"schemes":["Bearer"],"credentials":"c"}}}`,
		`{"configs":[{"id":"a","taskId":"t","url":"http://h/","token":"x"}]}`,
		`[{"taskId":"t","pushNotificationConfig":{"url":"http://h/"}}]`,
		`{"pushNotificationConfig":null,"url":"https://h/"}`, `{}`, `null`, `[]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if ps, err := a2a.DecodePushConfigs(data); err == nil {
			for _, p := range ps {
				if p.URL == "" {
					t.Fatalf("a config without a URL in %q", data)
				}
			}
		}
		p, err := a2a.DecodePushConfig(data)
		if err != nil {
			if strings.Contains(err.Error(), "\x00") {
				t.Fatalf("a control character in the error of %q", data)
			}
			return
		}
		if p.URL == "" {
			t.Fatalf("a config without a URL from %q", data)
		}
		if p.Check() != nil {
			return
		}
		p.TaskID = ""
		for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
			raw, err := a2a.Codec{Version: v}.EncodePushConfig(p)
			if err != nil {
				t.Fatalf("%s: encoding %v, which Check accepts: %v", v, p, err)
			}
			back, err := a2a.DecodePushConfig(raw)
			if err != nil {
				t.Fatalf("%s: decoding %s: %v", v, raw, err)
			}
			if !equalPushConfig(p, back) {
				t.Fatalf("%s: %q read back as %q (from %q)", v, raw, fmt.Sprintf("%#v", back), data)
			}
		}
	})
}

// equalPushConfig compares two configs field by field, secrets included
// (require.Equal would print them through String, which hides them).
func equalPushConfig(a, b a2a.PushConfig) bool {
	if a.ID != b.ID || a.TaskID != b.TaskID || a.URL != b.URL || a.Token != b.Token || (a.Auth == nil) != (b.Auth == nil) {
		return false
	}
	return a.Auth == nil || *a.Auth == *b.Auth
}
