package relay_test

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
)

// EventSource fires an event named "error" of its own when its connection
// fails: a relay event of that name would reach the same listeners, and
// every page would have to tell them apart by their data. A stream that
// ends in an error ends with an event named "failure"; no relay event is
// named "error", nor "open", the other event EventSource fires of its
// own.
func TestNoRelayEventIsNamedLikeEventSourcesOwnEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, rigConfig{agent: []a2atest.Option{a2atest.WithScript(a2atest.Working(""), a2atest.Finish(a2a.StateFailed, "out of paper"))}})
		evs := r.connect("").rest()
		require.NoError(t, r.wait())
		for _, ev := range evs {
			require.NotContains(t, []string{"error", "open"}, strings.ToLower(ev.Name))
		}
		require.Equal(t, "failure", evs[len(evs)-1].Name)
	})
}
