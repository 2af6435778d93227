package httpx

import (
	"net/url"
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
		"AAAAAA://?=aaaaaa",   // the value is the scheme, lower-cased: quoted as the scheme, not leaked
		"?=000000&\x8000000=", // %q writes the key's byte 0x80 as "\x80", and "x8000000" holds the value
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
		msg := err.Error()
		// A secret is one that raw holds once, whatever its case (a scheme
		// is quoted lower-cased), with a letter that no escape of %q
		// writes (\x80 reads "x80", which "000000" would match).
		secret := func(v string) bool {
			return strings.Count(strings.ToLower(raw), strings.ToLower(v)) == 1 &&
				strings.ContainsAny(strings.ToLower(v), "ghijklmnopqrstvwyz")
		}
		for _, candidate := range []string{raw, "http://" + raw} {
			p, perr := url.Parse(candidate)
			if perr != nil {
				continue
			}
			if pw, ok := p.User.Password(); ok && len(pw) >= 6 && secret(pw) && strings.Contains(msg, pw) {
				t.Fatalf("the error for %q quotes its password: %s", raw, msg)
			}
			for _, vs := range p.Query() {
				for _, v := range vs {
					if len(v) >= 6 && secret(v) && strings.Contains(msg, v) {
						t.Fatalf("the error for %q quotes a query value %q: %s", raw, v, msg)
					}
				}
			}
		}
	})
}
