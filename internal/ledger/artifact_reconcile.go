package ledger

import "github.com/a2astream/a2astream/a2a"

// An artifact of a whole task (a first event, a snapshot, a get-task
// result) is folded as an update is (see artifact_update.go):
// reconcileFacts gathers what the ledger knows of it, decideReconcile says
// what it is, and applyReconcile, the only code of this path that changes
// the ledger, acts on that. The decision, row by row (the first row that
// fits wins; "held" is the artifact the ledger holds with its ID, "task's"
// the task's artifact; an authoritative task is a get-task result that does
// not lag, a present one the server's task as it is now, see
// Ledger.reconcile):
//
//	reason              | facts                                                    | verdict
//	--------------------+----------------------------------------------------------+-----------------------------------------------------------
//	new artifact        | no artifact with this ID                                 | held as the task has it, cursor after its parts;
//	                    |                                                          | delivered whole; the window stays as it is
//	labels taken back   | held parts a prefix of the task's, authoritative, the    | the task's replaces the held version (the truth wins
//	                    | task's lacks a label held                                | whole), as a replacement below
//	as held             | held parts a prefix of the task's, no new part, and no   | cursor after the task's parts; nothing delivered
//	                    | label changed or the task not present                    |
//	new tail            | held parts a prefix of the task's, new parts, or labels  | the tail and the task's labels folded in as an append,
//	                    | a present task changes                                   | cursor after the task's parts; delivered; the window
//	                    |                                                          | closes on new parts unless replaying
//	fewer parts         | not authoritative, the task's parts a prefix of the held | cursor after the task's parts; the window replays;
//	                    |                                                          | nothing delivered
//	replaced version    | not authoritative, the task's parts a prefix of a        | cursor in that version, after the task's parts; the
//	                    | version since replaced                                   | window replays; nothing delivered
//	replacement         | any other                                                | the task's replaces the held version, cursor after its
//	                    |                                                          | parts; delivered whole; the window closes on parts
//	                    |                                                          | unless replaying
//
// A task that lacks labels held, or parts held, may lag, as a store may lag
// its event bus; only an authoritative one takes them back.

// reconcileFacts is what the ledger knows of one artifact of a whole task.
// Facts no row can read are left zero.
type reconcileFacts struct {
	known         bool // the ledger holds an artifact with the task's artifact's ID
	authoritative bool // the task is authoritative
	present       bool // the task is the server's task as it is now
	open          bool // the replay window is open
	replaying     bool // an event of this window was a replay
	parts         int  // the task's artifact's parts
	held          int  // the parts held

	grows        bool // the held parts are a prefix of the task's
	labelsReach  bool // the task's artifact has every label held
	labelsChange bool // folding the task's labels in, as an append does, changes the held ones
	lags         bool // the task's parts are a prefix of the held ones (the held grow them)
	retired      int  // the version since replaced of which the task's parts are a prefix, or -1
}

// reconcileVerdict is what decideReconcile makes of a task's artifact.
type reconcileVerdict struct {
	reason  string // the row of the table
	act     updateAct
	deliver bool // a delta: the task's artifact whole, or for actFold its tail
	tail    int  // actFold: the task's first new part
	// ver and pos are where actCursor sets the cursor.
	ver, pos int
	win      windowStep
}

// decideReconcile is the table in this file's comment. It is pure: it
// reads the facts only.
func decideReconcile(f reconcileFacts) reconcileVerdict {
	reason := "replacement"
	switch {
	case !f.known:
		// New to the client, but perhaps only missed in a gap: it does not
		// close the window.
		return reconcileVerdict{reason: "new artifact", act: actOpen, deliver: true}
	case f.grows && f.authoritative && !f.labelsReach:
		// Labels an append cannot take away (a replacement with the same
		// parts and fewer labels): the truth wins whole. Any other task
		// that lacks labels held may lag, as it may lag in parts.
		reason = "labels taken back"
	case f.grows && f.parts == f.held && (!f.present || !f.labelsChange):
		// With no new part the task may still be stale in its labels (an
		// append of metadata alone), so only a present task changes them.
		return reconcileVerdict{reason: "as held", act: actCursor, ver: verCurrent, pos: f.parts}
	case f.grows:
		// The task's artifact is as new as the one held, or newer: the
		// delta carries its name, description and metadata with the unseen
		// tail, folded in as an append, so that those changed by appends
		// the client missed are not lost.
		return reconcileVerdict{reason: "new tail", act: actFold, deliver: true, tail: f.held,
			win: windowStep{live: closesWindow(f.open, f.replaying, f.parts-f.held)}}
	case !f.authoritative && f.lags:
		// Fewer parts than delivered: a snapshot older than what is held,
		// or the first Task of a subscription from a store that lags its
		// event bus. Not news; the events that follow replay the rest.
		return reconcileVerdict{reason: "fewer parts", act: actCursor, ver: verCurrent, pos: f.parts,
			win: windowStep{replayed: f.open && !f.replaying}}
	case !f.authoritative && f.retired >= 0:
		// A version the agent has since replaced: the task lags just the
		// same (a replacement reaches the store after its event).
		return reconcileVerdict{reason: "replaced version", act: actCursor, ver: f.retired, pos: f.parts,
			win: windowStep{replayed: f.open && !f.replaying}}
	}
	return reconcileVerdict{reason: reason, act: actReplace, deliver: true,
		win: windowStep{live: closesWindow(f.open, f.replaying, f.parts)}}
}

// reconcileArtifact folds sa, the artifact at index at of a whole task's
// artifacts, into lt, the assembled task.
func (l *Ledger) reconcileArtifact(dst []a2a.Event, lt *a2a.Task, at int, sa *a2a.Artifact, authoritative, present bool) []a2a.Event {
	var f reconcileFacts
	a, st := l.reconcileFacts(&f, lt, at, sa, authoritative, present)
	return l.applyReconcile(dst, lt, sa, a, st, decideReconcile(f))
}

// reconcileFacts gathers the facts of sa into f in one pass, and returns
// the artifact held with its ID and its record (nils for a new one).
func (l *Ledger) reconcileFacts(f *reconcileFacts, lt *a2a.Task, at int, sa *a2a.Artifact, authoritative, present bool) (*a2a.Artifact, *artifactState) {
	*f = reconcileFacts{authoritative: authoritative, present: present, open: l.win.open, replaying: l.win.replaying,
		parts: len(sa.Parts), retired: -1}
	a, st := l.arts.lookupAt(lt, at, sa.ID)
	if a == nil {
		return nil, nil
	}
	f.known, f.held = true, len(a.Parts)
	if f.grows = isPrefix(a.Parts, sa.Parts); f.grows {
		if authoritative {
			f.labelsReach = labelsReach(a, sa)
		}
		if present && f.parts == f.held {
			f.labelsChange = labelsChange(a, sa)
		}
		return a, st
	}
	if !authoritative {
		if f.lags = isPrefix(sa.Parts, a.Parts); !f.lags {
			f.retired = l.arts.matchRetired(st, sa.Parts)
		}
	}
	return a, st
}

// applyReconcile acts on the verdict v about sa, a task's artifact, and a,
// the artifact held with its ID (nil when new), whose record is st. It is
// the only code of this path that changes the ledger.
func (l *Ledger) applyReconcile(dst []a2a.Event, lt *a2a.Task, sa, a *a2a.Artifact, st *artifactState, v reconcileVerdict) []a2a.Event {
	var u *a2a.ArtifactUpdate
	switch v.act {
	case actOpen:
		l.arts.open(lt, sa.Clone())
	case actReplace:
		l.arts.replaceCurrent(st, a, sa.Clone())
	case actFold:
		u = &a2a.ArtifactUpdate{TaskID: lt.ID, ContextID: lt.ContextID, Append: true,
			Artifact: a2a.Artifact{ID: sa.ID, Name: sa.Name, Description: sa.Description, Metadata: sa.Metadata, Parts: sa.Parts[v.tail:]}}
		l.arts.fold(st, a, u, true)
	case actCursor:
		l.arts.setCursor(st, v.ver, v.pos)
	}
	if v.win != (windowStep{}) {
		l.win.step(v.win, sa.ID)
	}
	if !v.deliver {
		return dst
	}
	if u == nil {
		u = &a2a.ArtifactUpdate{TaskID: lt.ID, ContextID: lt.ContextID, Artifact: *sa}
	}
	return append(dst, u)
}
