package stream

import (
	"context"
	"errors"
	"net/http"
	"net/url"
)

// originOnlyHeaders returns a shallow copy of hc whose redirects to another
// origin do not carry the headers set with WithHeader: those headers returns
// for the request's context (the Client's, or its call's). The copy shares
// hc's transport and cookie jar.
func originOnlyHeaders(hc *http.Client, origin string, headers func(context.Context) http.Header) *http.Client {
	c := *hc
	next := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !sameOrigin(req.URL, origin) {
			for k := range headers(req.Context()) {
				req.Header.Del(k)
			}
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

func sameOrigin(u *url.URL, origin string) bool { return u.Scheme+"://"+u.Host == origin }

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
