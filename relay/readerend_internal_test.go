package relay

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// Why a response of events ended, as a Trace is told: a write that outran
// the write timeout is the write's even though net/http ended the
// request's context for it; a write that failed because the browser went
// away is the browser's leaving.
func TestReaderEnd(t *testing.T) {
	timeout := fmt.Errorf("write tcp: %w", os.ErrDeadlineExceeded)
	reset := fmt.Errorf("write tcp: %w", syscall.ECONNRESET)
	for _, c := range []struct {
		name    string
		end     string
		werr    error
		ctxDone bool
		want    string
	}{
		{"the stream ended", endEnded, nil, false, endEnded},
		{"the stream ended, the browser gone since", endEnded, nil, true, endEnded},
		{"the store failed", endStore, nil, false, endStore},
		{"nothing said: the browser left", "", nil, true, endLeft},
		{"a write outran the timeout", endWrite, timeout, false, endWrite},
		{"a write outran the timeout, and net/http ended the context", endWrite, timeout, true, endWrite},
		{"a write failed as the browser went away", endWrite, reset, true, endLeft},
		{"a write failed, the browser still there", endWrite, reset, false, endWrite},
		{"a write failed with no error kept", endWrite, nil, true, endLeft},
		{"some other error", endWrite, errors.New("short write"), false, endWrite},
	} {
		require.Equal(t, c.want, readerEnd(c.end, c.werr, c.ctxDone), c.name)
	}
}
