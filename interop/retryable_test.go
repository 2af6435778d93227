package interop_test

// Errors a real server marks as retryable (A2A 0.3's JSON-RPC error data
// {"retryable":true,"retryAfter":N}, 1.0's google.rpc.RetryInfo), from the
// retry peer (peers/retry: the a2a-js peers cannot emit them), through the
// cutting proxy, on every wire: on a resubscribe after a cut, on a get-task,
// on a poll and inside a stream, each is a failed attempt that waits the
// delay the server asked for, and the run ends exactly as the uncut stream
// scenario does, with the message sent once.

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/interop/proxy"
	"github.com/a2astream/a2astream/stream"
)

// eachWire runs f as a parallel subtest per wire, with a retry peer of that
// wire started with flags.
func eachWire(t *testing.T, flags []string, f func(t *testing.T, w wire, p *peer)) {
	for _, w := range wires {
		t.Run(w.String(), func(t *testing.T) {
			t.Parallel()
			p := startPeer(t, retryPeer(w, flags...))
			if p == nil {
				t.Fatal(errNotStarted)
			}
			f(t, w, p)
		})
	}
}

// scenarioNamed returns the scenario of that name.
func scenarioNamed(t *testing.T, name string) scenario {
	t.Helper()
	for _, sc := range scenarios {
		if sc.name == name {
			return sc
		}
	}
	t.Fatalf("no scenario %q", name)
	return scenario{}
}

// noticeLog renders a run's notices for the failure log, "kind wait" each.
func noticeLog(ns []stream.Notice) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Kind.String()+" "+n.Wait.String())
	}
	return out
}

// logRun logs a run's notices and requests when the test fails.
func logRun(t *testing.T, rl *runLog) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("notices: %q; err: %v\nrequests:\n%s", noticeLog(rl.notices), rl.err, requestLog(rl.px))
		}
	})
}

// requireRetryable checks that a notice is a reconnect caused by the retry
// peer's retryable error on wire w, waiting the delay it asked for.
func requireRetryable(t *testing.T, w wire, n stream.Notice) {
	t.Helper()
	require.Equal(t, stream.Reconnecting, n.Kind)
	require.Equal(t, retryDelay(w), n.Wait, "the wait is the server's delay, longer than the backoff")
	var rpcErr *a2a.RPCError
	require.ErrorAs(t, n.Cause, &rpcErr)
	require.Equal(t, a2a.CodeInternalError, rpcErr.Code)
	require.True(t, rpcErr.Retryable())
	require.Equal(t, retryDelay(w), rpcErr.RetryAfter())
}

func TestRetryableErrorOnSubscribeAfterACutWaitsTheDelayAndGoesOn(t *testing.T) {
	// The first subscribe is answered with the retryable error: as a JSON
	// body, or as the first event of an SSE stream.
	for _, how := range []struct {
		name  string
		flags []string
	}{
		{"body", []string{"-subscribe-errors", "1"}},
		{"event", []string{"-subscribe-errors", "1", "-errors-in-stream"}},
	} {
		t.Run(how.name, func(t *testing.T) {
			eachWire(t, how.flags, func(t *testing.T, w wire, p *peer) {
				sc := scenarioNamed(t, "stream")
				got, rl := run(t, p, sc, faults{plan: []proxy.Fault{cut(2, 0)}})
				logRun(t, rl)
				require.Equal(t, withText(sc.want), got)
				require.True(t, rl.px.Records()[0].Fired, "the cut fired")
				checkSends(t, rl.px, sc)
				c := p.counts(t)
				require.Len(t, c.Sends, 1)
				require.Equal(t, 2, c.Subscribes, "the first subscribe was answered with the retryable error, the second served")
				// A subscribe answered 200 says Resumed as its stream opens,
				// before the error event comes: the "event" runs have one
				// Resumed more. The reconnects are the same.
				re := reconnects(rl.notices)
				require.Len(t, re, 2)
				require.Equal(t, reconnectBackoff, re[0].Wait, "the cut waits the backoff")
				requireRetryable(t, w, re[1])
				require.Equal(t, stream.Resumed, rl.notices[len(rl.notices)-1].Kind)
			})
		})
	}
}

func TestRetryableErrorOnGetTaskIsAFailedAttempt(t *testing.T) {
	// Every subscribe is refused (task-not-found: no live stream), so the
	// stream reads the task with get-task; the first get-task is answered
	// with the retryable error.
	eachWire(t, []string{"-subscribe-refuse", "-get-errors", "1"}, func(t *testing.T, w wire, p *peer) {
		sc := scenarioNamed(t, "stream")
		got, rl := run(t, p, sc, faults{plan: []proxy.Fault{cut(2, 0)}})
		logRun(t, rl)
		require.Equal(t, withText(sc.want), got)
		require.True(t, rl.px.Records()[0].Fired, "the cut fired")
		checkSends(t, rl.px, sc)
		c := p.counts(t)
		require.Len(t, c.Sends, 1)
		require.GreaterOrEqual(t, c.Gets, 2, "the get-task answered with the error, and one after it")
		// The get-task that failed is an attempt like a failed subscribe:
		// after the wait the stream subscribes again, is refused again, and
		// reads the task.
		kinds := requestKinds(rl.px)
		require.GreaterOrEqual(t, len(kinds), 6)
		require.Equal(t, []proxy.Kind{proxy.Card, proxy.Send, proxy.Subscribe, proxy.Poll, proxy.Subscribe, proxy.Poll}, kinds[:6])
		require.GreaterOrEqual(t, len(rl.notices), 3)
		require.Equal(t, stream.Reconnecting, rl.notices[0].Kind)
		require.Equal(t, reconnectBackoff, rl.notices[0].Wait, "the cut waits the backoff")
		requireRetryable(t, w, rl.notices[1])
		require.Equal(t, stream.Resumed, rl.notices[2].Kind)
	})
}

func TestRetryableErrorOnAPollIsAFailedAttempt(t *testing.T) {
	// The card says the agent cannot stream: the stream sends unary and
	// polls; the first poll is answered with the retryable error.
	eachWire(t, []string{"-no-streaming", "-get-errors", "1"}, func(t *testing.T, w wire, p *peer) {
		sc := scenarioNamed(t, "stream")
		got, rl := run(t, p, sc, faults{})
		logRun(t, rl)
		require.Equal(t, withText(sc.want), got)
		checkSends(t, rl.px, sc)
		c := p.counts(t)
		require.Len(t, c.Sends, 1)
		require.Zero(t, c.Subscribes)
		require.GreaterOrEqual(t, c.Gets, 2, "the poll answered with the error, and one after it")
		require.GreaterOrEqual(t, len(rl.notices), 3)
		require.Equal(t, stream.Polling, rl.notices[0].Kind)
		requireRetryable(t, w, rl.notices[1])
		require.Equal(t, stream.Resumed, rl.notices[2].Kind)
	})
}

func TestRetryableErrorInsideAStreamResubscribes(t *testing.T) {
	// The first stream sends three events, then the retryable error. Events
	// 300 ms apart leave the task running well past the resubscribe, even
	// on a loaded machine: a task that ended before it would be fetched.
	eachWire(t, []string{"-stream-error-at", "3", "-delay", "300ms"}, func(t *testing.T, w wire, p *peer) {
		sc := scenarioNamed(t, "stream")
		got, rl := run(t, p, sc, faults{})
		logRun(t, rl)
		require.Equal(t, withText(sc.want), got)
		checkSends(t, rl.px, sc)
		c := p.counts(t)
		require.Len(t, c.Sends, 1)
		require.Equal(t, 1, c.Subscribes)
		require.Zero(t, c.Gets, "a retryable error is a drop: the stream subscribes again, it does not ask whether the task ended")
		require.Len(t, rl.notices, 2)
		requireRetryable(t, w, rl.notices[0])
		require.Equal(t, stream.Resumed, rl.notices[1].Kind)
	})
}

// reconnects returns the Reconnecting notices of ns.
func reconnects(ns []stream.Notice) []stream.Notice {
	var out []stream.Notice
	for _, n := range ns {
		if n.Kind == stream.Reconnecting {
			out = append(out, n)
		}
	}
	return out
}

// requestKinds returns the kinds of the requests the proxy saw, in order.
func requestKinds(px *proxy.Proxy) []proxy.Kind {
	var out []proxy.Kind
	for _, r := range px.Requests() {
		out = append(out, r.Kind)
	}
	return out
}
