package ledger

import "github.com/a2astream/a2astream/a2a"

// An artifact update (an *a2a.ArtifactUpdate event) is folded in three
// steps: updateFacts gathers what the ledger knows of it, decideUpdate
// says what it is, and applyUpdate, the only code of this path that changes
// the ledger, acts on that. The decision, row by row (the first row that
// fits wins; "open" is the replay window, "cursor" the artifact's replay
// cursor in this window, n the update's parts):
//
//	reason               | facts                                                  | verdict
//	---------------------+--------------------------------------------------------+------------------------------------------------------------
//	new artifact         | no artifact with this ID                               | held as it is, cursor after its parts; delivered whole
//	                     |                                                        | (append:false); the window stays as it is
//	replayed version     | append:false, open, matchReplay finds the version it   | cursor at that version, after its n parts; the window
//	                     | starts again (a retired one, or the current one)       | replays; the version held pending for it is moot
//	version held pending | append:false, open, replaying, the replay has not      | held pending (a copy), cursor pending; nothing delivered
//	                     | reached the current version, no version matched        |
//	same version         | append:false, parts and labels equal the held ones     | nothing
//	replacement          | append:false, any other                                | replaces the held version, cursor after its parts;
//	                     |                                                        | delivered; the window closes on n > 0 unless replaying
//	append live          | append:true, the window closed                         | folded in whole; delivered
//	append to pending    | append:true, open, cursor in a version held pending    | folded into that version; nothing delivered
//	append to retired    | append:true, open, cursor in a retired version         | all n parts old: cursor n parts on; the window replays
//	                     |                                                        | when n > 0
//	append replayed      | append:true, open, cursor in the current version, its  | cursor n parts on; the window replays when n > 0 and the
//	                     | replayed prefix is all n parts, not labels alone       | cursor was anchored; nothing delivered
//	append new tail      | append:true, open, cursor in the current version, a    | the tail after the prefix folded in (labels too), cursor
//	                     | shorter replayed prefix                                | after every part held; delivered; the window replays when
//	                     |                                                        | the prefix is not empty and the cursor was anchored, and
//	                     |                                                        | else closes
//	append labels only   | append:true, open, no parts, cursor in the current     | labels folded in, cursor after every part held; delivered
//	                     | version after every part held, labels that change      |
//
// "The window replays" marks it replaying when it is not yet; "the window
// closes" is the replay window's rule that the first new part of a server
// that replays nothing ends it (see window).

// cursorAt says in which version an artifact's replay cursor stands.
type cursorAt uint8

const (
	atCurrent cursorAt = iota // the current version (verCurrent)
	atRetired                 // a version since replaced
	atPending                 // a version held pending (verPending)
)

// updateFacts is what the ledger knows of one artifact update, gathered in
// one pass by updateFacts. A fact that no row can read for the update is
// left zero: those of the cursor when the artifact is new or the window is
// closed, those of an append:false for an append and the other way round.
type updateFacts struct {
	known     bool // the ledger holds an artifact with the update's ID
	appends   bool // append:true
	open      bool // the replay window is open
	replaying bool // an event of this window was a replay
	parts     int  // the update's parts

	// The artifact's cursor (a known artifact, an open window).
	at       cursorAt
	anchored bool // the cursor was set in this window
	reached  bool // the replay reached the current version
	ver      int  // the cursor's version: verCurrent, verPending or a retired index
	pos      int  // the cursor's place in its version

	// An append:false.
	replays   bool // matchReplay found the version it starts again (open window)
	replayVer int  // that version: a retired index, or verCurrent
	same      bool // its parts and its labels equal the held ones

	// An append:true in an open window, the cursor in the current version.
	prefix       int  // how many leading parts equal the held ones at the cursor
	labelsChange bool // no parts, the cursor after every part held, and labels that change the held ones
}

// updateAct is what happens to the artifact and its record.
type updateAct uint8

const (
	actNone    updateAct = iota // nothing changes
	actOpen                     // a new artifact, held as it is
	actReplace                  // the update replaces the current version
	actFold                     // the update's parts from tail on, and its labels, folded in
	actHold                     // a version never seen, held pending
	actExtend                   // the append folded into the version held pending
	actCursor                   // the cursor moves to ver, pos, and nothing else
)

// updateVerdict is what decideUpdate makes of an artifact update.
type updateVerdict struct {
	reason  string // the row of the table
	act     updateAct
	deliver bool // the update (cut to its tail for actFold) is a delta
	tail    int  // actFold: the first new part of the update
	// ver and pos are where actCursor and actHold set the cursor.
	ver, pos int
	win      windowStep
}

// decideUpdate is the table in this file's comment. It is pure: it reads
// the facts only.
func decideUpdate(f *updateFacts) updateVerdict {
	if !f.known {
		return updateVerdict{reason: "new artifact", act: actOpen, deliver: true}
	}
	if !f.appends {
		switch {
		case f.open && f.replays:
			return updateVerdict{reason: "replayed version", act: actCursor, ver: f.replayVer, pos: f.parts,
				win: windowStep{replayed: !f.replaying, drop: true}}
		case f.open && f.replaying && !f.reached:
			return updateVerdict{reason: "version held pending", act: actHold, ver: verPending, pos: f.parts}
		case f.same:
			return updateVerdict{reason: "same version", act: actNone}
		}
		return updateVerdict{reason: "replacement", act: actReplace, deliver: true,
			win: windowStep{live: closesWindow(f.open, f.replaying, f.parts)}}
	}
	if !f.open {
		return updateVerdict{reason: "append live", act: actFold, deliver: true}
	}
	switch f.at {
	case atPending:
		return updateVerdict{reason: "append to pending", act: actExtend}
	case atRetired:
		// Appends to a version the agent has since replaced are old,
		// whether the client saw them or missed them in a gap.
		return updateVerdict{reason: "append to retired", act: actCursor, ver: f.ver, pos: f.pos + f.parts,
			win: windowStep{replayed: f.parts > 0 && !f.replaying}}
	}
	// Without an anchor (an append:false or a snapshot seen in this
	// window), a replay of this artifact starts from its first part: an
	// agent may open an artifact with append:true. Against a server that
	// resends nothing, a new part equal to a held one is skipped here, and
	// the get-task that closes every such gap appends it back.
	replayed := f.prefix > 0 && f.anchored
	switch {
	case f.prefix < f.parts:
		return updateVerdict{reason: "append new tail", act: actFold, deliver: true, tail: f.prefix,
			win: windowStep{replayed: replayed && !f.replaying, live: closesWindow(true, f.replaying || replayed, f.parts-f.prefix)}}
	case f.parts == 0 && f.labelsChange:
		// An append of labels alone (a name, a description, metadata) has
		// no parts to place: after every part held, one that changes
		// something is new; anywhere else it is a replay.
		return updateVerdict{reason: "append labels only", act: actFold, deliver: true}
	}
	return updateVerdict{reason: "append replayed", act: actCursor, ver: verCurrent, pos: f.pos + f.prefix,
		win: windowStep{replayed: replayed && !f.replaying}}
}

// applyArtifact folds an artifact update of task t.
func (l *Ledger) applyArtifact(dst []a2a.Event, t *a2a.Task, u *a2a.ArtifactUpdate) []a2a.Event {
	u.TaskID, u.ContextID = t.ID, t.ContextID
	var f updateFacts
	a, st := l.updateFacts(&f, t, u)
	v := decideUpdate(&f)
	return l.applyUpdate(dst, t, u, a, st, &v)
}

// updateFacts gathers the facts of u into f in one pass, and returns the
// artifact held with its ID and its record (nils for a new one).
func (l *Ledger) updateFacts(f *updateFacts, t *a2a.Task, u *a2a.ArtifactUpdate) (*a2a.Artifact, *artifactState) {
	parts := u.Artifact.Parts
	*f = updateFacts{appends: u.Append, open: l.win.open, replaying: l.win.replaying, parts: len(parts)}
	if f.appends {
		// No row reads more of a live append than whether its artifact is
		// held, and an append in the window reads the parts at its cursor:
		// the parts held stay unbuilt (see tail), so that the first append
		// after a resubscribe, in the middle of a long artifact, moves none.
		a, st := l.arts.lookupUnbuilt(t, u.Artifact.ID)
		if f.known = a != nil; f.known && f.open {
			l.appendFacts(f, a, st, &u.Artifact)
		}
		return a, st
	}
	var r record
	if l.arts.find(&r, t, u.Artifact.ID, parts, f.open, f.open); r.held == nil {
		return nil, nil
	}
	a := r.held
	f.known = true
	if f.open {
		f.anchored, f.reached = r.anchored, r.reached
		f.setCursor(r.cur)
	}
	f.replays, f.replayVer = r.replays, r.replayVer
	if !f.open || !f.replays {
		f.same = partsEqual(parts, a.Parts) && labelsEqual(a, &u.Artifact)
	}
	return a, r.st
}

// setCursor sets the facts of the artifact's cursor c but anchored and
// reached.
func (f *updateFacts) setCursor(c cursor) {
	f.ver, f.pos = c.ver, c.pos
	switch f.ver {
	case verCurrent:
		f.at = atCurrent
	case verPending:
		f.at = atPending
	default:
		f.at = atRetired
	}
}

// appendFacts sets the facts of an append in the window of u, the update's
// artifact, to a, the artifact held (its record st), reading the parts
// held at the cursor whether built or not.
func (l *Ledger) appendFacts(f *updateFacts, a *a2a.Artifact, st *artifactState, u *a2a.Artifact) {
	parts := u.Parts
	f.anchored, f.reached = l.arts.anchored(st), l.arts.reachedCurrent(st)
	f.setCursor(l.arts.cursorOf(st))
	if f.at != atCurrent {
		return
	}
	held := partCount(st, a)
	var buf a2a.Part
	for f.prefix < len(parts) && f.pos+f.prefix < held && parts[f.prefix].Equal(partAt(st, a, f.pos+f.prefix, &buf)) {
		f.prefix++
	}
	if len(parts) == 0 && f.pos == held {
		f.labelsChange = labelsChange(a, u)
	}
}

// applyUpdate acts on the verdict v about u, an update of a, the artifact
// held with u's ID (nil when new), whose record is st. It is the only code
// of this path that changes the ledger: the task's artifact and its record
// through the record's methods, the window through the window's.
func (l *Ledger) applyUpdate(dst []a2a.Event, t *a2a.Task, u *a2a.ArtifactUpdate, a *a2a.Artifact, st *artifactState, v *updateVerdict) []a2a.Event {
	switch v.act {
	case actOpen:
		// An append to an artifact never seen is delivered as a new
		// artifact, so that applying the deltas still reproduces the
		// ledger. New to the client, but perhaps only missed in a gap: it
		// does not close the window.
		l.arts.open(t, owned(&u.Artifact))
		u.Append = false
	case actReplace:
		l.arts.replaceCurrent(st, a, owned(&u.Artifact))
	case actFold:
		// The delta is the unseen tail, with the update's name,
		// description and metadata, folded into the held artifact by the
		// rules an application folds it by; inside the window, what
		// follows comes after these new parts.
		u.Artifact.Parts = u.Artifact.Parts[v.tail:]
		l.arts.fold(st, a, u, l.win.open)
	case actCursor:
		l.arts.setCursor(st, v.ver, v.pos)
	case actHold:
		// A version never seen, in a replay that has not reached the
		// current version yet: one the client missed in a gap (then a
		// version it holds follows), or a new one. Held until the replay
		// tells.
		l.arts.setCursor(st, v.ver, v.pos)
		l.win.hold(u.Artifact.Clone())
	case actExtend:
		l.win.extend(u)
	}
	if v.win != (windowStep{}) {
		l.win.step(v.win, u.Artifact.ID)
	}
	if !v.deliver {
		return dst
	}
	return append(dst, u)
}
