package push_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/push"
)

// outageShare is a downShare whose rings fail, at once, while down is set,
// and are silent otherwise.
type outageShare struct {
	downShare
	down atomic.Bool
}

func (s *outageShare) ListenRings(context.Context) (push.Rings, error) {
	return &outageRings{share: s, silent: silentRings{done: make(chan struct{})}}, nil
}

type outageRings struct {
	share  *outageShare
	silent silentRings
}

func (r *outageRings) Next(ctx context.Context) (string, error) {
	if r.share.down.Load() {
		return "", errShareDown
	}
	return r.silent.Next(ctx)
}

func (r *outageRings) Close() error { return r.silent.Close() }

// lockedBuffer is a bytes.Buffer safe for a logger's concurrent writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A Share whose rings fail for a minute (Redis down) is one warning, not
// one a second; when it answers again, the Receiver says so and rings every
// registration it holds, since rings of the outage may be lost: their
// consumers fetch their tasks. Nothing rings them during the outage.
func TestRingOutageIsOneWarningAndRingsTheHeldWhenOver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logged lockedBuffer
		share := &outageShare{}
		r, err := push.NewReceiver("http://127.0.0.1/hooks", push.WithShare(share),
			push.WithLogger(slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))))
		require.NoError(t, err)
		share.down.Store(true) // from the listener's first Next
		g, err := r.Register(t.Context())
		require.NoError(t, err)
		defer g.Close()

		time.Sleep(time.Minute)
		synctest.Wait()
		select {
		case <-g.Ready():
			t.Fatal("rung during the outage")
		default:
		}
		share.down.Store(false)
		time.Sleep(2 * time.Second)
		synctest.Wait()
		select {
		case <-g.Ready():
		default:
			t.Fatal("not rung when the share answered again")
		}
		ns, lost := g.Take()
		require.Empty(t, ns)
		require.True(t, lost)

		out := logged.String()
		require.Equal(t, 1, strings.Count(out, "level=WARN"), out)
		require.Equal(t, 1, strings.Count(out, "listening for rings again"), out)
		require.GreaterOrEqual(t, strings.Count(out, "level=DEBUG msg=\"push: listening for rings failed"), 50, out)
	})
}
