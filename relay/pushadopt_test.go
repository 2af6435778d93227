package relay_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/push"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

// pushedTask runs 30 s: a chunk at once (the agent drops the stream after
// it: the driver registers a push config), a chunk after 10 s, after 20 s,
// and the last with the ending after 30 s. Each event is pushed.
func pushedTask() []a2atest.Option {
	return []a2atest.Option{a2atest.WithPush(), a2atest.WithFaults(a2atest.CutAfterEvents(3)),
		a2atest.WithScript(
			a2atest.Working("w"),
			a2atest.Chunk("a1", "one ", false, false),
			a2atest.Pause(10*time.Second),
			a2atest.Chunk("a1", "two ", true, false),
			a2atest.Pause(10*time.Second),
			a2atest.Chunk("a1", "three ", true, false),
			a2atest.Pause(10*time.Second),
			a2atest.Chunk("a1", "four", true, true),
			a2atest.Finish(a2a.StateCompleted, "done"))}
}

// pushRoute is where the agent POSTs its notifications: the receiver set
// last, as a load balancer in front of the replicas would.
type pushRoute struct{ to atomic.Pointer[push.Receiver] }

func (p *pushRoute) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.to.Load().ServeHTTP(w, r) }

// deadShare is a replica's view of a push.Share that fails every call once
// the replica is killed: a process killed with SIGKILL writes nothing
// more, and deletes nothing.
type deadShare struct {
	push.Share
	dead atomic.Bool
}

func (s *deadShare) PutRegistration(ctx context.Context, id string, rec push.SharedRegistration, ttl time.Duration) (bool, error) {
	if s.dead.Load() {
		return false, errKilled
	}
	return s.Share.PutRegistration(ctx, id, rec, ttl)
}

func (s *deadShare) DeleteRegistration(ctx context.Context, id, holder string) error {
	if s.dead.Load() {
		return errKilled
	}
	return s.Share.DeleteRegistration(ctx, id, holder)
}

func (s *deadShare) RefreshRegistrations(ctx context.Context, holder string, ttl time.Duration, ids ...string) ([]string, error) {
	if s.dead.Load() {
		return nil, errKilled
	}
	return s.Share.RefreshRegistrations(ctx, holder, ttl, ids...)
}

// replicas is the two replicas of a push takeover: A's view of the log
// and of the share, each replica's receiver, and where the agent's
// notifications go.
type replicas struct {
	a            *replicaLog
	shareA       *deadShare
	recvA, recvB *push.Receiver
	route        *pushRoute
}

// pushTakeover runs replica A (the starter) and replica B (a watcher) on
// one MemoryStore, each with a receiver of its own on it (A's through a
// view that dies with A) and an hour between its safety polls, against the
// agent of pushedTask, whose notifications go to A until set sets
// otherwise; set, given the replicas, makes A die or stall; optsA are A's
// receiver's options. It returns the
// log's entries, the agent, and how long the task took to end in the log.
func pushTakeover(t *testing.T, set func(r *replicas, killA func()), optsA ...push.Option) ([]relay.Entry, *a2atest.Agent, time.Duration) {
	t.Helper()
	store := newMemoryStore(t)
	shared, err := store.Open(t.Context(), "k")
	require.NoError(t, err)
	r := &replicas{a: &replicaLog{Log: shared, name: "A", w: &writes{}}, shareA: &deadShare{Share: store}, route: &pushRoute{}}
	r.recvA, err = push.NewReceiver("http://127.0.0.1/hooks", append([]push.Option{push.WithShare(r.shareA)}, optsA...)...)
	require.NoError(t, err)
	r.recvB, err = push.NewReceiver("http://127.0.0.1/hooks", push.WithShare(store))
	require.NoError(t, err)
	r.route.to.Store(r.recvA)
	ctxA, killA := context.WithCancel(t.Context())
	defer killA()
	set(r, killA)
	agent := a2atest.NewAgent(append(pushedTask(), a2atest.WithPushClient(a2atest.NewClient(r.route)))...)
	t.Cleanup(agent.Close)
	opts := func(recv *push.Receiver) []stream.Option {
		return []stream.Option{stream.WithHTTPClient(agent.Client()), stream.WithPush(recv), stream.WithPushPollInterval(time.Hour),
			stream.WithReconnect(reconnect.Policy{MaxAttempts: 3, Backoff: 100 * time.Millisecond})}
	}
	clientA, err := stream.NewClient("http://agent.test/", opts(r.recvA)...)
	require.NoError(t, err)
	clientB, err := stream.NewClient("http://agent.test/", opts(r.recvB)...)
	require.NoError(t, err)
	b := &replicaLog{Log: shared, name: "B", w: r.a.w}
	var wg sync.WaitGroup
	wg.Go(func() { _ = relay.Run(ctxA, r.a, "A", relay.Send(clientA, a2a.NewTextMessage(a2a.RoleUser, "hello"))) })
	ctxB, stopB := context.WithTimeout(t.Context(), 2*time.Hour)
	defer stopB()
	var (
		errB error
		took time.Duration // from the task's start until B committed the ending
	)
	wg.Go(func() { errB = relay.Run(ctxB, b, "B", relay.Resume(clientB)) })
	wg.Wait()
	require.NoError(t, errB)
	byB := r.a.w.by("B")
	require.NotEmpty(t, byB, "B took over")
	// From the run's first commit, when the agent took the task (A's send
	// waits a watcher's poll, 0.5 s, when B's first look at the empty log
	// holds the lease as A tries it), to when B committed the ending, not
	// when its Run returned: a Run may return up to a poll later, as a
	// watcher that finds the end.
	last := byB[len(byB)-1]
	require.Equal(t, relay.EventEnd, last.entries[len(last.entries)-1].Name, "B's last commit holds the end")
	took = last.at.Sub(r.a.w.first())
	return allEntries(t, shared), agent, took
}

// requireHandedOn asserts that a pushTakeover run handed the push
// registration on: one push config registered in the whole run, B's stream
// rung by the notification of the ending (30 s after the task started),
// and the whole task in the log.
func requireHandedOn(t *testing.T, entries []relay.Entry, agent *a2atest.Agent, took time.Duration) {
	t.Helper()
	require.Equal(t, 1, countMethod(agent, "push"), "one push config registered in the whole run")
	require.Equal(t, 30*time.Second, took, "the notification of the ending rang B's stream")
	sc := screenAfter(t, entries)
	require.Equal(t, "one two three four", sc.Pane("artifact:a1").Text())
	require.Equal(t, relay.EventEnd, sc.End.Name)
}

// hasChunk reports whether es holds an artifact entry of text.
func hasChunk(t *testing.T, es []relay.Entry, text string) bool {
	for _, e := range es {
		if e.Name != relay.EventArtifact {
			continue
		}
		var d relay.ArtifactData
		require.NoError(t, json.Unmarshal(e.Data, &d))
		if d.Text == text {
			return true
		}
	}
	return false
}

// A replica that drives a stream followed by push (its push config
// registered after a drop, and its checkpoint, committed with the next
// chunk, naming its registration) is killed after that commit; the
// replica that takes the stream over adopts the registration (its
// receiver shares A's records), and the agent's later notifications, which
// reach B only (A is gone), ring B's stream: it ends when the task does
// (30 s), long before its hour's safety poll, and the agent was asked to
// take one push config in the whole run.
func TestTakeoverAdoptsThePushRegistration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		entries, agent, took := pushTakeover(t, func(r *replicas, killA func()) {
			r.a.kill = func(es []relay.Entry) (bool, bool) { return false, hasChunk(t, es, "two ") }
			r.a.onKill = func() {
				r.shareA.dead.Store(true)
				r.route.to.Store(r.recvB)
				killA()
			}
		})
		requireHandedOn(t, entries, agent, took)
	})
}

// A replica stopped gracefully (its Run's context cancelled, as in a
// rolling deploy) after its checkpoint named its push registration, while
// the task runs: its stream leaves the registration (its record stays in
// the share) and releases the lease; B takes the stream over at once and
// adopts the registration. One push config in the whole run, and the
// notification of the ending rings B.
func TestGracefulStopHandsThePushRegistrationOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		entries, agent, took := pushTakeover(t, func(r *replicas, stopA func()) {
			r.a.stopAfter = func(es []relay.Entry) bool { return hasChunk(t, es, "two ") }
			r.a.onStop = func() {
				r.route.to.Store(r.recvB)
				stopA()
			}
		})
		requireHandedOn(t, entries, agent, took)
	})
}

// A driver whose renewals stall past its lease (a zombie) after its
// checkpoint named its push registration: B takes the stream over and
// adopts the registration while A, still running, holds it too (A's
// receiver refreshes its records every minute: it has not found the
// adoption yet). The agent's notifications all reach A. A's next one
// (20 s) wakes A's stream, whose write then fails: A closes its stream,
// and its registration's Close leaves B's record (only the holder deletes
// it).
// The notification of the ending (30 s), which reaches A, which no
// longer holds the registration, rings B's stream through the share: B
// ends when the task does, with one push config in the whole run.
func TestZombieClosingItsStreamLeavesTheAdoptersRecord(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		entries, agent, took := pushTakeover(t, func(r *replicas, _ func()) {
			start := time.Now()
			r.a.renew = func() {
				if time.Since(start) > 11*time.Second {
					time.Sleep(40 * time.Second)
				}
			}
		}, push.WithShareTTL(3*time.Minute))
		requireHandedOn(t, entries, agent, took)
	})
}
