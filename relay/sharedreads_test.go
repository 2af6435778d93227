package relay_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/sse"
	"github.com/a2astream/a2astream/relay"
)

// readCountingStore counts the Reads its logs make on the store.
type readCountingStore struct {
	relay.Store
	mu    sync.Mutex
	reads int
}

func (s *readCountingStore) Open(ctx context.Context, key string) (relay.Log, error) {
	l, err := s.Store.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	return &readCountingLog{Log: l, s: s}, nil
}

func (s *readCountingStore) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads
}

func (s *readCountingStore) reset() {
	s.mu.Lock()
	s.reads = 0
	s.mu.Unlock()
}

type readCountingLog struct {
	relay.Log
	s *readCountingStore
}

func (l *readCountingLog) Read(ctx context.Context, after uint64, max int) ([]relay.Entry, error) {
	l.s.mu.Lock()
	l.s.reads++
	l.s.mu.Unlock()
	return l.Log.Read(ctx, after, max)
}

// chunkEntry is an artifact chunk at Seq seq whose text names it, tagged.
func chunkEntry(seq uint64, tag string) relay.Entry {
	return relay.Entry{Seq: seq, Name: relay.EventArtifact,
		Data: fmt.Appendf(nil, `{"pane":"artifact:x","id":"x","text":"%s%d","append":true}`, tag, seq)}
}

// readEvents reads the event stream of http://relay.test/s/k/events, from
// after lastID when it is not empty, to its end, and sends its events; a
// failure is sent as an event named "error".
func readEvents(ctx context.Context, client *http.Client, lastID string, out chan<- []event) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://relay.test/s/k/events", nil)
	if err != nil {
		out <- []event{{Name: "error", Data: []byte(err.Error())}}
		return
	}
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := client.Do(req)
	if err != nil {
		out <- []event{{Name: "error", Data: []byte(err.Error())}}
		return
	}
	defer resp.Body.Close()
	dec := sse.NewDecoder(resp.Body, 1<<20)
	var evs []event
	for {
		ev, err := dec.Next()
		if errors.Is(err, io.EOF) {
			out <- evs
			return
		}
		if err != nil {
			out <- append(evs, event{Name: "error", Data: []byte(err.Error())})
			return
		}
		evs = append(evs, event{ID: string(ev.ID), Name: ev.Type, Data: append([]byte(nil), ev.Data...)})
	}
}

// requireRun checks that evs are the entries from through to of the log
// of epoch, in order, each once, the last one the stream's end.
func requireRun(t *testing.T, evs []event, epoch string, from, to uint64) {
	t.Helper()
	require.Len(t, evs, int(to-from+1), "%v", evs)
	for i, ev := range evs {
		require.Equal(t, relay.ID{Epoch: epoch, Seq: from + uint64(i)}.String(), ev.ID)
	}
	require.Equal(t, relay.EventEnd, evs[len(evs)-1].Name)
}

// The readers of one stream that a Handler serves share its reads: when
// the log grows, the Handler reads the new entries from the store once,
// in pages, and hands them to every reader, where each read them itself.
// Fifty readers of a stream of K commits make about K reads, not 50×K,
// and each gets every event once, in order.
func TestReadersOfALogShareItsReads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		st := &readCountingStore{Store: newMemoryStore(t)}
		l, err := st.Open(ctx, "k")
		require.NoError(t, err)
		f, err := l.Acquire(ctx, "driver", time.Hour)
		require.NoError(t, err)
		require.NoError(t, l.Commit(ctx, f, nil, relay.Entry{Seq: 1, Name: relay.EventStatus, Data: []byte(`{"state":"working"}`)}))
		mux := http.NewServeMux()
		mux.Handle("/s/{key}/", newHandler(t, st, func(*http.Request) (string, bool) { return "k", true }, relay.WithPageSize(4)))
		client := a2atest.NewClient(mux)

		const readers, commits = 50, 20
		got := make(chan []event, readers)
		for range readers {
			go readEvents(ctx, client, "", got)
		}
		synctest.Wait() // every reader has its first event and waits
		st.reset()

		seq := uint64(1)
		for range commits {
			seq++
			require.NoError(t, l.Commit(ctx, f, nil, chunkEntry(seq, "")))
			synctest.Wait()
		}
		// One commit of ten entries: three pages of four.
		var es []relay.Entry
		for range 10 {
			seq++
			es = append(es, chunkEntry(seq, ""))
		}
		require.NoError(t, l.Commit(ctx, f, nil, es...))
		synctest.Wait()
		seq++
		require.NoError(t, l.Commit(ctx, f, nil, relay.Entry{Seq: seq, Name: relay.EventEnd, Data: []byte(`{"state":"completed"}`)}))
		for range readers {
			requireRun(t, <-got, l.Epoch(), 1, seq)
		}
		// A read per commit, three for the commit of ten entries.
		require.LessOrEqual(t, st.count(), commits+3+1, "reads per commit, not per reader and commit (%d)", readers*(commits+2))
	})
}

// A reader that joins late, or comes back with an old Last-Event-ID from
// before the entries the Handler holds in memory, or with one among them,
// gets every entry after its ID once, in order, as the readers that
// followed the stream live do.
func TestAReaderBehindTheOthersGetsEveryEntryOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		st := newMemoryStore(t)
		l, err := st.Open(ctx, "k")
		require.NoError(t, err)
		f, err := l.Acquire(ctx, "driver", time.Hour)
		require.NoError(t, err)
		require.NoError(t, l.Commit(ctx, f, nil, relay.Entry{Seq: 1, Name: relay.EventStatus, Data: []byte(`{"state":"working"}`)}))
		mux := http.NewServeMux()
		mux.Handle("/s/{key}/", newHandler(t, st, func(*http.Request) (string, bool) { return "k", true }, relay.WithPageSize(4)))
		client := a2atest.NewClient(mux)
		epoch := l.Epoch()

		live := make(chan []event, 3)
		for range 3 {
			go readEvents(ctx, client, "", live)
		}
		synctest.Wait()
		const last = 100 // far more than the Handler keeps: 4 pages of 4
		for seq := uint64(2); seq < last; seq++ {
			require.NoError(t, l.Commit(ctx, f, nil, chunkEntry(seq, "")))
			synctest.Wait()
		}
		late := make(chan []event, 1)
		old := make(chan []event, 1)
		recent := make(chan []event, 1)
		go readEvents(ctx, client, "", late)
		go readEvents(ctx, client, relay.ID{Epoch: epoch, Seq: 2}.String(), old)
		go readEvents(ctx, client, relay.ID{Epoch: epoch, Seq: last - 5}.String(), recent)
		synctest.Wait()
		require.NoError(t, l.Commit(ctx, f, nil, relay.Entry{Seq: last, Name: relay.EventEnd, Data: []byte(`{"state":"completed"}`)}))
		for range 3 {
			requireRun(t, <-live, epoch, 1, last)
		}
		requireRun(t, <-late, epoch, 1, last)
		requireRun(t, <-old, epoch, 3, last)
		requireRun(t, <-recent, epoch, last-4, last)
	})
}

// A log lost and made afresh under the same key is another log: its
// readers get its own entries, never those the Handler holds of the lost
// one, which its readers still get to their end. A page that comes back
// with an ID of the lost log is sent away (EventGone, reason "epoch") and
// then gets the new log's entries.
func TestReadersOfALogMadeAfreshGetItsOwnEntries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		st := newMemoryStore(t)
		old, err := st.Open(ctx, "k")
		require.NoError(t, err)
		of, err := old.Acquire(ctx, "driver", time.Hour)
		require.NoError(t, err)
		require.NoError(t, old.Commit(ctx, of, nil, relay.Entry{Seq: 1, Name: relay.EventStatus, Data: []byte(`{"state":"working"}`)}))
		mux := http.NewServeMux()
		mux.Handle("/s/{key}/", newHandler(t, st, func(*http.Request) (string, bool) { return "k", true }, relay.WithPageSize(4)))
		client := a2atest.NewClient(mux)
		oldReaders := make(chan []event, 2)
		for range 2 {
			go readEvents(ctx, client, "", oldReaders)
		}
		synctest.Wait()
		for seq := uint64(2); seq <= 4; seq++ {
			require.NoError(t, old.Commit(ctx, of, nil, chunkEntry(seq, "old")))
			synctest.Wait()
		}

		st.Delete("k") // the store lost the log
		fresh, err := st.Open(ctx, "k")
		require.NoError(t, err)
		require.NotEqual(t, old.Epoch(), fresh.Epoch())
		ff, err := fresh.Acquire(ctx, "driver", time.Hour)
		require.NoError(t, err)
		require.NoError(t, fresh.Commit(ctx, ff, []byte("cp"), relay.Entry{Seq: 1, Name: relay.EventStatus, Data: []byte(`{"state":"working"}`)}))
		newReader := make(chan []event, 1)
		comeBack := make(chan []event, 1)
		go readEvents(ctx, client, "", newReader)
		go readEvents(ctx, client, relay.ID{Epoch: old.Epoch(), Seq: 4}.String(), comeBack)
		synctest.Wait()
		for seq := uint64(2); seq <= 4; seq++ {
			require.NoError(t, fresh.Commit(ctx, ff, nil, chunkEntry(seq, "new")))
			synctest.Wait()
		}
		require.NoError(t, fresh.Commit(ctx, ff, nil, relay.Entry{Seq: 5, Name: relay.EventEnd, Data: []byte(`{"state":"completed"}`)}))
		require.NoError(t, old.Commit(ctx, of, nil, relay.Entry{Seq: 5, Name: relay.EventEnd, Data: []byte(`{"state":"completed"}`)}))

		requireTagged := func(evs []event, epoch, tag string) {
			t.Helper()
			requireRun(t, evs, epoch, 1, 5)
			for _, ev := range evs[1:4] {
				require.Contains(t, string(ev.Data), `"text":"`+tag, "%s", ev.Data)
			}
		}
		requireTagged(<-newReader, fresh.Epoch(), "new")
		back := <-comeBack
		require.NotEmpty(t, back)
		require.Equal(t, relay.EventGone, back[0].Name)
		require.Contains(t, string(back[0].Data), `"reason":"epoch"`)
		requireTagged(back[1:], fresh.Epoch(), "new")
		for range 2 {
			requireTagged(<-oldReaders, old.Epoch(), "old")
		}
	})
}
