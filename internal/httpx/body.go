package httpx

import (
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
)

// ErrTooLarge is returned by ReadLimited for a body over the limit.
var ErrTooLarge = errors.New("response body exceeds the maximum event size")

// ReadLimited reads r whole, up to limit bytes; more is ErrTooLarge.
func ReadLimited(r io.Reader, limit int) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > limit {
		return nil, ErrTooLarge
	}
	return b, nil
}

// MediaType returns the media type of resp's Content-Type, lower-cased,
// without parameters; "" when it is absent or does not parse.
func MediaType(resp *http.Response) string {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return mt
}

// DialFailed reports an error of a transport that says it could not
// connect: a failed dial or name resolution, to the agent or to the proxy
// that would have reached it (net/http's "proxyconnect").
func DialFailed(err error) bool {
	var (
		opErr  *net.OpError
		dnsErr *net.DNSError
	)
	return errors.As(err, &opErr) && (opErr.Op == "dial" || opErr.Op == "proxyconnect") || errors.As(err, &dnsErr)
}
