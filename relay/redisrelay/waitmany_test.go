package redisrelay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/sse"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay/internal/redistest"
)

// TestManyLogsWaitOnOneConnection: a hundred streams with a browser each,
// and a driver's AwaitCancel on each, on a client whose pool has four
// connections, while the driver commits to every stream: the two hundred
// waits share the store's one Pub/Sub connection, which is not the
// pool's, so no client is blocked in Redis, the pool never times out, and
// every browser gets every event of its stream and every AwaitCancel its
// cancel. (Each log's wait held a pooled connection in XREAD BLOCK before:
// a hundred on a pool of four left the commits waiting for the pool.)
func TestManyLogsWaitOnOneConnection(t *testing.T) {
	srv := redistest.Start(t)
	const pool, logs, entries = 4, 100, 3
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), PoolSize: pool, PoolTimeout: 2 * time.Second, MaxRetries: -1})
	t.Cleanup(func() { _ = c.Close() })
	admin := srv.Client(t, nil)
	st := newStore(t, c, WithWake(time.Second))
	ctx := t.Context()

	type stream struct {
		l relay.Log
		f relay.Fence
	}
	streams := make([]stream, logs)
	for i := range streams {
		l, err := st.Open(ctx, "k"+strconv.Itoa(i))
		require.NoError(t, err)
		f, err := l.Acquire(ctx, "driver", time.Minute)
		require.NoError(t, err)
		require.NoError(t, l.Commit(ctx, f, nil, relay.Entry{Seq: 1, Name: relay.EventStatus, Data: []byte(`{"state":"working"}`)}))
		streams[i] = stream{l, f}
	}
	client := a2atest.NewClient(newHandler(t, st, func(r *http.Request) (string, bool) {
		key, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/s/"), "/events")
		return key, ok
	}))

	rctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	first := make(chan struct{}, logs)
	got := make([]chan []string, logs)
	canceled := make(chan error, logs)
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	for i := range streams {
		got[i] = make(chan []string, 1)
		wg.Go(func() {
			ids, err := readIDs(rctx, client, fmt.Sprintf("http://relay.test/s/k%d/events", i), first)
			if err != nil {
				ids = append(ids, err.Error())
			}
			got[i] <- ids
		})
		wg.Go(func() { canceled <- streams[i].l.AwaitCancel(rctx) })
	}
	for range logs {
		select {
		case <-first:
		case <-rctx.Done():
			t.Fatal("the browsers did not all get their first event")
		}
	}

	// Every wait is under way on the one Pub/Sub connection: Redis shows
	// it subscribed to each log's two channels, and no client blocked.
	subs := awaitSubscribed(t, admin, 2*logs)
	require.Equal(t, []int{2 * logs}, subs, "Pub/Sub clients and their subscriptions")
	list, err := admin.ClientList(ctx).Result()
	require.NoError(t, err)
	for line := range strings.SplitSeq(strings.TrimSpace(list), "\n") {
		require.NotContains(t, clientField(line, "flags"), "b", "a client blocked in Redis: %s", line)
	}
	stats := c.PoolStats()
	require.EqualValues(t, 1, stats.PubSubStats.Active, "Pub/Sub connections of the client")
	require.LessOrEqual(t, stats.TotalConns, uint32(pool), "the pool's connections")

	before := *stats
	for seq := uint64(2); seq <= entries; seq++ {
		for _, s := range streams {
			require.NoError(t, s.l.Commit(ctx, s.f, nil, relay.Entry{Seq: seq, Name: relay.EventArtifact,
				Data: fmt.Appendf(nil, `{"pane":"artifact:x","id":"x","text":"%d","append":true}`, seq)}), "commit %d", seq)
		}
	}
	for _, s := range streams {
		require.NoError(t, s.l.Commit(ctx, s.f, nil, relay.Entry{Seq: entries + 1, Name: relay.EventEnd, Data: []byte(`{"state":"completed"}`)}))
		require.NoError(t, s.l.RequestCancel(ctx))
	}
	for i, s := range streams {
		ids := <-got[i]
		require.Len(t, ids, entries+1, "%v", ids)
		for j, id := range ids {
			require.Equal(t, fmt.Sprintf("%s-%d", s.l.Epoch(), j+1), id)
		}
		require.NoError(t, <-canceled, "AwaitCancel")
	}
	stats = c.PoolStats()
	t.Logf("pool: %d connections, %d timeouts; %d Pub/Sub connection(s) made; while the driver committed: %d waits for a pooled connection (%v in all)",
		stats.TotalConns, stats.Timeouts, stats.PubSubStats.Created,
		stats.WaitCount-before.WaitCount, time.Duration(stats.WaitDurationNs-before.WaitDurationNs))
	require.Zero(t, stats.Timeouts, "no call timed out waiting for a pooled connection")
	require.LessOrEqual(t, stats.TotalConns, uint32(pool), "the pool's connections")
}

// awaitSubscribed waits, 10 s at most, until Redis's Pub/Sub clients are
// subscribed to n channels in all, and returns each one's count.
func awaitSubscribed(t testing.TB, admin *redis.Client, n int) []int {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		subs := pubsubClients(t, admin)
		sum := 0
		for _, s := range subs {
			sum += s
		}
		if sum == n {
			return subs
		}
		select {
		case <-ctx.Done():
			t.Fatalf("Pub/Sub clients' subscriptions %v after 10 s; want %d in all", subs, n)
		case <-tick.C:
		}
	}
}

// pubsubClients returns, for each Pub/Sub client of Redis, the number of
// channels it is subscribed to (CLIENT LIST TYPE pubsub).
func pubsubClients(t testing.TB, admin *redis.Client) []int {
	t.Helper()
	list, err := admin.Do(t.Context(), "CLIENT", "LIST", "TYPE", "pubsub").Text()
	require.NoError(t, err)
	var subs []int
	for line := range strings.SplitSeq(strings.TrimSpace(list), "\n") {
		if line == "" {
			continue
		}
		n, err := strconv.Atoi(clientField(line, "sub"))
		require.NoError(t, err, "CLIENT LIST: %s", line)
		subs = append(subs, n)
	}
	return subs
}

// clientField is a field of a CLIENT LIST line.
func clientField(line, name string) string {
	for f := range strings.FieldsSeq(line) {
		if v, ok := strings.CutPrefix(f, name+"="); ok {
			return v
		}
	}
	return ""
}

// readIDs reads the stream at url to its end and returns its events'
// IDs, signalling first when the first event came.
func readIDs(ctx context.Context, client *http.Client, url string, first chan<- struct{}) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	dec := sse.NewDecoder(resp.Body, 1<<20)
	var ids []string
	for {
		ev, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return ids, nil
		}
		if err != nil {
			return ids, err
		}
		if len(ids) == 0 {
			first <- struct{}{}
		}
		ids = append(ids, string(ev.ID))
	}
}

// underTest marks the context of the wait a test's hook acts on.
type underTest struct{}

// TestNoWakeLostBeforeTheSubscription: an entry appended after a wait
// looked and before its channel's SUBSCRIBE reached Redis (so its note
// went to no one) still ends the wait, at the confirmation of the
// subscription, not at the wake interval (an hour here). The hooks order
// it: the SUBSCRIBE waits for the commit, which the wait's first look
// makes.
func TestNoWakeLostBeforeTheSubscription(t *testing.T) {
	srv := redistest.Start(t)
	c, admin := srv.Client(t, nil), srv.Client(t, nil)
	st := newStore(t, c, WithWake(time.Hour))
	l, f := driven(t, st, "task-1")
	ctx := t.Context()
	require.NoError(t, l.Commit(ctx, f, nil, entriesFrom(1, 1)...))

	committed := make(chan error, 1)
	clients := make(chan []int, 1)
	var looked, subscribing sync.Once
	st.(*store).hub.hook = func(hctx context.Context, point string) {
		switch point {
		case "looked": // the wait found no entry after 1
			looked.Do(func() { committed <- l.Commit(ctx, f, nil, entriesFrom(2, 2)...) })
		case "subscribe":
			subscribing.Do(func() {
				err := <-committed
				committed <- err
				clients <- pubsubClients(t, admin)
			})
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	require.NoError(t, l.AwaitEntry(wctx, 1), "the wait whose entry came before its subscription")
	require.NoError(t, <-committed, "the commit between the look and the subscription")
	require.Empty(t, <-clients, "Pub/Sub clients when the entry was committed")
}

// TestNoWakeLostAfterTheLook: an entry appended after a wait looked and
// before it blocks again, its channel subscribed, ends the wait: the note
// closes the wake the wait took before it looked. A wait for an answer on
// the notes channel is woken the same way by the answer.
func TestNoWakeLostAfterTheLook(t *testing.T) {
	srv := redistest.Start(t)
	c, admin := srv.Client(t, nil), srv.Client(t, nil)
	st := newStore(t, c, WithWake(time.Hour))
	l, f := driven(t, st, "task-1")
	ctx := t.Context()
	require.NoError(t, l.Commit(ctx, f, nil, entriesFrom(1, 1)...))

	wrote := make(chan error, 2)
	confirmed := make(chan struct{}, 2)
	var entry, answer sync.Once
	// Set before any wait runs; it acts on the waits under test only.
	st.(*store).hub.hook = func(hctx context.Context, point string) {
		if point == "confirmed" {
			select {
			case confirmed <- struct{}{}:
			default:
			}
		}
		if point != "looked" {
			return
		}
		switch hctx.Value(underTest{}) {
		case "entry":
			entry.Do(func() { wrote <- l.Commit(ctx, f, nil, entriesFrom(2, 2)...) })
		case "answer":
			answer.Do(func() {
				_, err := l.PostAnswer(ctx, relay.Answer{Prompt: 7, Key: "k", Text: "yes"})
				wrote <- err
			})
		}
	}
	// A first wait on each channel, so that both are subscribed before the
	// waits under test look.
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	holdCtx, release := context.WithCancel(wctx)
	defer release()
	wg.Go(func() { _ = l.AwaitEntry(holdCtx, 1000) })
	wg.Go(func() { _, _ = l.AwaitAnswer(holdCtx, 1000) })
	awaitSubscribed(t, admin, 2)
	<-confirmed // and the store has seen both confirmations
	<-confirmed

	require.NoError(t, l.AwaitEntry(context.WithValue(wctx, underTest{}, "entry"), 1),
		"the wait whose entry came between its look and its block")
	require.NoError(t, <-wrote)
	a, err := l.AwaitAnswer(context.WithValue(wctx, underTest{}, "answer"), 7)
	require.NoError(t, err, "the wait whose answer came between its look and its block")
	require.NoError(t, <-wrote)
	require.Equal(t, "yes", a.Text)
}

// TestWaitsSurviveALostPubSubConnection: when Redis drops the store's
// Pub/Sub connection, go-redis dials again and subscribes again, and the
// waits are woken by the entries appended meanwhile, not at the wake
// interval (an hour here).
func TestWaitsSurviveALostPubSubConnection(t *testing.T) {
	srv := redistest.Start(t)
	c, admin := srv.Client(t, nil), srv.Client(t, nil)
	st := newStore(t, c, WithWake(time.Hour))
	l, f := driven(t, st, "task-1")
	ctx := t.Context()
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()

	for seq := uint64(1); seq <= 3; seq++ {
		done := make(chan error, 1)
		go func() { done <- l.AwaitEntry(wctx, seq-1) }()
		awaitSubscribed(t, admin, 1)
		require.NoError(t, admin.Do(ctx, "CLIENT", "KILL", "TYPE", "pubsub").Err())
		require.NoError(t, l.Commit(ctx, f, nil, entriesFrom(seq, seq)...))
		require.NoError(t, <-done, "the wait for entry %d", seq)
	}
	require.GreaterOrEqual(t, c.PoolStats().PubSubStats.Created, uint32(2), "Pub/Sub connections dialed")
}

// TestTheHubLetsGoOfItsConnection: once no wait has been under way for
// two wake intervals, the store unsubscribes and closes its Pub/Sub
// connection; the next wait dials another.
func TestTheHubLetsGoOfItsConnection(t *testing.T) {
	srv := redistest.Start(t)
	c, admin := srv.Client(t, nil), srv.Client(t, nil)
	st := newStore(t, c, WithWake(testWake))
	l, f := driven(t, st, "task-1")
	ctx := t.Context()
	for seq := uint64(1); seq <= 2; seq++ {
		done := make(chan error, 1)
		go func() { done <- l.AwaitEntry(ctx, seq-1) }()
		awaitSubscribed(t, admin, 1)
		require.NoError(t, l.Commit(ctx, f, nil, entriesFrom(seq, seq)...))
		require.NoError(t, <-done)
		awaitSubscribed(t, admin, 0)
		require.Empty(t, pubsubClients(t, admin), "Pub/Sub clients once no wait is under way")
	}
	require.EqualValues(t, 2, c.PoolStats().PubSubStats.Created, "Pub/Sub connections dialed")
	require.Zero(t, c.PoolStats().PubSubStats.Active, "Pub/Sub connections open")
}

// TestACommitsNoteEndsTheWaitWithoutALook: a wait for an entry, its
// channel subscribed, looks once, then ends on the Commit's note, which
// names the log's epoch and the Seq appended, without looking again; a
// note of another epoch (the log made afresh under the key) does not end
// it.
func TestACommitsNoteEndsTheWaitWithoutALook(t *testing.T) {
	srv := redistest.Start(t)
	c, admin := srv.Client(t, nil), srv.Client(t, nil)
	st := newStore(t, c, WithWake(time.Hour))
	l, f := driven(t, st, "task-1")
	ctx := t.Context()
	require.NoError(t, l.Commit(ctx, f, nil, entriesFrom(1, 1)...))

	var mu sync.Mutex
	looks := 0
	published := make(chan error, 2)
	confirmed := make(chan struct{}, 1)
	st.(*store).hub.hook = func(hctx context.Context, point string) {
		if point == "confirmed" {
			select {
			case confirmed <- struct{}{}:
			default:
			}
		}
		if point != "looked" || hctx.Value(underTest{}) == nil {
			return
		}
		mu.Lock()
		looks++
		n := looks
		mu.Unlock()
		switch n {
		case 1: // a note of another epoch: it looks again
			published <- admin.Publish(ctx, l.keys.log, "another-epoch:9").Err()
		case 2:
			published <- l.Commit(ctx, f, nil, entriesFrom(2, 2)...)
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	holdCtx, release := context.WithCancel(wctx)
	defer release()
	wg.Go(func() { _ = l.AwaitEntry(holdCtx, 1000) })
	<-confirmed // the channel is subscribed, and the store saw it

	require.NoError(t, l.AwaitEntry(context.WithValue(wctx, underTest{}, true), 1))
	require.NoError(t, <-published)
	require.NoError(t, <-published)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, 2, looks, "looks of the wait: at once, and after the note of another epoch")
}

// TestAUserWithoutPubSubStillCommits: a Redis user that may not publish
// nor subscribe (ACL resetchannels) commits, posts and cancels as before
// (the scripts' PUBLISH is a pcall), and its waits end by the wake
// interval's looks.
func TestAUserWithoutPubSubStillCommits(t *testing.T) {
	srv := redistest.Start(t)
	admin := srv.Client(t, nil)
	require.NoError(t, admin.Do(t.Context(), "ACL", "SETUSER", "nochannels", "on", ">secret", "~*", "+@all", "resetchannels").Err())
	c := redis.NewClient(&redis.Options{Addr: srv.Addr(), Username: "nochannels", Password: "secret"})
	t.Cleanup(func() { _ = c.Close() })
	require.Error(t, c.Publish(t.Context(), "x", "y").Err(), "PUBLISH by the user")
	st := newStore(t, c, WithWake(testWake))
	l, f := driven(t, st, "task-1")
	ctx := t.Context()

	done := make(chan error, 3)
	go func() { done <- l.AwaitEntry(ctx, 0) }()
	go func() { _, err := l.AwaitAnswer(ctx, 1); done <- err }()
	go func() { done <- l.AwaitCancel(ctx) }()
	require.NoError(t, l.Commit(ctx, f, nil, entriesFrom(1, 1)...))
	_, err := l.PostAnswer(ctx, relay.Answer{Prompt: 1, Key: "k", Text: "yes"})
	require.NoError(t, err)
	require.NoError(t, l.RequestCancel(ctx))
	for range 3 {
		require.NoError(t, <-done)
	}
}
