package interop_test

// Sends made again, against the retry peer (peers/retry) through the
// cutting proxy, on every wire: a send whose dial was refused (the agent
// was down) is made again when the agent is back, and the agent receives it
// once; a send the agent answered "busy" is made again, with the same
// message ID, only for a caller who said the agent deduplicates sends
// (stream.WithIdempotentSends).

import (
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/interop/proxy"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/transport"
)

// sentIDs returns the message IDs of the sends the proxy saw.
func sentIDs(px *proxy.Proxy) []string {
	var ids []string
	for _, r := range px.Requests() {
		if r.Kind == proxy.Send {
			ids = append(ids, r.MessageID)
		}
	}
	return ids
}

func TestSendRefusedAtDialIsSentAgainWhenTheAgentComesBack(t *testing.T) {
	// The proxy stops listening once the client has read the card, and
	// listens again at the first Reconnecting notice: the send's dial is
	// refused, and the send made again reaches the agent.
	eachWire(t, nil, func(t *testing.T, w wire, p *peer) {
		sc := scenarioNamed(t, "stream")
		got, rl := run(t, p, sc, faults{down: true})
		logRun(t, rl)
		require.Equal(t, withText(sc.want), got)
		checkSends(t, rl.px, sc)
		require.Equal(t, sentIDs(rl.px), p.counts(t).Sends, "the agent received the one send the proxy forwarded")
		require.Len(t, rl.notices, 2)
		require.Equal(t, stream.Reconnecting, rl.notices[0].Kind)
		require.Equal(t, reconnectBackoff, rl.notices[0].Wait)
		require.ErrorIs(t, rl.notices[0].Cause, syscall.ECONNREFUSED)
		require.Equal(t, stream.Resumed, rl.notices[1].Kind)
	})
}

// busyWait is the wait after the retry peer's busy answer on wire w: the
// delay of the retryable error over JSON-RPC; over HTTP+JSON the longer of
// the body's and the Retry-After header's, which counts whole seconds.
func busyWait(w wire) time.Duration {
	if w.b == a2a.BindingHTTPJSON {
		return max(retryDelay(w), time.Second)
	}
	return retryDelay(w)
}

func TestBusySendIsSentAgainWithIdempotentSends(t *testing.T) {
	eachWire(t, []string{"-busy", "1"}, func(t *testing.T, w wire, p *peer) {
		sc := scenarioNamed(t, "stream")
		got, rl := run(t, p, sc, faults{client: []stream.Option{stream.WithIdempotentSends()}})
		logRun(t, rl)
		require.Equal(t, withText(sc.want), got)
		ids := sentIDs(rl.px)
		require.Len(t, ids, 2)
		require.NotEmpty(t, ids[0])
		require.Equal(t, ids[0], ids[1], "the same message, sent again")
		require.Equal(t, ids, p.counts(t).Sends, "the agent received both sends")
		require.Len(t, rl.notices, 2)
		require.Equal(t, stream.Reconnecting, rl.notices[0].Kind)
		require.Equal(t, busyWait(w), rl.notices[0].Wait)
		require.Equal(t, stream.Resumed, rl.notices[1].Kind)
	})
}

func TestBusySendsSpendTheBudget(t *testing.T) {
	// Busy five times: the send and three more (MaxAttempts 3), all with
	// the same message ID, then the stream ends.
	eachWire(t, []string{"-busy", "5"}, func(t *testing.T, w wire, p *peer) {
		sc := scenarioNamed(t, "stream")
		_, rl := run(t, p, sc, faults{client: []stream.Option{stream.WithIdempotentSends()}})
		logRun(t, rl)
		var re *reconnect.Error
		require.ErrorAs(t, rl.err, &re)
		require.Equal(t, 3, re.Attempts)
		ids := sentIDs(rl.px)
		require.Len(t, ids, 4)
		require.Equal(t, []string{ids[0], ids[0], ids[0], ids[0]}, ids)
		require.Equal(t, ids, p.counts(t).Sends)
		require.Len(t, rl.notices, 3)
		for _, n := range rl.notices {
			require.Equal(t, stream.Reconnecting, n.Kind)
			require.Equal(t, busyWait(w), n.Wait)
		}
	})
}

func TestBusySendIsNotSentAgainByDefault(t *testing.T) {
	eachWire(t, []string{"-busy", "1"}, func(t *testing.T, w wire, p *peer) {
		sc := scenarioNamed(t, "stream")
		_, rl := run(t, p, sc, faults{})
		logRun(t, rl)
		require.Error(t, rl.err)
		require.Len(t, sentIDs(rl.px), 1)
		require.Equal(t, sentIDs(rl.px), p.counts(t).Sends, "the agent may have taken the message: it is not sent again")
		require.Empty(t, rl.notices)
		if w.b == a2a.BindingHTTPJSON {
			var httpErr *transport.HTTPError
			require.ErrorAs(t, rl.err, &httpErr)
			require.Equal(t, http.StatusServiceUnavailable, httpErr.StatusCode)
			after, ok := httpErr.RetryAfter()
			require.True(t, ok)
			require.Equal(t, time.Second, after)
			return
		}
		var rpcErr *a2a.RPCError
		require.ErrorAs(t, rl.err, &rpcErr)
		require.Equal(t, a2a.CodeInternalError, rpcErr.Code)
		require.True(t, rpcErr.Retryable())
		require.Equal(t, retryDelay(w), rpcErr.RetryAfter())
	})
}
