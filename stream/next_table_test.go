package stream

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// TestFollowDecidesEachRow pins every row of follow's table (next.go), in
// the table's order: the facts a step reports, and the move that follows.
// next_wire_test.go runs the rows on the four wires.
func TestFollowDecidesEachRow(t *testing.T) {
	broken := errors.New("broken")
	ev := &a2a.StatusUpdate{Status: a2a.TaskStatus{State: a2a.StateCompleted}}
	rows := []struct {
		name string
		f    facts
		want move
	}{
		// Any step.
		{"a step that found an error ends in it", facts{after: afterFetch, err: broken, halts: true}, move{kind: moveEnd, err: broken}},
		// begin.
		{"begin: the card says poll, a message to send", facts{after: afterBegin, pollFirst: true, sendsMessage: true}, move{kind: moveSend, poll: true}},
		{"begin: a message to send", facts{after: afterBegin, sendsMessage: true}, move{kind: moveSend}},
		{"begin: none (Subscribe, Resume)", facts{after: afterBegin}, move{kind: moveResume}},
		{"begin: none, the checkpoint polled", facts{after: afterBegin, pollFirst: true}, move{kind: moveResume, poll: true}},
		// open, arrive.
		{"open: a leg opened is read", facts{after: afterOpen}, move{kind: moveRead}},
		{"arrive: gap open, the event halts: held back", facts{after: afterArrive, gapOpen: true, halting: true, event: ev}, move{kind: moveHoldFinal, event: ev}},
		{"arrive: gap open, the event does not halt", facts{after: afterArrive, gapOpen: true, event: ev}, move{kind: moveDeliver}},
		{"arrive: no gap", facts{after: afterArrive, event: ev}, move{kind: moveDeliver}},
		// wait, backoff.
		{"wait: the poll interval waited", facts{after: afterWait}, move{kind: movePoll}},
		{"backoff: waited, the call again", facts{after: afterBackoff}, move{kind: moveAgain}},
		// spent.
		{"spent: a re-send", facts{after: afterSpent, resends: true, heldFinal: true}, move{kind: moveGaveUp}},
		{"spent: asking whether an error ended the task", facts{after: afterSpent, why: fetchAfterError, heldFinal: true}, move{kind: moveEndAsked}},
		{"spent: a halting event held back", facts{after: afterSpent, why: fetchGap, heldFinal: true}, move{kind: moveHeldFinal}},
		{"spent: otherwise", facts{after: afterSpent, why: fetchRefused}, move{kind: moveGaveUp}},
		// halt.
		{"halt: completed", facts{after: afterHalt, state: a2a.StateCompleted}, move{kind: moveDone}},
		{"halt: failed", facts{after: afterHalt, state: a2a.StateFailed}, move{kind: moveEnded}},
		{"halt: canceled", facts{after: afterHalt, state: a2a.StateCanceled}, move{kind: moveEnded}},
		{"halt: rejected", facts{after: afterHalt, state: a2a.StateRejected}, move{kind: moveEnded}},
		{"halt: input-required", facts{after: afterHalt, state: a2a.StateInputRequired}, move{kind: moveAsk}},
		{"halt: auth-required", facts{after: afterHalt, state: a2a.StateAuthRequired}, move{kind: moveCredentials}},
		{"halt: a state that does not halt", facts{after: afterHalt, state: a2a.StateWorking}, move{kind: moveEnd, err: errHaltedIn(a2a.StateWorking)}},
		// switched, hooks.
		{"switched: stall limit spent", facts{after: afterSwitched, stalled: true}, move{kind: moveStalled}},
		{"switched: push untried, stall limit spent", facts{after: afterSwitched, stalled: true, pushUntried: true}, move{kind: moveStalled}},
		{"switched: push untried", facts{after: afterSwitched, pushUntried: true}, move{kind: movePushSet}},
		{"switched: the poll interval next", facts{after: afterSwitched}, move{kind: movePollWait}},
		{"asked: the reply is sent", facts{after: afterAsked}, move{kind: moveReply}},
		{"credentials: the route's resume", facts{after: afterCredentials}, move{kind: moveResume}},
		{"pushset: polls already, taken", facts{after: afterPushSet, polling: true, push: pushTaken}, move{kind: movePollWait}},
		{"pushset: polls already, refused", facts{after: afterPushSet, polling: true, push: pushCannot, pushCause: broken}, move{kind: movePollWait}},
		{"pushset: taken", facts{after: afterPushSet, push: pushTaken}, move{kind: moveCatchUp}},
		{"pushset: refused", facts{after: afterPushSet, push: pushCannot, pushCause: broken}, move{kind: moveAttempt}},
		{"pushset: failed", facts{after: afterPushSet, push: pushFailed, pushCause: broken}, move{kind: moveAttempt}},

		// After news: the rule written once.
		{"news: a message answer", facts{after: afterEvent, answered: true, halts: true}, move{kind: moveDone}},
		{"news: a unary answer", facts{after: afterPoll, answered: true}, move{kind: moveDone}},
		{"fetch: asked about an error, the task ended", facts{after: afterFetch, why: fetchAfterError, state: a2a.StateFailed, halts: true}, move{kind: moveHalt}},
		{"fetch: asked about an error, it did not end", facts{after: afterFetch, why: fetchAfterError, state: a2a.StateInputRequired, halts: true}, move{kind: moveEndAsked}},
		{"event: the task halts", facts{after: afterEvent, halts: true, replyUnheard: true, idempotentSends: true}, move{kind: moveHalt}},
		{"poll: the task halts", facts{after: afterPoll, halts: true, stalled: true}, move{kind: moveHalt}},
		{"resume: the task halts", facts{after: afterResume, halts: true}, move{kind: moveHalt}},
		{"fetch: the task halts", facts{after: afterFetch, why: fetchRefused, halts: true}, move{kind: moveHalt}},
		{"event: the reply got no answer, and the agent takes a message ID twice as once", facts{after: afterEvent, replyUnheard: true, idempotentSends: true}, move{kind: moveReply}},
		{"poll: the reply got no answer, and the agent takes a message ID twice as once", facts{after: afterPoll, replyUnheard: true, idempotentSends: true, stalled: true}, move{kind: moveReply}},
		{"resume: the reply got no answer, and the agent takes a message ID twice as once", facts{after: afterResume, replyUnheard: true, idempotentSends: true}, move{kind: moveReply}},
		{"fetch: the reply got no answer, and the agent takes a message ID twice as once", facts{after: afterFetch, why: fetchNoStream, replyUnheard: true, idempotentSends: true}, move{kind: moveReply}},
		{"event: the reply got no answer: it may have reached the agent, and is not sent again", facts{after: afterEvent, replyUnheard: true}, move{kind: moveRead}},
		{"resume: the reply got no answer: it is not sent again", facts{after: afterResume, replyUnheard: true}, move{kind: moveSubscribe}},
		{"fetch: the reply got no answer: it is not sent again", facts{after: afterFetch, why: fetchNoStream, replyUnheard: true}, move{kind: moveStartPolling}},
		{"event: otherwise, read on", facts{after: afterEvent}, move{kind: moveRead}},
		{"poll: stall limit spent, push untried", facts{after: afterPoll, stalled: true, pushUntried: true}, move{kind: moveStalled}},
		{"poll: push untried", facts{after: afterPoll, pushUntried: true}, move{kind: movePushSet}},
		{"poll: push untried, the task halts", facts{after: afterPoll, pushUntried: true, halts: true}, move{kind: moveHalt}},
		{"resume: polls, push untried", facts{after: afterResume, polling: true, pushUntried: true}, move{kind: movePushSet}},
		{"poll: stall limit spent", facts{after: afterPoll, stalled: true}, move{kind: moveStalled}},
		{"poll: the next poll", facts{after: afterPoll}, move{kind: movePollWait}},
		{"resume: polls, stall limit spent", facts{after: afterResume, polling: true, stalled: true}, move{kind: moveStalled}},
		{"resume: polls", facts{after: afterResume, polling: true}, move{kind: movePollWait}},
		{"resume: subscribes", facts{after: afterResume, stalled: true}, move{kind: moveSubscribe}},
		{"fetch: the server cannot stream the task", facts{after: afterFetch, why: fetchNoStream, state: a2a.StateWorking, asked: 7}, move{kind: moveStartPolling, asked: 7}},
		{"fetch: silent, working, stall spent", facts{after: afterFetch, why: fetchSilent, state: a2a.StateWorking, stalled: true}, move{kind: moveStalled}},
		{"fetch: silent, submitted", facts{after: afterFetch, why: fetchSilent, state: a2a.StateSubmitted}, move{kind: moveAttempt, free: true}},
		{"fetch: silent, a stale prompt", facts{after: afterFetch, why: fetchSilent, state: a2a.StateInputRequired, stalled: true}, move{kind: moveAttempt}},
		{"fetch: quiet", facts{after: afterFetch, why: fetchQuiet, state: a2a.StateWorking, stalled: true}, move{kind: moveAttempt}},
		{"fetch: refused, still running", facts{after: afterFetch, why: fetchRefused, state: a2a.StateWorking}, move{kind: moveAttempt, stillRunning: true}},
		{"fetch: the gap closed, still running", facts{after: afterFetch, why: fetchGap, state: a2a.StateWorking}, move{kind: moveAttempt, stillRunning: true}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			got := follow(&r.f)
			require.Equal(t, r.want.kind, got.kind)
			require.Equal(t, r.want, got)
		})
	}
}
