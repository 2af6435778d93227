package stream

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSleepUsesTheClockAndTheContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		require.NoError(t, sleep(context.Background(), 1500*time.Millisecond))
		if got := time.Since(start); got != 1500*time.Millisecond {
			t.Fatalf("slept %v; want exactly 1.5s", got)
		}

		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		start = time.Now()
		err := sleep(ctx, time.Hour)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		if got := time.Since(start); got != 200*time.Millisecond {
			t.Fatalf("cancelled after %v; want exactly 200ms", got)
		}
	})
}
