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
// redacted.
func ParseBase(raw string) (*url.URL, error) {
	base, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("invalid base URL: the URL does not parse")
	}
	if (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("invalid base URL %q: want an absolute http or https URL", RedactURL(base))
	}
	return base, nil
}
