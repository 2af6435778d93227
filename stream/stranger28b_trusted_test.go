package stream_test

// Stranger round 28b, WithTrustedOrigins: a bad value is refused before
// any request is made.

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/stream"
)

// Each of these is not "an absolute http or https URL with a host and
// nothing after it but "/"" (go doc stream.WithTrustedOrigins).
func s28bBadOrigins() map[string]string {
	return map[string]string{
		"empty":          "",
		"no scheme":      "agent.example",
		"scheme-less //": "//agent.example",
		"ftp":            "ftp://agent.example",
		"ws":             "ws://agent.example",
		"no host":        "http://",
		"no host https":  "https:///",
		"a path":         "http://agent.example/a2a",
		"two slashes":    "http://agent.example//",
		"a query":        "http://agent.example/?k=v",
		"a bare ?":       "http://agent.example?",
		"a fragment":     "http://agent.example#x",
		"star":           "*",
		"null":           "null",
		"opaque":         "http:agent.example",
		"a space":        "http://agent .example",
		"a newline":      "http://agent.example\n",
		"a bad port":     "http://agent.example:99999x",
	}
}

func s28bCountingServer(t *testing.T, tls bool) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.Error(w, "no", http.StatusNotFound)
	})
	var srv *httptest.Server
	if tls {
		srv = httptest.NewTLSServer(h)
	} else {
		srv = httptest.NewServer(h)
	}
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestStranger28bBadTrustedOriginsAreRefusedBeforeAnyRequest(t *testing.T) {
	srv, n := s28bCountingServer(t, false)
	for name, bad := range s28bBadOrigins() {
		t.Run(name, func(t *testing.T) {
			opts := []stream.Option{stream.WithHTTPClient(srv.Client()), stream.WithTrustedOrigins("http://fine.example", bad)}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			_, err := stream.Resolve(ctx, srv.URL, opts...)
			require.ErrorIs(t, err, stream.ErrInvalidOption, "Resolve with %q", bad)
			_, err = stream.NewClient(srv.URL, opts...)
			require.ErrorIs(t, err, stream.ErrInvalidOption, "NewClient with %q", bad)
			_, err = stream.NewRESTClient(srv.URL, opts...)
			require.ErrorIs(t, err, stream.ErrInvalidOption, "NewRESTClient with %q", bad)
			require.Zero(t, n.Load(), "no request before refusing %q", bad)
		})
	}
}

// An http origin where the origin named is https is refused too, by
// Resolve before the card request.
func TestStranger28bHTTPOriginUnderHTTPSIsRefusedBeforeAnyRequest(t *testing.T) {
	srv, n := s28bCountingServer(t, true)
	for _, bad := range []string{"http://agent.example", "http://127.0.0.1", srv.URL[:len("https")-1] + srv.URL[len("https"):]} {
		t.Run(bad, func(t *testing.T) {
			opts := []stream.Option{stream.WithHTTPClient(srv.Client()), stream.WithTrustedOrigins(bad)}
			_, err := stream.Resolve(t.Context(), srv.URL, opts...)
			require.ErrorIs(t, err, stream.ErrInvalidOption, "Resolve(%s) trusting %q", srv.URL, bad)
			_, err = stream.NewClient(srv.URL, opts...)
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			_, err = stream.NewRESTClient(srv.URL, opts...)
			require.ErrorIs(t, err, stream.ErrInvalidOption)
			require.Zero(t, n.Load())
		})
	}
}

// Good values are taken (the refusals above are not of everything).
func TestStranger28bGoodTrustedOriginsAreTaken(t *testing.T) {
	for _, good := range []string{"http://agent.example", "https://agent.example/", "http://127.0.0.1:9999", "https://[::1]:8443"} {
		_, err := stream.NewClient("http://named.example/", stream.WithTrustedOrigins(good))
		require.NoError(t, err, good)
	}
}

// WithTrustedOrigins is Client-wide: per call it is refused, as the
// stream's Err, and nothing is sent.
func TestStranger28bTrustedOriginsPerCallIsRefusedWithoutARequest(t *testing.T) {
	srv, n := s28bCountingServer(t, false)
	c, err := stream.NewClient(srv.URL, stream.WithHTTPClient(srv.Client()))
	require.NoError(t, err)
	e := s28Drain(c.Send(t.Context(), s28Msg(), stream.WithTrustedOrigins("http://agent.example")))
	require.ErrorIs(t, e.Err, stream.ErrInvalidOption)
	require.Zero(t, n.Load())
}
