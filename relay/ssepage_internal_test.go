package relay

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"
)

// countingBrowser is a browser that counts the Writes it was handed.
type countingBrowser struct {
	*browser
	mu     sync.Mutex
	writes int
}

func (b *countingBrowser) Write(p []byte) (int, error) {
	b.mu.Lock()
	b.writes++
	b.mu.Unlock()
	return b.browser.Write(p)
}

// A page of entries reaches the browser's connection in one Write, however
// many events it holds and however many lines their data has: the
// ResponseWriter's locks and buffers, and the kernel's write calls, are
// paid once a page, not five times an event. Every event is there, in
// order.
func TestAPageGoesOutInOneWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		st, l, f := drivenLog(ctx, t)
		const page = 8
		for seq := uint64(1); seq < 2*page; seq++ {
			require.NoError(t, l.Commit(ctx, f, nil, Entry{Seq: seq, Name: EventArtifact,
				Data: fmt.Appendf(nil, "{\"pane\":\"artifact:x\",\n\"text\":\"%d\"}", seq)}))
		}
		require.NoError(t, l.Commit(ctx, f, nil, Entry{Seq: 2 * page, Name: EventEnd, Data: []byte(`{"state":"completed"}`)}))
		h, err := NewHandler(st, func(*http.Request) (string, bool) { return "k", true }, WithPageSize(page))
		require.NoError(t, err)
		b := &countingBrowser{browser: newBrowser()}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://relay.test/s/k/events", nil)
		require.NoError(t, err)
		h.ServeHTTP(b, req)

		want := make([]string, 2*page)
		for i := range want {
			want[i] = fmt.Sprint(i + 1)
		}
		require.Equal(t, want, b.seqs())
		require.Equal(t, 3, b.writes, "the comment that opens the stream, then one Write for each of the two pages")
	})
}
