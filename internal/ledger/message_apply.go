package ledger

import "github.com/a2astream/a2astream/a2a"

// A Message event is folded as an artifact update is (see
// artifact_update.go): messageFacts gathers what the ledger knows of it,
// decideMessage says what it is, and applyMessage's actOnMessage, the only
// code of this path that changes the ledger, acts on that. The decision,
// row by row (the first row that fits wins):
//
//	reason           | facts                                                      | verdict
//	-----------------+------------------------------------------------------------+---------------------------------------------------
//	revised          | its ID known, a task, not the user's, a version other than | the revision delivered; the history holds it
//	                 | the one held (inside the window: not an older version)     |
//	known            | its ID known, any other                                    | the window replays; nothing delivered
//	replayed content | no ID, the window open and replaying, a task: the k-th of  | counted in the window; nothing delivered
//	                 | its content met in the window, the history holding k       |
//	new content      | no ID, the window open and replaying, a task, any other    | counted in the window; it joins the history;
//	                 |                                                            | delivered
//	new              | any other                                                  | it joins the history (when a task is known) and
//	                 |                                                            | its ID the record; delivered
//
// A message without an ID is told apart by content and place, as a
// history's messages without an ID are: while the server replays from the
// start, the k-th of a content is a replay when the history holds k of
// it. A live server's message, in a window without a replay, is news
// whatever it says.

// messageFacts is what the ledger knows of a Message event. Facts no row
// can read are left zero.
type messageFacts struct {
	known   bool    // its ID was delivered or recorded
	task    bool    // the ledger knows a task
	user    bool    // the user's message
	version version // next to the version held (classify, inside the window when it is open)

	withoutID bool // it has no ID
	replaying bool // the window is open and replaying
	met       int  // without an ID, the window replaying: its place among those of its content met in the window
	held      int  // how many of its content the history holds
}

// messageVerdict is what decideMessage makes of a Message event.
type messageVerdict struct {
	reason  string
	revise  bool // the revision is delivered
	replay  bool // the window replays
	count   bool // the window counts it among the messages of its content
	deliver bool // a new message: delivered, and held
}

// decideMessage is the table in this file's comment. It is pure: it reads
// the facts only.
func decideMessage(f messageFacts) messageVerdict {
	counted := f.withoutID && f.replaying && f.task
	switch {
	case f.known && f.task && !f.user && f.version == versionRevised:
		return messageVerdict{reason: "revised", revise: true}
	case f.known:
		return messageVerdict{reason: "known", replay: true}
	case counted && f.met <= f.held:
		return messageVerdict{reason: "replayed content", count: true}
	case counted:
		return messageVerdict{reason: "new content", count: true, deliver: true}
	}
	return messageVerdict{reason: "new", deliver: true}
}

// applyMessage folds a Message event.
func (l *Ledger) applyMessage(dst []a2a.Event, m *a2a.Message) []a2a.Event {
	f, held, k := l.messageFacts(m)
	return l.actOnMessage(dst, m, held, k, decideMessage(f))
}

// messageFacts gathers the facts of m in one pass, and returns the version
// held of it (a known ID) and its content key (no ID, the window
// replaying).
func (l *Ledger) messageFacts(m *a2a.Message) (messageFacts, *a2a.Message, uint64) {
	f := messageFacts{known: l.msgs.known(m.ID), task: l.task != nil, user: m.Role == a2a.RoleUser,
		withoutID: m.ID == "", replaying: l.win.open && l.win.replaying}
	var held *a2a.Message
	var k uint64
	switch {
	case f.known && f.task && !f.user:
		f.version, held = l.msgs.classify(m, l.task.History, l.win.open)
	case f.withoutID && f.replaying && f.task:
		k = l.msgs.contentKey(m)
		f.met, f.held = l.win.withoutID[k]+1, l.msgs.withoutID[k].held
	}
	return f, held, k
}

// actOnMessage acts on the verdict v about m, whose version held is held
// (a known ID) and content key k (counted in the window). It is the only
// code of this path that changes the ledger.
func (l *Ledger) actOnMessage(dst []a2a.Event, m, held *a2a.Message, k uint64, v messageVerdict) []a2a.Event {
	if v.revise {
		return append(dst, l.revise(l.task, held, m))
	}
	if v.replay {
		l.win.replayed()
	}
	if v.count {
		l.win.metWithoutID(k)
	}
	if !v.deliver {
		return dst
	}
	at := -1
	if l.task != nil {
		at = len(l.task.History)
		l.msgs.holdWithoutID(m, false)
		l.task.History = append(l.task.History, *m.Clone())
	}
	if m.ID != "" {
		l.msgs.add(m.ID, at)
	}
	return append(dst, m)
}
