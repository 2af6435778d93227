package redisrelay

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/push"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay/internal/redistest"
	"github.com/a2astream/a2astream/stream"
)

// TestPushToAnotherReplicaThroughRedis: a stream driven on replica A, with
// WithPush(A's receiver), whose agent drops the stream after its first
// chunk and POSTs every notification to replica B's receiver; the two
// receivers share registrations through Redis (each replica's store, with
// a client of its own). The stream finishes by push: long before its stall
// limit's poll (5 min) and its push poll interval (an hour), with a
// get-task per notification at most.
func TestPushToAnotherReplicaThroughRedis(t *testing.T) {
	srv := redistest.Start(t)
	storeA := newStore(t, srv.Client(t, nil), WithPrefix("push"), WithWake(testWake))
	storeB := newStore(t, srv.Client(t, nil), WithPrefix("push"), WithWake(testWake))
	recvA, err := push.NewReceiver("http://127.0.0.1/hooks", push.WithShare(storeA.(push.Share)))
	require.NoError(t, err)
	recvB, err := push.NewReceiver("http://127.0.0.1/hooks", push.WithShare(storeB.(push.Share)))
	require.NoError(t, err)
	agent := a2atest.NewAgent(a2atest.WithPush(), a2atest.WithPushClient(a2atest.NewClient(recvB)),
		a2atest.WithScript(
			a2atest.Working("w"),
			a2atest.Chunk("a1", "one ", false, false),
			a2atest.Pause(300*time.Millisecond),
			a2atest.Chunk("a1", "two ", true, false),
			a2atest.Pause(300*time.Millisecond),
			a2atest.Chunk("a1", "three", true, true),
			a2atest.Finish(a2a.StateCompleted, "done")),
		a2atest.WithFaults(a2atest.CutAfterEvents(3)))
	t.Cleanup(agent.Close)
	client, err := stream.NewClient("http://agent.internal/a2a", stream.WithHTTPClient(agent.Client()),
		stream.WithPush(recvA), stream.WithPushPollInterval(time.Hour),
		stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 100 * time.Millisecond}))
	require.NoError(t, err)
	log, err := storeA.Open(t.Context(), "k")
	require.NoError(t, err)
	fence, err := log.Acquire(t.Context(), "a", time.Minute)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	start := time.Now()
	require.NoError(t, relay.Drive(ctx, log, fence, relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hi"))))
	t.Logf("finished by push in %v (noisy: a shared machine)", time.Since(start))
	gets, configs := 0, 0
	for _, r := range agent.Requests() {
		m := strings.ToLower(r.Method)
		switch {
		case strings.Contains(m, "push"):
			configs++
		case strings.Contains(m, "get"):
			gets++
		}
	}
	require.Equal(t, 1, configs, "one push config registered")
	require.LessOrEqual(t, gets, 4, "a catch-up, then a get-task per notification")
	require.NotEmpty(t, agent.Pushes(), "the agent pushed to B")
	es, err := log.Read(t.Context(), 0, 1000)
	require.NoError(t, err)
	require.Equal(t, relay.EventEnd, es[len(es)-1].Name)
	var text strings.Builder
	for _, e := range es {
		if e.Name == relay.EventArtifact {
			text.Write(e.Data)
		}
	}
	for _, part := range []string{"one ", "two ", "three"} {
		require.Contains(t, text.String(), part)
	}
}

// dyingLog is a replica's view of a log that dies after the commit die
// says: every later write fails, and onDie runs once.
type dyingLog struct {
	relay.Log
	die   func(es []relay.Entry) bool
	onDie func()
	dead  atomic.Bool
}

var errDead = errors.New("replica killed")

func (l *dyingLog) Commit(ctx context.Context, f relay.Fence, cp []byte, es ...relay.Entry) error {
	if l.dead.Load() {
		return errDead
	}
	err := l.Log.Commit(ctx, f, cp, es...)
	if err == nil && l.die(es) && l.dead.CompareAndSwap(false, true) {
		l.onDie()
	}
	return err
}

func (l *dyingLog) Renew(ctx context.Context, f relay.Fence, ttl time.Duration) error {
	if l.dead.Load() {
		return errDead
	}
	return l.Log.Renew(ctx, f, ttl)
}

func (l *dyingLog) Release(ctx context.Context, f relay.Fence) error {
	if l.dead.Load() {
		return errDead
	}
	return l.Log.Release(ctx, f)
}

// deadShare is a replica's view of a push.Share that writes nothing once
// its replica is killed.
type deadShare struct {
	push.Share
	dead *atomic.Bool
}

func (s deadShare) PutRegistration(ctx context.Context, id string, rec push.SharedRegistration, ttl time.Duration) (bool, error) {
	if s.dead.Load() {
		return false, errDead
	}
	return s.Share.PutRegistration(ctx, id, rec, ttl)
}

func (s deadShare) DeleteRegistration(ctx context.Context, id, holder string) error {
	if s.dead.Load() {
		return errDead
	}
	return s.Share.DeleteRegistration(ctx, id, holder)
}

// pushRoute sends the agent's notifications to the receiver set last.
type pushRoute struct{ to atomic.Pointer[push.Receiver] }

func (p *pushRoute) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.to.Load().ServeHTTP(w, r) }

// TestTakeoverAdoptsThePushRegistrationThroughRedis: replica A drives a
// stream followed by push (its push config registered after a drop) and
// is killed after it committed the chunk that came by push (its
// checkpoint names the registration); replica B takes the stream over
// and adopts the registration through Redis; the agent's later
// notifications reach B only, and ring its stream, which ends long before
// its hour's safety poll. The agent was asked to take one push config in
// the whole run.
func TestTakeoverAdoptsThePushRegistrationThroughRedis(t *testing.T) {
	srv := redistest.Start(t)
	storeA := newStore(t, srv.Client(t, nil), WithPrefix("adopt"), WithWake(testWake))
	storeB := newStore(t, srv.Client(t, nil), WithPrefix("adopt"), WithWake(testWake))
	logA, err := storeA.Open(t.Context(), "k")
	require.NoError(t, err)
	logB, err := storeB.Open(t.Context(), "k")
	require.NoError(t, err)
	ctxA, killA := context.WithCancel(t.Context())
	defer killA()
	route := &pushRoute{}
	a := &dyingLog{Log: logA}
	recvA, err := push.NewReceiver("http://127.0.0.1/hooks", push.WithShare(deadShare{Share: storeA.(push.Share), dead: &a.dead}))
	require.NoError(t, err)
	recvB, err := push.NewReceiver("http://127.0.0.1/hooks", push.WithShare(storeB.(push.Share)))
	require.NoError(t, err)
	route.to.Store(recvA)
	a.die = func(es []relay.Entry) bool {
		for _, e := range es {
			if e.Name == relay.EventArtifact && strings.Contains(string(e.Data), `"text":"two "`) {
				return true
			}
		}
		return false
	}
	a.onDie = func() {
		route.to.Store(recvB)
		killA()
	}
	agent := a2atest.NewAgent(a2atest.WithPush(), a2atest.WithPushClient(a2atest.NewClient(route)),
		a2atest.WithScript(
			a2atest.Working("w"),
			a2atest.Chunk("a1", "one ", false, false),
			a2atest.Pause(300*time.Millisecond),
			a2atest.Chunk("a1", "two ", true, false),
			a2atest.Pause(time.Second),
			a2atest.Chunk("a1", "three ", true, false),
			a2atest.Pause(300*time.Millisecond),
			a2atest.Chunk("a1", "four", true, true),
			a2atest.Finish(a2a.StateCompleted, "done")),
		a2atest.WithFaults(a2atest.CutAfterEvents(3)))
	t.Cleanup(agent.Close)
	client := func(r *push.Receiver) *stream.Client {
		c, err := stream.NewClient("http://agent.internal/a2a", stream.WithHTTPClient(agent.Client()),
			stream.WithPush(r), stream.WithPushPollInterval(time.Hour),
			stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 100 * time.Millisecond}))
		require.NoError(t, err)
		return c
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	wg.Go(func() {
		_ = relay.Run(ctxA, a, "A", relay.Send(client(recvA), a2a.NewTextMessage(a2a.RoleUser, "hi")), relay.WithLease(300*time.Millisecond))
	})
	var errB error
	wg.Go(func() {
		errB = relay.Run(ctx, logB, "B", relay.Resume(client(recvB)), relay.WithLease(300*time.Millisecond))
	})
	wg.Wait()
	require.NoError(t, errB)
	t.Logf("B finished in %v (noisy: a shared machine)", time.Since(start))
	require.True(t, a.dead.Load(), "A was killed")
	require.Equal(t, 1, countPushConfigs(agent), "one push config registered in the whole run")
	es, err := logB.Read(t.Context(), 0, 1000)
	require.NoError(t, err)
	require.Equal(t, relay.EventEnd, es[len(es)-1].Name)
	var text strings.Builder
	for _, e := range es {
		if e.Name == relay.EventArtifact {
			text.Write(e.Data)
		}
	}
	for _, part := range []string{"one ", "two ", "three ", "four"} {
		require.Contains(t, text.String(), part)
	}
}

// countPushConfigs counts the agent's push-config calls.
func countPushConfigs(agent *a2atest.Agent) int {
	n := 0
	for _, r := range agent.Requests() {
		if strings.Contains(strings.ToLower(r.Method), "push") {
			n++
		}
	}
	return n
}
