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

// waitCountingStore counts the waits its logs make on the store at once.
type waitCountingStore struct {
	relay.Store
	mu            sync.Mutex
	waiting, most int
	waits         int
}

func (s *waitCountingStore) Open(ctx context.Context, key string) (relay.Log, error) {
	l, err := s.Store.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	return &waitCountingLog{Log: l, s: s}, nil
}

type waitCountingLog struct {
	relay.Log
	s *waitCountingStore
}

func (l *waitCountingLog) AwaitEntry(ctx context.Context, after uint64) error {
	l.s.mu.Lock()
	l.s.waiting++
	l.s.waits++
	l.s.most = max(l.s.most, l.s.waiting)
	l.s.mu.Unlock()
	defer func() {
		l.s.mu.Lock()
		l.s.waiting--
		l.s.mu.Unlock()
	}()
	return l.Log.AwaitEntry(ctx, after)
}

// counts returns the most waits at once and the waits in all, read under
// the lock: a wait may still be starting or ending when a test reads them.
func (s *waitCountingStore) counts() (most, waits int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.most, s.waits
}

// The readers of one stream that a Handler serves wait on the store
// together: a hundred browsers of one stream make one wait at a time,
// where each made its own (a connection each, on Redis), and every one of
// them gets every event once, in order. Readers of two streams wait apart.
func TestReadersOfALogShareOneWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		st := &waitCountingStore{Store: newMemoryStore(t)}
		fences := map[string]relay.Fence{}
		logs := map[string]relay.Log{}
		for _, k := range []string{"a", "b"} {
			l, err := st.Open(ctx, k)
			require.NoError(t, err)
			f, err := l.Acquire(ctx, "driver", time.Hour)
			require.NoError(t, err)
			require.NoError(t, l.Commit(ctx, f, nil, relay.Entry{Seq: 1, Name: relay.EventStatus, Data: []byte(`{"state":"working"}`)}))
			logs[k], fences[k] = l, f
		}
		mux := http.NewServeMux()
		mux.Handle("/s/{key}/", newHandler(t, st, func(r *http.Request) (string, bool) { return r.PathValue("key"), true }))
		client := a2atest.NewClient(mux)

		const readers = 100
		got := make(chan []string, 2*readers)
		for i := range 2 * readers {
			k := "a"
			if i%2 == 1 {
				k = "b"
			}
			go func() {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://relay.test/s/"+k+"/events", nil)
				if err != nil {
					got <- []string{err.Error()}
					return
				}
				req.Header.Set("Accept", "text/event-stream")
				got <- readIDs(client, req)
			}()
		}
		synctest.Wait() // every reader has its first event and waits
		most, _ := st.counts()
		require.Equal(t, 2, most, "one wait per stream")

		for seq := uint64(2); seq <= 5; seq++ {
			for _, k := range []string{"a", "b"} {
				require.NoError(t, logs[k].Commit(ctx, fences[k], nil, relay.Entry{Seq: seq, Name: relay.EventArtifact,
					Data: fmt.Appendf(nil, `{"pane":"artifact:x","id":"x","text":"%d","append":true}`, seq)}))
			}
			synctest.Wait()
		}
		for _, k := range []string{"a", "b"} {
			require.NoError(t, logs[k].Commit(ctx, fences[k], nil, relay.Entry{Seq: 6, Name: relay.EventEnd, Data: []byte(`{"state":"completed"}`)}))
		}
		for range 2 * readers {
			ids := <-got
			require.Len(t, ids, 6, "%v", ids)
			for i, id := range ids {
				require.Regexp(t, fmt.Sprintf(`^.+-%d$`, i+1), id)
			}
		}
		synctest.Wait() // the waits the last readers stopped have ended
		most, waits := st.counts()
		require.Equal(t, 2, most, "one wait per stream, throughout")
		// Per stream: the first wait, one after each of its five new entries,
		// and the one the last reader stopped.
		require.LessOrEqual(t, waits, 2*(1+5+1), "a wait per stream per entry, not per reader")
	})
}

// readIDs reads an event stream to its end and returns its events' IDs.
func readIDs(client *http.Client, req *http.Request) []string {
	resp, err := client.Do(req)
	if err != nil {
		return []string{err.Error()}
	}
	defer resp.Body.Close()
	dec := sse.NewDecoder(resp.Body, 1<<20)
	var ids []string
	for {
		ev, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return ids
		}
		if err != nil {
			return append(ids, err.Error())
		}
		ids = append(ids, string(ev.ID))
	}
}

// failFirstWaitStore's logs fail the first AwaitEntry of any of them, as
// a store that drops a connection in the middle of a wait does.
type failFirstWaitStore struct {
	relay.Store
	mu     sync.Mutex
	failed bool
}

func (s *failFirstWaitStore) Open(ctx context.Context, key string) (relay.Log, error) {
	l, err := s.Store.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	return &failFirstWaitLog{Log: l, s: s}, nil
}

type failFirstWaitLog struct {
	relay.Log
	s *failFirstWaitStore
}

var errWaitDropped = errors.New("the wait's connection dropped")

func (l *failFirstWaitLog) AwaitEntry(ctx context.Context, after uint64) error {
	l.s.mu.Lock()
	first := !l.s.failed
	l.s.failed = true
	l.s.mu.Unlock()
	if first {
		return errWaitDropped
	}
	return l.Log.AwaitEntry(ctx, after)
}

// When the shared wait fails (the store dropped its connection), every
// reader waiting on it is woken, reads the log again, and waits on a new
// one: none is left waiting on the failed wait, and each gets the events
// that follow.
func TestReadersOfAFailedWaitWaitAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		st := &failFirstWaitStore{Store: newMemoryStore(t)}
		l, err := st.Open(ctx, "k")
		require.NoError(t, err)
		f, err := l.Acquire(ctx, "driver", time.Hour)
		require.NoError(t, err)
		require.NoError(t, l.Commit(ctx, f, nil, relay.Entry{Seq: 1, Name: relay.EventStatus, Data: []byte(`{"state":"working"}`)}))
		mux := http.NewServeMux()
		mux.Handle("/s/{key}/", newHandler(t, st, func(*http.Request) (string, bool) { return "k", true }))
		client := a2atest.NewClient(mux)
		const readers = 10
		got := make(chan []string, readers)
		for range readers {
			go func() {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://relay.test/s/k/events", nil)
				if err != nil {
					got <- []string{err.Error()}
					return
				}
				req.Header.Set("Accept", "text/event-stream")
				got <- readIDs(client, req)
			}()
		}
		synctest.Wait()
		require.True(t, st.failed, "the first wait failed")
		require.NoError(t, l.Commit(ctx, f, nil, relay.Entry{Seq: 2, Name: relay.EventEnd, Data: []byte(`{"state":"completed"}`)}))
		for range readers {
			ids := <-got
			require.Len(t, ids, 2, "%v", ids)
		}
	})
}
