package stream

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/terminal"
)

// phase is where the driver stands between two calls of step. Each phase
// has one handler, which makes at most one call (or one wait) and sets the
// next phase itself; a failed call goes to handle, which acts on the
// outcome classify decides.
//
// How the stream follows its task is which phases it goes through: by
// streaming (phaseSend, phaseReply, phaseRead, phaseSubscribe, phaseFetch)
// until it finds that the agent cannot stream, then by polling
// (phasePollSend, phasePollReply, phasePollWait, phasePoll, phaseCatchUp)
// for good. s.route names the phases of the route in use.
type phase int

const (
	phaseBegin     phase = iota // choose the route (the agent card may say poll), then send or subscribe
	phaseSend                   // send the message with a streaming call
	phaseReply                  // send the reply to the prompt (again, unchanged) with a streaming call
	phaseRead                   // read the next event of the current leg
	phaseSubscribe              // subscribe to the task
	phaseFetch                  // fetch the task once, for the reason in s.rec.why
	phasePollSend               // send the message with a unary call
	phasePollReply              // send the reply to the prompt (again, unchanged) with a unary call
	phasePollWait               // wait the poll interval
	phasePoll                   // fetch the task: the next poll
	phaseCatchUp                // fetch the task at once: polling began, an attempt was waited for, or credentials given
	phaseBackoff                // wait the backoff of one attempt, then enter s.rec.retry
	phaseResume                 // fetch the task a checkpoint names and seed the ledger (Resume): before any other call
	phaseHalted                 // the task halted: finish, or ask the human or the credentials hook
	phaseDone                   // the stream has ended
)

// route is the phases by which the stream follows its task: the
// streaming one, then, once the agent or server showed it cannot stream or
// subscribe, the polling one for good (startPolling).
type route struct {
	send   phase // sends the message
	reply  phase // sends the reply to a prompt
	resume phase // picks the task up again: after a drop, credentials, or a refused subscribe
}

func streamingRoute() route { return route{send: phaseSend, reply: phaseReply, resume: phaseSubscribe} }

func pollingRoute() route {
	return route{send: phasePollSend, reply: phasePollReply, resume: phaseCatchUp}
}

// active is the leg being read, with what opened it.
type active struct {
	l    *leg
	op   operation // opSend or opSubscribe
	from phase     // the phase that opened it, made again on a downgrade
	news int       // the stream's news count when it opened
	// ctx is the leg's context, which the stall limit cancels with
	// errStalled; cancel ends it when the leg closes.
	ctx    context.Context
	cancel context.CancelCauseFunc
	stall  *time.Timer // the stall limit's timer, running while a read waits
}

// errStalled is the cancel cause of a leg the stall limit cut.
var errStalled = errors.New("stalled")

// legContext returns the context of a leg about to open: the stream's,
// which the stall limit may cut (see read).
func (s *Stream) legContext() (context.Context, context.CancelCauseFunc) {
	return context.WithCancelCause(s.ctx)
}

func (a *active) close() {
	if a.l != nil {
		a.l.close()
		a.l = nil
	}
	if a.stall != nil {
		a.stall.Stop()
		a.stall = nil
	}
	if a.cancel != nil {
		a.cancel(nil)
		a.cancel = nil
	}
}

// stalled reports whether the stall limit cut the leg and nothing new came
// since: quiet, the time reads waited since the last news, reached limit.
func (a *active) stalled(quiet, limit time.Duration) bool {
	return a.ctx != nil && context.Cause(a.ctx) == errStalled && limit > 0 && quiet >= limit
}

func (s *Stream) step() {
	if err := s.ctx.Err(); err != nil {
		s.fail(err)
		return
	}
	if s.resuming != nil && s.phase.makesCall() {
		s.phase = phaseResume
	}
	switch s.phase {
	case phaseBegin:
		s.begin()
	case phaseSend:
		s.send()
	case phaseReply:
		s.sendReply()
	case phaseRead:
		s.read()
	case phaseSubscribe:
		s.subscribe()
	case phaseFetch:
		s.fetch()
	case phasePollSend:
		s.pollSend()
	case phasePollReply:
		s.pollReply()
	case phasePollWait:
		s.pollWait()
	case phasePoll:
		s.poll()
	case phaseCatchUp:
		s.catchUp()
	case phaseBackoff:
		s.backoff()
	case phaseResume:
		s.resume()
	case phaseHalted:
		s.onHalt()
	}
}

// begin chooses how the stream follows its task, on the goroutine that
// calls Next (where WithNotify is called): by polling when the agent card
// said the agent cannot stream (or the stream Resume resumes followed its
// task by polling), else by streaming. Then it sends the message, or, for
// Subscribe and Resume, picks the task up.
func (s *Stream) begin() {
	s.tellWithheld()
	if s.cfg.streaming == streamingNo || s.resuming != nil && s.resuming.polling {
		// The card says the agent cannot stream, or the stream resumed
		// found out it cannot.
		s.startPolling(nil)
	}
	if s.msg != nil {
		s.phase = s.route.send
		return
	}
	s.phase = s.route.resume
}

// send opens the first leg: the streaming send of the message.
func (s *Stream) send() {
	s.readyMessage()
	s.sendStreaming(phaseSend, s.msg)
}

// readyMessage prepares each send of the message (the first one, or the
// same again).
func (s *Stream) readyMessage() {
	if s.ledger.Task() == nil {
		s.ledger.RecordSent(s.msg)
	}
	if s.msg.TaskID != "" {
		// The message continues a task, most likely replying to its
		// prompt: the stream must know that prompt as replied to when the
		// server shows it again.
		s.prompt.reply = s.msg
	}
	s.ledger.CloseReplayWindow()
}

// sendStreaming sends m, the message or the reply, with a streaming call
// for phase from, and reads the leg it opens.
func (s *Stream) sendStreaming(from phase, m *a2a.Message) {
	ctx, cancel := s.legContext()
	l, err := s.c.calls.sendStream(ctx, s.call(), m)
	s.rec.noteReach(err)
	s.prompt.heard(err)
	if err != nil {
		cancel(nil)
		s.handle(failure{from: from, op: opSend, err: err})
		return
	}
	s.setLeg(l, opSend, from, ctx, cancel)
	s.resumedBySend()
}

// resumedBySend tells WithNotify that a send made again after a failed
// attempt got through.
func (s *Stream) resumedBySend() {
	if s.rec.resent {
		s.rec.resent = false
		s.notify(Notice{Kind: Resumed, TaskID: s.taskID, Attempt: s.rec.budget.attempts, MaxAttempts: s.rec.budget.max})
	}
}

func (s *Stream) setLeg(l *leg, op operation, from phase, ctx context.Context, cancel context.CancelCauseFunc) {
	s.leg = active{l: l, op: op, from: from, news: s.rec.news.count, ctx: ctx, cancel: cancel}
	s.phase = phaseRead
}

// fetchFor fetches the task next, for why.
func (s *Stream) fetchFor(why fetchReason) {
	s.rec.why = why
	s.phase = phaseFetch
}

// proveVersion records that the version in use works: a call made in it
// was answered.
func (s *Stream) proveVersion() {
	s.nego = false
	s.c.remember(s.v)
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

// situation is what classify needs to know of the stream besides the
// failed call itself.
func (s *Stream) situation(f failure) situation {
	sit := situation{
		started:         f.started,
		nothingNew:      f.nothingNew,
		stalled:         f.stalled,
		negotiating:     s.nego,
		ctxErr:          s.ctx.Err(),
		taskKnown:       s.taskID != "",
		polling:         s.route == pollingRoute(),
		firstMessage:    f.from == phaseSend || f.from == phasePollSend,
		cardStreams:     s.cfg.streaming == streamingYes,
		idempotentSends: s.cfg.idempotentSends,
		credentials:     s.cfg.credentials != nil,
	}
	if f.from == phaseFetch {
		sit.probing = s.rec.why == fetchProbe
		if s.rec.why == fetchAfterError {
			sit.askedAbout = s.rec.streamErr
		}
	}
	return sit
}

// handle acts on a failed call or a leg's end, as classify decides; it
// decides nothing itself.
func (s *Stream) handle(f failure) {
	o := classify(f.op, f.err, s.situation(f))
	err := o.err
	switch o.kind {
	case outEnd:
		s.fail(err)
	case outFatal:
		if !s.deliverHeldFinal(err) {
			s.fail(err)
		}
	case outAskTask:
		if s.deliverHeldFinal(err) {
			return
		}
		s.rec.streamErr = err
		s.fetchFor(fetchAfterError)
	case outCredentials:
		s.renewCredentials(err)
	case outStalled:
		s.log.Debug("a2a: nothing new within the stall limit, keep-alives aside", "task", s.taskID, "limit", s.cfg.stallTimeout)
		s.fail(&StalledError{Task: s.snapshot(), After: s.cfg.stallTimeout})
	case outLost:
		s.rec.cause, s.rec.retryAfter = err, o.retryAfter
		s.fail(s.gaveUp(0))
	case outDrop:
		s.log.Debug("a2a: connection lost", "task", s.taskID, "cause", err)
		s.rec.cause, s.rec.retryAfter = err, o.retryAfter
		s.retryAfterWait(s.route.resume)
	case outRetry:
		if f.op == opSend {
			s.log.Debug("a2a: the send did not reach the agent, sending it again", "task", s.taskID, "cause", err)
			s.rec.resent = true
		}
		s.rec.cause, s.rec.retryAfter = err, o.retryAfter
		s.retryAfterWait(f.from)
	case outDowngrade:
		s.log.Debug("a2a: server refused protocol 1.0, falling back to 0.3", "err", err)
		s.v, s.nego = a2a.V03, false
		s.phase = f.from
	case outSpeaks03:
		s.log.Debug("a2a: server refused protocol 1.0, subscribing in 0.3", "err", err)
		s.v, s.nego = a2a.V03, false
		s.phase = phaseSubscribe
	case outProbe:
		s.log.Debug("a2a: subscribe refused in 1.0, fetching the task to learn the version", "task", s.taskID, "err", err)
		s.rec.cause = err
		s.fetchFor(fetchProbe)
	case outRefused:
		s.log.Debug("a2a: resubscribe refused, fetching the task", "task", s.taskID, "err", err)
		s.rec.cause = err
		s.fetchFor(fetchRefused)
	case outNoStream:
		s.log.Debug("a2a: resubscribe refused, fetching the task", "task", s.taskID, "err", err)
		s.rec.cause = err
		s.fetchFor(fetchNoStream)
	case outUnsupported:
		// The call that cannot be made is made the polling way: a unary
		// send, or, for a subscribe, a get-task at once.
		s.startPolling(err)
		switch f.from {
		case phaseSend:
			s.phase = s.route.send
		case phaseReply:
			s.phase = s.route.reply
		default:
			s.phase = s.route.resume
		}
	case outQuiet, outSilent:
		// A live-only server (a2a-go) sends nothing, not even headers, until
		// its agent writes again, while output from before the resubscribe
		// may be waiting on the server: fetch the task to recover it. The
		// cycle still costs an attempt unless the task brought something
		// new, or, after silence, runs.
		s.log.Debug("a2a: subscription silent or ended with nothing new, fetching the task", "task", s.taskID, "err", err)
		s.rec.cause = err
		if o.kind == outSilent {
			s.fetchFor(fetchSilent)
		} else {
			s.fetchFor(fetchQuiet)
		}
	default:
		s.fail(fmt.Errorf("stream: internal error: outcome %d", o.kind))
	}
}

// read handles the next event of the current leg. With an idle timeout,
// the read waits at most what is left of the stall limit: the time reads
// waited since the last news counts, keep-alive comments or not, and the
// time the caller took between two events does not.
func (s *Stream) read() {
	l := s.leg.l
	ev, err := s.waitNext(l)
	if err != nil {
		f := failure{from: s.leg.from, op: s.leg.op, err: err, started: l.events > 0, nothingNew: s.rec.news.count == s.leg.news,
			stalled: s.leg.stalled(s.rec.news.quiet, s.cfg.stallTimeout)}
		s.leg.close()
		s.handle(f)
		return
	}
	if l.events == 1 {
		// The first event of a leg proves the version works.
		s.proveVersion()
	}
	if m, ok := ev.(*a2a.Message); ok && s.taskID == "" && s.ledger.Task() == nil {
		s.leg.close()
		s.endWithAnswer(m)
		return
	}
	if err := s.checkOwner(ev); err != nil {
		s.fail(err)
		return
	}
	t, isTask := ev.(*a2a.Task)
	if isTask {
		s.learnReplied(t, s.leg.op == opSend && l.events == 1)
		if s.leg.op == opSubscribe && l.events == 1 && s.ledger.Covers(t) {
			// A snapshot that covers what is held closes the gap, and
			// supersedes any final event held back.
			s.rec.gap, s.rec.final = false, nil
		}
	}
	if s.rec.gap && s.wouldHalt(ev) {
		// First recover what the gap hid, then deliver the final event.
		s.rec.final = ev
		s.leg.close()
		s.fetchFor(fetchGap)
		return
	}
	how := foldStale
	if isTask && s.leg.op == opSubscribe && l.events == 1 {
		how = foldSnapshot
	}
	s.deliver(ev, how, nil)
	switch {
	case s.halted():
		s.leg.close()
		s.phase = phaseHalted
	case s.leg.op == opSubscribe && s.prompt.unconfirmed && s.waitsOnRepliedPrompt():
		// The reply never reached the agent, which still shows the prompt:
		// send the same reply again instead of waiting on this subscription.
		s.leg.close()
		s.phase = s.route.reply
	}
}

// waitNext returns the next event of l, under the stall limit when an
// idle timeout bounds the stream's silence: the leg's timer cuts its
// context with errStalled once the reads waited the limit since the last
// news, so that keep-alive comments, which keep the idle timer from
// firing, do not keep the stall limit away either. The wait counts in the
// stall clock.
func (s *Stream) waitNext(l *leg) (a2a.Event, error) {
	a := &s.leg
	if d := s.cfg.stallTimeout; d > 0 && s.cfg.idleTimeout > 0 && a.cancel != nil {
		left := d - s.rec.news.quiet
		if a.stall == nil {
			cancel := a.cancel
			a.stall = time.AfterFunc(left, func() { cancel(errStalled) })
		} else {
			a.stall.Reset(left)
		}
	}
	start := time.Now()
	ev, err := l.next()
	s.rec.news.quiet += time.Since(start)
	if a.stall != nil {
		a.stall.Stop()
	}
	return ev, err
}

// checkOwner checks that an event belongs to the stream's task: the same
// task ID and, when both are known, the same context ID. The first event
// that names a task sets the stream's.
func (s *Stream) checkOwner(ev a2a.Event) error {
	id, contextID := eventOwner(ev)
	var reason string
	switch {
	case s.taskID == "" && s.msg != nil && s.msg.TaskID != "" && id != "" && id != s.msg.TaskID:
		reason = fmt.Sprintf("event for task %q on the stream continuing task %q", quote([]byte(id)), s.msg.TaskID)
	case s.taskID == "":
		s.taskID = id
	case id != "" && id != s.taskID:
		reason = fmt.Sprintf("event for task %q on the stream of task %q", quote([]byte(id)), s.taskID)
	}
	// The task's context: the ledger's, or, before a resumed stream has
	// fetched its task, the checkpoint's.
	var known string
	if lt := s.ledger.Task(); lt != nil {
		known = lt.ContextID
	} else if s.resuming != nil {
		known = s.resuming.contextID
	}
	if reason == "" && contextID != "" && known != "" && contextID != known {
		reason = fmt.Sprintf("event in context %q for task %q of context %q", quote([]byte(contextID)), s.taskID, known)
	}
	if reason == "" {
		return nil
	}
	return &ProtocolError{Reason: reason + eventSummary(ev), Event: ev}
}

// eventSummary describes an event for an error text, with the state and
// the reason (the status message's text, cut to 64 bytes) a status carries:
// ` (a status update, failed: "the agent's reason")`.
func eventSummary(ev a2a.Event) string {
	var (
		kind string
		st   *a2a.TaskStatus
	)
	switch e := ev.(type) {
	case *a2a.Task:
		kind, st = "a task", &e.Status
	case *a2a.StatusUpdate:
		kind, st = "a status update", &e.Status
	case *a2a.ArtifactUpdate:
		return " (an artifact update)"
	case *a2a.Message:
		return fmt.Sprintf(" (a message: %q)", quote([]byte(e.Text())))
	default:
		return ""
	}
	if text := st.Message.Text(); text != "" {
		return fmt.Sprintf(" (%s, %s: %q)", kind, st.State, quote([]byte(text)))
	}
	return fmt.Sprintf(" (%s, %s)", kind, st.State)
}

// wouldHalt reports whether applying ev would halt the task: it changes the
// status (a replayed one does not) to one the task halts at.
func (s *Stream) wouldHalt(ev a2a.Event) bool {
	var st *a2a.TaskStatus
	switch e := ev.(type) {
	case *a2a.StatusUpdate:
		st = &e.Status
	case *a2a.Task:
		st = &e.Status
	default:
		return false
	}
	return s.haltsAt(st) && s.ledger.ChangesStatus(ev)
}

// halted reports whether the assembled task has halted.
func (s *Stream) halted() bool {
	t := s.ledger.Task()
	return t != nil && s.haltsAt(&t.Status)
}

// haltsAt reports whether a task halts at status st: the stream stops
// reading and acts (onHalt). A task halts at a terminal state, and at
// input-required or auth-required with a question not handled yet. The
// prompt replied to (or the auth-required status credentials were given
// for), still shown by a stale snapshot, is not a new question.
func (s *Stream) haltsAt(st *a2a.TaskStatus) bool {
	switch {
	case st.State.Terminal():
		return true
	case st.State == a2a.StateInputRequired:
		return promptKey(st) != s.prompt.replied
	case st.State == a2a.StateAuthRequired:
		return promptKey(st) != s.auth.given
	}
	return false
}

// onHalt ends the stream, asks the human or asks for credentials, once the
// queue is drained (Next only steps with an empty queue, so the prompt was
// yielded first).
func (s *Stream) onHalt() {
	t := s.ledger.Task()
	switch st := t.Status.State; {
	case st == a2a.StateCompleted:
		s.phase = phaseDone
	case st.Terminal():
		s.fail(terminal.FromTaskWith(s.snapshot(), s.cfg.readFailure))
	case st == a2a.StateInputRequired:
		s.askHuman()
	case st == a2a.StateAuthRequired:
		s.authRequired()
	default:
		s.fail(fmt.Errorf("stream: internal error: halted in state %s", st))
	}
}

// eventOwner returns the task ID and context ID an event names.
func eventOwner(ev a2a.Event) (taskID, contextID string) {
	switch e := ev.(type) {
	case *a2a.Task:
		return e.ID, e.ContextID
	case *a2a.StatusUpdate:
		return e.TaskID, e.ContextID
	case *a2a.ArtifactUpdate:
		return e.TaskID, e.ContextID
	case *a2a.Message:
		return e.TaskID, e.ContextID
	}
	return "", ""
}
