// Package fanout runs calls concurrently and returns once enough of them
// have succeeded: a fan-out with a quorum.
//
// An agent that asks three others and needs two answers writes each call as
// a func(context.Context) (T, error), a Send on that agent's own
// stream.Client, say, and hands them to [Quorum]:
//
//	results, err := fanout.Quorum(ctx, 2, calls...)
//
// Quorum returns as soon as two calls succeeded, or as soon as so many
// failed that two can no longer succeed. The calls still running are then
// cancelled, their results say [ErrNotNeeded], and Quorum waits for them:
// no goroutine outlives it. The results come in the order of the calls.
// Short of the quorum, the error is a [*QuorumError], through which
// errors.Is and errors.As find each call's error: transport.ErrCircuitOpen for
// an agent skipped because its circuit is open (stream.WithBreaker), a
// terminal.Error for a task that failed, the caller's context error when ctx
// ended first.
//
// The package knows nothing of A2A: a call is any function of a context.
// Package chain turns a *QuorumError into the error object an agent answers
// its own caller with.
package fanout
