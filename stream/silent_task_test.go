package stream_test

// A subscription that stays silent past the idle timeout while get-task
// says the task is working costs no reconnect attempt: the agent is alive,
// only quiet. The stall limit bounds it, so that a server that never
// finishes cannot hold the caller forever.

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// silentAgent streams a working task and then stays silent, as does every
// subscription (a live-only server whose agent writes nothing), until done
// says the task is finished; get-task shows the task working until then.
func silentAgent(w wire, done func() bool) *wireAgent {
	silent := func(ww *wireWriter, c wireCall) {
		<-c.ctx.Done()
	}
	return newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
		kindStream: func(ww *wireWriter, c wireCall) {
			ww.sse()
			ww.event(snap(a2a.StateWorking, "one"))
			silent(ww, c)
		},
		kindSubscribe: func(ww *wireWriter, c wireCall) {
			if done() {
				ww.sse()
				ww.event(snap(a2a.StateCompleted, "one", " two"))
				return
			}
			silent(ww, c)
		},
		kindGet: func(ww *wireWriter, _ wireCall) {
			if done() {
				ww.task(snap(a2a.StateCompleted, "one", " two"))
				return
			}
			ww.task(snap(a2a.StateWorking, "one"))
		},
	})
}

func TestSilentWorkingTaskDoesNotSpendTheBudget(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				a := silentAgent(w, func() bool { return time.Since(start) >= 3*time.Minute })
				c := a.client(t, stream.WithIdleTimeout(10*time.Second), stream.WithReconnect(reconnect.Policy{MaxAttempts: 2}))
				got, err := drain(t, c.Send(background(), hello()))
				require.NoError(t, err)
				require.Equal(t, "one two", got.text("a1"))
				require.Greater(t, a.count(kindGet), 2, "more quiet cycles than the budget has attempts")
			})
		})
	}
}

func TestSilentWorkingTaskStallsAfterTheStallTimeout(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := silentAgent(w, func() bool { return false })
				start := time.Now()
				c := a.client(t, stream.WithIdleTimeout(10*time.Second), stream.WithStallTimeout(time.Minute))
				_, err := drain(t, c.Send(background(), hello()))
				var stalled *stream.StalledError
				require.ErrorAs(t, err, &stalled)
				require.Equal(t, time.Minute, stalled.After)
				require.Equal(t, a2a.StateWorking, stalled.Task.Status.State)
				var re *reconnect.Error
				require.False(t, errors.As(err, &re), "not a spent budget: %v", err)
				// The send's leg goes silent at 0 and is cut at 10 s; each
				// cycle then waits the backoff (500 ms), subscribes, is cut
				// 10 s later and fetches the task. The first fetch at or past
				// one minute of nothing new ends the stream.
				elapsed := time.Since(start)
				require.GreaterOrEqual(t, elapsed, time.Minute)
				require.Equal(t, 10*time.Second+5*(backoff+10*time.Second), elapsed)
			})
		})
	}
}
