package stream

import (
	"errors"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/reconnect"
)

// recovery is the state of healing a dropped connection.
type recovery struct {
	budget     budget
	cause      error         // the last cause of a drop
	retryAfter time.Duration // the wait the server asked for, if any
	// gap: resubscribed since the last snapshot or get-task, so output may
	// have been missed.
	gap bool
	// final is a halting event held back until the gap is closed.
	final a2a.Event
	// news is the stream's progress: what was delivered that was new.
	news news
	// streamErr is the error that ended a stream in its middle, while the
	// task is fetched to see whether it ended.
	streamErr error
	// resend is the send phase (phaseSend or phaseReply) that phaseResend
	// makes again.
	resend phase
	// resent: a send was made again after a failed attempt, and its
	// success is to be told (a Resumed notice).
	resent bool
	// reached: a call of the stream connected to the agent (it answered,
	// or the request may have reached it). A stream that ends without
	// one says it could not connect.
	reached bool
}

// noteReach records the result of a call: any but an error whose request
// never left shows that the agent could be reached.
func (r *recovery) noteReach(err error) {
	if err == nil || !isUnsent(err) {
		r.reached = true
	}
}

// gaveUp is the *reconnect.Error that ends a stream after attempts
// reconnects for s.rec.cause: its budget is spent, or its connection was
// lost before any task was known. It names the agent's URL when no call of
// the stream could connect.
func (s *Stream) gaveUp(attempts int) error {
	e := &reconnect.Error{Attempts: attempts, Err: s.rec.cause, TaskID: s.taskID, Task: s.snapshot()}
	if !s.rec.reached && isUnsent(s.rec.cause) {
		e.Unreachable = redactRawURL(s.c.endpoint)
	}
	return e
}

// news counts the deliveries that brought something new, and keeps the
// start of the stall clock of polling: the last of them, or the switch to
// polling if later.
type news struct {
	count int
	since time.Time
}

// note records a delivery that brought something new.
func (n *news) note() {
	n.count++
	n.since = time.Now()
}

// waitAttempt counts a reconnect attempt and waits its backoff, telling
// WithNotify. It reports false when the budget is spent, and when the wait
// was cut, after which the stream has ended.
func (s *Stream) waitAttempt() bool {
	wait, ok := s.rec.budget.next()
	if !ok {
		return false
	}
	// A server that said when to come back (Retry-After on 429 or 503) is
	// given that long, up to maxRetryAfter, if it is more than the backoff.
	wait, s.rec.retryAfter = max(wait, s.rec.retryAfter), 0
	s.notify(Notice{Kind: Reconnecting, TaskID: s.taskID, Attempt: s.rec.budget.attempts,
		MaxAttempts: s.rec.budget.max, Wait: wait, Cause: s.rec.cause})
	if err := s.cfg.sleep(s.ctx, wait); err != nil {
		if ctxErr := s.ctx.Err(); ctxErr != nil {
			err = ctxErr
		}
		s.fail(err)
		return false
	}
	return true
}

var errStillRunning = errors.New("the task is still running but the server refused to resubscribe")

// backoff waits the backoff and subscribes, if the budget allows.
func (s *Stream) backoff() {
	if !s.waitAttempt() {
		if s.phase == phaseDone || s.deliverHeldFinal(s.rec.cause) {
			return
		}
		s.fail(s.gaveUp(s.rec.budget.attempts))
		return
	}
	if s.feed == feedPoll {
		s.phase = phaseRecover
		s.fetch()
		return
	}
	s.phase = phaseSubscribe
	s.subscribe()
}

// resend waits the backoff and makes the failed send again, unchanged, if
// the budget allows.
func (s *Stream) resend() {
	if !s.waitAttempt() {
		if s.phase != phaseDone {
			s.fail(s.gaveUp(s.rec.budget.attempts))
		}
		return
	}
	s.phase = s.rec.resend
	s.rec.resent = true
}

// subscribe opens a subscribe leg; a stream that polls fetches instead.
func (s *Stream) subscribe() {
	s.pollIfCardSays()
	if s.feed == feedPoll {
		s.phase = phaseRecover
		s.fetch()
		return
	}
	l, err := s.c.calls.subscribe(s.ctx, s.v, s.taskID)
	s.rec.noteReach(err)
	if err != nil {
		s.handle(opSubscribe, err, false)
		return
	}
	s.rec.gap = true
	s.ledger.OpenReplayWindow()
	s.setLeg(l, opSubscribe)
	if s.rec.budget.attempts > 0 {
		s.notify(Notice{Kind: Resumed, TaskID: s.taskID, Attempt: s.rec.budget.attempts, MaxAttempts: s.rec.budget.max})
	}
}

// fetch fetches the task and continues from the state it returns: after a
// refused subscribe (phaseRecover, or phaseProbe when the refusal did not
// tell the version) or a silent one (phaseQuiet), to close a gap before the
// held final event (phaseCloseGap), after an error in the middle of a stream
// (phaseAfterError), or to poll.
func (s *Stream) fetch() {
	t, err := checkedTask(s.ctx, s.c.calls.getTask, s.v, s.taskID)
	s.rec.noteReach(err)
	if err == nil {
		err = s.checkOwner(t)
	}
	if err != nil {
		if s.phase == phaseAfterError {
			// The get-task that asks whether the task ended goes by the
			// budget rules: a drop is retried while attempts are left.
			if o := classify(opGet, err, false, s.nego); o.kind == outDrop && s.ctx.Err() == nil {
				s.rec.cause, s.rec.retryAfter = o.err, o.retryAfter
				if s.waitAttempt() || s.phase == phaseDone {
					return
				}
			}
			s.fail(s.rec.streamErr)
			return
		}
		s.handle(opGet, err, false)
		return
	}
	// A task fetched in this version proves the version.
	s.nego = false
	s.c.remember(s.v)
	if s.phase == phaseProbe {
		// The server speaks 1.0 and refused the subscribe: it cannot
		// subscribe; follow the task by polling.
		s.startPolling(s.rec.cause)
		s.phase = phaseRecover
	}
	s.learnReplied(t, false)
	s.rec.gap = false
	attempt := s.rec.budget.attempts // the attempt this get-task ends, if any
	s.deliver(t, foldAuthoritative, s.rec.final)
	s.rec.final = nil
	if (s.phase == phaseRecover || s.phase == phaseQuiet) && attempt > 0 {
		s.notify(Notice{Kind: Resumed, TaskID: s.taskID, Attempt: attempt, MaxAttempts: s.rec.budget.max})
	}
	st := &s.ledger.Task().Status
	switch {
	case s.phase == phaseAfterError && st.State.Terminal():
		// The task ended: its typed ending, not the stream's error.
		s.phase = phaseHalted
	case s.phase == phaseAfterError:
		s.fail(s.rec.streamErr)
	case s.haltsAt(st):
		s.phase = phaseHalted
	case s.prompt.unconfirmed && s.waitsOnRepliedPrompt():
		// The reply never reached the agent: send it again, unchanged.
		s.phase = phaseReply
	case s.feed == feedPoll:
		s.pollAgain()
	case s.phase == phaseRecover && cannotStream(s.rec.cause):
		// The server refused to stream a task that still runs: it cannot
		// stream it, now or on the next attempt.
		s.startPolling(s.rec.cause)
		s.pollAgain()
	case s.phase == phaseQuiet && errors.Is(s.rec.cause, ErrIdleTimeout) && (st.State == a2a.StateWorking || st.State == a2a.StateSubmitted):
		// The subscription was silent past the idle timeout, but the agent
		// answers and the task runs: quiet, not failing. Waiting on it
		// costs no attempt; the stall limit bounds a task that never moves
		// again. (A subscription the server closed with nothing new is a
		// failed attempt.)
		if s.stalled() {
			return
		}
		s.rec.budget.progress()
		s.phase = phaseBackoff
	default:
		// Still working, or a stale prompt: wait, then resubscribe, as the
		// next attempt.
		if s.phase != phaseQuiet {
			s.rec.cause = errStillRunning
		}
		s.phase = phaseBackoff
	}
}

// cannotStream reports a refused subscribe that, for a task still running,
// means the server cannot stream it: unsupported operation (-32004), with
// which 1.0 servers refuse only ended tasks, and agents that cannot stream
// refuse every subscribe.
func cannotStream(refusal error) bool {
	var rpcErr *a2a.RPCError
	return errors.As(refusal, &rpcErr) && rpcErr.Code == a2a.CodeUnsupportedOperation
}

// deliverHeldFinal delivers the halting event held back while a gap could
// not be closed, so that an ending the server reported is never lost. What
// the gap hid from a live-only server (parts the agent produced while the
// client was away) is then missing from Task. It reports whether the task
// halted.
func (s *Stream) deliverHeldFinal(cause error) bool {
	if s.rec.final == nil {
		return false
	}
	s.log.Debug("a2a: could not close the gap, delivering the final event as received", "task", s.taskID, "cause", cause)
	final := s.rec.final
	s.rec.final = nil
	s.deliver(final, foldStale, nil)
	if !s.halted() {
		return false
	}
	s.phase = phaseHalted
	return true
}
