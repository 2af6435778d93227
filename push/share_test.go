package push_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/push"
)

// errShareDown is the error of a share that cannot be reached.
var errShareDown = errors.New("share down")

// downShare is a push.Share that fails the calls its fields say, and
// counts its GetRegistration calls. Rings it listens for never come.
type downShare struct {
	listen, put, get bool // fail ListenRings, PutRegistration, GetRegistration
	gets             atomic.Int32
}

func (s *downShare) PutRegistration(context.Context, string, push.SharedRegistration, time.Duration) (bool, error) {
	if s.put {
		return false, errShareDown
	}
	return true, nil
}

func (s *downShare) GetRegistration(context.Context, string) (push.SharedRegistration, bool, error) {
	s.gets.Add(1)
	if s.get {
		return push.SharedRegistration{}, false, errShareDown
	}
	return push.SharedRegistration{}, false, nil
}

func (s *downShare) AdoptRegistration(context.Context, string, string, string, time.Duration) (push.SharedRegistration, bool, error) {
	if s.get {
		return push.SharedRegistration{}, false, errShareDown
	}
	return push.SharedRegistration{}, false, nil
}

func (s *downShare) DeleteRegistration(context.Context, string, string) error { return nil }

func (s *downShare) RefreshRegistrations(context.Context, string, time.Duration, ...string) ([]string, error) {
	return nil, nil
}

func (s *downShare) RingRegistration(context.Context, string) error { return nil }

func (s *downShare) ListenRings(context.Context) (push.Rings, error) {
	if s.listen {
		return nil, errShareDown
	}
	return &silentRings{done: make(chan struct{})}, nil
}

// silentRings never rings.
type silentRings struct {
	closed atomic.Bool
	done   chan struct{}
}

func (r *silentRings) Next(ctx context.Context) (string, error) {
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case <-r.done:
		return "", errors.New("closed")
	}
}

func (r *silentRings) Close() error {
	if r.closed.CompareAndSwap(false, true) {
		close(r.done)
	}
	return nil
}

// TestShareOptionsRefuseBadValues: a nil share and a TTL under a second
// are refused, as every bad option is.
func TestShareOptionsRefuseBadValues(t *testing.T) {
	for _, o := range []push.Option{push.WithShare(nil), push.WithShareTTL(999 * time.Millisecond), push.WithShareTTL(0)} {
		_, err := push.NewReceiver(base, o)
		require.ErrorIs(t, err, push.ErrInvalidOption)
	}
	_, err := push.NewReceiver(base, push.WithShare(&downShare{}), push.WithShareTTL(time.Second))
	require.NoError(t, err)
}

// TestRegisterFailsWhenTheShareDoes: with a share that cannot listen or
// store, Register returns its error and no registration (nor goroutine:
// goleak checks), and a Register once it works again succeeds.
func TestRegisterFailsWhenTheShareDoes(t *testing.T) {
	for _, s := range []*downShare{{listen: true}, {put: true}} {
		r := newReceiver(t, push.WithShare(s))
		g, err := r.Register(t.Context())
		require.ErrorIs(t, err, errShareDown)
		require.Nil(t, g)
		s.listen, s.put = false, false
		register(t, r)
	}
}

// TestBindFailsWhenTheShareDoes: Bind returns the share's error; the
// registration is bound all the same, and a Bind to the same task once the
// share works shares the binding.
func TestBindFailsWhenTheShareDoes(t *testing.T) {
	s := &downShare{}
	r := newReceiver(t, push.WithShare(s))
	g := register(t, r)
	s.put = true
	require.ErrorIs(t, g.Bind(t.Context(), "t1"), errShareDown)
	require.Equal(t, "t1", g.TaskID())
	require.ErrorIs(t, g.Bind(t.Context(), "t2"), push.ErrBound)
	s.put = false
	require.NoError(t, g.Bind(t.Context(), "t1"))
}

// TestShareGetFailureIs503: a notification for a registration the
// Receiver does not hold, when its share cannot be read, gets 503 with an
// empty body; a path that cannot name a registration, or a request
// without exactly one token, is refused 401 without asking the share.
func TestShareGetFailureIs503(t *testing.T) {
	s := &downShare{get: true}
	r := newReceiver(t, push.WithShare(s))
	n := notification{method: http.MethodPost, url: base + "/6f1c9a54-3f2e-4c59-9a55-0d1b7d0c2f11",
		contentType: "application/json", header: http.Header{push.TokenHeader: {"x"}}, body: []byte(status1)}
	status, body := send(t, r, n)
	require.Equal(t, http.StatusServiceUnavailable, status)
	require.Empty(t, body)
	require.Equal(t, int32(1), s.gets.Load())
	for _, path := range []string{"/", "/not-an-id", "/{6f1c9a54-3f2e-4c59-9a55-0d1b7d0c2f11}", "/6F1C9A54-3F2E-4C59-9A55-0D1B7D0C2F11x"} {
		n.url = base + path
		status, body = send(t, r, n)
		require.Equal(t, http.StatusUnauthorized, status, path)
		require.Empty(t, body)
	}
	require.Equal(t, int32(1), s.gets.Load(), "the share was asked about a path that names no registration")

	// Without a token, or with two, the share is not asked either (a
	// stranger round on push across replicas, finding 3: each read was a
	// round trip to Redis for anyone).
	n.url = base + "/6f1c9a54-3f2e-4c59-9a55-0d1b7d0c2f11"
	for _, tokens := range [][]string{nil, {"x", "y"}} {
		n.header = http.Header{push.TokenHeader: tokens}
		status, body = send(t, r, n)
		require.Equal(t, http.StatusUnauthorized, status, "%d tokens", len(tokens))
		require.Empty(t, body)
	}
	require.Equal(t, int32(1), s.gets.Load(), "the share was asked about a request with no one token")
}
