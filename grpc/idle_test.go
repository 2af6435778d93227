package a2agrpc_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"

	"github.com/a2astream/a2astream/a2a"
	a2agrpc "github.com/a2astream/a2astream/grpc"
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

// The idle timeout is the silence of the call's connection, not the wait
// for a whole message: a 2 MiB event that comes through a slow link, 32
// KiB every 100 ms (6.4 s in all), arrives under an idle timeout of 1 s,
// as it does over the HTTP bindings, whose timer every byte resets. When
// the link then goes silent, the timer cuts the call one timeout later.
func TestIdleTimeoutIsSilenceNotAWholeMessage(t *testing.T) {
	big := strings.Repeat("x", 2<<20)
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := newAgent(t, true, true, handlers{stream: func(ctx context.Context, _ *a2a.Message, send func(a2a.Event) error) error {
					if err := send(chunk("t-1", big, false)); err != nil {
						return err
					}
					<-ctx.Done()
					return ctx.Err()
				}})
				tr := a.client(t, a2agrpc.WithDialOptions(grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
					c, err := a.lis.DialContext(ctx)
					if err != nil {
						return nil, err
					}
					return &slowConn{Conn: c, chunk: 32 << 10, every: 100 * time.Millisecond}, nil
				})))
				r, err := tr.SendStream(context.Background(), transport.Call{Version: v, IdleTimeout: time.Second}, hello())
				require.NoError(t, err)
				defer r.Close()
				ev, err := r.Next()
				require.NoError(t, err, "bytes came every 100 ms")
				require.Len(t, ev.(*a2a.ArtifactUpdate).Artifact.Parts[0].Text, len(big))
				start := time.Now()
				_, err = r.Next()
				require.ErrorIs(t, err, transport.ErrIdleTimeout, "then silence")
				// One timeout after the link's last bytes: those of the
				// event, or of a frame that followed it within a tick.
				require.GreaterOrEqual(t, time.Since(start), time.Second)
				require.LessOrEqual(t, time.Since(start), time.Second+100*time.Millisecond)
			})
		})
	}
}

// slowConn is a link that passes at most chunk bytes of what it reads per
// tick of every: slow, but never silent while there is something to pass.
type slowConn struct {
	net.Conn
	chunk int
	every time.Duration
}

func (c *slowConn) Read(p []byte) (int, error) {
	<-time.After(c.every) // the bubble's clock
	return c.Conn.Read(p[:min(len(p), c.chunk)])
}

// Keepalive is not a call moving: PINGs on the connection, the server's
// (or a proxy's) or the client's own, and their acks, do not reset a
// call's idle timer, or a silent stream would never time out while
// keepalive runs shorter than the timeout (a fourth stranger round's F1).
// The silent stream ends one idle timeout after its last event.
func TestIdleTimeoutNotKeptAliveByPings(t *testing.T) {
	cases := []struct {
		name   string
		server []grpc.ServerOption
		client []grpc.DialOption
		idle   time.Duration
	}{
		{"the server pings every second", []grpc.ServerOption{grpc.KeepaliveParams(keepalive.ServerParameters{Time: time.Second, Timeout: time.Minute})}, nil, 5 * time.Second},
		{"the client pings every 10 s", []grpc.ServerOption{grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: time.Second, PermitWithoutStream: true})},
			[]grpc.DialOption{grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 10 * time.Second, Timeout: time.Minute, PermitWithoutStream: true})}, 30 * time.Second},
	}
	for _, c := range cases {
		for _, v := range versions {
			t.Run(c.name+"/"+string(v), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					a := newAgent(t, true, true, handlers{stream: func(ctx context.Context, _ *a2a.Message, send func(a2a.Event) error) error {
						if err := send(working("t-1")); err != nil {
							return err
						}
						<-ctx.Done() // silent, while the connection pings
						return ctx.Err()
					}}, c.server...)
					tr := a.client(t, a2agrpc.WithDialOptions(append([]grpc.DialOption{grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
						return a.lis.DialContext(ctx)
					})}, c.client...)...))
					ctx, cancel := context.WithTimeout(context.Background(), 10*c.idle)
					defer cancel()
					r, err := tr.SendStream(ctx, transport.Call{Version: v, IdleTimeout: c.idle}, hello())
					require.NoError(t, err)
					defer r.Close()
					_, err = r.Next()
					require.NoError(t, err)
					start := time.Now()
					_, err = r.Next()
					require.ErrorIs(t, err, transport.ErrIdleTimeout, "keepalive kept a silent stream open")
					require.GreaterOrEqual(t, time.Since(start), c.idle)
					require.Less(t, time.Since(start), c.idle+time.Second)
				})
			})
		}
	}
}
