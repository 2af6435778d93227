package reconnect_test

import (
	"context"
	"errors"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/reconnect"
)

func TestDefault(t *testing.T) {
	want := reconnect.Policy{MaxAttempts: 3, Backoff: 500 * time.Millisecond}
	if got := reconnect.Default(); got != want {
		t.Fatalf("got %+v; want %+v", got, want)
	}
}

func TestBudget(t *testing.T) {
	b := reconnect.NewBudget(reconnect.Policy{MaxAttempts: 2, Backoff: time.Second})
	var waits []time.Duration
	for {
		w, ok := b.Next()
		if !ok {
			break
		}
		waits = append(waits, w)
	}
	require.Equal(t, []time.Duration{time.Second, time.Second}, waits)
	require.Equal(t, 2, b.Attempts())
	b.Progress()
	require.Equal(t, 0, b.Attempts())
	_, ok := b.Next()
	require.True(t, ok, "progress must restore the budget")

	never := reconnect.NewBudget(reconnect.Never())
	_, ok = never.Next()
	require.False(t, ok, "Never never reconnects")
	require.Equal(t, 0, never.Policy().MaxAttempts)
	var zero reconnect.Budget
	_, ok = zero.Next()
	require.False(t, ok)
}

func TestZeroFieldsMeanTheDefaults(t *testing.T) {
	for _, c := range []struct {
		in, want reconnect.Policy
	}{
		{reconnect.Policy{}, reconnect.Default()},
		{reconnect.Policy{Backoff: time.Second}, reconnect.Policy{MaxAttempts: 3, Backoff: time.Second}},
		{reconnect.Policy{MaxAttempts: 5}, reconnect.Policy{MaxAttempts: 5, Backoff: 500 * time.Millisecond}},
		{reconnect.Policy{MaxAttempts: -1, Backoff: time.Second}, reconnect.Policy{MaxAttempts: 0, Backoff: time.Second}},
	} {
		b := reconnect.NewBudget(c.in)
		require.Equal(t, c.want, b.Policy(), "%+v", c.in)
		n := 0
		for {
			if _, ok := b.Next(); !ok {
				break
			}
			n++
		}
		require.Equal(t, c.want.MaxAttempts, n, "%+v", c.in)
	}
}

func TestSleepUsesTheClockAndTheContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		require.NoError(t, reconnect.Sleep(context.Background(), 1500*time.Millisecond))
		if got := time.Since(start); got != 1500*time.Millisecond {
			t.Fatalf("slept %v; want exactly 1.5s", got)
		}

		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		start = time.Now()
		err := reconnect.Sleep(ctx, time.Hour)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		if got := time.Since(start); got != 200*time.Millisecond {
			t.Fatalf("cancelled after %v; want exactly 200ms", got)
		}
	})
}

func TestError(t *testing.T) {
	e := &reconnect.Error{Attempts: 3, Err: io.ErrUnexpectedEOF, Task: &a2a.Task{ID: "t-1"}}
	if got, want := e.Error(), "reconnect: task t-1: gave up after 3 attempts: unexpected EOF"; got != want {
		t.Fatalf("got %q; want %q", got, want)
	}
	require.ErrorIs(t, e, io.ErrUnexpectedEOF)
	early := &reconnect.Error{Err: io.ErrUnexpectedEOF}
	if got, want := early.Error(), "reconnect: connection lost before any task was known: unexpected EOF"; got != want {
		t.Fatalf("got %q; want %q", got, want)
	}
	var re *reconnect.Error
	require.True(t, errors.As(early, &re))
	require.ErrorIs(t, early, reconnect.ErrNoTask)
	require.NotErrorIs(t, e, reconnect.ErrNoTask, "a budget spent on a known task")

	off := &reconnect.Error{Err: io.ErrUnexpectedEOF, Task: &a2a.Task{ID: "t-1"}}
	require.Equal(t, "reconnect: task t-1: connection lost, and the policy allows no reconnect: unexpected EOF", off.Error())
	require.NotErrorIs(t, off, reconnect.ErrNoTask, "a task was known; the policy said never")
}
