package relay_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/push"
	"github.com/a2astream/a2astream/relay"
	"github.com/a2astream/a2astream/relay/storetest"
)

// TestMemoryStoreIsAShare runs the push.Share conformance suite on a
// MemoryStore, both views the same store.
func TestMemoryStoreIsAShare(t *testing.T) {
	storetest.RunShare(t, func(t *testing.T) (push.Share, push.Share) {
		st, err := relay.NewMemoryStore()
		require.NoError(t, err)
		return st, st
	})
}
