package stream

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/reconnect"
)

func TestBudget(t *testing.T) {
	b := newBudget(reconnect.Policy{MaxAttempts: 2, Backoff: time.Second})
	var waits []time.Duration
	for {
		w, ok := b.next()
		if !ok {
			break
		}
		waits = append(waits, w)
	}
	require.Equal(t, []time.Duration{time.Second, time.Second}, waits)
	require.Equal(t, 2, b.attempts)
	b.progress()
	_, ok := b.next()
	require.True(t, ok, "progress must restore the budget")

	never := newBudget(reconnect.Never())
	_, ok = never.next()
	require.False(t, ok, "Never never reconnects")
	var zero budget
	_, ok = zero.next()
	require.False(t, ok)
}

func TestZeroPolicyFieldsMeanTheDefaults(t *testing.T) {
	for _, c := range []struct {
		in       reconnect.Policy
		attempts int
		backoff  time.Duration
	}{
		{reconnect.Policy{}, 3, 500 * time.Millisecond},
		{reconnect.Policy{Backoff: time.Second}, 3, time.Second},
		{reconnect.Policy{MaxAttempts: 5}, 5, 500 * time.Millisecond},
		{reconnect.Never(), 0, 500 * time.Millisecond},
	} {
		b := newBudget(c.in)
		n := 0
		for {
			w, ok := b.next()
			if !ok {
				break
			}
			require.Equal(t, c.backoff, w, "%+v", c.in)
			n++
		}
		require.Equal(t, c.attempts, n, "%+v", c.in)
	}
}
