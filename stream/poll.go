package stream

import (
	"fmt"
	"time"

	"github.com/a2astream/a2astream/a2a"
)

// startPolling switches the stream to polling for the rest of the task:
// cause is what showed that the server cannot stream or subscribe (nil when
// the agent card said so).
func (s *Stream) startPolling(cause error) {
	s.feed = feedPoll
	s.rec.news.since = time.Now() // the stall clock starts
	s.log.Debug("a2a: following the task by polling", "task", s.taskID, "cause", cause)
	s.notify(Notice{Kind: Polling, TaskID: s.taskID, Wait: s.cfg.pollInterval, Cause: cause})
}

// pollIfCardSays starts polling, with its notice, when the agent card said
// the agent cannot stream: the first step of a stream, on the goroutine
// that calls Next (where WithNotify is called).
func (s *Stream) pollIfCardSays() {
	if s.cfg.streaming == streamingNo && s.feed != feedPoll {
		s.startPolling(nil)
	}
}

// sendUnary sends a message (the first one or a reply) with a unary call
// that returns at once, then follows the task by polling.
func (s *Stream) sendUnary(m *a2a.Message) {
	ev, err := s.c.calls.sendUnary(s.ctx, s.v, m)
	s.rec.noteReach(err)
	s.prompt.heard(err)
	if err != nil {
		s.handle(opSend, err, false)
		return
	}
	s.resumedBySend()
	s.nego = false
	s.c.remember(s.v)
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
// with Retry-After), then fetches the task.
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
	s.fetch()
}
