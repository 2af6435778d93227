package stream

import (
	"errors"
	"fmt"
	"io"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/terminal"
)

// phase is where the driver stands between two calls of step. Each phase
// makes at most one call; what follows is decided where its outcome is
// known.
type phase int

const (
	phaseSend       phase = iota // send the message (Send) with a streaming call
	phaseRead                    // read the next event of the current leg
	phaseBackoff                 // the connection dropped: wait, then subscribe
	phaseSubscribe               // subscribe to the task
	phaseRecover                 // fetch the task: a subscribe was refused
	phaseProbe                   // fetch the task in 1.0: a 1.0 subscribe was refused while negotiating
	phaseQuiet                   // fetch the task: a subscription stayed silent
	phaseCloseGap                // fetch the task before delivering a held final event
	phaseAfterError              // fetch the task after an error in the middle of a stream
	phasePollWait                // wait the poll interval, then fetch the task
	phaseHalted                  // the task halted: finish, or ask the human or the credentials hook
	phaseReply                   // (re)send the reply to the prompt
	phaseResend                  // a send did not reach the agent: wait, then make it again
	phaseDone                    // the stream has ended
)

// feed is how the stream follows its task.
type feed int

const (
	// feedStream: streaming calls, healed by subscribing again.
	feedStream feed = iota
	// feedPoll: unary sends, then get-task at the poll interval, for agents
	// that cannot stream or servers that cannot subscribe.
	feedPoll
)

// active is the leg being read, with what opened it.
type active struct {
	l    *leg
	op   operation // opSend or opSubscribe
	from phase     // the phase that opened it, made again on a downgrade
	news int       // the stream's news count when it opened
}

func (a *active) close() {
	if a.l != nil {
		a.l.close()
		a.l = nil
	}
}

func (s *Stream) step() {
	if err := s.ctx.Err(); err != nil {
		s.fail(err)
		return
	}
	switch s.phase {
	case phaseSend:
		s.send()
	case phaseRead:
		s.read()
	case phaseBackoff:
		s.backoff()
	case phaseSubscribe:
		s.subscribe()
	case phaseRecover, phaseProbe, phaseQuiet, phaseCloseGap, phaseAfterError:
		s.fetch()
	case phasePollWait:
		s.pollWait()
	case phaseHalted:
		s.onHalt()
	case phaseReply:
		s.sendReply()
	case phaseResend:
		s.resend()
	}
}

// send opens the first leg: the streaming send of the message.
func (s *Stream) send() {
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
	s.pollIfCardSays()
	s.sendMessage(s.msg)
}

// sendMessage sends m, the first message or the reply, as the stream
// follows its task: with a streaming call, or a unary one when it polls.
func (s *Stream) sendMessage(m *a2a.Message) {
	if s.feed == feedPoll {
		s.sendUnary(m)
		return
	}
	l, err := s.c.calls.sendStream(s.ctx, s.v, m)
	s.rec.noteReach(err)
	s.prompt.heard(err)
	if err != nil {
		s.handle(opSend, err, false)
		return
	}
	s.setLeg(l, opSend)
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

func (s *Stream) setLeg(l *leg, op operation) {
	s.leg = active{l: l, op: op, from: s.phase, news: s.rec.news.count}
	s.phase = phaseRead
}

// handle acts on a failed call or a leg's end, classified once by classify.
func (s *Stream) handle(op operation, err error, started bool) {
	if ctxErr := s.ctx.Err(); ctxErr != nil {
		s.fail(ctxErr)
		return
	}
	if s.refusedCredentials(op, err) {
		return
	}
	o := classify(op, err, started, s.nego)
	err = o.err
	if o.kind == outBusy {
		o.kind = outFatal
		if s.cfg.idempotentSends {
			o.kind = outResend
		}
	}
	if o.kind == outResend && s.phase == phaseSend && errors.Is(err, ErrCircuitOpen) {
		// An open circuit fails the first message fast: there is no task
		// yet to keep. A reply waits for the circuit, within the budget.
		s.fail(err)
		return
	}
	switch o.kind {
	case outResend:
		// Only the send phases send; they are where the failed send left
		// the driver.
		s.log.Debug("a2a: the send did not reach the agent, sending it again", "task", s.taskID, "cause", err)
		s.rec.cause, s.rec.retryAfter = err, o.retryAfter
		s.rec.resend = s.phase
		s.phase = phaseResend
	case outDowngrade:
		// The phase that made the call makes it again, in 0.3; a refused
		// probe subscribes in 0.3.
		s.log.Debug("a2a: server refused protocol 1.0, falling back to 0.3", "err", err)
		s.v, s.nego = a2a.V03, false
		if s.phase == phaseProbe {
			s.phase = phaseSubscribe
		}
	case outProbe:
		s.log.Debug("a2a: subscribe refused in 1.0, fetching the task to learn the version", "task", s.taskID, "err", err)
		s.rec.cause = err
		s.phase = phaseProbe
	case outDrop:
		s.rec.cause = err
		s.rec.retryAfter = o.retryAfter
		if s.taskID == "" {
			s.fail(s.gaveUp(0))
			return
		}
		s.log.Debug("a2a: connection lost", "task", s.taskID, "cause", o.err)
		s.phase = phaseBackoff
	case outRefused:
		s.log.Debug("a2a: resubscribe refused, fetching the task", "task", s.taskID, "err", err)
		s.rec.cause = err
		s.phase = phaseRecover
	case outUnsupported:
		var rpcErr *a2a.RPCError
		if s.feed == feedPoll || op == opSend && s.cfg.streaming == streamingYes && errors.As(err, &rpcErr) && rpcErr.Code == a2a.CodeUnsupportedOperation {
			// A unary call cannot be unsupported too; and an agent whose card
			// says it streams refuses this message, not streaming (a2a-js
			// answers -32004 to a message for a task that has ended).
			s.fail(err)
			return
		}
		s.startPolling(err)
		if op == opSubscribe {
			// Catch up at once; the send phases make their call again, unary.
			s.phase = phaseRecover
		}
	case outQuiet:
		// A live-only server (a2a-go) sends nothing, not even headers, until
		// its agent writes again, while output from before the resubscribe
		// may be waiting on the server: fetch the task to recover it. The
		// cycle still costs an attempt unless the task brought something new.
		s.log.Debug("a2a: subscription silent, fetching the task", "task", s.taskID, "err", err)
		s.rec.cause = err
		s.phase = phaseQuiet
	default:
		if s.deliverHeldFinal(err) {
			return
		}
		var rpcErr *a2a.RPCError
		if op != opGet && s.taskID != "" && s.phase != phaseAfterError && errors.As(err, &rpcErr) {
			// An RPC error once the task is known, in the middle of a stream
			// or as the first event of a reply's, may stand for an ending the
			// server did not send as an event (a model failure ending the
			// stream with -32603 while the task says failed): ask the task.
			// A get-task's own error is not asked about again.
			s.rec.streamErr = err
			s.phase = phaseAfterError
			return
		}
		s.fail(err)
	}
}

// read handles the next event of the current leg.
func (s *Stream) read() {
	l := s.leg.l
	ev, err := l.next()
	if err != nil {
		op, started := s.leg.op, l.events > 0
		s.leg.close()
		if op == opSubscribe && err == io.EOF && s.rec.news.count == s.leg.news {
			// A subscription that ended with nothing new (say, a snapshot
			// whose timestamp reads older than what is held, from a clock
			// that went back or was truncated) may hide a change: ask the
			// task itself before subscribing again.
			s.log.Debug("a2a: subscription ended with nothing new, fetching the task", "task", s.taskID)
			s.rec.cause = ErrEndedEarly
			s.phase = phaseQuiet
			return
		}
		// Only a downgrade, which happens before any event, keeps this
		// phase: the call that opened the leg is made again in 0.3.
		s.phase = s.leg.from
		s.handle(op, err, started)
		return
	}
	if l.events == 1 {
		// The first event of a leg proves the version works.
		s.nego = false
		s.c.remember(s.v)
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
		s.phase = phaseCloseGap
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
		s.phase = phaseReply
	}
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
	if lt := s.ledger.Task(); reason == "" && lt != nil && contextID != "" && lt.ContextID != "" && contextID != lt.ContextID {
		reason = fmt.Sprintf("event in context %q for task %q of context %q", quote([]byte(contextID)), s.taskID, lt.ContextID)
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
