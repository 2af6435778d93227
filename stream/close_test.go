package stream_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/a2atest"
	"github.com/a2astream/a2astream/internal/wirematrix"
	"github.com/a2astream/a2astream/stream"
)

// consumed is what a consumer goroutine's loop of Next saw.
type consumed struct {
	events int
	err    error
}

// consume runs s's Next loop on a goroutine of its own, as an application
// that reads a stream in one goroutine and closes it from another does.
func consume(s *stream.Stream) <-chan consumed {
	done := make(chan consumed, 1)
	go func() {
		n := 0
		for s.Next() {
			n++
		}
		done <- consumed{n, s.Err()}
	}()
	return done
}

// Close, called from another goroutine while Next waits on the agent's
// stream, ends that Next at once with no error and releases the call: the
// agent's handler, which waits for the request to end, returns (the bubble
// would not end otherwise).
func TestCloseFromAnotherGoroutineEndsANextThatReads(t *testing.T) {
	onEveryWire(t, func(t *testing.T, w wire) {
		agent := newWireAgent(w, answers{kindStream: func(ww *wireWriter, c wireCall) {
			ww.sse()
			ww.event(statusEvent(w.v, a2a.StateWorking, nil))
			<-c.ctx.Done()
		}})
		var tl traceLog
		s := agent.client(t).Send(bounded(t), hello(), tl.option())
		done := consume(s)
		synctest.Wait() // the consumer has its event and waits for the next
		start := time.Now()
		require.NoError(t, s.Close())
		got := <-done
		require.Equal(t, consumed{events: 1}, got, "Next returned false, and the close is no error")
		require.Zero(t, time.Since(start), "nothing was waited for")
		require.Equal(t, []string{"closed"}, tl.outcomes(), "the call ended as closed")
		require.Len(t, tl.ends, 1)
		require.True(t, tl.ends[0].Closed)
		require.NoError(t, tl.ends[0].Err)
		require.False(t, s.Next(), "a Next after Close")
		require.NoError(t, s.Err())
		require.NoError(t, s.Close(), "Close is idempotent")
	})
}

// Close, called from another goroutine while Next waits out a reconnect's
// backoff, ends that Next at once: the backoff is not waited and nothing
// resubscribes.
func TestCloseFromAnotherGoroutineEndsABackoff(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewAgent(a2atest.WithScript(wirematrix.Paced()...), a2atest.WithFaults(a2atest.CutAfterEvents(2)))
		reconnecting := make(chan struct{}, 1)
		s := newClient(t, agent, a2a.V10, stream.WithNotify(func(n stream.Notice) {
			if n.Kind == stream.Reconnecting {
				reconnecting <- struct{}{}
			}
		})).Send(bounded(t), hello())
		done := consume(s)
		<-reconnecting
		synctest.Wait() // the consumer waits out the backoff
		start := time.Now()
		require.NoError(t, s.Close())
		got := <-done
		require.Equal(t, consumed{events: 2}, got)
		require.Zero(t, time.Since(start), "the backoff was not waited")
		require.Zero(t, wirematrix.Resubscribes(agent))
	})
}

// Close before any Next makes no call; a Next after it returns false at
// once, with no error.
func TestCloseBeforeNextMakesNoCall(t *testing.T) {
	onEveryWire(t, func(t *testing.T, w wire) {
		agent := newWireAgent(w, answers{kindStream: legOf(snap(a2a.StateWorking), snap(a2a.StateCompleted))})
		var tl traceLog
		s := agent.client(t).Send(bounded(t), hello(), tl.option())
		require.NoError(t, s.Close())
		require.False(t, s.Next())
		require.NoError(t, s.Err())
		require.Empty(t, tl.starts, "no call was made")
		require.Len(t, tl.ends, 1)
		require.True(t, tl.ends[0].Closed)
	})
}

// Close from another goroutine at any point of a paced stream (before the
// consumer's next Next, during it, or after it returned) ends the stream
// cleanly: the consumer sees the events up to that point and no error,
// and nothing races (go test -race) or panics.
func TestCloseFromAnotherGoroutineAtAnyPoint(t *testing.T) {
	t.Parallel()
	for after := range wirematrix.PacedEvents {
		synctest.Test(t, func(t *testing.T) {
			agent := a2atest.NewAgent(a2atest.WithScript(wirematrix.Paced()...))
			s := newClient(t, agent, a2a.V10).Send(bounded(t), hello())
			reached := make(chan struct{})
			done := make(chan consumed, 1)
			go func() {
				n := 0
				for s.Next() {
					n++
					if n == after {
						close(reached)
					}
				}
				done <- consumed{n, s.Err()}
			}()
			if after > 0 {
				<-reached
			}
			require.NoError(t, s.Close())
			got := <-done
			require.NoError(t, got.err)
			require.GreaterOrEqual(t, got.events, after)
			require.LessOrEqual(t, got.events, after+1, "at most the event under way when Close came")
		})
	}
}
