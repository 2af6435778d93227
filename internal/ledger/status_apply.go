package ledger

import "github.com/a2astream/a2astream/a2a"

// A status (of a status update, or the status of a whole task) is folded
// as an artifact update is (see artifact_update.go): statusFacts gathers
// what the ledger knows of it, decideStatus says what it changes, and
// applyStatus, the only code of this path that changes the ledger, acts on
// that. A status that is not a replay gets one row for its message and one
// for itself (the verdict names both):
//
//	reason          | facts                                                         | verdict
//	----------------+---------------------------------------------------------------+----------------------------------------------------------
//	replay          | the caller asks, and decideStatusReplay says it is a replay   | nothing changes
//	no message      | no message                                                    | -
//	message revised | its message's ID known, a version other than the one held     | the revision delivered first (the history and a status
//	                |                                                               | message holding it take it); the status carries no message
//	message older   | its message's ID known, a version the held one extends or     | the window replays; the status carries no message, and
//	                | replaced, inside the window and the status not newer in time  | keeps the version held
//	message as held | its message's ID known, the version held (or none held)       | the status carries no message, and keeps the version held
//	message held    | a message without an ID: the history's copy of it held, or    | the status carries no message (delivered before)
//	                | the content of the status message held                        |
//	message new     | any other message                                             | it joins the history; the status carries it
//	same status     | the state and the message of the status held                  | no status delta
//	same ending     | the state held, a terminal one, and a message not new (none,  | no status delta: an ended task does not change, and a
//	                | or one delivered before)                                      | copy of its ending without its message is not news
//	new status      | any other                                                     | it becomes the status held; delivered
//
// Every status that is not a replay is noted in the status cursor, and a
// message whose ID is known is marked as having travelled in a status.

// statusFacts is what the ledger knows of a status. Facts no row can read
// are left zero: every other fact of a replay.
type statusFacts struct {
	checkReplay bool // the caller asks whether it is a replay
	replayed    bool // decideStatusReplay says it is
	update      bool // a status update's (statusOf.update)

	message  statusMessage
	known    bool    // its message's ID was delivered or recorded
	version  version // that message next to the version held (classify)
	heldCopy bool    // its message without an ID: the history's copy of it held, or the status message's content

	sameState   bool // the state held
	sameMessage bool // the status message held (sameMessage)
	ended       bool // the state held is terminal
}

// statusVerdict is what decideStatus makes of a status.
type statusVerdict struct {
	reason   string // the row of the replay, or of its message
	status   string // the row of the status itself
	drop     bool   // a replay: nothing changes
	known    bool   // its message is known: the status keeps the version held, marked as in a status
	revise   bool   // the message's revision is delivered first
	replayed bool   // the window replays
	carry    bool   // the message is new: it joins the history, and the status carries it
	deliver  bool   // the status changes: a status delta
	update   bool   // a status update's: noted as news of this connection (status_news.go)
}

// decideStatus is the table in this file's comment. It is pure: it reads
// the facts only.
func decideStatus(f statusFacts) statusVerdict {
	if f.checkReplay && f.replayed {
		return statusVerdict{reason: "replay", drop: true}
	}
	v := statusVerdict{update: f.update}
	switch {
	case f.message == noMessage:
		v.reason = "no message"
	case f.known && f.version == versionRevised:
		v.reason, v.known, v.revise = "message revised", true, true
	case f.known && f.version == versionOld:
		v.reason, v.known, v.replayed = "message older", true, true
	case f.known:
		v.reason, v.known = "message as held", true
	case f.message == messageWithoutID && f.heldCopy:
		v.reason = "message held"
	default:
		v.reason, v.carry = "message new", true
	}
	if f.sameState && f.sameMessage {
		v.status = "same status"
		return v
	}
	if f.sameState && f.ended && !v.carry {
		v.status = "same ending"
		return v
	}
	v.status, v.deliver = "new status", true
	return v
}

// statusOf says where a status comes from and how it is judged.
type statusOf struct {
	// checkReplay asks whether it is a replay (a whole task's status).
	checkReplay bool
	// inWindow applies the replay window's rules to its message (an older
	// version of it is a replay), unless the status is newer in time than
	// every one seen.
	inWindow bool
	// heldCopy says that its message, without an ID, is one the history
	// holds (the task's history lists it at a place held).
	heldCopy bool
	// update says it is a status update's, not a whole task's: inside
	// the replay window, it is noted as news of this connection
	// (status_news.go).
	update bool
}

// statusFacts gathers the facts of st, a status for t, from where how
// says, in one pass, and returns the version held of its message when its
// ID is known.
func (l *Ledger) statusFacts(t *a2a.Task, st *a2a.TaskStatus, how statusOf) (statusFacts, *a2a.Message) {
	f := statusFacts{checkReplay: how.checkReplay, update: how.update}
	if how.checkReplay {
		if f.replayed = l.statusReplayed(st, false); f.replayed {
			return f, nil
		}
	}
	var held *a2a.Message
	switch m := st.Message; {
	case m == nil:
	case m.ID == "":
		f.message = messageWithoutID
		f.heldCopy = how.heldCopy || sameMessage(m, t.Status.Message)
	default:
		f.message = messageWithID
		if f.known = l.msgs.known(m.ID); f.known {
			// A status newer in time than every one seen is news, and so
			// is its message, even when it is shorter than the version held.
			f.version, held = l.msgs.classify(m, t.History, how.inWindow && !l.statuses.newer(st))
		}
	}
	f.sameState = st.State == t.Status.State
	f.sameMessage = sameMessage(st.Message, t.Status.Message)
	f.ended = t.Status.State.Terminal()
	return f, held
}

// applyStatus folds st, a status for t from where how says, and its
// event's final and metadata md.
func (l *Ledger) applyStatus(dst []a2a.Event, t *a2a.Task, st a2a.TaskStatus, final bool, md map[string]any, how statusOf) []a2a.Event {
	f, held := l.statusFacts(t, &st, how)
	return l.actOnStatus(dst, t, st, final, md, held, decideStatus(f))
}

// actOnStatus acts on the verdict v about st, whose message's version held
// is held (when its ID is known). It is the only code of this path that
// changes the ledger.
func (l *Ledger) actOnStatus(dst []a2a.Event, t *a2a.Task, st a2a.TaskStatus, final bool, md map[string]any, held *a2a.Message, v statusVerdict) []a2a.Event {
	if v.drop {
		return dst
	}
	// Noted as it arrived, once its message is recorded: a status is
	// remembered on the record of a message the history holds as it came.
	arrived := st
	defer l.noteStatus(&arrived, v.update)
	m := st.Message
	out := st
	if !v.carry {
		out.Message = nil
	}
	if v.known {
		// A message delivered before: its revision, if it is one, goes
		// first and on its own; the status keeps the version held (a
		// replayed older version does not undo it).
		if v.revise {
			dst = append(dst, l.revise(t, held, m))
		}
		if v.replayed {
			l.win.replayed()
		}
		if held != nil {
			st.Message = held.Clone()
		}
		l.msgs.markStatus(m.ID)
	}
	if !v.deliver {
		return dst
	}
	if v.carry {
		if m.ID != "" {
			l.msgs.add(m.ID, len(t.History))
			l.msgs.markStatus(m.ID)
		}
		l.msgs.holdWithoutID(m, true)
		t.History = append(t.History, *m.Clone())
	}
	t.Status = st
	l.sentAfter = ""
	return append(dst, &a2a.StatusUpdate{TaskID: t.ID, ContextID: t.ContextID, Status: out, Final: final, Metadata: md})
}
