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
	// streamErr is the error that ended a call once the task was known,
	// while the task is fetched to see whether it ended.
	streamErr error
	// why is the reason of the fetch phaseFetch makes.
	why fetchReason
	// retry is the phase phaseBackoff enters once its wait is over: the
	// route's resume after a drop, or the failed call's own phase.
	retry phase
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
// the stream could connect: none reached the agent, and the last one tried
// to connect and failed (the breaker's refusal tried nothing).
func (s *Stream) gaveUp(attempts int) error {
	e := &reconnect.Error{Attempts: attempts, Err: s.rec.cause, TaskID: s.taskID, Task: s.snapshot()}
	if !s.rec.reached && isUnsent(s.rec.cause) && !errors.Is(s.rec.cause, ErrCircuitOpen) {
		e.Unreachable = redactRawURL(s.c.endpoint)
	}
	return e
}

// news counts the deliveries that brought something new, and keeps the
// stall clocks: of polling, its start (the last of them, or the switch to
// polling if later); of streaming, the time reads waited since.
type news struct {
	count int
	since time.Time
	// quiet is the time the reads of streaming legs waited since the last
	// news (or the restart of the clock): keep-alive comments do not stop
	// it, and the caller's own time between two events is not in it.
	quiet time.Duration
}

// note records a delivery that brought something new.
func (n *news) note() {
	n.count++
	n.restart()
}

// restart starts the stall clocks again.
func (n *news) restart() {
	n.since = time.Now()
	n.quiet = 0
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

// retryAfterWait makes the stream wait the backoff of one attempt, then
// enter retry.
func (s *Stream) retryAfterWait(retry phase) {
	s.rec.retry = retry
	s.phase = phaseBackoff
}

// backoff waits the backoff of one attempt, if the budget allows, then
// enters the phase that makes the call again.
func (s *Stream) backoff() {
	if !s.waitAttempt() {
		if s.phase != phaseDone {
			s.giveUp()
		}
		return
	}
	s.phase = s.rec.retry
}

// giveUp ends a stream whose budget is spent, as what it waited for says:
// a send ends in a *reconnect.Error; the get-task that asked whether an
// error ended the task, in that error; a resume delivers first the
// halting event held back, if any.
func (s *Stream) giveUp() {
	switch r := s.rec.retry; {
	case r == phaseSend, r == phaseReply, r == phasePollSend, r == phasePollReply:
		// A send made again until the budget is spent ends in it as is.
	case r == phaseFetch && s.rec.why == fetchAfterError:
		s.fail(s.rec.streamErr)
		return
	case s.deliverHeldFinal(s.rec.cause):
		return
	}
	s.fail(s.gaveUp(s.rec.budget.attempts))
}

// subscribe opens a subscribe leg.
func (s *Stream) subscribe() {
	ctx, cancel := s.legContext()
	l, err := s.c.calls.subscribe(ctx, s.call(), s.taskID)
	s.rec.noteReach(err)
	if err != nil {
		cancel(nil)
		s.handle(failure{from: phaseSubscribe, op: opSubscribe, err: err})
		return
	}
	s.rec.gap = true
	s.ledger.OpenReplayWindow()
	s.setLeg(l, opSubscribe, phaseSubscribe, ctx, cancel)
	if s.rec.budget.attempts > 0 {
		s.notify(Notice{Kind: Resumed, TaskID: s.taskID, Attempt: s.rec.budget.attempts, MaxAttempts: s.rec.budget.max})
	}
}

// fetchReason is why phaseFetch fetches the task; what follows the fetch
// depends on it.
type fetchReason int

const (
	// fetchRefused: a subscribe was refused though the task may exist.
	fetchRefused fetchReason = iota
	// fetchNoStream: a subscribe was refused with unsupported operation
	// (outNoStream): a task that still runs is followed by polling.
	fetchNoStream
	// fetchProbe: a 1.0 subscribe was refused while the version is
	// negotiated; a 0.3 server and a 1.0 server that cannot subscribe
	// refuse it alike, and a get-task in 1.0 tells which.
	fetchProbe
	// fetchQuiet: a subscription ended having brought nothing new; output
	// may wait on the server.
	fetchQuiet
	// fetchSilent: a subscription stayed silent past the idle timeout
	// (outSilent); output may wait on the server.
	fetchSilent
	// fetchGap: a halting event is held back until what the gap before it
	// hid is recovered.
	fetchGap
	// fetchAfterError: an RPC error ended a call once the task was known;
	// it may stand for an ending the server did not send as an event (a
	// model failure ending the stream with -32603 while the task says
	// failed).
	fetchAfterError
)

// getTask fetches the stream's task and checks that it is the stream's. It
// returns too the wait the answer asked for before the next poll: its
// Retry-After header (see readUnary), 0 if none.
func (s *Stream) getTask() (*a2a.Task, time.Duration, error) {
	t, asked, err := checkedTask(s.ctx, s.c.calls.getTask, s.call(), s.taskID)
	s.rec.noteReach(err)
	if err == nil {
		err = s.checkOwner(t)
	}
	return t, asked, err
}

// fetch fetches the task for s.rec.why and continues from the state it
// returns.
func (s *Stream) fetch() {
	t, asked, err := s.getTask()
	if err != nil {
		s.handle(failure{from: phaseFetch, op: opGet, err: err})
		return
	}
	// A task fetched in this version proves the version.
	s.proveVersion()
	why := s.rec.why
	if why == fetchProbe {
		// The server speaks 1.0 and refused the subscribe: it cannot
		// subscribe; follow the task by polling, from this task on.
		s.startPolling(s.rec.cause)
		s.rec.retryAfter = asked // the first poll's wait
		s.polled(t, true)
		return
	}
	s.deliverFetched(t, why == fetchRefused || why == fetchNoStream || why == fetchQuiet || why == fetchSilent)
	st := &s.ledger.Task().Status
	switch {
	case why == fetchAfterError && st.State.Terminal():
		// The task ended: its typed ending, not the stream's error.
		s.phase = phaseHalted
	case why == fetchAfterError:
		s.fail(s.rec.streamErr)
	case s.haltsAt(st):
		s.phase = phaseHalted
	case s.prompt.unconfirmed && s.waitsOnRepliedPrompt():
		// The reply never reached the agent: send it again, unchanged.
		s.phase = s.route.reply
	case why == fetchNoStream:
		// The server refused to stream a task that still runs: it cannot
		// stream it, now or on the next attempt.
		s.startPolling(s.rec.cause)
		s.rec.retryAfter = asked // the first poll's wait
		s.pollAgain()
	case why == fetchSilent && (st.State == a2a.StateWorking || st.State == a2a.StateSubmitted):
		// The subscription was silent past the idle timeout, but the agent
		// answers and the task runs: quiet, not failing. Waiting on it
		// costs no attempt; the stall limit bounds a task that never moves
		// again. (A subscription the server closed with nothing new is a
		// failed attempt.)
		if s.stalled() {
			return
		}
		s.rec.budget.progress()
		s.retryAfterWait(s.route.resume)
	default:
		// Still working, or a stale prompt: wait, then resubscribe, as the
		// next attempt.
		if why != fetchQuiet && why != fetchSilent {
			s.rec.cause = errStillRunning
		}
		s.retryAfterWait(s.route.resume)
	}
}

// deliverFetched delivers a task a get-task returned (a fetch or a poll),
// which closes any gap, with the halting event held back, if any, folded
// after it. tellResumed tells WithNotify that the get-task ended a failed
// attempt, if it did.
func (s *Stream) deliverFetched(t *a2a.Task, tellResumed bool) {
	s.learnReplied(t, false)
	s.rec.gap = false
	attempt := s.rec.budget.attempts // the attempt this get-task ends, if any
	s.deliver(t, foldAuthoritative, s.rec.final)
	s.rec.final = nil
	if tellResumed && attempt > 0 {
		s.notify(Notice{Kind: Resumed, TaskID: s.taskID, Attempt: attempt, MaxAttempts: s.rec.budget.max})
	}
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
