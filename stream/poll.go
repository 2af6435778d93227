package stream

import (
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
	if err := s.checkOwner(ev); err != nil {
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
// poll.
func (s *Stream) pollWait() report {
	wait := max(s.cfg.pollInterval, s.tries.takeAsked())
	return found(facts{after: afterWait, err: s.sleep(wait)})
}

// poll fetches the task for phase from: the next poll (phasePoll), or a
// poll at once (phaseCatchUp: polling began, or a failed attempt was
// waited for, whose end it tells WithNotify).
func (s *Stream) poll(from phase) report {
	t, asked, r, ok := s.fetchTask(from)
	if !ok {
		return r
	}
	s.tries.ask(asked) // the next poll's wait
	return s.polled(t, from == phaseCatchUp)
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
