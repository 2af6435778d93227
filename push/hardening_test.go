package push_test

import (
	"bufio"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/push"
)

// A push stranger round's low findings, each pinned.

// TestNilBodyIsAnEmptyBody: a request a caller builds without a body (net/http's
// server never passes one) is refused as an empty body is, never a panic;
// a nil Receiver refuses too.
func TestNilBodyIsAnEmptyBody(t *testing.T) {
	r, err := push.NewReceiver("http://127.0.0.1/hooks")
	require.NoError(t, err)
	g, err := r.Register(t.Context())
	require.NoError(t, err)
	defer g.Close()
	req, err := http.NewRequest(http.MethodPost, g.URL(), nil)
	require.NoError(t, err)
	req.Body = nil
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(push.TokenHeader, g.Token())
	rec := httptest.NewRecorder()
	r.ServeHTTP(rec, req)
	require.Equal(t, http.StatusBadRequest, rec.Code)
	ns, lost := g.Take()
	require.Empty(t, ns)
	require.True(t, lost, "the agent sent something with the token")

	var none *push.Receiver
	rec = httptest.NewRecorder()
	none.ServeHTTP(rec, req)
	require.Equal(t, http.StatusUnauthorized, rec.Code)
	_, err = none.Register(t.Context())
	require.Error(t, err)
}

// TestRefusalWithAnUnreadBodyClosesTheConnection: a refusal made before the
// body is read (a wrong token, say) closes an HTTP/1 connection, so that a
// sender dripping its body holds nothing: the answer comes at once.
func TestRefusalWithAnUnreadBodyClosesTheConnection(t *testing.T) {
	r, err := push.NewReceiver("http://127.0.0.1/hooks")
	require.NoError(t, err)
	g, err := r.Register(t.Context())
	require.NoError(t, err)
	defer g.Close()
	srv := httptest.NewServer(http.StripPrefix("/hooks", r))
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	// A chunked body that never ends: only its first chunk is sent.
	_, err = fmt.Fprintf(conn, "POST /hooks/%s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"+
		"%s: wrong\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n", g.ID(), push.TokenHeader)
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "answered while the body still drips")
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.True(t, resp.Close, "the connection is closed")
}

// TestRegistrationPrintsNoToken: a Registration printed with fmt, in any
// verb, or logged, shows its ID and URL and never its token.
func TestRegistrationPrintsNoToken(t *testing.T) {
	r, err := push.NewReceiver("http://127.0.0.1/hooks")
	require.NoError(t, err)
	g, err := r.Register(t.Context())
	require.NoError(t, err)
	defer g.Close()
	var logged strings.Builder
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("registered", "registration", g)
	for _, out := range []string{fmt.Sprintf("%v", g), fmt.Sprintf("%+v", g), fmt.Sprintf("%#v", g), fmt.Sprint(g), g.String(), logged.String()} {
		require.Contains(t, out, g.ID())
		require.NotContains(t, out, g.Token())
	}
}
