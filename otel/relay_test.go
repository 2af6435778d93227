package a2aotel_test

// The relay's metrics (Telemetry.Relay) on the SDK's ManualReader: a
// stream driven by Run on a relay.MemoryStore, browsers' readers on its
// Handler, and a takeover.

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/stream"
)

// relayScript is an answer of n chunks, each paused d after the last.
func relayScript(n int, d time.Duration) []a2atest.Step {
	steps := []a2atest.Step{a2atest.Working("")}
	for i := range n {
		steps = append(steps, a2atest.Pause(d), a2atest.Chunk("a1", strings.Repeat("x", 1+i%5)+" ", i > 0, i == n-1))
	}
	return append(steps, a2atest.Finish(a2a.StateCompleted, "done"))
}

// logSize is the number of entries of log and their names' and data's
// bytes.
func logSize(t *testing.T, log relay.Log) (entries, bytes int64) {
	t.Helper()
	es, err := log.Read(t.Context(), 0, 1<<20)
	require.NoError(t, err)
	for _, e := range es {
		entries++
		bytes += int64(len(e.Name) + len(e.Data))
	}
	return entries, bytes
}

// get serves one GET of the stream's events on h, with lastID as its
// Last-Event-ID ("" for none), and returns the body.
func get(h http.Handler, lastID string) string {
	req := httptest.NewRequest(http.MethodGet, "http://relay.test/s/k/events", nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Body.String()
}

// A stream driven by one Run from start to end, then read by three
// browsers: the lease is won (not a takeover), renewed and released; the
// entries and bytes appended are the log's; each reader is counted
// attached (resumed or not), sent away with its reason, and done with how
// it ended, and the readers open go back to 0.
func TestRelayMetricsOfARunAndItsReaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		agent := a2atest.NewAgent(a2atest.WithScript(relayScript(12, 500*time.Millisecond)...))
		store, err := relay.NewMemoryStore()
		require.NoError(t, err)
		log, err := store.Open(t.Context(), "k")
		require.NoError(t, err)
		client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
		require.NoError(t, err)
		require.NoError(t, relay.Run(t.Context(), log, "A", relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hello")),
			relay.WithLease(3*time.Second), relay.WithTrace(r.tel.Relay())))

		h, err := relay.NewHandler(store, func(*http.Request) (string, bool) { return "k", true }, relay.WithTrace(r.tel.Relay()))
		require.NoError(t, err)
		tail, err := log.Tail(t.Context())
		require.NoError(t, err)
		require.Greater(t, tail, uint64(5))
		require.Contains(t, get(h, ""), "event: ")
		get(h, relay.ID{Epoch: log.Epoch(), Seq: 5}.String())
		require.Contains(t, get(h, "not-an-id"), relay.EventGone)
		synctest.Wait()

		got, _ := r.metrics(t)
		entries, bytes := logSize(t, log)
		require.Equal(t, int64(tail), entries)
		require.Equal(t, entries, got["a2a.relay.entries.appended"], "every entry of the log counted once")
		require.Equal(t, bytes, got["a2a.relay.entries.appended.size"])
		require.Equal(t, int64(1), got["a2a.relay.lease.changes{a2a.relay.lease.change=won}"])
		require.Equal(t, int64(1), got["a2a.relay.lease.changes{a2a.relay.lease.change=released}"])
		require.GreaterOrEqual(t, got["a2a.relay.lease.changes{a2a.relay.lease.change=renewed}"], int64(4),
			"a renewal a second for the 6 s of the answer")
		require.Zero(t, got["a2a.relay.lease.changes{a2a.relay.lease.change=lost}"])
		require.Zero(t, got["a2a.relay.takeovers"])
		require.Zero(t, got["a2a.relay.commits.failed{error.type=stale}"])

		require.Equal(t, int64(2), got["a2a.relay.readers.attached{a2a.relay.reader.resumed=false}"], "the first and the one sent away")
		require.Equal(t, int64(1), got["a2a.relay.readers.attached{a2a.relay.reader.resumed=true}"])
		require.Equal(t, int64(1), got["a2a.relay.readers.gone{a2a.relay.gone.reason=unparsable}"])
		require.Equal(t, int64(3), got["a2a.relay.readers.done{a2a.relay.reader.end=ended}"])
		require.Zero(t, got["a2a.relay.readers.active"], "every reader is done")
		require.GreaterOrEqual(t, got["a2a.relay.entries.sent"], 2*int64(tail)-5)
	})
}

// stallingLog is a Log whose renewals stall first: its replica loses the
// lease to another while its driver still runs.
type stallingLog struct {
	relay.Log
	stall time.Duration
}

func (l stallingLog) Renew(ctx context.Context, f relay.Fence, ttl time.Duration) error {
	time.Sleep(l.stall) // in the synctest bubble: the fake clock's
	return l.Log.Renew(ctx, f, ttl)
}

// Two replicas of one process (one Telemetry): A's renewals stall past its
// lease, B takes the stream over. A's next commit fails as stale and A
// loses the lease; B wins it resuming the stream (a takeover) and releases
// it at the end; between them every entry of the log is counted once.
func TestRelayMetricsOfATakeover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		agent := a2atest.NewAgent(a2atest.WithScript(relayScript(40, 250*time.Millisecond)...), a2atest.WithStyle(a2atest.LiveOnly))
		store, err := relay.NewMemoryStore()
		require.NoError(t, err)
		shared, err := store.Open(t.Context(), "k")
		require.NoError(t, err)
		client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		var wg sync.WaitGroup
		wg.Go(func() {
			require.NoError(t, relay.Run(ctx, stallingLog{Log: shared, stall: 20 * time.Second}, "A",
				relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hello")), relay.WithTrace(r.tel.Relay())))
		})
		wg.Go(func() {
			require.NoError(t, relay.Run(ctx, shared, "B", relay.Resume(client), relay.WithTrace(r.tel.Relay())))
		})
		wg.Wait()

		got, _ := r.metrics(t)
		entries, _ := logSize(t, shared)
		require.Equal(t, entries, got["a2a.relay.entries.appended"])
		require.Equal(t, int64(2), got["a2a.relay.lease.changes{a2a.relay.lease.change=won}"])
		require.Equal(t, int64(1), got["a2a.relay.lease.changes{a2a.relay.lease.change=lost}"])
		require.Equal(t, int64(1), got["a2a.relay.lease.changes{a2a.relay.lease.change=released}"])
		require.Equal(t, int64(1), got["a2a.relay.takeovers"])
		require.Equal(t, int64(1), got["a2a.relay.commits.failed{error.type=stale}"], "A's one write after the takeover")
	})
}
