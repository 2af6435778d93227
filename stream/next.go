package stream

import (
	"time"

	"github.com/a2astream/a2astream/a2a"
)

// What follows a step. Each phase's handler makes its one call (or wait),
// delivers what it brought, and reports the facts that matter next; follow
// decides, from those facts alone, what the stream does next; act (act.go)
// does it and returns the next phase, which the loop (step) enters. A
// failed call goes to classify instead (outcome.go), and handle acts on
// its outcome. follow's table, row by row (first match wins):
//
//	after      facts                                      move
//	any        err set (a broken server, a cut wait,     end with err
//	           a failed hook)
//	begin      the card or the checkpoint says poll      switch to polling, then:
//	begin      a message to send                         the route's send
//	begin      none (Subscribe, Resume)                  the route's resume
//	open       a leg opened                              read it
//	arrive     gap open, the event halts the task        hold it back; fetch (fetchGap)
//	arrive     otherwise                                 deliver it
//	wait       the poll interval waited                  poll
//	backoff    an attempt's backoff waited               make the attempt's call again
//	spent      the attempt re-sends a message            end: *reconnect.Error
//	spent      the attempt asks whether an error ended   end in that error
//	           the task (fetchAfterError)
//	spent      a halting event held back                 deliver it: halt if it halts,
//	                                                     else end: *reconnect.Error
//	spent      otherwise                                 end: *reconnect.Error
//	halt       completed                                 done
//	halt       another terminal state                    end: its terminal error
//	halt       input-required                            ask the human
//	halt       auth-required                             ask for credentials
//	switched   polling began, the stall limit spent      end: *StalledError
//	switched   polling began, push untried (WithPush)    register a push config
//	switched   polling began                             wait the poll interval
//	asked      the human-input hook replied              send the reply
//	credentials the credentials hook gave them           the route's resume
//	pushset    the stream polls already                  wait the poll interval (for a
//	                                                     notification, if the config was taken)
//	pushset    the agent took the config                 switch to polling, with push;
//	                                                     fetch the task at once
//	pushset    otherwise (refused, failed)               an attempt: wait, then resume
//
// After news (an event, a fetch, a poll, a resume), one rule, written once:
//
//	answered   a message answer and no task              done
//	fetch      asked about an error; the task ended      halt (its typed ending)
//	fetch      asked about an error; it did not          end in that error
//	any        the task halts                            halt
//	any        the reply's send got no response, the     send the same reply again
//	           task still shows its prompt, and
//	           WithIdempotentSends is on
//	event      otherwise                                 read on
//	poll       the stall limit spent                     end: *StalledError
//	poll       push untried (WithPush)                   register a push config
//	poll       otherwise                                 wait the poll interval
//	resume     the stream polls                          as poll
//	resume     otherwise                                 subscribe
//	fetch      the server cannot stream the task         switch to polling (its first poll
//	           (fetchNoStream)                           waits what the answer asked)
//	fetch      silent, and the task runs; stall spent    end: *StalledError
//	fetch      silent, and the task runs                 an attempt that costs nothing:
//	                                                     wait, then resume
//	fetch      otherwise                                 an attempt (the task still runs
//	                                                     unless quiet or silent): wait,
//	                                                     then resume
//
// next_table_test.go pins every row; next_wire_test.go runs each on the
// four wires.

// after is the step whose facts follow reads.
type after int

const (
	afterBegin       after = iota // begin: the route is to be chosen
	afterOpen                     // a streaming call opened a leg (a send, a reply, a subscribe)
	afterArrive                   // an event of a leg arrived, not yet delivered
	afterEvent                    // an event of a leg was delivered
	afterFetch                    // the task fetched for facts.why was delivered
	afterPoll                     // a task from a poll, a catch-up or a unary send was delivered
	afterResume                   // the task a checkpoint names was handed over
	afterWait                     // the poll interval was waited
	afterBackoff                  // an attempt's backoff was waited
	afterSpent                    // the reconnect budget is spent
	afterHalt                     // the task halted, and what came before it was yielded
	afterSwitched                 // the stream switched to polling (act), about to wait
	afterAsked                    // the human-input hook gave a reply to send
	afterCredentials              // the credentials hook gave credentials
	afterPushSet                  // a push config was offered to the agent (WithPush)
)

// facts is what a step found, as follow reads it. Each is set by the
// handler of the step named by after; the others are zero.
type facts struct {
	after after
	// err: the step found an error that ends the stream: a server that
	// broke the protocol, a wait the caller's context cut, a hook that
	// failed.
	err error
	// answered: the agent answered with a message and no task.
	answered bool
	// why is the reason of the fetch (afterFetch); what the attempt
	// asks about (afterSpent).
	why fetchReason
	// state is the task's state (afterFetch, afterHalt).
	state a2a.TaskState
	// halts: the task halts at its status (haltsAt).
	halts bool
	// replyUnheard: the reply's last send got no response (it may have
	// reached the agent, or not), and the task still shows the prompt it
	// answers.
	replyUnheard bool
	// idempotentSends: WithIdempotentSends says the agent takes a message
	// ID it has seen as the same message.
	idempotentSends bool
	// polling: the stream follows its task by polling.
	polling bool
	// stalled: polling's stall limit is spent (stallSpent).
	stalled bool
	// pollFirst (afterBegin): the agent card says the agent cannot
	// stream, or the stream Resume resumes polled.
	pollFirst bool
	// sendsMessage (afterBegin): the stream has a message to send.
	sendsMessage bool
	// gapOpen and halting (afterArrive): a resubscribe may have missed
	// output, and the event would halt the task. halting is only
	// computed while the gap is open.
	gapOpen, halting bool
	// resends (afterSpent): the attempt makes a send again (the message
	// or the reply).
	resends bool
	// heldFinal (afterSpent): a halting event is held back.
	heldFinal bool
	// event (afterArrive) is the event that arrived, which a move that
	// holds it back carries.
	event a2a.Event
	// asked (afterFetch) is the wait the fetch's answer asked for.
	asked time.Duration
	// pushUntried (afterPoll, afterSwitched, afterResume): the stream
	// polls, and may register a push config first (WithPush).
	pushUntried bool
	// push (afterPushSet) is what the agent answered the push config.
	push pushAnswer
	// pushCause (afterPushSet) is why the config was not taken.
	pushCause error
}

// moveKind is what act does.
type moveKind int

const (
	moveDeliver      moveKind = iota // deliver the event that arrived
	moveRead                         // read the leg on
	moveSend                         // the route's send
	moveResume                       // the route's resume
	moveSubscribe                    // subscribe
	moveHoldFinal                    // hold the event back, close the leg, fetch (fetchGap)
	moveHalt                         // close the leg; act on the halted task
	moveReply                        // close the leg; send the same reply again
	movePoll                         // poll
	movePollWait                     // wait the poll interval
	moveStartPolling                 // switch to polling; its first poll waits what was asked
	moveAttempt                      // an attempt: wait its backoff, then resume
	moveAgain                        // make the attempt's call again
	moveHeldFinal                    // deliver the halting event held back; halt if it halts, else end: *reconnect.Error
	moveDone                         // the stream ends well
	moveEnd                          // the stream ends in move.err
	moveEndAsked                     // the stream ends in the error the fetch asked about
	moveGaveUp                       // the stream ends in a *reconnect.Error
	moveStalled                      // the stream ends in a *StalledError
	moveEnded                        // the stream ends in the task's terminal error
	moveAsk                          // ask the human
	moveCredentials                  // ask the credentials hook
	movePushSet                      // register a push config (WithPush)
	moveCatchUp                      // switch to polling, with push; fetch the task at once
)

// move is what follow decides.
type move struct {
	kind moveKind
	err  error // moveEnd
	// poll (moveSend, moveResume): switch to polling first.
	poll bool
	// free (moveAttempt): the attempt costs nothing (the budget starts
	// again); stillRunning: its cause is that the task still runs.
	free, stillRunning bool
	// event (moveHoldFinal) is the event held back.
	event a2a.Event
	// asked (moveStartPolling) is the wait the first poll waits at least.
	asked time.Duration
}

// follow decides what follows a step, from its facts alone (see the table
// above). It is pure.
func follow(f *facts) move {
	if f.err != nil {
		return move{kind: moveEnd, err: f.err}
	}
	switch f.after {
	case afterBegin:
		if f.sendsMessage {
			return move{kind: moveSend, poll: f.pollFirst}
		}
		return move{kind: moveResume, poll: f.pollFirst}
	case afterOpen:
		return move{kind: moveRead}
	case afterArrive:
		if f.gapOpen && f.halting {
			// First recover what the gap hid, then deliver the event.
			return move{kind: moveHoldFinal, event: f.event}
		}
		return move{kind: moveDeliver}
	case afterWait:
		return move{kind: movePoll}
	case afterBackoff:
		return move{kind: moveAgain}
	case afterSpent:
		switch {
		case f.resends:
			return move{kind: moveGaveUp}
		case f.why == fetchAfterError:
			return move{kind: moveEndAsked}
		case f.heldFinal:
			return move{kind: moveHeldFinal}
		}
		return move{kind: moveGaveUp}
	case afterHalt:
		switch {
		case f.state == a2a.StateCompleted:
			return move{kind: moveDone}
		case f.state.Terminal():
			return move{kind: moveEnded}
		case f.state == a2a.StateInputRequired:
			return move{kind: moveAsk}
		case f.state == a2a.StateAuthRequired:
			return move{kind: moveCredentials}
		}
		return move{kind: moveEnd, err: errHaltedIn(f.state)}
	case afterAsked:
		return move{kind: moveReply}
	case afterCredentials:
		return move{kind: moveResume}
	case afterSwitched:
		if f.stalled {
			return move{kind: moveStalled}
		}
		if f.pushUntried {
			return move{kind: movePushSet}
		}
		return move{kind: movePollWait}
	case afterPushSet:
		switch {
		case f.polling:
			return move{kind: movePollWait}
		case f.push == pushTaken:
			return move{kind: moveCatchUp}
		}
		// The drop that made the stream try push is an attempt, as it
		// would have been without WithPush: wait, then resume.
		return move{kind: moveAttempt}
	}
	return afterNews(f)
}

// afterNews is follow's rule after a step that delivered what the server
// sent: an event, a fetch, a poll or a resume.
func afterNews(f *facts) move {
	switch {
	case f.answered:
		return move{kind: moveDone}
	case f.after == afterFetch && f.why == fetchAfterError && f.state.Terminal():
		// The task ended: its typed ending, not the stream's error.
		return move{kind: moveHalt}
	case f.after == afterFetch && f.why == fetchAfterError:
		return move{kind: moveEndAsked}
	case f.halts:
		return move{kind: moveHalt}
	case f.replyUnheard && f.idempotentSends:
		// The reply may not have reached the agent, which still shows the
		// prompt (or lags), and the agent takes the same message ID as
		// the same message: send the same reply again, unchanged. Without
		// WithIdempotentSends a reply that may have reached the agent is
		// never sent again: the stream follows the task, as below, until
		// the agent moves on or the budget or the stall limit ends it.
		return move{kind: moveReply}
	}
	switch f.after {
	case afterEvent:
		return move{kind: moveRead}
	case afterResume:
		if !f.polling {
			return move{kind: moveSubscribe}
		}
	case afterFetch:
		switch {
		case f.why == fetchNoStream:
			// The server refused to stream a task that still runs: it
			// cannot stream it, now or on the next attempt.
			return move{kind: moveStartPolling, asked: f.asked}
		case f.why == fetchSilent && (f.state == a2a.StateWorking || f.state == a2a.StateSubmitted):
			// Silent past the idle timeout, but the agent answers and the
			// task runs: quiet, not failing. Waiting on it costs no
			// attempt; the stall limit bounds a task that never moves
			// again. (A subscription the server closed with nothing new
			// is a failed attempt.)
			if f.stalled {
				return move{kind: moveStalled}
			}
			return move{kind: moveAttempt, free: true}
		}
		// Still working, or a stale prompt: wait, then resubscribe, as
		// the next attempt.
		return move{kind: moveAttempt, stillRunning: f.why != fetchQuiet && f.why != fetchSilent}
	}
	// A poll, or a resume that polls: the next poll, unless the task has
	// stalled (the server may have abandoned it, as some do when a
	// client's connection drops), after registering a push config if the
	// stream may follow it by push.
	if f.stalled {
		return move{kind: moveStalled}
	}
	if f.pushUntried {
		return move{kind: movePushSet}
	}
	return move{kind: movePollWait}
}
