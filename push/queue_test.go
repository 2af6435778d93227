package push_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/push"
)

// workingAt is a distinct 1.0 status update of task t1 for each i.
func workingAt(i int) string {
	return fmt.Sprintf(`{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING","timestamp":"2026-11-30T10:00:%02d.%03dZ"}}}`, i/1000%60, i%1000)
}

// TestReplayDropped: a body sent again, byte for byte, is answered as the
// first was and queued once, also after the first was taken; a body equal
// as JSON but not byte for byte is queued (the consumer deduplicates
// events). The window is the registration's last 64 bodies queued: past
// it, the first body is queued again.
func TestReplayDropped(t *testing.T) {
	r := newReceiver(t)
	g := register(t, r)
	for range 3 {
		status, body := send(t, r, pushTo(g, status1))
		require.Equal(t, http.StatusNoContent, status)
		require.Empty(t, body)
	}
	got, lost := g.Take()
	require.Len(t, got, 1)
	require.False(t, lost)
	status, _ := send(t, r, pushTo(g, status1))
	require.Equal(t, http.StatusNoContent, status)
	require.False(t, ready(g))
	got, _ = g.Take()
	require.Empty(t, got)

	status, _ = send(t, r, pushTo(g, status1+" "))
	require.Equal(t, http.StatusNoContent, status)
	got, _ = g.Take()
	require.Len(t, got, 1)

	// 63 bodies more: the window's 64 are status1+" " and those, so
	// status1 is out of it, and the last of them is in.
	for i := range 63 {
		send(t, r, pushTo(g, workingAt(i)))
		_, _ = g.Take()
	}
	send(t, r, pushTo(g, status1))
	got, _ = g.Take()
	require.Len(t, got, 1)
	send(t, r, pushTo(g, workingAt(62)))
	got, _ = g.Take()
	require.Empty(t, got)
}

// TestReplayPerRegistration: the same body to two registrations of the
// same task is queued for each; a replay is a registration's own.
func TestReplayPerRegistration(t *testing.T) {
	r := newReceiver(t)
	g1, g2 := register(t, r), register(t, r)
	send(t, r, pushTo(g1, status1))
	send(t, r, pushTo(g2, status1))
	got1, _ := g1.Take()
	got2, _ := g2.Take()
	require.Len(t, got1, 1)
	require.Equal(t, got1, got2)
}

// TestOverflowLoses: past the queue's bound in entries, notifications are
// answered 2xx and dropped, and Take reports the loss once; the queue
// holds the first ones, and never more than the bound, however many come.
func TestOverflowLoses(t *testing.T) {
	r := newReceiver(t, push.WithQueueLimit(4, 1<<20))
	g := register(t, r)
	for i := range 1000 {
		status, body := send(t, r, pushTo(g, workingAt(i)))
		require.Equal(t, http.StatusNoContent, status)
		require.Empty(t, body)
	}
	got, lost := g.Take()
	require.True(t, lost)
	require.Len(t, got, 4)
	for i, n := range got {
		want, err := a2a.Codec{}.DecodeEvent([]byte(workingAt(i)))
		require.NoError(t, err)
		require.Equal(t, want, n.Event)
	}
	require.False(t, ready(g))
	got, lost = g.Take()
	require.Empty(t, got)
	require.False(t, lost)

	// A dropped body was not remembered: sent again with room, it is
	// queued.
	send(t, r, pushTo(g, workingAt(999)))
	got, lost = g.Take()
	require.Len(t, got, 1)
	require.False(t, lost)
}

// TestOverflowBytes: the queue's bound in bytes is the sum of the queued
// bodies' sizes; a body that would pass it is dropped, and a smaller one
// after it that fits is queued.
func TestOverflowBytes(t *testing.T) {
	size := len(workingAt(0))
	r := newReceiver(t, push.WithQueueLimit(100, 3*size), push.WithMaxBodySize(3*size))
	g := register(t, r)
	for i := range 3 {
		send(t, r, pushTo(g, workingAt(i)))
	}
	send(t, r, pushTo(g, workingAt(3)))
	got, lost := g.Take()
	require.True(t, lost)
	require.Len(t, got, 3)
	for i := range 3 {
		send(t, r, pushTo(g, workingAt(10+i)))
	}
	got, lost = g.Take()
	require.False(t, lost)
	require.Len(t, got, 3)
}
