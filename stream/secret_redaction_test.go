package stream_test

import (
	"context"
	"errors"
	"fmt"
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

// sgRequireNoSecret asserts that neither err's text (nor that of any error
// in its chain) nor the log holds a secret.
func sgRequireNoSecret(t *testing.T, err error, log *logCapture, what string) {
	t.Helper()
	for e := err; e != nil; e = errors.Unwrap(e) {
		require.NotContains(t, e.Error(), "secret", "%s: error text", what)
	}
	require.NotContains(t, log.String(), "secret", "%s: log", what)
}

// sgKeyedClient returns a Client of wire w for https://agent.test under a
// keyed URL (?code=, a URL password) with secret headers, logging to log.
func sgKeyedClient(t *testing.T, w wire, hc *http.Client, log *logCapture, extra ...stream.Option) *stream.Client {
	t.Helper()
	opts := append([]stream.Option{stream.WithHTTPClient(hc), stream.WithVersion(w.v), stream.WithLogger(log.logger()),
		stream.WithHeader("Authorization", "Bearer service-secret"), stream.WithHeader("X-Api-Key", "key-secret"),
		stream.WithReconnect(reconnect.Policy{MaxAttempts: 2, Backoff: time.Second})}, extra...)
	var (
		c   *stream.Client
		err error
	)
	if w.b == a2a.BindingJSONRPC {
		c, err = stream.NewClient("https://user:pw-secret@agent.test/rpc?code=code-secret&lang=en", opts...)
	} else {
		c, err = stream.NewRESTClient("https://user:pw-secret@agent.test/api?code=code-secret&lang=en", opts...)
	}
	require.NoError(t, err)
	return c
}

// TestErrorsAndLogsHoldNoSecret: whatever the failure (no such
// host, a 5xx page, a 503 with Retry-After, a cut, malformed JSON, a wrong
// content type, a redirect loop), no error text and no log line holds a
// header value, a URL password or a query value, on every call kind and
// wire.
func TestErrorsAndLogsHoldNoSecret(t *testing.T) {
	failures := map[string]http.HandlerFunc{
		"html-500": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(500)
			fmt.Fprintf(w, "<html>%s</html>", r.URL.String())
		},
		"503-retry-after": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(503)
		},
		"cut": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(200)
			w.Write([]byte("data: {\"jso"))
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		},
		"bad-json": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte("{not json"))
		},
		"wrong-type": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("PNG"))
		},
		"redirect-loop": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.RequestURI(), http.StatusTemporaryRedirect)
		},
		"no-such-host": nil,
	}
	for _, w := range wires() {
		for name, h := range failures {
			t.Run(w.String()+"/"+name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					mo := newSGOrigins()
					if h != nil {
						mo.serve("https://agent.test", h)
					}
					log := &logCapture{}
					c := sgKeyedClient(t, w, mo.client(), log)
					ctx := context.Background()
					_, err := c.Send(ctx, hello(), stream.WithHeader("X-Call-Token", "call-secret")).Wait()
					require.Error(t, err)
					sgRequireNoSecret(t, err, log, "send")
					_, err = c.Subscribe(ctx, "t-1", stream.WithHeader("X-Call-Token", "call-secret")).Wait()
					require.Error(t, err)
					sgRequireNoSecret(t, err, log, "subscribe")
					_, err = c.GetTask(ctx, "t-1", stream.WithHeader("X-Call-Token", "call-secret"))
					require.Error(t, err)
					sgRequireNoSecret(t, err, log, "get")
					_, err = c.Cancel(ctx, "t-1", stream.WithHeader("X-Call-Token", "call-secret"))
					require.Error(t, err)
					sgRequireNoSecret(t, err, log, "cancel")
					require.NotEmpty(t, mo.recorded())
				})
			})
		}
	}
}

// TestCardErrorsHoldNoSecret: Resolve and FetchCard of a keyed or
// signed card URL (a .json URL with ?sig=, a base URL with ?code=, a URL
// password) that fails hold no secret in their error text or logs.
func TestCardErrorsHoldNoSecret(t *testing.T) {
	bases := []string{
		"https://agent.test/cards/a.json?sig=sig-secret",
		"https://agent.test/?code=code-secret",
		"https://agent.test/agents/x?code=code-secret",
		"https://user:pw-secret@agent.test/",
	}
	answers := map[string]http.HandlerFunc{
		"404":      http.NotFound,
		"html-500": func(w http.ResponseWriter, r *http.Request) { http.Error(w, "<html>oops</html>", 500) },
		"not-json": func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>hello</html>")) },
		"no-iface": func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"name":"x","supportedInterfaces":[]}`)) },
		"redirects": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.RequestURI(), http.StatusFound)
		},
		"unknown-host": nil,
	}
	for _, base := range bases {
		for name, h := range answers {
			t.Run(name+"/"+base, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					mo := newSGOrigins()
					if h != nil {
						mo.serve("https://agent.test", h)
					}
					log := &logCapture{}
					_, err := stream.Resolve(context.Background(), base, stream.WithHTTPClient(mo.client()), stream.WithLogger(log.logger()),
						stream.WithHeader("Authorization", "Bearer service-secret"))
					require.Error(t, err)
					sgRequireNoSecret(t, err, log, "resolve")
					var ice *agentcard.InvalidError
					if errors.As(err, &ice) {
						require.NotContains(t, ice.Reason, "secret")
					}
					_, err = agentcard.Fetch(context.Background(), base, agentcard.WithHTTPClient(mo.client()),
						agentcard.WithHeader("Authorization", "Bearer service-secret"))
					if name != "no-iface" { // agentcard.Fetch chooses no interface
						require.Error(t, err)
					}
					sgRequireNoSecret(t, err, log, "fetch card")
				})
			})
		}
	}
}

// TestInvalidHeaderErrorHoldsNoValue: a header value refused for a
// line break is not quoted in the refusal, from a constructor or per call.
func TestInvalidHeaderErrorHoldsNoValue(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			agent := sgAgent(w)
			bad := stream.WithHeader("Authorization", "Bearer tok-secret\r\nX-Evil: 1")
			_, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()), bad)
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.NotContains(t, err.Error(), "secret")
			_, err = stream.Resolve(context.Background(), "http://agent.test/", stream.WithHTTPClient(agent.Client()), bad)
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.NotContains(t, err.Error(), "secret")
			c, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()), stream.WithVersion(w.v))
			require.NoError(t, err)
			_, err = c.Send(context.Background(), hello(), bad).Wait()
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.NotContains(t, err.Error(), "secret")
			_, err = c.GetTask(context.Background(), "t-1", bad)
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.NotContains(t, err.Error(), "secret")
			require.Empty(t, agent.Requests(), "nothing is sent")
		})
	}
}

var _ = strings.Contains
