package stream

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// originOnlyHeaders returns a shallow copy of hc whose redirects to an
// origin not in to do not carry the headers h of the call it makes (those
// of WithHeader, the Client's and the call's, and a credentials hook's),
// each call having its own copy of hc. Nor do they carry
// the Referer that net/http adds, which would give the previous URL, and an
// API key in its query, to the other origin. A redirect that would change
// the method (a POST answered 301, 302 or 303, which net/http follows with a
// GET) is not followed: the server has the request, and its answer is the
// redirect. The copy shares hc's transport and cookie jar.
func originOnlyHeaders(hc *http.Client, to origins, h http.Header) *http.Client {
	c := *hc
	next := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.Method != via[0].Method {
			return http.ErrUseLastResponse
		}
		if !to.has(req.URL) {
			for k := range h {
				req.Header.Del(k)
			}
			req.Header.Del("Referer")
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errTooManyRedirects // as net/http's default policy
		}
		return nil
	}
	return &c
}

var errTooManyRedirects = errors.New("stopped after 10 redirects")

// origin returns the origin of u as RFC 6454 compares them: the scheme and
// the host in lower case, and the port unless it is the scheme's default.
func origin(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if scheme == "http" && port == "80" || scheme == "https" && port == "443" {
		port = ""
	}
	if port != "" {
		return scheme + "://" + net.JoinHostPort(host, port)
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // an IPv6 literal
	}
	return scheme + "://" + host
}

// origins are the origins headers go to: the one the caller named, then
// those it trusts (WithTrustedOrigins), each as origin returns it.
type origins []string

// has reports whether u's origin is one of os.
func (os origins) has(u *url.URL) bool { return os.hasOrigin(origin(u)) }

// hasOrigin reports whether o, as origin returns it, is one of os.
func (os origins) hasOrigin(o string) bool { return slices.Contains(os, o) }

// parseOrigin reads an origin given to WithTrustedOrigins: an absolute
// http or https URL with a host, and nothing after it but "/". Its error
// quotes no user name or password.
func parseOrigin(raw string) (string, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "", errors.New("it does not parse as a URL")
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Opaque != "":
		return "", fmt.Errorf("%q is not an absolute http or https URL", redactURL(u))
	case u.User != nil:
		return "", fmt.Errorf("%q has a user name", redactURL(u))
	case u.Path != "" && u.Path != "/", u.RawQuery != "", u.ForceQuery, u.Fragment != "":
		return "", fmt.Errorf("%q is more than an origin (scheme, host and port)", redactURL(u))
	}
	if p := u.Port(); p != "" {
		if _, err := strconv.ParseUint(p, 10, 16); err != nil {
			return "", fmt.Errorf("%q has an invalid port", redactURL(u))
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return "", fmt.Errorf("%q has an empty port", redactURL(u))
	}
	return origin(u), nil
}

// withheldHeaders returns the names of the headers of h, sorted, that the
// calls to an endpoint of origin endpoint do not carry because it is none
// of the origins headers go to (to): nil when it is one, or unknown (""),
// or h is empty. It names headers, never their values.
func withheldHeaders(h http.Header, to origins, endpoint string) []string {
	if endpoint == "" || to.hasOrigin(endpoint) || len(h) == 0 {
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

// addHeaders adds h to req when req goes to one of to, and nothing
// otherwise.
func addHeaders(req *http.Request, to origins, h http.Header) {
	if !to.has(req.URL) {
		return
	}
	for k, vs := range h {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
}
