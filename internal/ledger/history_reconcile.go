package ledger

import "github.com/a2astream/a2astream/a2a"

// Each message of a whole task's history is folded as a Message event is
// (see message_apply.go): historyScan.facts gathers what the ledger knows
// of it, decideHistory says what it is, and actOnHistory, the only code of
// this path that changes the ledger, acts on that. The decision, row by row
// (the first row that fits wins; "met" is the message's place among the
// messages of its content in this history, "held" how many of that content
// the ledger's history holds):
//
//	reason           | facts                                                  | verdict
//	-----------------+--------------------------------------------------------+----------------------------------------------------
//	status copy held | no ID, the history's last copy of the status message   | skipped; the status message counts as delivered
//	                 | (a2a-js lists it), met <= held                         | (the status carries no message)
//	status copy      | no ID, that copy, any other                            | skipped: it travels with the status
//	content held     | no ID, met <= held                                     | skipped
//	content new      | no ID, any other                                       | it joins the history, its content counted;
//	                 |                                                        | delivered unless the user's
//	status message   | its ID is the status message's                         | skipped: it travels with the status, as on a
//	                 |                                                        | live stream
//	revised          | its ID known, not the user's, a version other than the | the revision delivered; the history holds it
//	                 | one held                                               |
//	older            | its ID known, not the user's, an older version (the    | the window replays; nothing delivered
//	                 | window open and the task possibly the past)            |
//	known            | its ID known, any other                                | nothing
//	new              | any other                                              | it joins the history, its ID recorded; delivered
//	                 |                                                        | unless the user's
//
// A message without an ID is told apart by content and place: the k-th of
// a content is held when the history holds k of it.

// historyFacts is what the ledger knows of one message of a whole task's
// history. Facts no row can read are left zero.
type historyFacts struct {
	withoutID  bool // it has no ID
	statusCopy bool // without an ID: the history's last copy of the status message
	met        int  // without an ID: its place among the messages of its content in this history
	held       int  // without an ID: how many of its content the ledger's history holds

	statusMessage bool    // its ID is the status message's
	known         bool    // its ID was delivered or recorded
	user          bool    // the user's message
	version       version // its ID known, not the user's: next to the version held (classify)
}

// historyVerdict is what decideHistory makes of one message of a history.
type historyVerdict struct {
	reason     string
	statusHeld bool // the status message's copy is held: the status carries no message
	hold       bool // it joins the ledger's history: its ID recorded, or its content counted
	deliver    bool // delivered as a Message
	revise     bool // the revision is delivered
	replayed   bool // the window replays
}

// decideHistory is the table in this file's comment. It is pure: it reads
// the facts only.
func decideHistory(f historyFacts) historyVerdict {
	switch {
	case f.withoutID && f.statusCopy && f.met <= f.held:
		return historyVerdict{reason: "status copy held", statusHeld: true}
	case f.withoutID && f.statusCopy:
		return historyVerdict{reason: "status copy"}
	case f.withoutID && f.met <= f.held:
		return historyVerdict{reason: "content held"}
	case f.withoutID:
		return historyVerdict{reason: "content new", hold: true, deliver: !f.user}
	case f.statusMessage:
		return historyVerdict{reason: "status message"}
	case f.known && !f.user && f.version == versionRevised:
		return historyVerdict{reason: "revised", revise: true}
	case f.known && !f.user && f.version == versionOld:
		return historyVerdict{reason: "older", replayed: true}
	case f.known:
		return historyVerdict{reason: "known"}
	}
	return historyVerdict{reason: "new", hold: true, deliver: !f.user}
}

// historyScan walks the history of one whole task. It counts the messages
// without an ID it met, by content: that count is the scan's own, not the
// ledger's.
type historyScan struct {
	statusMsg  string         // the ID of the task's status message
	statusCopy int            // the index of the last copy of a status message without an ID, or -1
	inWindow   bool           // the window is open and the task may be the past: versions are classified inside it
	met        map[uint64]int // messages without an ID met so far, by content
}

// newHistoryScan starts the scan of t's history; inWindow says whether
// versions are classified inside the replay window.
func (l *Ledger) newHistoryScan(t *a2a.Task, inWindow bool) historyScan {
	return historyScan{statusMsg: messageID(t.Status.Message), statusCopy: l.statusCopyWithoutID(t), inWindow: inWindow}
}

// historyFacts gathers the facts of m, the message at index i of the
// scanned history, in one pass, and returns the version of it held (its ID
// known).
func (l *Ledger) historyFacts(s *historyScan, lt *a2a.Task, i int, m *a2a.Message) (historyFacts, *a2a.Message) {
	f := historyFacts{withoutID: m.ID == "", user: m.Role == a2a.RoleUser}
	if f.withoutID {
		k := l.msgs.contentKey(m)
		if s.met == nil {
			s.met = map[uint64]int{}
		}
		s.met[k]++
		f.statusCopy, f.met, f.held = i == s.statusCopy, s.met[k], l.msgs.withoutID[k].held
		return f, nil
	}
	if f.statusMessage = m.ID == s.statusMsg; f.statusMessage {
		return f, nil
	}
	var held *a2a.Message
	if f.known = l.msgs.known(m.ID); f.known && !f.user {
		f.version, held = l.msgs.classify(m, lt.History, s.inWindow)
	}
	return f, held
}

// actOnHistory acts on the verdict v about m, a message of a whole task's
// history, whose version held is held (a known ID), for lt, the assembled
// task. It is the only code of this path that changes the ledger.
func (l *Ledger) actOnHistory(dst []a2a.Event, lt *a2a.Task, m, held *a2a.Message, v historyVerdict) []a2a.Event {
	switch {
	case v.revise:
		return append(dst, l.revise(lt, held, m))
	case v.replayed:
		l.win.replayed()
	case v.hold:
		if m.ID == "" {
			l.msgs.holdWithoutID(m, false)
		} else {
			l.msgs.add(m.ID, len(lt.History))
		}
		lt.History = append(lt.History, *m.Clone())
		if v.deliver {
			dst = append(dst, m)
		}
	}
	return dst
}

// reconcileHistory folds t's history into lt, and reports whether the
// history holds the status message's copy (a status message without an
// ID) as delivered.
func (l *Ledger) reconcileHistory(dst []a2a.Event, lt, t *a2a.Task, inWindow bool) ([]a2a.Event, bool) {
	s := l.newHistoryScan(t, inWindow)
	statusHeld := false
	for i := range t.History {
		m := &t.History[i]
		f, held := l.historyFacts(&s, lt, i, m)
		v := decideHistory(f)
		statusHeld = statusHeld || v.statusHeld
		dst = l.actOnHistory(dst, lt, m, held, v)
	}
	return dst, statusHeld
}

// statusCopyWithoutID returns the index in t's history of the last copy of
// t's status message when that message has no ID (a2a-js lists the status
// message in the history too), or -1.
func (l *Ledger) statusCopyWithoutID(t *a2a.Task) int {
	sm := t.Status.Message
	if sm == nil || sm.ID != "" {
		return -1
	}
	k := l.msgs.contentKey(sm)
	for i := len(t.History) - 1; i >= 0; i-- {
		if m := &t.History[i]; m.ID == "" && l.msgs.contentKey(m) == k {
			return i
		}
	}
	return -1
}
