package a2aotel_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
)

// headerLog records the headers of each request a handler gets.
type headerLog struct {
	mu sync.Mutex
	hs []http.Header
}

func (l *headerLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.hs = append(l.hs, r.Header.Clone())
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (l *headerLog) headers() []http.Header {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]http.Header(nil), l.hs...)
}

// TestTraceContextNotToAnotherOrigin: the endpoint the caller named
// redirects every call to another origin, over real sockets: the named
// origin gets traceparent and baggage, the other none.
func TestTraceContextNotToAnotherOrigin(t *testing.T) {
	for _, w := range wires {
		t.Run(w.String(), func(t *testing.T) {
			r := newRig(t)
			var other headerLog
			b := httptest.NewServer(other.wrap(w.agent()))
			defer b.Close()
			var named headerLog
			a := httptest.NewServer(named.wrap(http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
				http.Redirect(rw, req, b.URL+req.URL.RequestURI(), http.StatusTemporaryRedirect)
			})))
			defer a.Close()
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			c := w.client(t, nil, a.URL+"/", stream.WithHTTPClient(&http.Client{Transport: tr}))
			ctx, app := appContext(t, r)
			s := c.Send(ctx, a2a.NewTextMessage(a2a.RoleUser, "hello"), r.tel.Stream(ctx, c))
			for s.Next() {
			}
			app.End()
			require.NoError(t, s.Err())
			require.NotEmpty(t, other.headers(), "the redirect was followed (or the test proves nothing)")
			for _, h := range other.headers() {
				require.Empty(t, h.Get("Traceparent"))
				require.Empty(t, h.Get("Tracestate"))
				require.Empty(t, h.Get("Baggage"))
			}
			require.NotEmpty(t, named.headers())
			for _, h := range named.headers() {
				require.NotEmpty(t, h.Get("Traceparent"))
				require.Equal(t, "tenant=acme", h.Get("Baggage"))
			}
		})
	}
}
