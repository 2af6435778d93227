package fanout_test

// Quorum: concurrent calls that succeed with a quorum, cancel the calls they
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

	"github.com/a2astream/a2astream/fanout"
	"github.com/a2astream/a2astream/transport"
)

// errTripOpen is a circuit breaker's refusal, as stream.WithBreaker wraps it.
var errTripOpen = errors.New("test breaker: open")

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

// Quorum returns once need calls succeeded; a call still running is
// cancelled with cause ErrNotNeeded, and its result says ErrNotNeeded. (In a
// bubble: a call left running would deadlock it.)
func TestFanOutReturnsOnceTheQuorumSucceeds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var cause error
		results, err := fanout.Quorum(context.Background(), 2, succeedWith("a"), untilCanceled(&cause), succeedWith("c"))
		require.NoError(t, err)
		require.Equal(t, []fanout.Result[string]{{Value: "a"}, {Err: fanout.ErrNotNeeded}, {Value: "c"}}, results)
		require.Equal(t, fanout.ErrNotNeeded, cause, "the call's context was cancelled with cause ErrNotNeeded")
	})
}

// Quorum returns as soon as the quorum is out of reach, with a
// *QuorumError through which errors.Is and errors.As find each failure.
func TestFanOutStopsOnceTheQuorumIsOutOfReach(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var cause error
		unavailable := &transport.HTTPError{StatusCode: http.StatusServiceUnavailable, Status: "503 Service Unavailable"}
		open := fmt.Errorf("%w: %w", transport.ErrCircuitOpen, errTripOpen)
		results, err := fanout.Quorum(context.Background(), 2, failWith(unavailable), failWith(open), untilCanceled(&cause))
		require.Equal(t, []fanout.Result[string]{{Err: unavailable}, {Err: open}, {Err: fanout.ErrNotNeeded}}, results)
		var qe *fanout.QuorumError
		require.ErrorAs(t, err, &qe)
		require.Equal(t, &fanout.QuorumError{Need: 2, Succeeded: 0, Errs: []error{unavailable, open, fanout.ErrNotNeeded}}, qe)
		require.ErrorIs(t, err, transport.ErrCircuitOpen)
		require.ErrorIs(t, err, errTripOpen)
		var he *transport.HTTPError
		require.ErrorAs(t, err, &he)
		require.Equal(t, http.StatusServiceUnavailable, he.StatusCode)
		require.EqualError(t, err, "fanout: quorum not reached: 0 of 3 calls succeeded, 2 needed; "+
			"call 1: stream: HTTP 503 Service Unavailable; "+
			"call 2: stream: the agent's circuit is open: test breaker: open; "+
			"call 3: fanout: call not needed: the fan-out was decided")
		require.Equal(t, fanout.ErrNotNeeded, cause)
	})
}

// When the caller's context ends first, the calls end with its error, which
// errors.Is finds through the *QuorumError: it is not taken for a cancel of
// calls not needed.
func TestFanOutEndsWithTheCallersContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		causes := make([]error, 3)
		start := time.Now()
		results, err := fanout.Quorum(ctx, 2, untilCanceled(&causes[0]), untilCanceled(&causes[1]), untilCanceled(&causes[2]))
		require.Equal(t, time.Minute, time.Since(start))
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.NotErrorIs(t, err, fanout.ErrNotNeeded)
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
			results, err := fanout.Quorum(context.Background(), tc.need, tc.calls...)
			require.Error(t, err)
			require.Nil(t, results)
		})
	}
	require.Zero(t, made.Load(), "no call was made")
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
		results, err := fanout.Quorum(context.Background(), 1, succeedWith("a"), late)
		require.NoError(t, err)
		require.Equal(t, []fanout.Result[string]{{Value: "a"}, {Err: errAgentSaidNo}}, results)
	})
}
