package httpx

import (
	"net/url"
	"strings"
)

// Redacted replaces a credential in a URL shown in an error text or a log.
const Redacted = "xxxxx"

// RedactURL returns u as text with its user name and password, the value of
// every query parameter and its fragment replaced by "xxxxx". A user name
// is often a token itself (https://TOKEN@host/), so it goes too. Query keys are kept, so
// "?api_key=K&v=1" reads "?api_key=xxxxx&v=xxxxx"; a parameter without "="
// may be a bare token, so it is replaced whole.
func RedactURL(u *url.URL) string {
	r := *u
	if r.User != nil {
		if _, has := r.User.Password(); has {
			r.User = url.UserPassword(Redacted, Redacted)
		} else {
			r.User = url.User(Redacted)
		}
	}
	if r.RawQuery != "" {
		params := strings.Split(r.RawQuery, "&")
		for i, p := range params {
			if k, _, ok := strings.Cut(p, "="); ok {
				params[i] = k + "=" + Redacted
			} else if p != "" {
				params[i] = Redacted
			}
		}
		r.RawQuery = strings.Join(params, "&")
	}
	if r.Fragment != "" || r.RawFragment != "" {
		r.Fragment, r.RawFragment = Redacted, ""
	}
	return r.String()
}

// RedactRawURL is RedactURL for a URL held as text. Text that does not
// parse (net/http never puts such text in a *url.Error) is replaced whole.
func RedactRawURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return Redacted
	}
	return RedactURL(u)
}

// RedactError returns err with the URL of a *url.Error redacted, when err is
// one (net/http's Client.Do returns every error as one, its URL with the
// query): a new *url.Error with the same Op and Err, so errors.As and
// errors.Is see through it as before. Any other error is returned as is.
func RedactError(err error) error {
	ue, ok := err.(*url.Error)
	if !ok {
		return err
	}
	return &url.Error{Op: ue.Op, URL: RedactRawURL(ue.URL), Err: RedactError(ue.Err)}
}

// RedactSecrets returns text with every occurrence of each non-empty secret
// replaced by "xxxxx": for a text that came from elsewhere (an agent's
// error message) and may quote a secret the caller sent, such as the token
// of a push-notification config. Empty secrets are skipped.
func RedactSecrets(text string, secrets ...string) string {
	for _, s := range secrets {
		if s != "" {
			text = strings.ReplaceAll(text, s, Redacted)
		}
	}
	return text
}
