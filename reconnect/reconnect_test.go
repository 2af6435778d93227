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
