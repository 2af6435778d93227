package stream

import (
	"errors"
	"fmt"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/terminal"
	"github.com/a2astream/a2astream/transport"
)

// The driver's two decisions are pure functions over facts: classify
// (outcome.go) for a failed call or a leg's end, follow (next.go) for
// every other step. This file acts on them: handle on classify's outcome,
// act on follow's move. Neither decides anything; each returns the phase
// to enter, which only the loop (step) and the ends of a stream from
// outside it (Close, Cancel) enter. Two acts make a fact follow reads
// again: the switch to polling restarts the stall clock (then
// afterSwitched), and delivering a halting event held back may halt the
// task (moveHeldFinal, and handle's outFatal and outAskTask).

// errHaltedIn is the internal error of a stream halted in a state that
// does not halt.
func errHaltedIn(st a2a.TaskState) error {
	return fmt.Errorf("stream: internal error: halted in state %s", st)
}

// act does what follow decided, and returns the next phase.
func (s *Stream) act(m move) phase {
	switch m.kind {
	case moveRead:
		return phaseRead
	case moveSend:
		if m.poll {
			s.startPolling(nil)
		}
		return s.route.send
	case moveResume:
		if m.poll {
			s.startPolling(nil)
		}
		return s.route.resume
	case moveSubscribe:
		return phaseSubscribe
	case moveHoldFinal:
		s.gap.hold(m.event)
		s.closeLeg("ok", nil)
		return s.fetchFor(fetchGap)
	case moveHalt:
		s.closeLeg("ok", nil)
		return phaseHalted
	case moveReply:
		s.closeLeg("ok", nil)
		return s.route.reply
	case movePoll:
		return phasePoll
	case movePollWait:
		return phasePollWait
	case movePushSet:
		return phasePushSet
	case moveCatchUp:
		s.startPolling(s.tries.cause)
		return phaseCatchUp
	case moveStartPolling:
		s.startPolling(s.tries.cause)
		s.tries.ask(m.asked) // the first poll's wait
		return s.act(follow(&facts{after: afterSwitched, stalled: s.stallSpent(), pushUntried: s.pushUntried()}))
	case moveAttempt:
		if m.free {
			s.tries.progress()
		}
		if m.stillRunning {
			s.tries.blame(errStillRunning)
		}
		return s.retryAfterWait(s.route.resume)
	case moveAgain:
		return s.tries.again
	case moveHeldFinal:
		if s.deliverHeldFinal(s.tries.cause) {
			return phaseHalted
		}
		return s.end(s.gaveUp(s.tries.budget.attempts))
	case moveDone:
		s.closeLeg("ok", nil)
		s.endPush()
		return phaseDone
	case moveEnd:
		return s.end(m.err)
	case moveEndAsked:
		return s.end(s.ask.err)
	case moveGaveUp:
		return s.end(s.gaveUp(s.tries.budget.attempts))
	case moveStalled:
		return s.end(&StalledError{Task: s.snapshot(), After: s.cfg.stallTimeout})
	case moveEnded:
		return s.end(terminal.FromTaskWith(s.snapshot(), s.cfg.readFailure))
	case moveAsk:
		return phaseAsk
	case moveCredentials:
		return phaseCredentials
	}
	return s.end(fmt.Errorf("stream: internal error: move %d", m.kind))
}

// fetchFor returns the phase that fetches the task, for why.
func (s *Stream) fetchFor(why fetchReason) phase {
	s.ask.why = why
	return phaseFetch
}

// retryAfterWait returns the phase that waits the backoff of one attempt,
// then enters again.
func (s *Stream) retryAfterWait(again phase) phase {
	s.tries.retry(again)
	return phaseBackoff
}

// end ends the stream with err, and returns phaseDone. A protocol error
// carries the task as last known.
func (s *Stream) end(err error) phase {
	if closeCut(s.ctx, err) {
		// Close, from another goroutine, cut what Next waited on: the
		// stream ends as Close ends it.
		err = nil
		if s.tr != nil {
			s.tr.closed = true
		}
	}
	var protoErr *transport.ProtocolError
	if errors.As(err, &protoErr) {
		protoErr.Task = s.snapshot()
	}
	if err != nil && taskOf(err) == nil && s.ledger.Known() {
		err = &taskError{Err: err, Task: s.snapshot()}
	}
	s.closeLeg("end", err)
	s.endPush()
	s.err = err
	s.gate.stop(nil) // nothing waits on the stream's context any more
	return phaseDone
}

// failure is a failed call, or the end of a leg, as handle gets it.
type failure struct {
	from    phase // the phase that made the call (for a leg, that opened it)
	op      operation
	err     error
	started bool // the call had produced an event before it failed
	// nothingNew: a leg that ended having brought nothing new.
	nothingNew bool
	// stalled: the stall limit cut the leg (see active.stalled).
	stalled bool
}

// handle acts on outcome o of failed call f, as classify decided; it
// decides nothing itself. It returns the next phase.
func (s *Stream) handle(o outcome, f failure) phase {
	err := o.err
	switch o.kind {
	case outEnd:
		return s.end(err)
	case outFatal:
		if s.deliverHeldFinal(err) {
			return phaseHalted
		}
		return s.end(err)
	case outAskTask:
		if s.deliverHeldFinal(err) {
			return phaseHalted
		}
		s.ask.err = err
		return s.fetchFor(fetchAfterError)
	case outCredentials:
		s.auth.refusal = err
		return phaseCredentials
	case outStalled:
		s.log.Debug("a2a: nothing new within the stall limit, keep-alives aside", "task", s.taskID, "limit", s.cfg.stallTimeout)
		return s.end(&StalledError{Task: s.snapshot(), After: s.cfg.stallTimeout})
	case outLost:
		s.tries.failed(err, o.retryAfter)
		return s.end(s.gaveUp(0))
	case outDrop:
		s.log.Debug("a2a: connection lost", "task", s.taskID, "cause", err)
		s.tries.failed(err, o.retryAfter)
		return s.retryAfterWait(s.route.resume)
	case outPush:
		s.log.Debug("a2a: connection lost, registering for push notifications", "task", s.taskID, "cause", err)
		s.tries.failed(err, o.retryAfter)
		return phasePushSet
	case outRetry:
		if f.op == opSend {
			s.log.Debug("a2a: the send did not reach the agent, sending it again", "task", s.taskID, "cause", err)
			s.contact.resend()
		}
		s.tries.failed(err, o.retryAfter)
		return s.retryAfterWait(f.from)
	case outDowngrade:
		s.log.Debug("a2a: server refused protocol 1.0, falling back to 0.3", "err", err)
		s.v, s.nego = a2a.V03, false
		return f.from
	case outSpeaks03:
		s.log.Debug("a2a: server refused protocol 1.0, subscribing in 0.3", "err", err)
		s.v, s.nego = a2a.V03, false
		return phaseSubscribe
	case outProbe:
		s.log.Debug("a2a: subscribe refused in 1.0, fetching the task to learn the version", "task", s.taskID, "err", err)
		s.tries.blame(err)
		return phaseProbe
	case outRefused:
		s.log.Debug("a2a: resubscribe refused, fetching the task", "task", s.taskID, "err", err)
		s.tries.blame(err)
		return s.fetchFor(fetchRefused)
	case outNoStream:
		s.log.Debug("a2a: resubscribe refused, fetching the task", "task", s.taskID, "err", err)
		s.tries.blame(err)
		return s.fetchFor(fetchNoStream)
	case outUnsupported:
		// The call that cannot be made is made the polling way: a unary
		// send, or, for a subscribe, a get-task at once.
		s.startPolling(err)
		switch f.from {
		case phaseSend:
			return s.route.send
		case phaseReply:
			return s.route.reply
		}
		return s.route.resume
	case outQuiet, outSilent:
		// A live-only server (a2a-go) sends nothing, not even headers, until
		// its agent writes again, while output from before the resubscribe
		// may be waiting on the server: fetch the task to recover it. The
		// cycle still costs an attempt unless the task brought something
		// new, or, after silence, runs.
		s.log.Debug("a2a: subscription silent or ended with nothing new, fetching the task", "task", s.taskID, "err", err)
		s.tries.blame(err)
		if o.kind == outSilent {
			return s.fetchFor(fetchSilent)
		}
		return s.fetchFor(fetchQuiet)
	}
	return s.end(fmt.Errorf("stream: internal error: outcome %d", o.kind))
}
