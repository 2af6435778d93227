package stream

import (
	"fmt"
	"time"

	"github.com/a2astream/a2astream/a2a"
)

// startPolling switches the stream to the polling route for the rest of
// the task: cause is what showed that the server cannot stream or
// subscribe (nil when the agent card said so).
func (s *Stream) startPolling(cause error) {
	s.route = pollingRoute()
	s.rec.news.restart() // the stall clock starts
	s.log.Debug("a2a: following the task by polling", "task", s.taskID, "cause", cause)
	s.notify(Notice{Kind: Polling, TaskID: s.taskID, Wait: s.cfg.pollInterval, Cause: cause})
}

// pollSend sends the message with a unary call, then polls.
func (s *Stream) pollSend() {
	s.readyMessage()
	s.sendUnary(phasePollSend, s.msg)
}

// sendUnary sends m, the message or the reply, with a unary call for phase
// from, which returns at once; the task is then followed by polling.
func (s *Stream) sendUnary(from phase, m *a2a.Message) {
	ev, err := s.c.calls.sendUnary(s.ctx, s.call(), m)
	s.rec.noteReach(err)
	s.prompt.heard(err)
	if err != nil {
		s.handle(failure{from: from, op: opSend, err: err})
		return
	}
	s.resumedBySend()
	s.proveVersion()
	if msg, ok := ev.(*a2a.Message); ok && s.taskID == "" && s.ledger.Task() == nil {
		s.endWithAnswer(msg)
		return
	}
	if err := s.checkOwner(ev); err != nil {
		s.fail(err)
		return
	}
	if t, ok := ev.(*a2a.Task); ok {
		s.learnReplied(t, true)
	}
	s.deliver(ev, foldAuthoritative, nil)
	if s.ledger.Task() == nil {
		s.fail(&ProtocolError{Reason: fmt.Sprintf("a unary send answered with a %T outside any task", ev)})
		return
	}
	if s.halted() {
		s.phase = phaseHalted
		return
	}
	s.pollAgain()
}

// pollAgain waits for the next poll, unless the task has stalled: no
// progress for longer than the stall limit (the server may have abandoned
// it, as some do when a client's connection drops).
func (s *Stream) pollAgain() {
	if s.stalled() {
		return
	}
	s.phase = phasePollWait
}

// stalled ends the stream with a *StalledError when the task has shown
// nothing new for the stall limit, and reports whether it did.
func (s *Stream) stalled() bool {
	if d := s.cfg.stallTimeout; d > 0 && time.Since(s.rec.news.since) >= d {
		s.fail(&StalledError{Task: s.snapshot(), After: d})
		return true
	}
	return false
}

// pollWait waits the poll interval (longer when the server asked for it
// with Retry-After, on a poll's answer or on a failed poll) before the next
// poll.
func (s *Stream) pollWait() {
	wait := max(s.cfg.pollInterval, s.rec.retryAfter)
	s.rec.retryAfter = 0
	if err := s.cfg.sleep(s.ctx, wait); err != nil {
		if ctxErr := s.ctx.Err(); ctxErr != nil {
			err = ctxErr
		}
		s.fail(err)
		return
	}
	s.phase = phasePoll
}

// poll fetches the task: the next poll.
func (s *Stream) poll() {
	t, asked, err := s.getTask()
	if err != nil {
		s.handle(failure{from: phasePoll, op: opGet, err: err})
		return
	}
	s.proveVersion()
	s.rec.retryAfter = asked // the next poll's wait
	s.polled(t, false)
}

// catchUp fetches the task at once: polling began, or a failed attempt
// was waited for (whose end it tells WithNotify).
func (s *Stream) catchUp() {
	t, asked, err := s.getTask()
	if err != nil {
		s.handle(failure{from: phaseCatchUp, op: opGet, err: err})
		return
	}
	s.proveVersion()
	s.rec.retryAfter = asked // the next poll's wait
	s.polled(t, true)
}

// polled continues from a task a poll fetched: the task halted, the reply
// is to be sent again, or the next poll waits. tellResumed tells
// WithNotify that the poll ended a failed attempt, if it did.
func (s *Stream) polled(t *a2a.Task, tellResumed bool) {
	s.deliverFetched(t, tellResumed)
	switch {
	case s.halted():
		s.phase = phaseHalted
	case s.prompt.unconfirmed && s.waitsOnRepliedPrompt():
		// The reply never reached the agent: send it again, unchanged.
		s.phase = s.route.reply
	default:
		s.pollAgain()
	}
}
