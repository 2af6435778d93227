package ledger

import "github.com/a2astream/a2astream/a2a"

// Whether an event would change the assembled status (the driver asks it
// before it holds an ending back, see ChangesStatus) is decided by
// decideStatusChange over the facts statusChangeFacts gathers. It changes
// nothing. Row by row (the first row that fits wins):
//
//	reason        | facts                                                           | changes
//	--------------+-----------------------------------------------------------------+--------
//	not a status  | neither a status update nor a task                              | no
//	no task       | the ledger knows no task                                        | yes
//	replay        | the window open (a task: its history not listing the message    | no
//	              | the client sent after the status held), and decideStatusReplay  |
//	              | says a replay                                                   |
//	other status  | another state, or another message (sameMessage)                 | yes
//	no message ID | the same state and message, and the message has no ID, or none  | no
//	revised       | the same message, a version other than the one held (classify,  | yes
//	              | inside the window when it is open)                              |
//	same          | any other                                                       | no

// statusChangeFacts is what the ledger knows of an event's status. Facts no
// row can read are left zero.
type statusChangeFacts struct {
	status      bool    // the event is a status update or a task
	task        bool    // the ledger knows a task
	replayed    bool    // the window open (see the table), and decideStatusReplay says a replay
	sameState   bool    // the state held
	sameMessage bool    // the status message held
	withID      bool    // the status has a message with an ID
	version     version // that message next to the version held
}

// decideStatusChange is the table in this file's comment, and returns its
// row's reason. It is pure: it reads the facts only.
func decideStatusChange(f statusChangeFacts) (changes bool, reason string) {
	switch {
	case !f.status:
		return false, "not a status"
	case !f.task:
		return true, "no task"
	case f.replayed:
		return false, "replay"
	case !f.sameState || !f.sameMessage:
		return true, "other status"
	case !f.withID:
		return false, "no message ID"
	case f.version == versionRevised:
		return true, "revised"
	}
	return false, "same"
}

// statusChangeFacts gathers the facts of ev's status in one pass.
func (l *Ledger) statusChangeFacts(ev a2a.Event) statusChangeFacts {
	var st *a2a.TaskStatus
	checkReplay, update := l.win.open, false
	switch e := ev.(type) {
	case *a2a.StatusUpdate:
		st, update = &e.Status, true
	case *a2a.Task:
		st = &e.Status
		checkReplay = checkReplay && !l.listsSentAfter(e)
	default:
		return statusChangeFacts{}
	}
	f := statusChangeFacts{status: true, task: l.task != nil}
	if !f.task {
		return f
	}
	if f.replayed = checkReplay && l.statusReplayed(st, update); f.replayed {
		return f
	}
	f.sameState, f.sameMessage = st.State == l.task.Status.State, sameMessage(st.Message, l.task.Status.Message)
	if m := st.Message; f.sameState && f.sameMessage && m != nil && m.ID != "" {
		f.withID = true
		f.version, _ = l.msgs.classify(m, l.task.History, l.win.open)
	}
	return f
}

// ChangesStatus reports whether applying ev, a status update or a task,
// would change the assembled status: it differs from the status held, and
// inside the replay window it is not a replay of one seen before.
func (l *Ledger) ChangesStatus(ev a2a.Event) bool {
	changes, _ := decideStatusChange(l.statusChangeFacts(ev))
	return changes
}
