package stream

import (
	"context"
	"time"
)

// sleep waits for d or until ctx is done, whichever comes first, and
// returns ctx's error in the second case. It is a stream's clock for backoff
// and polls (tests record the waits with WithSleep); inside a
// testing/synctest bubble it runs on the fake clock.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
