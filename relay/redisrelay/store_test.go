package redisrelay

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/a2astream/a2astream/push"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay/internal/redistest"
	"github.com/a2astream/a2astream/relay/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testWake is the wake interval of the tests' stores: a canceled AwaitEntry
// returns within it.
const testWake = 50 * time.Millisecond

// TestStoreKeepsTheStoreRules runs the conformance suite on a real
// redis-server, each Open of a key alternating between two replicas with
// clients of their own, leases expiring in Redis's clock.
func TestStoreKeepsTheStoreRules(t *testing.T) {
	srv := redistest.Start(t)
	c1, c2 := srv.Client(t, nil), srv.Client(t, nil)
	n := 0
	storetest.Run(t, func(t *testing.T) relay.Store {
		n++
		prefix := fmt.Sprintf("conformance-%d", n)
		return &replicas{stores: []relay.Store{
			newStore(t, c1, WithPrefix(prefix), WithWake(testWake)),
			newStore(t, c2, WithPrefix(prefix), WithWake(testWake)),
		}}
	}, storetest.Expiry(20*time.Millisecond, func(t *testing.T, l relay.Log) {
		awaitLeaseEnd(t, c1, l.(*log))
	}))
}

// driven opens key on st and acquires its lease for "driver".
func driven(t *testing.T, st relay.Store, key string) (*log, relay.Fence) {
	t.Helper()
	l, err := st.Open(t.Context(), key)
	require.NoError(t, err)
	f, err := l.Acquire(t.Context(), "driver", time.Hour)
	require.NoError(t, err)
	return l.(*log), f
}

func entriesFrom(from, to uint64) []relay.Entry {
	var es []relay.Entry
	for s := from; s <= to; s++ {
		es = append(es, relay.Entry{Seq: s, Name: "delta", Data: fmt.Appendf(nil, `{"n":%d}`, s)})
	}
	return es
}

// TestOneLogsKeysShareOneHashTag: every key a log uses, after every kind
// of call, is "{<prefix>:<key>}:<part>", so that one Cluster slot holds
// them and one script may touch them all.
func TestOneLogsKeysShareOneHashTag(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t, nil)
	st := newStore(t, c, WithPrefix("chat"), WithWake(testWake))
	l, f := driven(t, st, "task:1/é")
	ctx := t.Context()
	require.NoError(t, l.Commit(ctx, f, nil, entriesFrom(1, 4)...))
	require.NoError(t, l.SaveSnapshot(ctx, f, relay.Snapshot{Seq: 2, Data: []byte(`{}`)}))
	require.NoError(t, l.Trim(ctx, 2))
	require.NoError(t, l.Commit(ctx, f, []byte("cp")))
	_, err := l.PostAnswer(ctx, relay.Answer{Prompt: 3, Key: "k", Text: "yes"})
	require.NoError(t, err)
	require.NoError(t, l.RequestCancel(ctx))

	keys, err := c.Keys(ctx, "*").Result()
	require.NoError(t, err)
	var parts []string
	for _, k := range keys {
		part, ok := strings.CutPrefix(k, "{chat:task:1/é}:")
		require.True(t, ok, "key %q is outside the log's hash tag", k)
		parts = append(parts, part)
	}
	require.ElementsMatch(t, []string{"epoch", "log", "trimmed", "snapshot", "term", "lease", "fence", "checkpoint", "answers", "cancel", "notes"}, parts)
}

// TestDuplicateAppendFailsInTheStreamItself: entries carry explicit stream
// IDs "0-<seq>", so Redis itself refuses a second entry at a Seq, even
// written around the script.
func TestDuplicateAppendFailsInTheStreamItself(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t, nil)
	l, f := driven(t, newStore(t, c), "task-1")
	require.NoError(t, l.Commit(t.Context(), f, nil, entriesFrom(1, 3)...))
	ids, err := c.XRange(t.Context(), l.keys.log, "-", "+").Result()
	require.NoError(t, err)
	require.Equal(t, []string{"0-1", "0-2", "0-3"}, []string{ids[0].ID, ids[1].ID, ids[2].ID})
	for _, id := range []string{"0-2", "0-3"} {
		err := c.XAdd(t.Context(), &redis.XAddArgs{Stream: l.keys.log, ID: id, Values: []string{"n", "delta", "d", "{}"}}).Err()
		require.Error(t, err, "XADD %s behind the tail", id)
	}
	n, err := c.XLen(t.Context(), l.keys.log).Result()
	require.NoError(t, err)
	require.EqualValues(t, 3, n)
}

// TestRenewSetsTheLeaseAgainInRedis: Acquire sets the lease's PX, Renew sets
// it again from now, in Redis's clock.
func TestRenewSetsTheLeaseAgainInRedis(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client(t, nil)
	l, err := newStore(t, c).Open(t.Context(), "task-1")
	require.NoError(t, err)
	f, err := l.Acquire(t.Context(), "a", 10*time.Second)
	require.NoError(t, err)
	pttl, err := c.PTTL(t.Context(), l.(*log).keys.lease).Result()
	require.NoError(t, err)
	require.True(t, pttl > 5*time.Second && pttl <= 10*time.Second, "PTTL after Acquire for 10 s: %v", pttl)
	require.NoError(t, l.Renew(t.Context(), f, time.Hour))
	pttl, err = c.PTTL(t.Context(), l.(*log).keys.lease).Result()
	require.NoError(t, err)
	require.True(t, pttl > 59*time.Minute && pttl <= time.Hour, "PTTL after Renew for 1 h: %v", pttl)
	_, err = l.Acquire(t.Context(), "a", 0)
	require.Error(t, err, "Acquire with a ttl of 0")
	require.NotErrorIs(t, err, relay.ErrHeld)
}

// TestZombieAppendsNothing: a driver whose lease ran out in Redis's clock,
// while another replica acquired it, appends nothing and saves nothing: its
// calls fail with ErrStale and the stream's length does not move.
func TestZombieAppendsNothing(t *testing.T) {
	srv := redistest.Start(t)
	ca, cb := srv.Client(t, nil), srv.Client(t, nil)
	la, err := newStore(t, ca).Open(t.Context(), "task-1")
	require.NoError(t, err)
	lb, err := newStore(t, cb).Open(t.Context(), "task-1")
	require.NoError(t, err)
	fa, err := la.Acquire(t.Context(), "replica-a", 20*time.Millisecond)
	require.NoError(t, err)
	require.NoError(t, la.Commit(t.Context(), fa, nil, entriesFrom(1, 3)...))
	require.NoError(t, la.Commit(t.Context(), fa, []byte("a@3")))

	awaitLeaseEnd(t, cb, lb.(*log))
	fb, err := lb.Acquire(t.Context(), "replica-b", time.Hour)
	require.NoError(t, err)
	require.Greater(t, fb.Term, fa.Term)

	require.ErrorIs(t, la.Commit(t.Context(), fa, nil, entriesFrom(4, 6)...), relay.ErrStale)
	require.ErrorIs(t, la.Commit(t.Context(), fa, []byte("a@6")), relay.ErrStale)
	require.ErrorIs(t, la.SaveSnapshot(t.Context(), fa, relay.Snapshot{Seq: 3, Data: []byte(`"a"`)}), relay.ErrStale)
	require.ErrorIs(t, la.Renew(t.Context(), fa, time.Hour), relay.ErrStale)
	n, err := cb.XLen(t.Context(), lb.(*log).keys.log).Result()
	require.NoError(t, err)
	require.EqualValues(t, 3, n, "entries in the stream after the zombie's Append")
	cp, err := lb.LoadCheckpoint(t.Context())
	require.NoError(t, err)
	require.Equal(t, "a@3", string(cp))

	require.NoError(t, lb.Commit(t.Context(), fb, nil, entriesFrom(4, 6)...))
	n, err = cb.XLen(t.Context(), lb.(*log).keys.log).Result()
	require.NoError(t, err)
	require.EqualValues(t, 6, n, "entries in the stream after the new driver's Append")
}

// TestStoreIsAShare runs the push.Share conformance suite, and its
// two-Receivers subtests, on a real redis-server: the two views are the
// stores of two replicas, with clients of their own; records expire in
// Redis's clock.
func TestStoreIsAShare(t *testing.T) {
	srv := redistest.Start(t)
	c1, c2 := srv.Client(t, nil), srv.Client(t, nil)
	n := 0
	storetest.RunShare(t, func(t *testing.T) (push.Share, push.Share) {
		n++
		prefix := fmt.Sprintf("share-%d", n)
		a, ok := newStore(t, c1, WithPrefix(prefix), WithWake(testWake)).(push.Share)
		require.True(t, ok, "the store New returns is a push.Share")
		b := newStore(t, c2, WithPrefix(prefix), WithWake(testWake)).(push.Share)
		return a, b
	}, storetest.Expiry(20*time.Millisecond, func(t *testing.T, _ relay.Log) {}))
}
