package push_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/push"
)

// TestBind: Bind binds once; again to the same task does nothing, to
// another is ErrBound; an empty task ID is refused; a notification of
// another task is then refused (403) and queues nothing.
func TestBind(t *testing.T) {
	r := newReceiver(t)
	g := register(t, r)
	require.Empty(t, g.TaskID())
	require.Error(t, g.Bind(t.Context(), ""))
	require.NoError(t, g.Bind(t.Context(), "t1"))
	require.NoError(t, g.Bind(t.Context(), "t1"))
	require.ErrorIs(t, g.Bind(t.Context(), "t2"), push.ErrBound)
	require.Equal(t, "t1", g.TaskID())

	status, body := send(t, r, pushTo(g, foreign))
	require.Equal(t, http.StatusForbidden, status)
	require.Empty(t, body)
	got, lost := g.Take()
	require.Empty(t, got)
	require.False(t, lost)

	status, _ = send(t, r, pushTo(g, status1))
	require.Equal(t, http.StatusNoContent, status)
	got, _ = g.Take()
	require.Len(t, got, 1)
}

// TestFirstNotificationBinds: an unbound registration (its config rode in
// the send, before the task existed) binds to the task of the first
// notification it accepts; from then on the stream's Bind to that task
// succeeds, to another fails, and another task's notifications are
// refused. A notification refused before it is read binds nothing.
func TestFirstNotificationBinds(t *testing.T) {
	r := newReceiver(t)
	g := register(t, r)
	bad := pushTo(g, foreign)
	bad.header.Set(push.TokenHeader, "wrong")
	status, _ := send(t, r, bad)
	require.Equal(t, http.StatusUnauthorized, status)
	require.Empty(t, g.TaskID())

	status, _ = send(t, r, pushTo(g, task03))
	require.Equal(t, http.StatusNoContent, status)
	require.Equal(t, "t1", g.TaskID())
	require.ErrorIs(t, g.Bind(t.Context(), "t2"), push.ErrBound)
	require.NoError(t, g.Bind(t.Context(), "t1"))
	status, _ = send(t, r, pushTo(g, foreign))
	require.Equal(t, http.StatusForbidden, status)
	got, _ := g.Take()
	require.Len(t, got, 1)
	require.Equal(t, a2a.V03, got[0].Version)
	require.Equal(t, "t1", got[0].Event.(*a2a.Task).ID)
}

// TestCloseRefusesLater: after Close, the registration's notifications are
// refused as an unknown registration's are, Take gives nothing, Ready
// stays empty, Bind fails with ErrClosed, and Close again does nothing.
// What was queued is dropped.
func TestCloseRefusesLater(t *testing.T) {
	r := newReceiver(t)
	g, err := r.Register(t.Context())
	require.NoError(t, err)
	send(t, r, pushTo(g, status1))
	require.True(t, ready(g))
	g.Close()
	require.False(t, ready(g))
	got, lost := g.Take()
	require.Empty(t, got)
	require.False(t, lost)

	status, body := send(t, r, pushTo(g, status2))
	require.Equal(t, http.StatusUnauthorized, status)
	require.Empty(t, body)
	require.False(t, ready(g))
	require.ErrorIs(t, g.Bind(t.Context(), "t1"), push.ErrClosed)
	g.Close()
	got, lost = g.Take()
	require.Empty(t, got)
	require.False(t, lost)
}

// TestRegistrationsAreFresh: each registration has its own ID (a UUID),
// URL under the base URL, and token of 32 random bytes, base64url.
func TestRegistrationsAreFresh(t *testing.T) {
	r := newReceiver(t)
	ids, tokens := map[string]bool{}, map[string]bool{}
	for range 100 {
		g := register(t, r)
		require.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, g.ID())
		require.Equal(t, base+"/"+g.ID(), g.URL())
		require.Regexp(t, `^[A-Za-z0-9_-]{43}$`, g.Token())
		require.False(t, ids[g.ID()])
		require.False(t, tokens[g.Token()])
		ids[g.ID()], tokens[g.Token()] = true, true
	}
}
