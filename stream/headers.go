package stream

import (
	"net/http"
	"net/url"
)

// originOnlyHeaders returns a shallow copy of hc whose redirects to another
// origin do not carry the headers set with WithHeader. The copy shares hc's
// transport and cookie jar.
func originOnlyHeaders(hc *http.Client, origin string, h http.Header) *http.Client {
	if len(h) == 0 {
		return hc
	}
	c := *hc
	next := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !sameOrigin(req.URL, origin) {
			for k := range h {
				req.Header.Del(k)
			}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return http.ErrUseLastResponse
		}
		return nil
	}
	return &c
}

func sameOrigin(u *url.URL, origin string) bool { return u.Scheme+"://"+u.Host == origin }

// setHeaders adds the configured headers to req when it goes to the agent's
// origin.
func (c *Client) setHeaders(req *http.Request) {
	if !sameOrigin(req.URL, c.origin) {
		return
	}
	for k, vs := range c.cfg.header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
}
