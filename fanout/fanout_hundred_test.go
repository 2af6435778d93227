package fanout_test

// Quorum at scale: one answer needed of a hundred calls, some of which
// ignore their context (Quorum "waits for them to return: no goroutine
// outlives it"), and a QuorumError of a hundred endings through which
// errors.Is and errors.As reach every kind.

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/fanout"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
	"github.com/a2astream/a2astream/terminal"
	"github.com/a2astream/a2astream/transport"
)

func TestFanOutOneOfAHundredWaitsForCallsThatIgnoreTheirContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const winner = 57
		calls := make([]func(context.Context) (int, error), 100)
		for i := range calls {
			calls[i] = func(ctx context.Context) (int, error) {
				switch {
				case i == winner:
					time.Sleep(time.Second)
					return i, nil
				case i%3 == 0: // returns the context's error
					<-ctx.Done()
					return 0, ctx.Err()
				case i%3 == 1: // wraps the cause
					<-ctx.Done()
					return 0, fmt.Errorf("call %d: %w", i, context.Cause(ctx))
				default: // ignores its context, and succeeds late
					time.Sleep(time.Hour)
					return i, nil
				}
			}
		}
		start := time.Now()
		results, err := fanout.Quorum(context.Background(), 1, calls...)
		require.NoError(t, err)
		require.Equal(t, time.Hour, time.Since(start), "Quorum waits for the calls that ignore their context")
		require.Len(t, results, 100)
		require.Equal(t, fanout.Result[int]{Value: winner}, results[winner])
		for i, r := range results {
			switch {
			case i == winner:
			case i%3 == 0, i%3 == 1:
				require.ErrorIs(t, r.Err, fanout.ErrNotNeeded, "call %d", i)
			default:
				require.Equal(t, fanout.Result[int]{Value: i}, r, "call %d: as it returned", i)
			}
		}
	})
}

func TestQuorumErrorOfAHundredCallsReachesEveryEnding(t *testing.T) {
	endings := []error{
		&terminal.FailedError{Task: taskIn(a2a.StateFailed)},
		&reconnect.Error{Attempts: 3, Err: transport.ErrEndedEarly, TaskID: "t-1"},
		fmt.Errorf("skipped: %w", transport.ErrCircuitOpen),
		&transport.HTTPError{StatusCode: 503, Status: "503 Service Unavailable"},
		&stream.StalledError{Task: taskIn(a2a.StateWorking), After: time.Minute},
	}
	calls := make([]func(context.Context) (int, error), 100)
	for i := range calls {
		calls[i] = func(context.Context) (int, error) {
			if i == 99 {
				return i, nil
			}
			return 0, endings[i%len(endings)]
		}
	}
	results, err := fanout.Quorum(context.Background(), 2, calls...)
	var qe *fanout.QuorumError
	require.ErrorAs(t, err, &qe)
	require.Equal(t, 2, qe.Need)
	require.LessOrEqual(t, qe.Succeeded, 1)
	require.Len(t, qe.Errs, 100)
	var (
		failed  *terminal.FailedError
		gaveUp  *reconnect.Error
		httpErr *transport.HTTPError
		stalled *stream.StalledError
	)
	require.ErrorAs(t, err, &failed)
	require.ErrorAs(t, err, &gaveUp)
	require.ErrorAs(t, err, &httpErr)
	require.ErrorAs(t, err, &stalled)
	require.ErrorIs(t, err, transport.ErrCircuitOpen)
	require.ErrorIs(t, err, transport.ErrEndedEarly)
	require.Len(t, results, 100)
	for i, r := range results[:99] {
		if !errors.Is(r.Err, fanout.ErrNotNeeded) {
			require.Equal(t, endings[i%len(endings)], r.Err, "call %d", i)
		}
	}
}

// taskIn is a task in state st.
func taskIn(st a2a.TaskState) *a2a.Task {
	return &a2a.Task{ID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: st}}
}
