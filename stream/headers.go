package stream

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// originOnlyHeaders returns a shallow copy of hc whose redirects to another
// origin do not carry the headers set with WithHeader: those headers returns
// for the request's context (the Client's, or its call's). Nor do they carry
// the Referer that net/http adds, which would give the previous URL, and an
// API key in its query, to the other origin. A redirect that would change
// the method (a POST answered 301, 302 or 303, which net/http follows with a
// GET) is not followed: the server has the request, and its answer is the
// redirect. The copy shares hc's transport and cookie jar.
func originOnlyHeaders(hc *http.Client, origin string, headers func(context.Context) http.Header) *http.Client {
	c := *hc
	next := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.Method != via[0].Method {
			return http.ErrUseLastResponse
		}
		if !sameOrigin(req.URL, origin) {
			for k := range headers(req.Context()) {
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

// sameOrigin reports whether u has the origin origin, as origin returns it.
func sameOrigin(u *url.URL, o string) bool { return origin(u) == o }

// withheldHeaders returns the names of the headers of h, sorted, that the
// calls to an endpoint of origin endpoint do not carry because the caller
// named another origin (named): nil when endpoint is named, or unknown
// (""), or h is empty. It names headers, never their values.
func withheldHeaders(h http.Header, named, endpoint string) []string {
	if endpoint == "" || endpoint == named || len(h) == 0 {
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
	names := withheldHeaders(s.cfg.header, s.c.origin, s.c.endpointOrigin)
	if names == nil {
		return
	}
	s.toldWithheld = true
	s.log.Debug("a2a: headers withheld: the endpoint is not on the origin named", "task", s.taskID,
		"headers", names, "named", s.c.origin, "endpoint", s.c.endpointOrigin)
	s.notify(Notice{Kind: HeadersWithheld, TaskID: s.taskID, Headers: names, NamedOrigin: s.c.origin, EndpointOrigin: s.c.endpointOrigin})
}

// addHeaders adds h to req when req goes to origin, and nothing otherwise.
func addHeaders(req *http.Request, origin string, h http.Header) {
	if !sameOrigin(req.URL, origin) {
		return
	}
	for k, vs := range h {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
}
