package push_test

import (
	"log/slog"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/push"
)

// TestNewReceiverBaseURL: https, or http to a loopback host, with or
// without a path and a trailing slash; anything else is refused with
// ErrInvalidOption.
func TestNewReceiverBaseURL(t *testing.T) {
	ok := map[string]string{
		"https://app.example/hooks/a2a":   "https://app.example/hooks/a2a",
		"https://app.example/hooks/a2a/":  "https://app.example/hooks/a2a",
		"https://app.example":             "https://app.example",
		"https://app.example/":            "https://app.example",
		"https://app.example:8443/h":      "https://app.example:8443/h",
		"http://127.0.0.1:8080/hooks":     "http://127.0.0.1:8080/hooks",
		"http://localhost/hooks":          "http://localhost/hooks",
		"http://LOCALHOST:9/hooks":        "http://LOCALHOST:9/hooks",
		"http://[::1]:8080/hooks":         "http://[::1]:8080/hooks",
		"http://127.1.2.3/hooks":          "http://127.1.2.3/hooks",
		"https://[2001:db8::1]/hooks/a2a": "https://[2001:db8::1]/hooks/a2a",
	}
	for in, want := range ok {
		r, err := push.NewReceiver(in)
		require.NoError(t, err, in)
		g, err := r.Register(t.Context())
		require.NoError(t, err)
		require.Equal(t, want+"/"+g.ID(), g.URL(), in)
		g.Close()
	}
	for _, bad := range []string{
		"", "app.example/hooks", "//app.example/hooks", "/hooks",
		"http://app.example/hooks", "http://10.0.0.1/hooks", "http://localhost.example/hooks",
		"ftp://app.example/hooks", "ws://localhost/hooks", "https:app.example",
		"https://app.example/hooks?x=1", "https://app.example/hooks?", "https://app.example/hooks#f",
		"https://app.example/hooks#", "https://user:pw@app.example/hooks", "https://user@app.example/hooks",
		"https://:443/hooks", "https://app.example/%zz",
	} {
		_, err := push.NewReceiver(bad)
		require.ErrorIs(t, err, push.ErrInvalidOption, bad)
	}
}

// TestNewReceiverOptions: options out of range are refused, never
// clamped, each by name; several refusals are joined.
func TestNewReceiverOptions(t *testing.T) {
	for name, opts := range map[string][]push.Option{
		"nil option":                     {nil},
		"zero body":                      {push.WithMaxBodySize(0)},
		"negative body":                  {push.WithMaxBodySize(-1)},
		"zero entries":                   {push.WithQueueLimit(0, 1<<22)},
		"zero bytes":                     {push.WithQueueLimit(64, 0)},
		"body over the queue's bytes":    {push.WithQueueLimit(64, 1000)},
		"body over the queue's bytes, 2": {push.WithMaxBodySize(2000), push.WithQueueLimit(64, 1000)},
		"nil logger":                     {push.WithLogger(nil)},
	} {
		_, err := push.NewReceiver(base, opts...)
		require.ErrorIs(t, err, push.ErrInvalidOption, name)
	}
	_, err := push.NewReceiver("http://app.example", push.WithMaxBodySize(0), push.WithLogger(nil))
	require.ErrorIs(t, err, push.ErrInvalidOption)
	require.ErrorContains(t, err, "WithMaxBodySize")
	require.ErrorContains(t, err, "WithLogger")
	require.ErrorContains(t, err, "loopback")

	_, err = push.NewReceiver(base, push.WithMaxBodySize(1000), push.WithQueueLimit(1, 1000),
		push.WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
}

// TestMount: the Receiver finds the registration by the last segment of
// the path, mounted under a pattern with a wildcard, under
// http.StripPrefix, or at the base path's subtree.
func TestMount(t *testing.T) {
	mounts := map[string]func(*push.Receiver) http.Handler{
		"pattern": func(r *push.Receiver) http.Handler {
			mux := http.NewServeMux()
			mux.Handle("POST /hooks/a2a/{id}", r)
			return mux
		},
		"StripPrefix": func(r *push.Receiver) http.Handler {
			mux := http.NewServeMux()
			mux.Handle("/hooks/a2a/", http.StripPrefix("/hooks/a2a", r))
			return mux
		},
		"StripPrefix with the slash": func(r *push.Receiver) http.Handler {
			mux := http.NewServeMux()
			mux.Handle("/hooks/a2a/", http.StripPrefix("/hooks/a2a/", r))
			return mux
		},
	}
	for name, mount := range mounts {
		t.Run(name, func(t *testing.T) {
			r := newReceiver(t)
			g := register(t, r)
			h := mount(r)
			status, _ := send(t, h, pushTo(g, status1))
			require.Equal(t, http.StatusNoContent, status)
			got, _ := g.Take()
			require.Len(t, got, 1)
			// The mux's 404 for a path outside the mount is the mux's.
			n := pushTo(g, status2)
			n.url = "http://127.0.0.1:8080/elsewhere/" + g.ID()
			status, _ = send(t, h, n)
			require.Equal(t, http.StatusNotFound, status)
		})
	}
}

// TestZeroReceiver: a Receiver not made by NewReceiver refuses to
// register and refuses every request, without panicking.
func TestZeroReceiver(t *testing.T) {
	var r push.Receiver
	_, err := r.Register(t.Context())
	require.Error(t, err)
	g := register(t, newReceiver(t))
	status, body := send(t, &r, pushTo(g, status1))
	require.Equal(t, http.StatusUnauthorized, status)
	require.Empty(t, body)
	var zero push.Registration
	zero.Close()
	ns, lost := zero.Take()
	require.Empty(t, ns)
	require.False(t, lost)
}
