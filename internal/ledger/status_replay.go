package ledger

import "github.com/a2astream/a2astream/a2a"

// Whether a status met inside the replay window (or in a whole task that
// may be the past) is a replay of one seen before is decided once, by
// decideStatusReplay over the facts statusReplayFacts gathers; the ledger
// asks it when a status update arrives in the window (Apply), when a whole
// task's status may be the past (applyStatus, ReconcileSnapshot), and when
// the driver asks whether an event changes the status (ChangesStatus).
// The decision, row by row (the first row that fits wins):
//
//	reason                   | facts                                                   | replay
//	-------------------------+---------------------------------------------------------+-------
//	again                    | a status update inside the window, not older in time,   | no
//	                         | that this connection brought as news before: sent again |
//	                         | (status_news.go)                                        |
//	seen in time             | the timestamps decide (Ledger.statusByTime): st older   | yes
//	                         | than the newest seen, or seen at that same instant      |
//	news in time             | they decide otherwise: st newer, or at the newest       | no
//	                         | instant and unseen, that instant seen whole             |
//	seen before              | (no timestamp decides) this state with this message     | yes
//	                         | was noted                                               |
//	content held             | a message without an ID, whose content the history      | yes
//	                         | holds, and none of that content travelled in a status   |
//	content news             | a message without an ID, any other                      | no
//	no message known         | no message, or one whose ID was never delivered         | no
//	older version            | a known message, an older version of the one held       | yes
//	revised                  | a known message, a version other than the one held      | no
//	same message, new status | a known message as held, which travelled in a status    | no
//	                         | before (a server that keeps one message across states)  |
//	same message             | a known message as held, never in a status              | yes
//
// "The newest seen" is the statusCursor's newest timestamp; a status at
// that instant the ledger did not see is judged by its message when that
// instant was learnt from a whole task or a checkpoint (partial), which
// show only the last status of their instant.

// statusMessage says what kind of message a status carries.
type statusMessage uint8

const (
	noMessage        statusMessage = iota // no message
	messageWithoutID                      // a message without an ID, told apart by content
	messageWithID                         // a message with an ID
)

// statusReplayFacts is what the ledger knows of a status st.
type statusReplayFacts struct {
	// A status update inside the window, not older in time, that this
	// connection brought as news before.
	again bool

	timed      bool // the timestamps decide (Ledger.statusByTime)
	timeReplay bool // and they say st is a replay
	seenBefore bool // this state with this message was noted

	message statusMessage
	// A message without an ID: the history holds its content, and one of
	// that content travelled as a status message.
	contentHeld, contentInStatus bool
	// A message with an ID: it was delivered or recorded, how it compares
	// with the version held (inside the window), and whether it travelled
	// as a status message.
	known    bool
	version  version
	inStatus bool
}

// decideStatusReplay is the table in this file's comment, and returns its
// row's reason. It is pure: it reads the facts only.
func decideStatusReplay(f statusReplayFacts) (replayed bool, reason string) {
	switch {
	case f.again:
		return false, "again"
	case f.timed && f.timeReplay:
		return true, "seen in time"
	case f.timed:
		return false, "news in time"
	case f.seenBefore:
		return true, "seen before"
	case f.message == messageWithoutID && f.contentHeld && !f.contentInStatus:
		return true, "content held"
	case f.message == messageWithoutID:
		return false, "content news"
	case f.message == noMessage || !f.known:
		return false, "no message known"
	case f.version == versionOld:
		return true, "older version"
	case f.version == versionRevised:
		return false, "revised"
	case f.inStatus:
		return false, "same message, new status"
	}
	return true, "same message"
}

// statusReplayFacts gathers the facts of st in one pass; update says that
// st is a status update's (not a whole task's).
func (l *Ledger) statusReplayFacts(st *a2a.TaskStatus, update bool) statusReplayFacts {
	var f statusReplayFacts
	f.again = update && l.statusNewsHere(st)
	f.timeReplay, f.timed = l.statusByTime(st)
	f.seenBefore = l.statusSeen(st)
	switch m := st.Message; {
	case m == nil:
	case m.ID == "":
		f.message = messageWithoutID
		cs := l.msgs.withoutID[l.msgs.contentKey(m)]
		f.contentHeld, f.contentInStatus = cs.held > 0, cs.inStatus
	default:
		f.message = messageWithID
		if f.known = l.msgs.known(m.ID); f.known {
			var history []a2a.Message
			if l.task != nil {
				history = l.task.History
			}
			f.version, _ = l.msgs.classify(m, history, true)
			f.inStatus = l.msgs.inStatus(m.ID)
		}
	}
	return f
}

// statusReplayed reports whether st, met inside the replay window, was
// seen before or is older than what was; update says that st is a status
// update's, which is news when this connection brought it as news before.
// Timestamps decide when both sides have them. Otherwise a status is a
// replay when this state with this message was seen, or when its message
// was delivered before and this is not news: an older version of it, or
// the version held, unless the message travelled in a status before (a
// server that keeps one message across states, as it moves on, sends it
// again in the new state). A message without an ID was delivered before
// when the history holds its content, and travelled in a status before
// when one of that content did.
func (l *Ledger) statusReplayed(st *a2a.TaskStatus, update bool) bool {
	replayed, _ := decideStatusReplay(l.statusReplayFacts(st, update))
	return replayed
}

// A replayed status may carry a message the ledger never delivered: one
// the stream missed in a gap (a live-only resubscribe, or a connection
// that skipped an event) and that a later full replay brings in a status
// older than the newest seen. The status is a replay and changes nothing;
// its message is decided by decideReplayedMessage:
//
//	reason          | facts                                         | verdict
//	----------------+-----------------------------------------------+--------------------------------------------
//	no message      | the status carries none                       | nothing
//	content held    | a message without an ID, whose content the    | nothing
//	                | history holds                                 |
//	content missed  | a message without an ID, whose content the    | it joins the history and is delivered alone,
//	                | history does not hold                         | as a message, its content marked as in a status
//	delivered       | its ID was delivered or recorded              | nothing
//	missed          | its ID was never delivered nor recorded       | it joins the history and is delivered alone,
//	                |                                               | as a message, marked as in a status

// decideReplayedMessage is the table above; it returns whether the
// message is delivered, and its row's reason. It is pure.
func decideReplayedMessage(f statusReplayFacts) (deliver bool, reason string) {
	switch {
	case f.message == noMessage:
		return false, "no message"
	case f.message == messageWithoutID && f.contentHeld:
		return false, "content held"
	case f.message == messageWithoutID:
		return true, "content missed"
	case f.known:
		return false, "delivered"
	}
	return true, "missed"
}

// missedInReplay acts on decideReplayedMessage for m, the message of a
// replayed status of t (nil for none), whose facts are f.
func (l *Ledger) missedInReplay(dst []a2a.Event, t *a2a.Task, m *a2a.Message, f statusReplayFacts) []a2a.Event {
	if deliver, _ := decideReplayedMessage(f); !deliver {
		return dst
	}
	if m.ID != "" {
		l.msgs.add(m.ID, len(t.History))
		l.msgs.markStatus(m.ID)
	}
	l.msgs.holdWithoutID(m, true)
	t.History = append(t.History, *m.Clone())
	return append(dst, m)
}
