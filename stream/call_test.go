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
	"github.com/a2astream/a2astream/stream"
)

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
				_, err := drain(t, handlerClient(t, h, v).Send(background(), hello()))
				var pe *stream.ProtocolError
				require.True(t, errors.As(err, &pe), "%v", err)
				require.True(t, utf8.ValidString(pe.Reason), "%q", pe.Reason)
				require.Contains(t, pe.Reason, `"text/`+strings.Repeat("x", 58)+`…"`)
			})
		})
	}
}
