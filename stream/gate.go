package stream

import (
	"context"
	"errors"
	"sync/atomic"
)

// gate lets Close be called from another goroutine while Next runs: a
// caller that stops a stream blocked on the network, in a backoff or in a
// hook. Only Close may be called so; every other method keeps the one
// consumer rule.
//
// The stream's own context (Stream.ctx, derived from the caller's) is what
// a Close from outside cuts: every call, wait and hook of the running Next
// ends, and Next, as it returns, closes the stream itself, so that nothing
// but Next's goroutine ever changes the stream.
type gate struct {
	state atomic.Int32
	// stop cancels the stream's own context; closeCut is its cause when a
	// Close from outside cut it.
	stop context.CancelCauseFunc
}

const (
	gateIdle       int32 = iota // no Next runs: Close closes the stream itself
	gateBusy                    // a Next runs
	gateCloseAsked              // a Next runs and Close asked it to close
	gateClosed                  // closed: Next returns false at once
)

// errCloseCut is the cause with which a Close from another goroutine cuts
// the stream's context.
var errCloseCut = errors.New("stream: closed while Next ran")

// enter is called as Next starts. It reports false when the stream was
// closed, and Next returns false without touching it.
func (g *gate) enter() bool {
	if g.state.CompareAndSwap(gateIdle, gateBusy) {
		return true
	}
	return g.state.Load() != gateClosed
}

// leave is called as Next returns. It reports whether a Close came while
// Next ran, for Next to close the stream, which is then closed.
func (g *gate) leave() (closeAsked bool) {
	if g.state.CompareAndSwap(gateBusy, gateIdle) {
		return false
	}
	return g.state.CompareAndSwap(gateCloseAsked, gateClosed)
}

// close is called by Close. It reports whether the caller closes the
// stream itself (no Next runs); when a Next runs, it asks that Next to
// close it and cuts the stream's context so that the Next returns soon.
func (g *gate) close() (closeNow bool) {
	for {
		switch g.state.Load() {
		case gateIdle:
			if g.state.CompareAndSwap(gateIdle, gateClosed) {
				return true
			}
		case gateBusy:
			if g.state.CompareAndSwap(gateBusy, gateCloseAsked) {
				g.stop(errCloseCut)
				return false
			}
		default: // asked already, or closed
			return false
		}
	}
}

// closeCut reports whether err is the end a Close from another goroutine
// made, by cutting ctx (the stream's own context) while Next ran: the
// stream then ends as Close ends it, with no error.
func closeCut(ctx context.Context, err error) bool {
	return err != nil && errors.Is(err, context.Canceled) && context.Cause(ctx) == errCloseCut
}
