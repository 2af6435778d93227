package redisrelay

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/redisrelay/internal/redistest"
	"github.com/a2astream/a2astream/relay/storetest"
)

// TestStoreKeepsTheStoreRulesOnACluster runs the conformance suite through
// a ClusterClient on a one-node Redis Cluster, which refuses a script
// whose keys are not all in one slot (CROSSSLOT): each log's keys share a
// hash tag.
func TestStoreKeepsTheStoreRulesOnACluster(t *testing.T) {
	srv := redistest.Start(t, "--cluster-enabled", "yes")
	admin := srv.Client(t, nil)
	require.NoError(t, admin.Do(t.Context(), "CLUSTER", "ADDSLOTSRANGE", 0, 16383).Err())
	awaitClusterOK(t, admin)
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{srv.Addr()}})
	t.Cleanup(func() { _ = c.Close() })

	// The check is not vacuous: keys of two hash tags in one script fail.
	err := c.Eval(t.Context(), "return redis.call('MGET', KEYS[1], KEYS[2])", []string{"{a}:x", "{b}:x"}).Err()
	require.ErrorContains(t, err, "CROSSSLOT", "a script over two hash tags on the cluster")

	n := 0
	storetest.Run(t, func(t *testing.T) relay.Store {
		n++
		return newStore(t, c, WithPrefix(fmt.Sprintf("cluster-%d", n)), WithWake(testWake))
	}, storetest.Expiry(20*time.Millisecond, func(t *testing.T, l relay.Log) {
		awaitLeaseEnd(t, c, l.(*log))
	}))
}

// awaitClusterOK waits, 10 s at most, until the node says cluster_state:ok.
func awaitClusterOK(t *testing.T, c *redis.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		info, err := c.ClusterInfo(ctx).Result()
		if err == nil && strings.Contains(info, "cluster_state:ok") {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the one-node cluster is not ok after 10 s: %q, %v", info, err)
		case <-tick.C:
		}
	}
}
