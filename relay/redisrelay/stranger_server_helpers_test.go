package redisrelay_test

// The helpers of a stranger's red team of the store's waits: a redis-server of
// the test's own, and a driver that commits entries. They use only the public
// API of relay and redisrelay (and the package's test servers).

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay/internal/redistest"
)

// startStrangerRedis starts a redis-server of the test's own that writes
// every change to its append-only file before it answers, and takes DEBUG
// commands; extra adds arguments (later ones win).
func startStrangerRedis(t *testing.T, extra ...string) *redistest.Server {
	t.Helper()
	return redistest.Start(t, append([]string{"--appendonly", "yes", "--appendfsync", "always", "--enable-debug-command", "yes"}, extra...)...)
}

// strangerDriver commits entries to one log under its own lease.
type strangerDriver struct {
	log   relay.Log
	fence relay.Fence
	seq   uint64
}

func newStrangerDriver(t *testing.T, ctx context.Context, st relay.Store, key string) *strangerDriver {
	t.Helper()
	l, err := st.Open(ctx, key)
	require.NoError(t, err)
	f, err := l.Acquire(ctx, "stranger", time.Hour)
	require.NoError(t, err)
	return &strangerDriver{log: l, fence: f}
}

// commit appends one message entry whose text is its seq.
func (d *strangerDriver) commit(ctx context.Context) error {
	e := relay.Entry{Seq: d.seq + 1, Name: relay.EventMessage,
		Data: fmt.Appendf(nil, `{"pane":"message:m","kind":"message","text":"%d","append":true}`, d.seq+1)}
	err := d.log.Commit(ctx, d.fence, nil, e)
	if err == nil {
		d.seq++
	}
	return err
}
