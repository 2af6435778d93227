package agentcard_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/agentcard"
)

// An extended card is kept per endpoint and per credentials: another
// caller's headers, none, or another endpoint never get it; the order and
// case of header names do not matter, their values do; and it is given
// only under the public card it was kept with.
func TestExtendedCardsKeyedByCredentials(t *testing.T) {
	cache := agentcard.NewCache()
	public := &a2a.AgentCard{Name: "agent"}
	alice := &a2a.AgentCard{Name: "agent for alice"}
	bob := &a2a.AgentCard{Name: "agent for bob"}
	const endpoint = "https://agent.example/rpc"
	aliceH := http.Header{"Authorization": {"Bearer alice"}, "X-Tenant": {"t1"}}
	cache.KeepExtended(public, endpoint, aliceH, alice)
	cache.KeepExtended(public, endpoint, http.Header{"Authorization": {"Bearer bob"}}, bob)

	require.Same(t, alice, cache.Extended(public, endpoint, http.Header{"x-tenant": {"t1"}, "authorization": {"Bearer alice"}}))
	require.Same(t, bob, cache.Extended(public, endpoint, http.Header{"Authorization": {"Bearer bob"}}))
	for name, h := range map[string]http.Header{
		"no headers":         nil,
		"another token":      {"Authorization": {"Bearer mallory"}},
		"alice's token only": {"Authorization": {"Bearer alice"}},
		"another value":      {"Authorization": {"Bearer alice"}, "X-Tenant": {"t2"}},
		"one more value":     {"Authorization": {"Bearer alice", "Bearer bob"}, "X-Tenant": {"t1"}},
	} {
		require.Nil(t, cache.Extended(public, endpoint, h), name)
	}
	require.Nil(t, cache.Extended(public, "https://agent.example/other", aliceH), "another endpoint")
	require.Nil(t, cache.Extended(&a2a.AgentCard{Name: "agent"}, endpoint, aliceH), "another public card: asked for again")

	var none *agentcard.Cache
	none.KeepExtended(public, endpoint, aliceH, alice)
	require.Nil(t, none.Extended(public, endpoint, aliceH))
}

// A cache keeps 256 extended cards at most, dropping the one kept longest.
func TestExtendedCardsBounded(t *testing.T) {
	cache := agentcard.NewCache()
	public := &a2a.AgentCard{Name: "agent"}
	header := func(i int) http.Header { return http.Header{"Authorization": {fmt.Sprint("Bearer ", i)}} }
	for i := range 257 {
		cache.KeepExtended(public, "https://agent.example/", header(i), &a2a.AgentCard{Name: fmt.Sprint(i)})
	}
	require.Nil(t, cache.Extended(public, "https://agent.example/", header(0)), "the first kept went")
	for _, i := range []int{1, 128, 256} {
		got := cache.Extended(public, "https://agent.example/", header(i))
		require.NotNil(t, got, i)
		require.Equal(t, fmt.Sprint(i), got.Name)
	}
}
