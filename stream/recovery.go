package stream

import (
	"errors"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/callmark"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/transport"
)

// The state of healing a dropped connection, by meaning. Each type's fields
// are assigned only by its methods below (asking's only in act.go); the
// files that call those methods:
//
//   - attempts (Stream.tries): the reconnect budget, the cause of the last
//     failed attempt, the wait the server asked for, and the phase an
//     attempt makes again. act.go records failures and the attempt to make
//     (handle, act); recovery.go spends the budget (backoff); poll.go notes
//     and takes the wait a poll's answer asked for; stream.go makes the
//     budget and starts it again on news (newStream, deliver); prompt.go
//     and auth.go start it again when a hook answered.
//   - gap (Stream.gap): whether a resubscribe may have missed output, and
//     the halting event held back meanwhile. recovery.go opens it
//     (subscribe) and closes it when a fetched task or the held event is
//     delivered (deliverFetched, deliverHeldFinal); driver.go clears it
//     when a snapshot covers what is held (read); act.go holds an event
//     back; prompt.go closes it as a reply is sent (readyReply).
//   - asking (Stream.ask): why phaseFetch fetches the task, and the error
//     the fetch asks about: act.go assigns both (fetchFor, handle).
//   - contact (Stream.contact): whether a call reached the agent, and
//     whether a send made again is to be told when it gets through.
//     driver.go, poll.go and recovery.go note each call's reach
//     (noteReach); act.go marks a re-send, driver.go tells it
//     (resumedBySend).
//   - news (Stream.news): the stall clocks. stream.go starts them and notes
//     news (newStream, deliver); driver.go counts the time reads wait
//     (waitNext); poll.go and auth.go start them again (startPolling,
//     askCredentials).

// attempts is the state of the reconnect attempts.
type attempts struct {
	budget budget
	cause  error         // the last cause of a drop
	asked  time.Duration // the wait the server asked for, if any
	// again is the phase phaseBackoff enters once its wait is over: the
	// route's resume after a drop, or the failed call's own phase.
	again phase
}

// failed records the cause of a failed call and the wait its server asked
// for.
func (a *attempts) failed(cause error, asked time.Duration) { a.cause, a.asked = cause, asked }

// blame records the cause of the next attempt alone.
func (a *attempts) blame(cause error) { a.cause = cause }

// ask records the wait a server asked for before the next call.
func (a *attempts) ask(d time.Duration) { a.asked = d }

// retry records the phase the next attempt makes again.
func (a *attempts) retry(p phase) { a.again = p }

// spend counts an attempt, if the budget allows one, and returns the wait
// before it: the backoff, or the wait the server asked for when longer,
// which it consumes.
func (a *attempts) spend() (time.Duration, bool) {
	wait, ok := a.budget.next()
	if !ok {
		return 0, false
	}
	wait, a.asked = max(wait, a.asked), 0
	return wait, true
}

// takeAsked returns the wait the server asked for, consumed.
func (a *attempts) takeAsked() time.Duration {
	d := a.asked
	a.asked = 0
	return d
}

// progress starts the count again: something new was delivered.
func (a *attempts) progress() { a.budget.progress() }

// reset gives the stream a fresh budget of policy p.
func (a *attempts) reset(p reconnect.Policy) { a.budget = newBudget(p) }

// gap is what a resubscribe may have missed.
type gap struct {
	// open: resubscribed since the last snapshot or get-task, so output
	// may have been missed.
	open bool
	// final is a halting event held back until the gap is closed.
	final a2a.Event
}

// start opens the gap: a resubscribe.
func (g *gap) start() { g.open = true }

// close closes the gap; an event held back stays held.
func (g *gap) close() { g.open = false }

// clear closes the gap and forgets the event held back: a snapshot that
// covers what is held supersedes it.
func (g *gap) clear() { *g = gap{} }

// release closes the gap and returns the event held back, if any,
// forgotten: a fetched task is delivered with it.
func (g *gap) release() a2a.Event {
	final := g.final
	*g = gap{}
	return final
}

// hold holds back a halting event until the gap is closed.
func (g *gap) hold(ev a2a.Event) { g.final = ev }

// take returns the event held back, forgotten, leaving the gap as it is.
func (g *gap) take() a2a.Event {
	final := g.final
	g.final = nil
	return final
}

// asking is why phaseFetch fetches the task.
type asking struct {
	why fetchReason
	// err is the error that ended a call once the task was known, while
	// the task is fetched to see whether it ended (fetchAfterError).
	err error
}

// contact is what the stream's calls showed of the agent.
type contact struct {
	// reached: a call of the stream connected to the agent (it answered,
	// or the request may have reached it). A stream that ends without
	// one says it could not connect.
	reached bool
	// resent: a send was made again after a failed attempt, and its
	// success is to be told (a Resumed notice).
	resent bool
	// toldResumed: a Resumed notice was told since the last Reconnecting
	// one; the attempt's other successes (a subscription that opened, then
	// the get-task its error asked for) are not told again.
	toldResumed bool
}

// noteReach records the result of a call: any but an error whose request
// never left shows that the agent could be reached.
func (c *contact) noteReach(err error) {
	if err == nil || !callmark.IsUnsent(err) {
		c.reached = true
	}
}

// resend records that a send is made again after a failed attempt.
func (c *contact) resend() { c.resent = true }

// toldResent reports whether a send made again is to be told, once.
func (c *contact) toldResent() bool {
	r := c.resent
	c.resent = false
	return r
}

// news counts the deliveries that brought something new, and keeps the
// stall clocks: of polling, its start (the last of them, or the switch to
// polling if later); of streaming, the time reads waited since.
type news struct {
	count int
	// since is when the stall clocks last started, as the time after base
	// on the monotonic clock: base is read once, and each start then takes
	// one reading of the monotonic clock, not the two of time.Now (the
	// wall clock too), a cost paid on every event.
	base  time.Time
	since time.Duration
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
	if n.base.IsZero() {
		n.base = time.Now()
	}
	n.since = time.Since(n.base)
	n.quiet = 0
}

// waited adds the time a read waited to the streaming stall clock.
func (n *news) waited(d time.Duration) { n.quiet += d }

// stallSpent reports whether polling's stall limit is spent: the task has
// shown nothing new for the stall limit.
func (s *Stream) stallSpent() bool {
	d := s.cfg.stallTimeout
	return d > 0 && time.Since(s.news.base)-s.news.since >= d
}

// gaveUp is the *reconnect.Error that ends a stream after attempts
// reconnects for s.tries.cause: its budget is spent, or its connection was
// lost before any task was known. It names the agent's URL (or the address
// a Transport gave transport.CouldNotConnect) when no call of the stream could connect:
// none reached the agent, and the last one tried to connect and failed (the
// breaker's refusal tried nothing).
func (s *Stream) gaveUp(attempts int) error {
	cause := s.tries.cause
	e := &reconnect.Error{Attempts: attempts, Err: cause, TaskID: s.taskID, Task: s.snapshot()}
	if !s.contact.reached && callmark.IsUnsent(cause) && !errors.Is(cause, transport.ErrCircuitOpen) {
		e.Unreachable = unreachable(s.c.endpoint, cause)
	}
	return e
}

var errStillRunning = errors.New("the task is still running but the server refused to resubscribe")

// backoff counts an attempt and waits its backoff, telling WithNotify,
// then makes the attempt's call again; follow decides what ends a stream
// whose budget is spent.
func (s *Stream) backoff() report {
	asked := s.tries.asked
	wait, ok := s.tries.spend()
	if !ok {
		f := facts{after: afterSpent, resends: s.tries.again.sends(), heldFinal: s.gap.final != nil, why: fetchNone}
		if s.tries.again == phaseFetch {
			f.why = s.ask.why
		}
		return found(f)
	}
	s.notify(Notice{Kind: Reconnecting, TaskID: s.taskID, Attempt: s.tries.budget.attempts,
		MaxAttempts: s.tries.budget.max, Wait: wait, Cause: s.tries.cause})
	if s.tr != nil {
		s.traceWait(WaitInfo{Kind: WaitBackoff, Attempt: s.tries.budget.attempts, MaxAttempts: s.tries.budget.max,
			Wait: wait, Asked: asked, Cause: s.tries.cause})
	}
	return found(facts{after: afterBackoff, err: s.sleep(wait)})
}

// sleep waits d, and returns the error that cut the wait: the stream's
// context's when it ended.
func (s *Stream) sleep(d time.Duration) error {
	err := s.cfg.sleep(s.ctx, d)
	if err == nil {
		return nil
	}
	if ctxErr := s.ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	return err
}

// sends reports whether the phase sends the message or the reply.
func (p phase) sends() bool {
	switch p {
	case phaseSend, phaseReply, phasePollSend, phasePollReply:
		return true
	}
	return false
}

// subscribe opens a subscribe leg.
func (s *Stream) subscribe() report {
	ctx, cancel := s.legContext()
	if s.tr != nil {
		s.traceStart(AttemptSubscribe, true, nil)
	}
	l, err := s.c.calls.subscribe(ctx, s.call(), s.taskID)
	s.contact.noteReach(err)
	if err != nil {
		cancel(nil)
		return failedWith(failure{from: phaseSubscribe, op: opSubscribe, err: err})
	}
	if s.tr != nil && !s.gap.open {
		s.traceGap(GapOpened, false)
	}
	s.gap.start()
	s.ledger.OpenReplayWindow()
	s.setLeg(l, opSubscribe, phaseSubscribe, ctx, cancel)
	if s.tr != nil {
		s.traceConnected(l)
	}
	if s.tries.budget.attempts > 0 {
		s.notify(Notice{Kind: Resumed, TaskID: s.taskID, Attempt: s.tries.budget.attempts, MaxAttempts: s.tries.budget.max})
	}
	return found(facts{after: afterOpen})
}

// fetchReason is why phaseFetch fetches the task; what follows the fetch
// depends on it.
type fetchReason int

const (
	// fetchNone: no fetch asks anything.
	fetchNone fetchReason = iota
	// fetchRefused: a subscribe was refused though the task may exist.
	fetchRefused
	// fetchNoStream: a subscribe was refused with unsupported operation
	// (outNoStream): a task that still runs is followed by polling.
	fetchNoStream
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

// fetchTask is the opening of every get-task of the driver (a fetch, a
// probe, a poll, a catch-up, a resume): it fetches the stream's task and
// checks that it is the stream's; a task fetched proves the version. It
// returns too the wait the answer asked for before the next poll: its
// Retry-After header (see readUnary), 0 if none. When the call fails,
// or returns another task, ok is false and r reports it, for the phase
// from that made the call.
func (s *Stream) fetchTask(from phase) (t *a2a.Task, asked time.Duration, r report, ok bool) {
	a, r, ok := s.askTask(from)
	if !ok {
		return nil, 0, r, false
	}
	return s.takeTask(from, a)
}

// askTask makes the get-task of fetchTask and returns its answer, the task
// undecoded; when the call fails, ok is false and r reports it. Only a
// poll (see lastPoll) looks at the answer before takeTask decodes it.
func (s *Stream) askTask(from phase) (a taskAnswer, r report, ok bool) {
	if s.tr != nil {
		s.traceStart(getKind(from), false, nil)
	}
	a, err := s.c.calls.getTask(s.ctx, s.call(), s.taskID)
	s.contact.noteReach(err)
	if err != nil {
		return taskAnswer{}, failedWith(failure{from: from, op: opGet, err: err}), false
	}
	return a, report{}, true
}

// takeTask decodes the task of a, a get-task's answer, and checks that it
// is the stream's (see fetchTask).
func (s *Stream) takeTask(from phase, a taskAnswer) (t *a2a.Task, asked time.Duration, r report, ok bool) {
	t, err := taskOfAnswer(a, s.taskID)
	if err == nil {
		err = s.checkEvent(t)
	}
	if err != nil {
		return nil, 0, failedWith(failure{from: from, op: opGet, err: err}), false
	}
	s.proveVersion()
	return t, a.asked, report{}, true
}

// fetch fetches the task for s.ask.why and delivers it; follow decides
// what follows from the state it shows.
func (s *Stream) fetch() report {
	t, asked, r, ok := s.fetchTask(phaseFetch)
	if !ok {
		return r
	}
	why := s.ask.why
	s.deliverFetched(t, why == fetchRefused || why == fetchNoStream || why == fetchQuiet || why == fetchSilent)
	f := s.newsFacts(afterFetch)
	f.why, f.state, f.asked = why, s.ledger.Status().State, asked
	return found(f)
}

// newsFacts returns the facts follow reads after a step that delivered
// what the server sent (see afterNews).
func (s *Stream) newsFacts(a after) facts {
	f := facts{after: a, halts: s.halted(), polling: s.route == pollingRoute()}
	f.pushUntried = f.polling && s.pushUntried()
	f.replyUnheard = s.prompt.unconfirmed && s.waitsOnRepliedPrompt()
	f.idempotentSends = s.cfg.idempotentSends
	if a != afterEvent {
		f.stalled = s.stallSpent()
	}
	return f
}

// deliverFetched delivers a task a get-task returned (a fetch or a poll),
// which closes any gap, with the halting event held back, if any, folded
// after it. tellResumed tells WithNotify that the get-task ended a failed
// attempt, if it did.
func (s *Stream) deliverFetched(t *a2a.Task, tellResumed bool) {
	s.learnReplied(t, false)
	attempt := s.tries.budget.attempts // the attempt this get-task ends, if any
	if s.tr != nil && s.gap.open {
		s.traceGap(GapHealed, true)
	}
	s.deliver(t, foldAuthoritative, s.gap.release())
	if tellResumed && attempt > 0 {
		s.notify(Notice{Kind: Resumed, TaskID: s.taskID, Attempt: attempt, MaxAttempts: s.tries.budget.max})
	}
}

// deliverHeldFinal delivers the halting event held back while a gap could
// not be closed, so that an ending the server reported is never lost. What
// the gap hid from a live-only server (parts the agent produced while the
// client was away) is then missing from Task. It reports whether the task
// halted.
func (s *Stream) deliverHeldFinal(cause error) bool {
	final := s.gap.take()
	if final == nil {
		return false
	}
	s.log.Debug("a2a: could not close the gap, delivering the final event as received", "task", s.taskID, "cause", cause)
	if s.tr != nil {
		s.traceGap(GapUnhealed, false)
	}
	s.deliver(final, foldStale, nil)
	return s.halted()
}
