package relay_test

import (
	"context"
	"net/http"
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

// traceRec records what a relay.Trace is told; the relay may call it
// concurrently.
type traceRec struct {
	mu      sync.Mutex
	leases  []relay.LeaseInfo
	commits []relay.CommitInfo
	readers []relay.ReaderInfo
	readAt  []time.Time // when each of readers was told
	// ended, when not nil, is sent the End of each ReaderDone; a send
	// that would block is dropped, so that the relay never waits on it.
	ended chan string
}

func (r *traceRec) trace() *relay.Trace {
	return &relay.Trace{
		Lease:  func(l relay.LeaseInfo) { r.mu.Lock(); r.leases = append(r.leases, l); r.mu.Unlock() },
		Commit: func(c relay.CommitInfo) { r.mu.Lock(); r.commits = append(r.commits, c); r.mu.Unlock() },
		Reader: r.reader,
	}
}

func (r *traceRec) reader(i relay.ReaderInfo) {
	r.mu.Lock()
	r.readers = append(r.readers, i)
	r.readAt = append(r.readAt, time.Now())
	ended := r.ended
	r.mu.Unlock()
	if i.Kind == relay.ReaderDone && ended != nil {
		select {
		case ended <- i.End:
		default:
		}
	}
}

// readerEnds is the End of every ReaderDone, in order, and when each was
// told.
func (r *traceRec) readerEnds() (ends []string, at []time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, i := range r.readers {
		if i.Kind == relay.ReaderDone {
			ends, at = append(ends, i.End), append(at, r.readAt[k])
		}
	}
	return ends, at
}

// changes is the lease's changes but the renewals, in order, and the
// number of renewals.
func (r *traceRec) changes() ([]relay.LeaseInfo, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []relay.LeaseInfo
	renewed := 0
	for _, l := range r.leases {
		if l.Kind == relay.LeaseRenewed {
			renewed++
			continue
		}
		out = append(out, l)
	}
	return out, renewed
}

// appended is the entries the commits appended, and the commits that
// failed.
func (r *traceRec) appended() (entries int, failed []error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.commits {
		if c.Err != nil {
			failed = append(failed, c.Err)
			continue
		}
		entries += c.Entries
	}
	return entries, failed
}

// A stream driven by one Run from start to end: the lease is won (the
// stream started, not resumed), renewed every ttl/3 while the answer runs,
// and released; the commits the Trace is told of appended every entry of
// the log but Run's start mark (a checkpoint alone).
func TestTraceOfARunFromStartToEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		script, _ := longAnswer(20, paused(500*time.Millisecond)) // 10 s of answer
		agent := a2atest.NewAgent(a2atest.WithScript(script...))
		log, err := newMemoryStore(t).Open(t.Context(), "k")
		require.NoError(t, err)
		client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
		require.NoError(t, err)
		var rec traceRec
		err = relay.Run(t.Context(), log, "A", relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hello")),
			relay.WithLease(3*time.Second), relay.WithTrace(rec.trace()))
		require.NoError(t, err)

		changes, renewed := rec.changes()
		require.Equal(t, []relay.LeaseInfo{{Kind: relay.LeaseWon, Owner: "A"}, {Kind: relay.LeaseReleased, Owner: "A"}}, changes)
		require.GreaterOrEqual(t, renewed, 9, "a renewal a second for the 10 s of the answer")
		tail, err := log.Tail(t.Context())
		require.NoError(t, err)
		entries, failed := rec.appended()
		require.Empty(t, failed)
		require.Equal(t, int(tail), entries, "every entry of the log was told once")
	})
}

// A driver whose renewals stall past its lease loses it: its next write
// fails, and its Trace is told of the failed commit and of the lease lost;
// the replica that took the stream over is told it won the lease resuming
// the stream (a takeover), and released it at the end. Between them, the
// commits appended every entry of the log once.
func TestTraceOfATakeover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		script, _ := longAnswer(40, paused(250*time.Millisecond))
		agent := a2atest.NewAgent(a2atest.WithScript(script...), a2atest.WithStyle(a2atest.LiveOnly))
		shared, err := newMemoryStore(t).Open(t.Context(), "k")
		require.NoError(t, err)
		w := &writes{}
		a := &replicaLog{Log: shared, name: "A", w: w, renew: func() { time.Sleep(20 * time.Second) }}
		b := &replicaLog{Log: shared, name: "B", w: w}
		client, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()))
		require.NoError(t, err)
		var recA, recB traceRec
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		var wg sync.WaitGroup
		wg.Go(func() {
			require.NoError(t, relay.Run(ctx, a, "A", relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hello")),
				relay.WithTrace(recA.trace())))
		})
		wg.Go(func() {
			require.NoError(t, relay.Run(ctx, b, "B", relay.Resume(client), relay.WithTrace(recB.trace())))
		})
		wg.Wait()

		changesA, _ := recA.changes()
		require.Equal(t, []relay.LeaseInfo{{Kind: relay.LeaseWon, Owner: "A"}, {Kind: relay.LeaseLost, Owner: "A"}}, changesA)
		changesB, _ := recB.changes()
		require.Equal(t, []relay.LeaseInfo{{Kind: relay.LeaseWon, Owner: "B", Resumed: true}, {Kind: relay.LeaseReleased, Owner: "B"}}, changesB)
		entriesA, failedA := recA.appended()
		require.Len(t, failedA, 1, "A's one write after the takeover")
		require.ErrorIs(t, failedA[0], relay.ErrStale)
		entriesB, failedB := recB.appended()
		require.Empty(t, failedB)
		tail, err := shared.Tail(t.Context())
		require.NoError(t, err)
		require.Equal(t, int(tail), entriesA+entriesB)
	})
}

// A Handler's Trace is told of each browser's reader: attached after the
// Seq it resumed from, sent away with the reason, and done with the
// entries it sent and why it ended.
func TestTraceOfReaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec traceRec
		script, _ := longAnswer(12, paused(time.Millisecond))
		r := newRig(t, rigConfig{agent: []a2atest.Option{a2atest.WithScript(script...)},
			handler: []relay.HandlerOption{relay.WithTrace(rec.trace())}})
		require.NoError(t, r.wait())
		tail, err := r.log.Tail(t.Context())
		require.NoError(t, err)
		epoch := r.log.Epoch()

		whole := r.connect("").rest()
		require.Len(t, whole, int(tail))
		rest := r.connect(relay.ID{Epoch: epoch, Seq: 5}.String()).rest()
		require.Len(t, rest, int(tail)-5)
		gone := r.connect("not-an-id").rest()
		require.Equal(t, relay.EventGone, gone[0].Name)
		synctest.Wait()

		rec.mu.Lock()
		defer rec.mu.Unlock()
		require.Equal(t, []relay.ReaderInfo{
			{Kind: relay.ReaderAttached},
			{Kind: relay.ReaderDone, Sent: int(tail), End: "ended"},
			{Kind: relay.ReaderAttached, After: 5},
			{Kind: relay.ReaderDone, Sent: int(tail) - 5, End: "ended"},
			{Kind: relay.ReaderAttached},
			{Kind: relay.ReaderGone, Reason: "unparsable"},
			{Kind: relay.ReaderDone, Sent: len(gone) - 1, End: "ended"},
		}, rec.readers)
	})
}

// A browser that goes away while it follows a live stream is done with
// End "left".
func TestTraceOfAReaderThatLeaves(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rec traceRec
		script, _ := longAnswer(12, paused(time.Second))
		r := newRig(t, rigConfig{agent: []a2atest.Option{a2atest.WithScript(script...)},
			handler: []relay.HandlerOption{relay.WithTrace(rec.trace())}})
		rd := r.connect("")
		got := rd.take(2)
		rd.close()
		synctest.Wait()
		rec.mu.Lock()
		readers := append([]relay.ReaderInfo(nil), rec.readers...)
		rec.mu.Unlock()
		require.Len(t, readers, 2)
		require.Equal(t, relay.ReaderInfo{Kind: relay.ReaderAttached}, readers[0])
		require.Equal(t, relay.ReaderDone, readers[1].Kind)
		require.Equal(t, "left", readers[1].End)
		require.GreaterOrEqual(t, readers[1].Sent, len(got))
	})
}

// A nil Trace is refused by each of the three.
func TestWithTraceRefusesANilTrace(t *testing.T) {
	store := newMemoryStore(t)
	_, err := relay.NewHandler(store, func(*http.Request) (string, bool) { return "k", true }, relay.WithTrace(nil))
	require.ErrorIs(t, err, relay.ErrInvalidOption)
	log, err := store.Open(t.Context(), "k")
	require.NoError(t, err)
	client, err := stream.NewClient("http://agent.test/")
	require.NoError(t, err)
	src := relay.Send(client, a2a.NewTextMessage(a2a.RoleUser, "hello"))
	require.ErrorIs(t, relay.Run(t.Context(), log, "A", src, relay.WithTrace(nil)), relay.ErrInvalidOption)
	require.ErrorIs(t, relay.Drive(t.Context(), log, relay.Fence{}, src, relay.WithTrace(nil)), relay.ErrInvalidOption)
}
