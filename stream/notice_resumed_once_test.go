package stream_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// One drop, one Resumed: against a live-only server whose task ended in the
// gap (a2a-go answers the resubscribe with -32001), the resubscribe's
// response opens, then the get-task its error asks for answers; both end the
// same attempt, and a UI that prints "resumed" at each Resumed printed it
// twice (stranger BE, against a2a-go v0.3.3 too).
func TestOneDropTellsResumedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(
			a2atest.WithVersions(a2a.V03),
			a2atest.WithStyle(a2atest.LiveOnly),
			a2atest.WithScript(
				a2atest.Working(""),
				a2atest.Chunk("a1", "one ", false, false),
				a2atest.Pause(100*time.Millisecond),
				a2atest.Chunk("a1", "two", true, true),
				a2atest.Finish(a2a.StateCompleted, ""),
			),
			a2atest.WithFaults(a2atest.CutAfterEvents(3)),
		)
		var kinds []stream.NoticeKind
		c, err := stream.NewClient("http://agent.test/", stream.WithHTTPClient(agent.Client()), stream.WithVersion(a2a.V03),
			stream.WithReconnect(reconnect.Policy{Backoff: 500 * time.Millisecond}),
			stream.WithNotify(func(n stream.Notice) { kinds = append(kinds, n.Kind) }))
		require.NoError(t, err)
		tk, err := c.Send(t.Context(), a2a.NewTextMessage(a2a.RoleUser, "x")).Wait()
		require.NoError(t, err)
		require.Equal(t, "one two", tk.Artifact("a1").Text())
		var methods []string
		for _, r := range agent.Requests() {
			methods = append(methods, r.Method)
		}
		require.Equal(t, []string{"message/stream", "tasks/resubscribe", "tasks/get"}, methods, "the path this test is about")
		require.Equal(t, []stream.NoticeKind{stream.Reconnecting, stream.Resumed}, kinds)
	})
}
