package stream_test

// Header values net/http cannot send (a control character other than a
// tab: RFC 9110 field values hold none) are refused where the caller gives
// them: WithHeader's by the constructor with ErrInvalidOption, a
// credentials hook's by ending the stream at once. Neither is taken for a
// lost connection, spending the reconnect budget on calls that can never
// leave.

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
)

// unsendableValues are header values net/http's Transport refuses to send
// ("net/http: invalid header field value"), though they hold no line break
// or NUL.
var unsendableValues = []struct{ name, value string }{
	{"SOH", "Bearer x-secret\x01"},
	{"DEL", "Bearer x-secret\x7f"},
	{"ESC", "Bearer \x1bx-secret"},
}

// README: "Bad values (... an invalid header) are refused by the
// constructor, or per call as the stream's Err(), with an error that wraps
// stream.ErrInvalidOption; nothing is sent."
func TestHeaderValueWithAControlCharacterIsAnInvalidOption(t *testing.T) {
	for _, bad := range unsendableValues {
		for _, b := range []a2a.Binding{a2a.BindingJSONRPC, a2a.BindingHTTPJSON} {
			t.Run(bad.name+"/"+string(b), func(t *testing.T) {
				var err error
				if b == a2a.BindingHTTPJSON {
					_, err = stream.NewRESTClient("http://agent.test", stream.WithHeader("Authorization", bad.value))
				} else {
					_, err = stream.NewClient("http://agent.test/", stream.WithHeader("Authorization", bad.value))
				}
				require.ErrorIs(t, err, stream.ErrInvalidOption)
				require.NotContains(t, err.Error(), "secret", "no header value in the error text")
			})
		}
	}
}

// WithCredentials: "A hook that ... returns a header that cannot be sent
// (an invalid name, a line break or NUL in a value) ends the stream with a
// *terminal.AuthRequiredError joined with the cause".
func TestAuthHookHeaderWithAControlCharacterEndsTheStream(t *testing.T) {
	for _, bad := range unsendableValues {
		for _, w := range wires() {
			t.Run(bad.name+"/"+w.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					agent := authAgent(w)
					// A real Transport, which refuses such a value before it
					// dials (a2atest's transport would carry it).
					p := &pipeServer{h: agent}
					tr := &http.Transport{DialContext: p.dial}
					defer p.close()
					defer tr.CloseIdleConnections()
					hook := stream.CredentialsFunc(func(context.Context, *stream.AuthRequest) (http.Header, error) {
						return http.Header{"Authorization": {bad.value}}, nil
					})
					start := time.Now()
					_, err := agent.clientOf(t, stream.WithHTTPClient(&http.Client{Transport: tr}), stream.WithVersion(w.v),
						stream.WithCredentials(hook)).Send(bounded(t), hello()).Wait()
					var auth *terminal.AuthRequiredError
					require.ErrorAs(t, err, &auth, "the header cannot be sent: the auth-required ending, not a lost connection")
					require.Equal(t, time.Duration(0), time.Since(start), "no reconnect backoff spent")
					require.NotContains(t, err.Error(), "secret", "no header value in the error text")
					requireMessageSentOnce(t, agent, false)
				})
			})
		}
	}
}
