package relay

import (
	"bytes"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

// steadyBrowser takes 32 bytes a millisecond, steadily: a Write takes as
// long as its bytes need, and fails as a connection's would when it
// outruns the write deadline.
type steadyBrowser struct {
	hd       http.Header
	mu       sync.Mutex
	deadline time.Time
	body     bytes.Buffer
	writes   []int
}

func (b *steadyBrowser) Header() http.Header { return b.hd }
func (b *steadyBrowser) WriteHeader(int)     {}
func (b *steadyBrowser) FlushError() error   { return nil }

func (b *steadyBrowser) SetWriteDeadline(t time.Time) error {
	b.mu.Lock()
	b.deadline = t
	b.mu.Unlock()
	return nil
}

func (b *steadyBrowser) Write(p []byte) (int, error) {
	b.mu.Lock()
	deadline := b.deadline
	b.writes = append(b.writes, len(p))
	b.mu.Unlock()
	took := time.Duration(len(p)) * time.Millisecond / 32
	if !deadline.IsZero() && time.Now().Add(took).After(deadline) {
		time.Sleep(time.Until(deadline))
		return 0, os.ErrDeadlineExceeded
	}
	time.Sleep(took)
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.body.Write(p)
}

// A browser that reads slowly but steadily gets the whole stream: the
// write timeout bounds each 32 KiB written (a piece of a page), not a
// page of big entries, which it takes longer than the timeout to read.
func TestASlowButSteadyBrowserIsNotCut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		st, l, f := drivenLog(ctx, t)
		text := strings.Repeat("x", 12<<10)
		const entries = 17 // two pages of 8 entries of 12 KiB, and the end
		for seq := uint64(1); seq < entries; seq++ {
			require.NoError(t, l.Commit(ctx, f, nil, Entry{Seq: seq, Name: EventArtifact,
				Data: []byte(`{"pane":"artifact:x","text":"` + text + `"}`)}))
		}
		require.NoError(t, l.Commit(ctx, f, nil, Entry{Seq: entries, Name: EventEnd, Data: []byte(`{"state":"completed"}`)}))
		// A page is 96 KiB, 3 s of the browser's reading; 32 KiB is 1 s.
		h, err := NewHandler(st, func(*http.Request) (string, bool) { return "k", true }, WithPageSize(8), WithWriteTimeout(1500*time.Millisecond))
		require.NoError(t, err)
		b := &steadyBrowser{hd: http.Header{}}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://relay.test/s/k/events", nil)
		require.NoError(t, err)
		h.ServeHTTP(b, req)

		require.Equal(t, entries, strings.Count(b.body.String(), "\nevent: "), "every event, the end included")
		require.Contains(t, b.body.String(), "event: end")
		for _, n := range b.writes {
			require.LessOrEqual(t, n, writePiece, "a write's size")
		}
	})
}
