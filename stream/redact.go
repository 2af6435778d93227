package stream

import (
	"net/url"
	"strings"
)

// redacted replaces a credential in a URL shown in an error text or a log.
const redacted = "xxxxx"

// redactURL returns u as text with its user name and password, the value of
// every query parameter and its fragment replaced by "xxxxx". A user name
// is often a token itself (https://TOKEN@host/), so it goes too. Query keys are kept, so
// "?api_key=K&v=1" reads "?api_key=xxxxx&v=xxxxx"; a parameter without "="
// may be a bare token, so it is replaced whole.
func redactURL(u *url.URL) string {
	r := *u
	if r.User != nil {
		if _, has := r.User.Password(); has {
			r.User = url.UserPassword(redacted, redacted)
		} else {
			r.User = url.User(redacted)
		}
	}
	if r.RawQuery != "" {
		params := strings.Split(r.RawQuery, "&")
		for i, p := range params {
			if k, _, ok := strings.Cut(p, "="); ok {
				params[i] = k + "=" + redacted
			} else if p != "" {
				params[i] = redacted
			}
		}
		r.RawQuery = strings.Join(params, "&")
	}
	if r.Fragment != "" || r.RawFragment != "" {
		r.Fragment, r.RawFragment = redacted, ""
	}
	return r.String()
}

// redactRawURL is redactURL for a URL held as text. Text that does not
// parse (net/http never puts such text in a *url.Error) is replaced whole.
func redactRawURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return redacted
	}
	return redactURL(u)
}

// redactError returns err with the URL of a *url.Error redacted, when err is
// one (net/http's Client.Do returns every error as one, its URL with the
// query): a new *url.Error with the same Op and Err, so errors.As and
// errors.Is see through it as before. Any other error is returned as is.
func redactError(err error) error {
	ue, ok := err.(*url.Error)
	if !ok {
		return err
	}
	return &url.Error{Op: ue.Op, URL: redactRawURL(ue.URL), Err: redactError(ue.Err)}
}
