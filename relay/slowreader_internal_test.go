package relay

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"
)

// browser is the ResponseWriter of one reader, served in the process: it
// keeps the Seqs of the events written, and blocks every write once stalled, until
// released, as a connection whose browser stopped reading does.
type browser struct {
	hd      http.Header
	mu      sync.Mutex
	seen    []string
	stalled bool
	release chan struct{}
	once    sync.Once
}

func newBrowser() *browser { return &browser{hd: http.Header{}, release: make(chan struct{})} }

func (b *browser) Header() http.Header { return b.hd }
func (b *browser) WriteHeader(int)     {}
func (b *browser) Flush()              {}

func (b *browser) Write(p []byte) (int, error) {
	b.mu.Lock()
	stalled := b.stalled
	b.mu.Unlock()
	if stalled {
		<-b.release
	}
	for line := range bytes.Lines(p) { // a write holds a page of events: "id: <epoch>-<seq>\nevent: ...\n\n..."
		if id, ok := bytes.CutPrefix(line, []byte("id: ")); ok {
			id = bytes.TrimSuffix(id, []byte("\n"))
			b.mu.Lock()
			b.seen = append(b.seen, string(id[bytes.LastIndexByte(id, '-')+1:]))
			b.mu.Unlock()
		}
	}
	return len(p), nil
}

// unstall releases the writes blocked, and those to come.
func (b *browser) unstall() { b.once.Do(func() { close(b.release) }) }

func (b *browser) stall() {
	b.mu.Lock()
	b.stalled = true
	b.mu.Unlock()
}

// seqs returns the Seqs of the events written, in order.
func (b *browser) seqs() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.seen)
}

// windowState is what h keeps in memory for its readers: the bytes of
// every window, and the most entries one holds.
func windowState(h *Handler) (bytes, most, logs int) {
	h.waits.mu.Lock()
	defer h.waits.mu.Unlock()
	for _, w := range h.waits.m {
		most = max(most, len(w.win.entries))
	}
	return h.waits.bytes, most, len(h.waits.m)
}

// A reader whose browser stopped reading holds no other reader back: they
// get every entry as it comes, while the Handler keeps at most its bound
// of entries in memory for them, in entries and in bytes, however far
// behind the stalled one falls. Released, the stalled reader gets every
// entry once, from the store. When the last reader leaves, the Handler
// keeps nothing.
func TestAStalledReaderHoldsNoOtherBackNorGrowsMemory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		st, l, f := drivenLog(ctx, t)
		require.NoError(t, l.Commit(ctx, f, nil, Entry{Seq: 1, Name: EventStatus, Data: []byte(`{"state":"working"}`)}))
		const page = 4
		h, err := NewHandler(st, func(*http.Request) (string, bool) { return "k", true }, WithPageSize(page))
		require.NoError(t, err)

		var wg sync.WaitGroup
		serve := func(b *browser) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://relay.test/s/k/events", nil)
			require.NoError(t, err)
			wg.Go(func() { h.ServeHTTP(b, req) })
		}
		slow := newBrowser()
		t.Cleanup(slow.unstall) // also when the test fails
		serve(slow)
		others := make([]*browser, 5)
		for i := range others {
			others[i] = newBrowser()
			serve(others[i])
		}
		synctest.Wait() // every reader has its first event and waits
		slow.stall()

		// Entries of 100 KiB: the byte bound (1 MiB) holds fewer than
		// the entry bound (4 pages).
		text := strings.Repeat("x", 100<<10)
		const last = 60
		for seq := uint64(2); seq < last; seq++ {
			require.NoError(t, l.Commit(ctx, f, nil, Entry{Seq: seq, Name: EventArtifact,
				Data: fmt.Appendf(nil, `{"pane":"artifact:x","id":"x","text":"%s","append":true}`, text)}))
			synctest.Wait()
			for _, b := range others {
				require.Len(t, b.seqs(), int(seq), "a reader that reads has every entry at once")
			}
			bytes, most, logs := windowState(h)
			require.Equal(t, 1, logs)
			require.LessOrEqual(t, bytes, windowBytes)
			require.LessOrEqual(t, most, windowPages*page)
			require.Greater(t, most, 0, "the window holds the newest entries")
		}
		require.NoError(t, l.Commit(ctx, f, nil, Entry{Seq: last, Name: EventEnd, Data: []byte(`{"state":"completed"}`)}))
		synctest.Wait()
		want := make([]string, last)
		for i := range want {
			want[i] = fmt.Sprint(i + 1)
		}
		for _, b := range others {
			require.Equal(t, want, b.seqs())
		}
		_, _, logs := windowState(h)
		require.Equal(t, 1, logs, "the stalled reader still follows the log")
		slow.unstall()
		wg.Wait()
		require.Equal(t, want, slow.seqs(), "released, the stalled reader gets every entry once")
		bytes, _, logs := windowState(h)
		require.Zero(t, logs, "no reader left: no waiter")
		require.Zero(t, bytes, "no reader left: no window")
	})
}
