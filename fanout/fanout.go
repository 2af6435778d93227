package fanout

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/a2astream/a2astream/internal/several"
)

// Result is how one call of [Quorum] ended: its value and its error, as the
// call returned them, except that a call Quorum cancelled because it was no
// longer needed has Err [ErrNotNeeded].
type Result[T any] struct {
	Value T
	Err   error // nil when the call succeeded
}

// ErrNotNeeded is the Err of a call that [Quorum] cancelled because the
// fan-out was decided without it (the quorum was reached, or could no longer
// be), when the call ended with context.Canceled, as a stream.Stream does.
// It is also the cause of that cancel: context.Cause of the call's context.
var ErrNotNeeded = errors.New("fanout: call not needed: the fan-out was decided")

// QuorumError ends a [Quorum] whose calls could not reach their quorum:
// fewer than Need of them succeeded. Errs holds each call's error in the
// order of the calls, nil for those that succeeded; errors.Is and
// errors.As see each of them (transport.ErrCircuitOpen for an agent whose
// circuit was open, a terminal.Error for a task that failed, and so on).
//
// It reports on several calls, not on one task: stream.EndingOf of it
// names no task's state, and each call's ending is read from its Errs.
type QuorumError struct {
	Need      int
	Succeeded int
	Errs      []error

	mark // marks it as a report on several calls (internal/several)
}

// mark is several.Mark under a name that keeps the field unexported.
type mark = several.Mark

// Error reads like "fanout: quorum not reached: 1 of 3 calls succeeded, 2
// needed; call 2: …; call 3: …", the calls counted from 1.
func (e *QuorumError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "fanout: quorum not reached: %d of %d calls succeeded, %d needed", e.Succeeded, len(e.Errs), e.Need)
	for i, err := range e.Errs {
		if err != nil {
			b.WriteString("; call " + strconv.Itoa(i+1) + ": " + err.Error())
		}
	}
	return b.String()
}

// Unwrap returns the calls' errors, without the nil of those that
// succeeded.
func (e *QuorumError) Unwrap() []error {
	var errs []error
	for _, err := range e.Errs {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// Quorum runs calls concurrently, each on its own goroutine with a context
// derived from ctx, and returns once need of them have succeeded (returned a
// nil error) or once so many have failed that need can no longer be
// reached. Either way it then cancels the calls still running, with cause
// [ErrNotNeeded], and waits for them to return: no goroutine outlives it.
//
// The results are in the order of the calls. The error is nil when need
// calls succeeded (more may have, if they finished before they were
// cancelled), and otherwise a [*QuorumError]. A call to an agent whose
// circuit is open (see stream.WithBreaker) fails at once with
// transport.ErrCircuitOpen, without a request: such agents are skipped, and
// counted as failures. When ctx ends first, the calls end with its error,
// found by errors.Is through the *QuorumError.
//
// need must be at least 1 and at most len(calls), and no call may be nil;
// otherwise Quorum calls nothing and returns an error. Quorum waits for a
// call that ignores its context, and does not recover a call's panic: like
// any goroutine's, it ends the program.
func Quorum[T any](ctx context.Context, need int, calls ...func(context.Context) (T, error)) ([]Result[T], error) {
	if need < 1 || need > len(calls) {
		return nil, fmt.Errorf("fanout: Quorum needs between 1 and %d successes (the number of calls), not %d", len(calls), need)
	}
	for i, call := range calls {
		if call == nil {
			return nil, fmt.Errorf("fanout: Quorum: call %d is nil", i+1)
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	type ended struct {
		i int
		r Result[T]
	}
	ch := make(chan ended, len(calls)) // never blocks a call's goroutine
	var wg sync.WaitGroup
	for i, call := range calls {
		wg.Go(func() {
			v, err := call(ctx)
			ch <- ended{i: i, r: Result[T]{Value: v, Err: err}}
		})
	}
	results := make([]Result[T], len(calls))
	succeeded, failed, decided := 0, 0, false
	for range calls {
		e := <-ch
		if e.r.Err != nil && decided && errors.Is(e.r.Err, context.Canceled) && context.Cause(ctx) == ErrNotNeeded {
			e.r.Err = ErrNotNeeded
		}
		results[e.i] = e.r
		if e.r.Err == nil {
			succeeded++
		} else {
			failed++
		}
		if !decided && (succeeded >= need || len(calls)-failed < need) {
			decided = true
			cancel(ErrNotNeeded)
		}
	}
	wg.Wait()
	if succeeded >= need {
		return results, nil
	}
	errs := make([]error, len(results))
	for i, r := range results {
		errs[i] = r.Err
	}
	// The mark is the zero value any QuorumError has; it is named here
	// as what stream.EndingOf reads.
	return results, &QuorumError{Need: need, Succeeded: succeeded, Errs: errs, mark: mark{}}
}
