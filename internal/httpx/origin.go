package httpx

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// OriginOnlyHeaders returns a shallow copy of hc whose redirects to an
// origin not in to do not carry the headers h of the call it makes (those
// of WithHeader, the Client's and the call's, and a credentials hook's),
// each call having its own copy of hc. Nor do they carry
// the Referer that net/http adds, which would give the previous URL, and an
// API key in its query, to the other origin. A redirect that would change
// the method (a POST answered 301, 302 or 303, which net/http follows with a
// GET) is not followed: the server has the request, and its answer is the
// redirect. The copy shares hc's transport and cookie jar.
func OriginOnlyHeaders(hc *http.Client, to Origins, h http.Header) *http.Client {
	c := *hc
	next := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.Method != via[0].Method {
			return http.ErrUseLastResponse
		}
		if !to.Has(req.URL) {
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

// Origin returns the origin of u as RFC 6454 compares them: the scheme and
// the host in lower case, and the port unless it is the scheme's default.
func Origin(u *url.URL) string {
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

// Origins are the origins headers go to: the one the caller named, then
// those it trusts (WithTrustedOrigins), each as Origin returns it.
type Origins []string

// Has reports whether u's origin is one of os.
func (os Origins) Has(u *url.URL) bool { return os.HasOrigin(Origin(u)) }

// HasOrigin reports whether o, as Origin returns it, is one of os.
func (os Origins) HasOrigin(o string) bool { return slices.Contains(os, o) }

// AddHeaders adds h to req when req goes to one of to, and nothing
// otherwise.
func AddHeaders(req *http.Request, to Origins, h http.Header) {
	if !to.Has(req.URL) {
		return
	}
	for k, vs := range h {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
}
