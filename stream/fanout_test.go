package stream_test

// FanOut: concurrent calls that succeed with a quorum, cancel the calls they
// no longer need, and report every failure by type.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/stream"
)

// succeedWith is a call that returns v at once.
func succeedWith(v string) func(context.Context) (string, error) {
	return func(context.Context) (string, error) { return v, nil }
}

// failWith is a call that fails with err at once.
func failWith(err error) func(context.Context) (string, error) {
	return func(context.Context) (string, error) { return "", err }
}

// untilCanceled is a call that returns only when its context ends, with the
// context's error, and records the context's cause in cause.
func untilCanceled(cause *error) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		<-ctx.Done()
		*cause = context.Cause(ctx)
		return "", ctx.Err()
	}
}

// FanOut returns once need calls succeeded; a call still running is
// cancelled with cause ErrNotNeeded, and its result says ErrNotNeeded. (In a
// bubble: a call left running would deadlock it.)
func TestFanOutReturnsOnceTheQuorumSucceeds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var cause error
		results, err := stream.FanOut(background(), 2, succeedWith("a"), untilCanceled(&cause), succeedWith("c"))
		require.NoError(t, err)
		require.Equal(t, []stream.Result[string]{{Value: "a"}, {Err: stream.ErrNotNeeded}, {Value: "c"}}, results)
		require.Equal(t, stream.ErrNotNeeded, cause, "the call's context was cancelled with cause ErrNotNeeded")
	})
}

// FanOut returns as soon as the quorum is out of reach, with a
// *QuorumError through which errors.Is and errors.As find each failure.
func TestFanOutStopsOnceTheQuorumIsOutOfReach(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var cause error
		unavailable := &stream.HTTPError{StatusCode: http.StatusServiceUnavailable, Status: "503 Service Unavailable"}
		open := fmt.Errorf("%w: %w", stream.ErrCircuitOpen, errTripOpen)
		results, err := stream.FanOut(background(), 2, failWith(unavailable), failWith(open), untilCanceled(&cause))
		require.Equal(t, []stream.Result[string]{{Err: unavailable}, {Err: open}, {Err: stream.ErrNotNeeded}}, results)
		var qe *stream.QuorumError
		require.ErrorAs(t, err, &qe)
		require.Equal(t, &stream.QuorumError{Need: 2, Succeeded: 0, Errs: []error{unavailable, open, stream.ErrNotNeeded}}, qe)
		require.ErrorIs(t, err, stream.ErrCircuitOpen)
		require.ErrorIs(t, err, errTripOpen)
		var he *stream.HTTPError
		require.ErrorAs(t, err, &he)
		require.Equal(t, http.StatusServiceUnavailable, he.StatusCode)
		require.EqualError(t, err, "stream: quorum not reached: 0 of 3 calls succeeded, 2 needed; "+
			"call 1: stream: HTTP 503 Service Unavailable; "+
			"call 2: stream: the agent's circuit is open: test breaker: open; "+
			"call 3: stream: call not needed: the fan-out was decided")
		require.Equal(t, stream.ErrNotNeeded, cause)
	})
}

// When the caller's context ends first, the calls end with its error, which
// errors.Is finds through the *QuorumError: it is not taken for a cancel of
// calls not needed.
func TestFanOutEndsWithTheCallersContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(background(), time.Minute)
		defer cancel()
		causes := make([]error, 3)
		start := time.Now()
		results, err := stream.FanOut(ctx, 2, untilCanceled(&causes[0]), untilCanceled(&causes[1]), untilCanceled(&causes[2]))
		require.Equal(t, time.Minute, time.Since(start))
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.NotErrorIs(t, err, stream.ErrNotNeeded)
		for i, r := range results {
			require.ErrorIs(t, r.Err, context.DeadlineExceeded, "call %d", i+1)
			require.Equal(t, context.DeadlineExceeded, causes[i], "call %d", i+1)
		}
	})
}

// A need below 1 or above the number of calls, or a nil call, is refused
// before any call is made.
func TestFanOutRefusesAnImpossibleNeed(t *testing.T) {
	var made atomic.Int32
	call := func(context.Context) (string, error) { made.Add(1); return "x", nil }
	for _, tc := range []struct {
		name  string
		need  int
		calls []func(context.Context) (string, error)
	}{
		{"zero", 0, []func(context.Context) (string, error){call, call}},
		{"negative", -1, []func(context.Context) (string, error){call}},
		{"more than the calls", 3, []func(context.Context) (string, error){call, call}},
		{"no calls", 1, nil},
		{"a nil call", 1, []func(context.Context) (string, error){call, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			results, err := stream.FanOut(background(), tc.need, tc.calls...)
			require.Error(t, err)
			require.Nil(t, results)
		})
	}
	require.Zero(t, made.Load(), "no call was made")
}

// A fan-out over agents, each with its Client and its breaker: the agent
// whose circuit is open is skipped (no request reaches it) and counted as a
// failure of type ErrCircuitOpen; a slow agent is cancelled once the quorum
// is reached, and its breaker is told context.Canceled, not a failure. On
// every wire.
func TestFanOutOverAgentsSkipsOpenCircuits(t *testing.T) {
	for _, w := range wires() {
		t.Run(w.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				arrived := make(chan struct{}) // closed when the slow agent has its first request
				answering := func(text string) *wireAgent {
					return newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
						kindStream: func(ww *wireWriter, _ wireCall) {
							<-arrived // so that the slow agent's request is under way when the quorum is reached
							ww.sse()
							ww.event(taskWith(a2a.StateCompleted, nil, a2a.Artifact{ID: "a", Parts: []a2a.Part{a2a.TextPart(text)}}))
						},
					})
				}
				slow := newWireAgent(w, map[callKind]func(*wireWriter, wireCall){
					kindStream: func(_ *wireWriter, c wireCall) {
						if c.n == 0 {
							close(arrived)
						}
						<-c.ctx.Done() // no headers
					},
				})
				agents := []*wireAgent{answering("sunny"), slow, answering("rainy"), answering("windy")}
				breakers := make([]*tripBreaker, len(agents))
				calls := make([]func(context.Context) (string, error), len(agents))
				for i, a := range agents {
					breakers[i] = &tripBreaker{threshold: 1, cooldown: time.Hour}
					c := a.client(t, stream.WithBreaker(breakers[i]))
					calls[i] = func(ctx context.Context) (string, error) {
						task, err := c.Send(ctx, hello()).Wait()
						if err != nil {
							return "", err
						}
						return task.Artifacts[0].Text(), nil
					}
				}
				breakers[3].failures, breakers[3].openUntil = 1, time.Now().Add(time.Hour) // open

				results, err := stream.FanOut(background(), 2, calls...)
				require.NoError(t, err)
				require.Equal(t, "sunny", results[0].Value)
				require.Equal(t, stream.ErrNotNeeded, results[1].Err)
				require.Equal(t, "rainy", results[2].Value)
				// Refused at once, unless the quorum was reached before its
				// goroutine ran.
				require.True(t, errors.Is(results[3].Err, stream.ErrCircuitOpen) || results[3].Err == stream.ErrNotNeeded, "got %v", results[3].Err)
				require.Empty(t, agents[3].received(), "the open circuit's agent got no request")
				require.Equal(t, []error{context.Canceled}, breakers[1].told(), "the slow agent's breaker was told of the cancel")
				require.Zero(t, breakers[1].failures, "which is no failure")

				// Three answers needed: only the slow agent could give the
				// third, and the caller's deadline ends it.
				ctx, cancel := context.WithTimeout(background(), 10*time.Second)
				defer cancel()
				start := time.Now()
				results, err = stream.FanOut(ctx, 3, calls...)
				require.Equal(t, 10*time.Second, time.Since(start))
				var qe *stream.QuorumError
				require.ErrorAs(t, err, &qe)
				require.Equal(t, 2, qe.Succeeded)
				require.ErrorIs(t, err, stream.ErrCircuitOpen)
				require.ErrorIs(t, err, context.DeadlineExceeded)
				require.Equal(t, []string{"sunny", "", "rainy", ""}, []string{results[0].Value, results[1].Value, results[2].Value, results[3].Value})
				require.ErrorIs(t, results[1].Err, context.DeadlineExceeded)
				require.ErrorIs(t, results[3].Err, stream.ErrCircuitOpen)
				require.Empty(t, agents[3].received())
				require.Equal(t, []error{context.Canceled, context.DeadlineExceeded}, breakers[1].told())
				require.Equal(t, 2, slow.count(kindStream))
			})
		})
	}
}

// errAgentSaidNo is a call's own error.
var errAgentSaidNo = errors.New("agent said no")

// A call that fails on its own after the fan-out was decided keeps its own
// error: only a call ending with context.Canceled reads ErrNotNeeded.
func TestFanOutKeepsTheErrorOfACallThatFailedOnItsOwn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		late := func(ctx context.Context) (string, error) {
			<-ctx.Done()
			return "", errAgentSaidNo
		}
		results, err := stream.FanOut(background(), 1, succeedWith("a"), late)
		require.NoError(t, err)
		require.Equal(t, []stream.Result[string]{{Value: "a"}, {Err: errAgentSaidNo}}, results)
	})
}
