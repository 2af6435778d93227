package httpx

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Under returns base with the path segments segs (unescaped) joined under
// its path, one slash between them whatever base's trailing slash, each
// segment escaped and base's escapes kept. The query is kept; the fragment,
// which no request carries, is dropped.
func Under(base *url.URL, segs ...string) *url.URL {
	u := *base
	u.Path, u.RawPath = base.Path, base.EscapedPath()
	if strings.HasSuffix(u.RawPath, "/") {
		u.Path, u.RawPath = u.Path[:len(u.Path)-1], u.RawPath[:len(u.RawPath)-1]
	}
	for _, s := range segs {
		u.Path += "/" + s
		u.RawPath += "/" + url.PathEscape(s)
	}
	u.Fragment, u.RawFragment = "", ""
	return &u
}

// ParseBase reads a base URL: an absolute http or https URL with a host.
// Its error, to be prefixed with the caller's package name, quotes the URL
// redacted and says what to write instead; see ParseHTTP.
func ParseBase(raw string) (*url.URL, error) { return ParseHTTP(raw, "base URL") }

// ParseHTTP reads an absolute http or https URL with a host, called noun
// ("base URL", "endpoint") in its error. The error quotes the URL redacted
// (RedactURL) and says what to write: for a URL that lacks only its scheme
// ("127.0.0.1:9999", "localhost:9999", "agent.example/a2a"), the URL with
// it. A URL that does not parse is not quoted, since it cannot be redacted,
// nor one with an opaque part ("user:password@host" read as the scheme
// "user"), which redaction does not see into.
func ParseHTTP(raw, noun string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return u, nil
	}
	if fixed, ok := withScheme(raw); ok {
		return nil, fmt.Errorf("invalid %s %q: it has no scheme; write %q or %q", noun,
			strings.TrimPrefix(fixed, "http://"), fixed, "https://"+strings.TrimPrefix(fixed, "http://"))
	}
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL's own text left out
		}
		return nil, fmt.Errorf("invalid %s: it does not parse as a URL (%v); want an absolute http or https URL", noun, err)
	}
	if u.Opaque != "" {
		// "user:password@host/…" reads as the scheme "user" and an opaque
		// rest that redaction does not see into: not quoted.
		return nil, fmt.Errorf("invalid %s: it is no absolute http or https URL (write one, http:// or https:// first)", noun)
	}
	return nil, fmt.Errorf("invalid %s %q: want an absolute http or https URL", noun, RedactURL(u))
}

// withScheme returns raw with "http://" before it, redacted, when raw
// reads as a URL without its scheme: it names no scheme ("://" or a
// leading "http:" or "https:"), and with "http://" it parses, with a host
// and no user name (so "mailto:a@b" is not read as user "mailto" at host
// "b").
func withScheme(raw string) (string, bool) {
	lower := strings.ToLower(raw)
	if strings.Contains(raw, "://") || strings.HasPrefix(lower, "http:") || strings.HasPrefix(lower, "https:") {
		return "", false
	}
	u, err := url.Parse("http://" + raw)
	if err != nil || u.Host == "" || u.User != nil {
		return "", false
	}
	return RedactURL(u), true
}
