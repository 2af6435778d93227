package stream

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/transport"
)

// phase is where the driver stands between two calls of step. Each phase
// has one handler, which makes at most one call (or one wait), delivers
// what it brought, and returns the next phase, which step enters: follow
// (next.go) decides it from the facts the handler reports, and act
// (act.go) acts on that; a failed call goes to classify (outcome.go)
// instead, and handle acts on its outcome.
//
// How the stream follows its task is which phases it goes through: by
// streaming (phaseSend, phaseReply, phaseRead, phaseSubscribe, phaseFetch)
// until it finds that the agent cannot stream, then by polling
// (phasePollSend, phasePollReply, phasePollWait, phasePoll, phaseCatchUp)
// for good. s.route names the phases of the route in use.
type phase int

const (
	phaseBegin       phase = iota // choose the route (the agent card may say poll), then send or subscribe
	phaseSend                     // send the message with a streaming call
	phaseReply                    // send the reply to the prompt (again, unchanged) with a streaming call
	phaseRead                     // read the next event of the current leg
	phaseSubscribe                // subscribe to the task
	phaseFetch                    // fetch the task once, for the reason in s.ask.why
	phaseProbe                    // fetch the task in 1.0 after a refused 1.0 subscribe, to learn the version
	phasePollSend                 // send the message with a unary call
	phasePollReply                // send the reply to the prompt (again, unchanged) with a unary call
	phasePollWait                 // wait the poll interval
	phasePoll                     // fetch the task: the next poll
	phaseCatchUp                  // fetch the task at once: polling began, an attempt was waited for, or credentials given
	phaseBackoff                  // wait the backoff of one attempt, then enter s.tries.again
	phaseResume                   // fetch the task a checkpoint names and seed the ledger (Resume): before any other call
	phaseHalted                   // the task halted: finish, or ask the human or the credentials hook
	phaseAsk                      // call the human-input hook about the prompt the task halted at
	phaseCredentials              // call the credentials hook: the task halted in auth-required, or a call got 401
	phasePushSet                  // register a push config with the agent (WithPush), then follow the task by push
	phaseDone                     // the stream has ended
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

// legContext returns the context of a leg about to open and the function
// that ends it. A leg the stall limit may cut (see waitNext) reads under a
// context of its own, made from the stream's; any other reads under the
// stream's context itself, which the leg's Close does not need, and its
// cancel does nothing: a context more costs an idle stream a few hundred
// bytes.
func (s *Stream) legContext() (context.Context, context.CancelCauseFunc) {
	if !s.stallTimed() {
		return s.ctx, func(error) {}
	}
	return context.WithCancelCause(s.ctx)
}

// stallTimed reports whether a timer enforces the stall limit on the
// stream's legs: only when an idle timeout bounds its silence, as keep-alive
// comments keep the idle timer from firing (see waitNext).
func (s *Stream) stallTimed() bool {
	return s.cfg.stallTimeout > 0 && s.cfg.idleTimeout > 0
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

// step makes one step of the driver: the handler of the phase (or the
// resume's get-task, which a resumed stream makes before any other call)
// makes its call and reports what it found; a failed call goes to
// classify and handle, anything else to follow and act; step enters the
// phase they return: the one place the loop changes the phase.
func (s *Stream) step() {
	if s.phase != phasePollWait && s.phase != phasePoll {
		// Only the poll wait comes between a poll and the next that may
		// find its task again (see lastPoll).
		s.lastPoll.forget()
	}
	var r report
	switch err := s.ctx.Err(); {
	case err != nil:
		r = found(facts{err: err})
	case s.resuming != nil && s.phase.makesCall():
		r = s.resume()
	default:
		r = s.run(s.phase)
	}
	if f := r.fail; f != nil {
		o := classify(f.op, f.err, s.situation(*f))
		if s.tr != nil {
			if closeCut(s.ctx, o.err) {
				s.traceDone("closed", nil)
			} else {
				s.traceDone(outcomeName(o.kind), o.err)
			}
		}
		s.enter(s.handle(o, *f))
		return
	}
	if s.tr != nil {
		s.traceAnswered()
	}
	s.enter(s.act(follow(&r.facts)))
}

// enter makes p the stream's phase. It is the one place the phase changes,
// and so where a Trace is told that the stream ends.
func (s *Stream) enter(p phase) {
	if p == phaseDone && s.phase != phaseDone && s.tr != nil {
		s.traceEnd()
	}
	s.phase = p
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
		probing:         f.from == phaseProbe,
		pushUntried:     s.pushUntried(),
	}
	if f.from == phaseFetch && s.ask.why == fetchAfterError {
		sit.askedAbout = s.ask.err
	}
	return sit
}

// report is what a step found: a failed call (or a leg's end), or the
// facts follow reads. A failure is held by pointer so that a report of
// facts, one per event, stays small.
type report struct {
	fail  *failure // nil unless the step failed
	facts facts
}

// failedWith reports a failed call.
func failedWith(f failure) report { return report{fail: &f} }

// found reports the facts of a step.
func found(f facts) report { return report{facts: f} }

// run calls the handler of phase p.
func (s *Stream) run(p phase) report {
	switch p {
	case phaseBegin:
		return s.begin()
	case phaseSend:
		return s.send()
	case phaseReply:
		return s.sendReply()
	case phaseRead:
		return s.read()
	case phaseSubscribe:
		return s.subscribe()
	case phaseFetch:
		return s.fetch()
	case phaseProbe:
		return s.probe()
	case phasePollSend:
		return s.pollSend()
	case phasePollReply:
		return s.pollReply()
	case phasePollWait:
		return s.pollWait()
	case phasePoll, phaseCatchUp:
		return s.poll(p)
	case phaseBackoff:
		return s.backoff()
	case phasePushSet:
		return s.pushSet()
	case phaseResume:
		return s.resume()
	case phaseHalted:
		return s.onHalt()
	case phaseAsk:
		return s.askHuman()
	case phaseCredentials:
		return s.credentials()
	}
	return found(facts{err: fmt.Errorf("stream: internal error: phase %d", p)})
}

// begin chooses how the stream follows its task, on the goroutine that
// calls Next (where WithNotify is called): by polling when the agent card
// said the agent cannot stream (or the stream Resume resumes followed its
// task by polling), else by streaming. Then it sends the message, or, for
// Subscribe and Resume, picks the task up.
func (s *Stream) begin() report {
	s.tellWithheld()
	// The card says the agent cannot stream, or the stream resumed found
	// out it cannot.
	pollFirst := s.cfg.streaming == streamingNo || s.resuming != nil && s.resuming.polling
	return found(facts{after: afterBegin, sendsMessage: s.msg != nil, pollFirst: pollFirst})
}

// send opens the first leg: the streaming send of the message.
func (s *Stream) send() report {
	s.readyMessage()
	return s.sendStreaming(phaseSend, s.msg)
}

// readyMessage prepares each send of the message (the first one, or the
// same again).
func (s *Stream) readyMessage() {
	if !s.ledger.Known() {
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
func (s *Stream) sendStreaming(from phase, m *a2a.Message) report {
	ctx, cancel := s.legContext()
	if s.tr != nil {
		s.traceStart(sendKind(from), true, m)
	}
	l, err := s.c.calls.sendStream(ctx, s.call(), m)
	s.contact.noteReach(err)
	s.prompt.heard(err)
	if err != nil {
		cancel(nil)
		return failedWith(failure{from: from, op: opSend, err: err})
	}
	s.setLeg(l, opSend, from, ctx, cancel)
	if s.tr != nil {
		s.traceConnected(l)
	}
	s.resumedBySend()
	return found(facts{after: afterOpen})
}

// resumedBySend tells WithNotify that a send made again after a failed
// attempt got through.
func (s *Stream) resumedBySend() {
	if s.contact.toldResent() {
		s.notify(Notice{Kind: Resumed, TaskID: s.taskID, Attempt: s.tries.budget.attempts, MaxAttempts: s.tries.budget.max})
	}
}

func (s *Stream) setLeg(l *leg, op operation, from phase, ctx context.Context, cancel context.CancelCauseFunc) {
	s.leg = active{l: l, op: op, from: from, news: s.news.count, ctx: ctx, cancel: cancel}
}

// proveVersion records that the version in use works: a call made in it
// was answered.
func (s *Stream) proveVersion() {
	s.nego = false
	s.c.remember(s.v)
}

// read handles the next event of the current leg. With an idle timeout,
// the read waits at most what is left of the stall limit: the time reads
// waited since the last news counts, keep-alive comments or not, and the
// time the caller took between two events does not.
func (s *Stream) read() report {
	l := s.leg.l
	ev, err := s.waitNext(l)
	if err != nil {
		f := failure{from: s.leg.from, op: s.leg.op, err: err, started: l.events > 0, nothingNew: s.news.count == s.leg.news,
			stalled: s.leg.stalled(s.news.quiet, s.cfg.stallTimeout)}
		s.leg.close()
		return failedWith(f)
	}
	if l.events == 1 {
		if s.tr != nil {
			s.traceFirstEvent()
		}
		// The first event of a leg proves the version works.
		s.proveVersion()
	}
	if m, ok := ev.(*a2a.Message); ok && s.taskID == "" && !s.ledger.Known() {
		s.answerWith(m)
		return found(facts{after: afterEvent, answered: true})
	}
	if err := s.checkEvent(ev); err != nil {
		return found(facts{after: afterEvent, err: err})
	}
	t, isTask := ev.(*a2a.Task)
	if isTask {
		s.learnReplied(t, s.leg.op == opSend && l.events == 1)
		if s.leg.op == opSubscribe && l.events == 1 && s.ledger.Covers(t) {
			// A snapshot that covers what is held closes the gap, and
			// supersedes any final event held back.
			if s.tr != nil && s.gap.open {
				s.traceGap(GapHealed, false)
			}
			s.gap.clear()
		}
	}
	arrived := facts{after: afterArrive, gapOpen: s.gap.open, event: ev}
	arrived.halting = s.gap.open && s.wouldHalt(ev)
	if follow(&arrived).kind != moveDeliver {
		return found(arrived)
	}
	how := foldStale
	if isTask && s.leg.op == opSubscribe && l.events == 1 {
		how = foldSnapshot
	}
	s.deliver(ev, how, nil)
	return found(s.newsFacts(afterEvent))
}

// waitNext returns the next event of l, under the stall limit when an
// idle timeout bounds the stream's silence: the leg's timer cuts its
// context with errStalled once the reads waited the limit since the last
// news, so that keep-alive comments, which keep the idle timer from
// firing, do not keep the stall limit away either. The wait counts in the
// stall clock.
func (s *Stream) waitNext(l *leg) (a2a.Event, error) {
	if !s.stallTimed() {
		// No stall timer cuts a leg of this stream, so nothing reads the
		// time the reads waited (news.quiet, which only a leg the timer
		// cut compares with the limit): the read is not timed. Two clock
		// readings per event are a few percent of its cost on some
		// machines.
		return l.next()
	}
	a := &s.leg
	if a.cancel != nil {
		left := s.cfg.stallTimeout - s.news.quiet
		if a.stall == nil {
			cancel := a.cancel
			a.stall = time.AfterFunc(left, func() { cancel(errStalled) })
		} else {
			a.stall.Reset(left)
		}
	}
	start := time.Now()
	ev, err := l.next()
	s.news.waited(time.Since(start))
	if a.stall != nil {
		a.stall.Stop()
	}
	return ev, err
}

// checkEvent checks that an event can be applied to the stream's task: it
// belongs to the task (the same task ID and, when both are known, the same
// context ID; the first event that names a task sets the stream's), and
// each artifact it carries has an ID, which A2A requires and without which
// its parts would belong to no artifact.
func (s *Stream) checkEvent(ev a2a.Event) error {
	id, contextID := eventOwner(ev)
	var reason string
	switch {
	case !artifactsNamed(ev):
		reason = "an artifact without an artifactId"
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
	if s.ledger.Known() {
		known = s.ledger.ContextID()
	} else if s.resuming != nil {
		known = s.resuming.contextID
	}
	if reason == "" && contextID != "" && known != "" && contextID != known {
		reason = fmt.Sprintf("event in context %q for task %q of context %q", quote([]byte(contextID)), s.taskID, known)
	}
	if reason == "" {
		return nil
	}
	return &transport.ProtocolError{Reason: reason + eventSummary(ev), Event: ev}
}

// artifactsNamed reports whether every artifact ev carries has an ID.
func artifactsNamed(ev a2a.Event) bool {
	switch ev := ev.(type) {
	case *a2a.ArtifactUpdate:
		return ev.Artifact.ID != ""
	case *a2a.Task:
		for i := range ev.Artifacts {
			if ev.Artifacts[i].ID == "" {
				return false
			}
		}
	}
	return true
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
	st := s.ledger.Status()
	return st != nil && s.haltsAt(st)
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
// yielded first), as follow decides by the task's state.
func (s *Stream) onHalt() report {
	return found(facts{after: afterHalt, state: s.ledger.Status().State})
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
