package stream

import (
	"bytes"
	"fmt"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/transport"
)

// startPolling switches the stream to the polling route for the rest of
// the task: cause is what showed that the server cannot stream or
// subscribe (nil when the agent card said so).
func (s *Stream) startPolling(cause error) {
	s.route = pollingRoute()
	s.news.restart() // the stall clock starts
	if s.push.live() {
		s.log.Debug("a2a: following the task by push notifications", "task", s.taskID, "cause", cause)
		s.notify(Notice{Kind: Pushing, TaskID: s.taskID, Wait: s.cfg.pushPollInterval, Cause: cause})
		return
	}
	s.log.Debug("a2a: following the task by polling", "task", s.taskID, "cause", cause)
	s.notify(Notice{Kind: Polling, TaskID: s.taskID, Wait: s.cfg.pollInterval, Cause: cause})
}

// pollSend sends the message with a unary call, then polls.
func (s *Stream) pollSend() report {
	s.readyMessage()
	return s.sendUnary(phasePollSend, s.msg)
}

// sendUnary sends m, the message or the reply, with a unary call for phase
// from, which returns at once; the task is then followed by polling.
func (s *Stream) sendUnary(from phase, m *a2a.Message) report {
	if s.tr != nil {
		s.traceStart(sendKind(from), false, m)
	}
	ev, err := s.c.calls.sendUnary(s.ctx, s.call(), m)
	s.contact.noteReach(err)
	s.prompt.heard(err)
	if err != nil {
		return failedWith(failure{from: from, op: opSend, err: err})
	}
	s.resumedBySend()
	s.proveVersion()
	if msg, ok := ev.(*a2a.Message); ok && s.taskID == "" && !s.ledger.Known() {
		s.answerWith(msg)
		return found(facts{after: afterPoll, answered: true})
	}
	if err := s.checkEvent(ev); err != nil {
		return found(facts{after: afterPoll, err: err})
	}
	if t, ok := ev.(*a2a.Task); ok {
		s.learnReplied(t, true)
	}
	s.deliver(ev, foldAuthoritative, nil)
	if !s.ledger.Known() {
		err := &transport.ProtocolError{Reason: fmt.Sprintf("a unary send answered with a %T outside any task", ev)}
		return found(facts{after: afterPoll, err: err})
	}
	return found(s.newsFacts(afterPoll))
}

// pollWait waits the poll interval (longer when the server asked for it
// with Retry-After, on a poll's answer or on a failed poll) before the next
// poll; with push notifications, the push poll interval or until one
// comes.
func (s *Stream) pollWait() report {
	if s.push.live() {
		// Until a push notification comes (see push.go), and no longer
		// than the stall limit, so that a task that stalled is found
		// within it.
		every := s.cfg.pushPollInterval
		if limit := s.cfg.stallTimeout; limit > 0 {
			every = min(every, limit)
		}
		asked := s.tries.takeAsked()
		wait := max(every, asked)
		if s.tr != nil {
			s.traceWait(WaitInfo{Kind: WaitPoll, Wait: wait, Asked: asked, Push: true})
		}
		return found(facts{after: afterWait, err: s.waitPush(wait)})
	}
	asked := s.tries.takeAsked()
	wait := max(s.cfg.pollInterval, asked)
	if s.tr != nil {
		s.traceWait(WaitInfo{Kind: WaitPoll, Wait: wait, Asked: asked})
	}
	return found(facts{after: afterWait, err: s.sleep(wait)})
}

// poll fetches the task for phase from: the next poll (phasePoll), or a
// poll at once (phaseCatchUp: polling began, or a failed attempt was
// waited for, whose end it tells WithNotify). The next poll whose answer
// repeats the last poll's (see lastPoll) is neither decoded nor delivered:
// the ledger has folded that task, and folding it again brings nothing. A
// poll that fails forgets the answer kept.
func (s *Stream) poll(from phase) report {
	last := s.lastPoll.take()
	a, r, ok := s.askTask(from)
	if !ok {
		return r
	}
	if last.repeatedBy(a) {
		s.proveVersion()
		s.tries.ask(a.asked) // the next poll's wait
		s.lastPoll.remember(a.raw)
		s.lastPoll.repeats++
		return found(s.newsFacts(afterPoll))
	}
	t, asked, r, ok := s.takeTask(from, a)
	if !ok {
		return r
	}
	s.tries.ask(asked) // the next poll's wait
	r = s.polled(t, from == phaseCatchUp)
	if !a.given {
		s.lastPoll.remember(a.raw)
	}
	return r
}

// probe fetches the task in 1.0 after the server refused a 1.0 subscribe
// while the version is negotiated: a task fetched shows a 1.0 server that
// cannot subscribe, so the stream follows the task by polling, from this
// task on. (A 0.3 server refuses the get-task too: see outSpeaks03.)
func (s *Stream) probe() report {
	t, asked, r, ok := s.fetchTask(phaseProbe)
	if !ok {
		return r
	}
	s.startPolling(s.tries.cause)
	s.tries.ask(asked) // the first poll's wait
	return s.polled(t, true)
}

// polled delivers a task a poll fetched; follow decides what follows.
// tellResumed tells WithNotify that the poll ended a failed attempt, if it
// did.
func (s *Stream) polled(t *a2a.Task, tellResumed bool) report {
	s.deliverFetched(t, tellResumed)
	return found(s.newsFacts(afterPoll))
}

// lastPoll is the task the last poll delivered, as its answer's bytes (the
// HTTP+JSON body, or the JSON-RPC result, which leaves out the request's
// ID), while nothing but the poll wait has followed that poll: step forgets
// it on any other step (a send, a hook, a backoff, a fetch), which may
// change what the same task means to the ledger. A next poll whose answer
// is byte for byte the same repeats it: the ledger folded that very task
// one poll ago, and a get-task folded again yields nothing and changes
// nothing (the ledger's fuzzing checks this: repoll). A task given
// decoded by a Transport of another module is never remembered.
type lastPoll struct {
	raw []byte // nil when none is remembered
	// repeats counts the polls whose answer repeated the one remembered:
	// neither decoded nor folded.
	repeats int
}

// remember remembers raw, the answer of a poll whose task was delivered.
func (p *lastPoll) remember(raw []byte) { p.raw = raw }

// take returns the answer remembered, if any, and forgets it.
func (p *lastPoll) take() lastPoll {
	last := *p
	p.raw = nil
	return last
}

// forget forgets the answer remembered, if any.
func (p *lastPoll) forget() { p.raw = nil }

// repeatedBy reports whether a, the next poll's answer, is byte for byte
// the answer remembered.
func (p lastPoll) repeatedBy(a taskAnswer) bool {
	return p.raw != nil && !a.given && bytes.Equal(p.raw, a.raw)
}
