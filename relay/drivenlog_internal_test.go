package relay

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// drivenLog returns the log "k" of a new MemoryStore, and the fence of a
// driver that holds its lease for an hour.
func drivenLog(ctx context.Context, t *testing.T) (*MemoryStore, Log, Fence) {
	t.Helper()
	st, err := NewMemoryStore()
	require.NoError(t, err)
	l, err := st.Open(ctx, "k")
	require.NoError(t, err)
	f, err := l.Acquire(ctx, "driver", time.Hour)
	require.NoError(t, err)
	return st, l, f
}
