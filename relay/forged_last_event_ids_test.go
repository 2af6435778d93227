package relay_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/relay"
)

// Stranger BC: forged Last-Event-IDs at the edges of a Seq's range are sent
// away with the reason the package doc gives, then get the whole stream, and
// the response ends; none is served as if it were a real ID.
func TestForgedLastEventIDsAtTheEdges(t *testing.T) {
	mem := newMemoryStore(t)
	w := newWriter(t, mem, "a")
	w.many(10)
	w.end()
	l := pipeRelay(t, mem, nil)
	ep := w.log.Epoch()
	for _, tc := range []struct {
		id     string
		reason string // "" for no gone event: the events after the ID
		first  uint64
	}{
		{id: ep + "-0", first: 1},
		{id: ep + "-5", first: 6},
		{id: ep + "-12", reason: "ahead"},
		{id: fmt.Sprintf("%s-%d", ep, uint64(math.MaxUint64)), reason: "ahead"},
		{id: ep + "-18446744073709551616", reason: "unparsable"},
		{id: ep + "--1", reason: "epoch"},
		{id: ep + "-+3", reason: "unparsable"},
		{id: ep + "-0x3", reason: "unparsable"},
		{id: ep + "-", reason: "unparsable"},
		{id: "-3", reason: "unparsable"},
		{id: ep, reason: "unparsable"},
		{id: ep + "-05", first: 6},
		{id: ep + "- 5", reason: "unparsable"},
		{id: "x-" + ep + "-5", reason: "epoch"},
	} {
		t.Run(url.PathEscape(tc.id), func(t *testing.T) {
			c := getSSE(t, l, "/s/a/events", tc.id)
			evs := newRawReader(t, c.resp.Body).whole()
			require.NoError(t, c.conn.Close())
			require.NotEmpty(t, evs)
			if tc.reason != "" {
				require.Equal(t, relay.EventGone, evs[0].Name, "%s", tc.id)
				var g relay.GoneData
				require.NoError(t, json.Unmarshal([]byte(evs[0].Data), &g))
				require.Equal(t, tc.reason, g.Reason, "%s", tc.id)
				evs = evs[1:]
				tc.first = 1
			}
			require.Len(t, evs, int(12-tc.first), "%s", tc.id)
			for i, e := range evs {
				require.Equal(t, w.id(tc.first+uint64(i)), e.ID, "%s", tc.id)
			}
		})
	}
}
