package stream

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/a2astream/a2astream/internal/httpx"
)

// parseOrigin reads an origin given to WithTrustedOrigins: an absolute
// http or https URL with a host, and nothing after it but "/". Its error
// quotes no user name or password.
func parseOrigin(raw string) (string, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "", errors.New("it does not parse as a URL")
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Opaque != "":
		return "", fmt.Errorf("%q is not an absolute http or https URL", httpx.RedactURL(u))
	case u.User != nil:
		return "", fmt.Errorf("%q has a user name", httpx.RedactURL(u))
	case u.Path != "" && u.Path != "/", u.RawQuery != "", u.ForceQuery, u.Fragment != "":
		return "", fmt.Errorf("%q is more than an origin (scheme, host and port)", httpx.RedactURL(u))
	}
	if p := u.Port(); p != "" {
		if _, err := strconv.ParseUint(p, 10, 16); err != nil {
			return "", fmt.Errorf("%q has an invalid port", httpx.RedactURL(u))
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return "", fmt.Errorf("%q has an empty port", httpx.RedactURL(u))
	}
	return httpx.Origin(u), nil
}

// withheldHeaders returns the names of the headers of h, sorted, that the
// calls to an endpoint of origin endpoint do not carry because it is none
// of the origins headers go to (to): nil when it is one, or unknown (""),
// or h is empty. It names headers, never their values.
func withheldHeaders(h http.Header, to httpx.Origins, endpoint string) []string {
	if endpoint == "" || to.HasOrigin(endpoint) || len(h) == 0 {
		return nil
	}
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// tellWithheld says, once per stream, that the stream's headers (the
// Client's, the call's and a credentials hook's) do not go to its
// endpoint, whose origin is not the one the caller named: a debug log line
// and a HeadersWithheld notice, naming the headers, never their values,
// and both origins. The headers stay withheld.
func (s *Stream) tellWithheld() {
	if s.toldWithheld {
		return
	}
	names := withheldHeaders(s.header(), s.c.headerOrigins, s.c.endpointOrigin)
	if names == nil {
		return
	}
	s.toldWithheld = true
	s.log.Debug("a2a: headers withheld: the endpoint is not on the origin named", "task", s.taskID,
		"headers", names, "named", s.c.origin, "endpoint", s.c.endpointOrigin)
	s.notify(Notice{Kind: HeadersWithheld, TaskID: s.taskID, Headers: names, NamedOrigin: s.c.origin, EndpointOrigin: s.c.endpointOrigin})
}
