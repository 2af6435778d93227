package a2agrpc_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/callmark"
	"github.com/a2astream/a2astream/transport"
)

// A stream that goes silent past the call's idle timeout ends with an error
// wrapping transport.ErrIdleTimeout (the Transport's own timer: keepalive
// would not see it), marked as answered since the headers came. Time a
// reader of the events spends between two reads is not silence.
func TestIdleTimeout(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newAgent(t, true, true, handlers{stream: func(ctx context.Context, _ *a2a.Message, send func(a2a.Event) error) error {
					if err := send(working("t-1")); err != nil {
						return err
					}
					select {
					case <-time.After(30 * time.Second):
						if err := send(chunk("t-1", "late", false)); err != nil {
							return err
						}
					case <-ctx.Done():
						return ctx.Err()
					}
					<-ctx.Done()
					return ctx.Err()
				}})
				tr := a.client(t)
				start := time.Now()
				r, err := tr.SendStream(context.Background(), transport.Call{Version: v, IdleTimeout: time.Minute}, hello())
				require.NoError(t, err)
				defer r.Close()
				_, err = r.Next()
				require.NoError(t, err)
				// A 30 s silence is within the timeout.
				ev, err := r.Next()
				require.NoError(t, err)
				require.Equal(t, "late", ev.(*a2a.ArtifactUpdate).Artifact.Parts[0].Text)
				// The reader waiting long between reads is not silence.
				<-time.After(2 * time.Minute) // fake time: the bubble's clock
				_, err = r.Next()
				require.ErrorIs(t, err, transport.ErrIdleTimeout)
				require.Equal(t, 30*time.Second+2*time.Minute+time.Minute, time.Since(start))
			})
		})
	}
}

// A subscribe that gets no headers (a2a-go v0.3.3 sends none until the
// task's next event) is timed too: Subscribe itself fails with the idle
// timeout, and the call is not marked as answered.
func TestIdleBeforeHeaders(t *testing.T) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newAgent(t, true, true, handlers{subscribe: func(ctx context.Context, _ string, _ func(a2a.Event) error) error {
					<-ctx.Done()
					return ctx.Err()
				}})
				start := time.Now()
				r, err := a.client(t).Subscribe(context.Background(), transport.Call{Version: v, IdleTimeout: time.Minute}, "t-1")
				require.Nil(t, r)
				require.ErrorIs(t, err, transport.ErrIdleTimeout)
				require.False(t, callmark.IsResponded(err))
				require.False(t, callmark.IsUnsent(err))
				require.Equal(t, time.Minute, time.Since(start))
			})
		})
	}
}
