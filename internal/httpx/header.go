package httpx

import (
	"fmt"
	"net/http"
	"strings"
)

// CheckHeader refuses a header that cannot be sent: a name that is not an
// HTTP token, a value with a control character other than a tab (RFC 9110
// §5.5; net/http refuses such a value at every call). The error names the
// header, never its value.
func CheckHeader(h http.Header) error {
	for k, vs := range h {
		switch {
		case !validHeaderName(k):
			return fmt.Errorf("%q is not a valid header name", k)
		case !ValidHeader(k, vs):
			return fmt.Errorf("the value of %s holds a control character", k)
		}
	}
	return nil
}

// ValidHeader reports whether the header k with the values vs can be sent:
// k is an HTTP token and no value holds a control character but tabs.
func ValidHeader(k string, vs []string) bool {
	if !validHeaderName(k) {
		return false
	}
	for _, v := range vs {
		if !validHeaderValue(v) {
			return false
		}
	}
	return true
}

// validHeaderValue reports whether v holds no ASCII control character (a
// byte below 0x20, or DEL) but tabs. Bytes from 0x80 up, U+0085 and the
// other C1 controls among them in UTF-8, are field content HTTP allows
// (obs-text), and net/http sends them.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// validHeaderName reports whether k is an HTTP token (RFC 9110 §5.6.2).
func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !IsTokenChar(k[i]) {
			return false
		}
	}
	return true
}

// IsTokenChar reports a tchar of RFC 9110 §5.6.2.
func IsTokenChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
