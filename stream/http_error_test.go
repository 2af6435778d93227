package stream_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// An *HTTPError says what was tried: the request's method and URL (redacted)
// and, over JSON-RPC, the method called.

func TestHTTPErrorNamesTheRequest(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(ww *wireWriter, _ wireCall) {
						http.Error(ww.w, "<html>nope</html>", http.StatusForbidden)
					},
				})
				base := "http://agent.test/a2a?api_key=key-secret"
				opts := []stream.Option{stream.WithHTTPClient(a2atest.NewClient(a)), stream.WithVersion(w.v)}
				var (
					c   *stream.Client
					err error
				)
				if w.b == a2a.BindingHTTPJSON {
					c, err = stream.NewRESTClient("http://agent.test?api_key=key-secret", opts...)
				} else {
					c, err = stream.NewClient(base, opts...)
				}
				require.NoError(t, err)
				_, err = drain(t, c.Send(background(), hello()))
				var he *transport.HTTPError
				require.ErrorAs(t, err, &he)
				require.Equal(t, http.MethodPost, he.Method)
				require.NotContains(t, err.Error(), "key-secret", "the URL is redacted")
				require.Contains(t, he.URL, "api_key=")
				if w.b == a2a.BindingJSONRPC {
					method := map[a2a.Version]string{a2a.V03: "message/stream", a2a.V10: "SendStreamingMessage"}[w.v]
					require.Equal(t, method, he.Call)
					require.True(t, strings.HasPrefix(he.URL, "http://agent.test/a2a?"), he.URL)
				} else {
					require.Empty(t, he.Call, "the URL names the call")
					require.Contains(t, he.URL, "message:stream")
				}
				require.Equal(t, "stream: HTTP 403 Forbidden from POST "+he.URL+callSuffix(he.Call), he.Error())
			})
		})
	}
}

func callSuffix(call string) string {
	if call == "" {
		return ""
	}
	return " (" + call + ")"
}

// TestServerTextQuotedInAnErrorIsCutOnACharacter: a server's content type
// of 70 bytes, with a three-byte "€" across byte 64, is quoted cut before
// the "€", not inside it, and the error reads as valid UTF-8.
func TestServerTextQuotedInAnErrorIsCutOnACharacter(t *testing.T) {
	ct := "text/" + strings.Repeat("x", 58) + "€€€" // "€" starts at byte 63
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", ct)
					w.WriteHeader(200)
					fmt.Fprint(w, "?")
				})
				_, err := drain(t, newClient(t, h, v).Send(background(), hello()))
				var pe *transport.ProtocolError
				require.True(t, errors.As(err, &pe), "%v", err)
				require.True(t, utf8.ValidString(pe.Reason), "%q", pe.Reason)
				require.Contains(t, pe.Reason, `"text/`+strings.Repeat("x", 58)+`…"`)
			})
		})
	}
}
