package a2agrpc

import (
	"fmt"
	"strings"

	"google.golang.org/grpc/metadata"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/transport"
)

// versionKey is the metadata with which a 1.0 call names its version; a
// 1.0 server reads a call without it as 0.3.
const versionKey = "a2a-version"

// HeaderError reports a header of the call (transport.Call.Header) that
// gRPC metadata cannot carry: a name with characters other than a-z, 0-9,
// "-", "_" and "." once lower-cased, or a value, other than of a name
// ending in "-bin", with characters other than printable ASCII. It names
// the header, never its value. It wraps transport.ErrInvalidMessage: the
// caller's error, found before anything is sent, so the stream ends with
// it and the call is never made again.
type HeaderError struct {
	Name   string
	Reason string
}

// Error reads like `a2agrpc: header "X-Key": its value is not printable
// ASCII`.
func (e *HeaderError) Error() string {
	return fmt.Sprintf("a2agrpc: header %q: %s", e.Name, e.Reason)
}

// Unwrap returns transport.ErrInvalidMessage.
func (e *HeaderError) Unwrap() error { return transport.ErrInvalidMessage }

// reserved reports the names, lower-cased, that a caller's headers do not
// set on a gRPC call: HTTP/2's pseudo-headers and connection-specific
// headers, gRPC's own (content-type, te, user-agent, grpc-*), the
// version, which the call's Version sets, and the call's number, which
// the Transport sets (see Transport's timers). They are dropped, as grpc-go
// drops most of them itself and as net/http ignores a Host header: the
// call is made as gRPC and its version require.
func reserved(name string) bool {
	switch name {
	case "content-type", "te", "user-agent", "host", "connection", "keep-alive",
		"proxy-connection", "transfer-encoding", "upgrade", versionKey, callKey:
		return true
	}
	return strings.HasPrefix(name, ":") || strings.HasPrefix(name, "grpc-")
}

// outgoing returns the metadata of a call: the call's headers with their
// names lower-cased, without the reserved ones, and a2a-version: 1.0 on a
// 1.0 call. They go to the Transport's target only (see Transport).
func outgoing(call transport.Call) (metadata.MD, error) {
	md := make(metadata.MD, len(call.Header)+1)
	for k, vs := range call.Header {
		name := strings.ToLower(k)
		if reserved(name) {
			continue
		}
		if err := checkHeader(k, name, vs); err != nil {
			return nil, err
		}
		md[name] = append(md[name], vs...)
	}
	if call.Version != a2a.V03 {
		md[versionKey] = []string{string(a2a.V10)}
	}
	return md, nil
}

// checkHeader refuses a header gRPC metadata cannot carry (see
// HeaderError); key is its name as given, name lower-cased.
func checkHeader(key, name string, values []string) error {
	if name == "" {
		return &HeaderError{Name: key, Reason: "its name is empty"}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return &HeaderError{Name: key, Reason: "its name has a character gRPC metadata cannot carry"}
		}
	}
	if strings.HasSuffix(name, "-bin") {
		return nil
	}
	for _, v := range values {
		for i := 0; i < len(v); i++ {
			if v[i] < 0x20 || v[i] > 0x7e {
				return &HeaderError{Name: key, Reason: "its value is not printable ASCII (name a binary header with -bin)"}
			}
		}
	}
	return nil
}
