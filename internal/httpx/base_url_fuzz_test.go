package httpx

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseHTTP: whatever the caller writes, ParseHTTP does not panic, what
// it accepts is an absolute http or https URL with a host, and what it
// refuses is told without the URL's password or query values, which its
// error quotes redacted.
func FuzzParseHTTP(f *testing.F) {
	for _, s := range []string{
		"http://127.0.0.1:9999/", "127.0.0.1:9999", "localhost:9999", "agent.example/a2a", "mailto:a@b",
		"http:x", "https://u:secretpw@host/p?token=abcdef123", "u:secretpw@host:1/p?token=abcdef123", "%zz",
		"ftp://host/", "//host/path", "http://[::1]:80/", " http://host/ ", "host?key=secretvalue#frag",
		"AAAAAA://?=aaaaaa", // the value is the scheme, lower-cased: quoted as the scheme, not leaked
		"?=000000&\x8000000=", " 0Y000?=00Y000",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := ParseHTTP(raw, "base URL")
		if err == nil {
			if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				t.Fatalf("accepted %q as %+v", raw, u)
			}
			return
		}
		// What the error quotes of the URL, read back as a URL, holds no
		// password and no query value but the redacted one.
		msg := err.Error()
		i := strings.IndexByte(msg, '"')
		if i < 0 {
			return
		}
		quoted, qerr := strconv.QuotedPrefix(msg[i:])
		if qerr != nil {
			t.Fatalf("the error for %q quotes no whole string: %s", raw, msg)
		}
		text, _ := strconv.Unquote(quoted)
		for _, candidate := range []string{text, "http://" + text} {
			q, perr := url.Parse(candidate)
			if perr != nil {
				continue
			}
			if pw, ok := q.User.Password(); ok && pw != "xxxxx" {
				t.Fatalf("the error for %q quotes a password: %s", raw, msg)
			}
			for _, vs := range q.Query() {
				for _, v := range vs {
					if v != "" && v != "xxxxx" {
						t.Fatalf("the error for %q quotes a query value %q: %s", raw, v, msg)
					}
				}
			}
		}
	})
}
