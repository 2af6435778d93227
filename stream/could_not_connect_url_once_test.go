package stream_test

// "could not connect" names the URL it could not connect to once: the
// transport's error, which names the request's URL again ("Get
// "http://…": dial tcp …"), follows without it. The URL keeps no secret.

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/agentcard"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// secretURL is an agent's URL with a password and a query key, which every
// error text shows redacted.
const secretURL = "http://user:pa55word@agent.test/app?key=k-secret"

// hangingDial is a dial that never connects: the connect timeout cuts it.
func hangingDial(ctx context.Context, _, _ string) (net.Conn, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// requireURLOnce requires that text names url, and no other URL, once, and
// none of the secrets of secretURL.
func requireURLOnce(t *testing.T, text, url string) {
	t.Helper()
	require.Equal(t, 1, strings.Count(text, url), "%s", text)
	require.Equal(t, 1, strings.Count(text, "://"), "one URL: %s", text)
	require.NotContains(t, text, "pa55word")
	require.NotContains(t, text, "k-secret")
}

func TestCouldNotConnectToTheCardNamesItsURLOnce(t *testing.T) {
	const cardURL = "http://xxxxx:xxxxx@agent.test/app/.well-known/agent-card.json?key=xxxxx"
	transports := map[string]func(t *testing.T) http.RoundTripper{
		"refused":               func(*testing.T) http.RoundTripper { return refusingTransport{} },
		"name does not resolve": func(*testing.T) http.RoundTripper { return &http.Transport{DialContext: dnsFailure} },
		"proxy refuses":         func(t *testing.T) http.RoundTripper { return refusingProxy(t) },
	}
	fetches := map[string]func(hc *http.Client) error{
		"Resolve": func(hc *http.Client) error {
			_, err := stream.Resolve(background(), secretURL, stream.WithHTTPClient(hc))
			return err
		},
		"FetchCard": func(hc *http.Client) error {
			_, err := agentcard.Fetch(background(), secretURL, agentcard.WithHTTPClient(hc))
			return err
		},
	}
	for tname, tr := range transports {
		for fname, fetch := range fetches {
			t.Run(tname+"/"+fname, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					rt := tr(t)
					if h, ok := rt.(*http.Transport); ok {
						defer h.CloseIdleConnections()
					}
					err := fetch(&http.Client{Transport: rt})
					require.ErrorIs(t, err, reconnect.ErrCouldNotConnect, "%v", err)
					require.Contains(t, err.Error(), "could not connect to "+cardURL+": ")
					requireURLOnce(t, err.Error(), cardURL)
				})
			})
		}
	}
}

func TestCouldNotConnectToTheAgentNamesItsURLOnce(t *testing.T) {
	const agentURL = "http://xxxxx:xxxxx@agent.test/app?key=xxxxx"
	transports := map[string]func(t *testing.T) http.RoundTripper{
		"refused":               func(*testing.T) http.RoundTripper { return refusingTransport{} },
		"name does not resolve": func(*testing.T) http.RoundTripper { return &http.Transport{DialContext: dnsFailure} },
		"proxy refuses":         func(t *testing.T) http.RoundTripper { return refusingProxy(t) },
		"connect timeout":       func(*testing.T) http.RoundTripper { return &http.Transport{DialContext: hangingDial} },
	}
	for tname, tr := range transports {
		for _, w := range wires() {
			t.Run(tname+"/"+w.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					rt := tr(t)
					if h, ok := rt.(*http.Transport); ok {
						defer h.CloseIdleConnections()
					}
					opts := []stream.Option{stream.WithHTTPClient(&http.Client{Transport: rt}), stream.WithVersion(w.v),
						stream.WithConnectTimeout(time.Second), stream.WithReconnect(reconnect.Policy{MaxAttempts: 1, Backoff: time.Second})}
					var (
						c   *stream.Client
						err error
					)
					if w.b == a2a.BindingHTTPJSON {
						c, err = stream.NewRESTClient(secretURL, opts...)
					} else {
						c, err = stream.NewClient(secretURL, opts...)
					}
					require.NoError(t, err)
					_, err = drain(t, c.Send(background(), hello()))
					require.ErrorIs(t, err, reconnect.ErrCouldNotConnect, "%v", err)
					require.Contains(t, err.Error(), "could not connect to "+agentURL+", gave up after 1 attempts: ")
					requireURLOnce(t, err.Error(), agentURL)
					requireURLOnce(t, stream.EndingOf(err).String(), agentURL)
				})
			})
		}
	}
}
