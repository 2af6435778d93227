package ledger

import (
	"hash/maphash"
	"slices"

	"github.com/a2astream/a2astream/a2a"
)

// maxRetiredParts bounds the part hashes the ledger keeps of the replaced
// versions of one artifact (8 bytes each, so 512 KiB). Past it the oldest
// versions are forgotten: a server that later replays one of those has it
// taken as a real replacement.
const maxRetiredParts = 1 << 16

// artifacts indexes the assembled task's artifacts by ID and keeps, for
// each, what replay detection needs: the versions it replaced, and its replay
// cursor.
//
// Opening an artifact moves nothing already held, so that an event that
// opens one costs about what an append to one does: the records are held
// by value in blocks that never move (states[i] for the task's artifact i);
// the artifacts opened since the task's Artifacts were last built are held
// in blocks too (fresh), after them, and moved into Artifacts in one growth
// by buildAll; and the index by ID keeps each ID's hash, so that it grows
// without hashing an ID again (see idIndex).
type artifacts struct {
	seed   maphash.Seed
	byID   idIndex
	states blockList[artifactState]
	// fresh holds the artifacts after the task's Artifacts: artifact
	// len(t.Artifacts)+i is fresh's element i.
	fresh blockList[a2a.Artifact]
	// missed and missedHash are the last ID looked up and not found, and
	// its hash: the artifact opened then is indexed without hashing its
	// ID again.
	missed     string
	missedHash uint32
	epoch      int // the replay window's number; cursors of older windows are void
	// unbuilt lists the IDs of the artifacts that have a tail (more not
	// nil), each once: those buildAll builds.
	unbuilt []string
}

// artifactState is the ledger's record of one artifact. A pointer to one
// stays valid: the records never move.
type artifactState struct {
	// old holds the part hashes of the versions replaced; nil until an
	// append:false (or a healing snapshot) replaces one, so that the record
	// of an artifact never replaced stays small.
	old *retiredParts
	cur cursor
	// more is the parts appended (live or in the replay window) after the
	// artifact's Parts, not in them yet (see tail). Once made it stays, emptied by build, until
	// buildAll: the artifact's ID is then in unbuilt.
	more *tail
}

// retiredParts is the part hashes of each version of an artifact that an
// append:false (or a healing snapshot) replaced, oldest first.
type retiredParts struct {
	versions [][]uint64
	n        int // hashes over all versions
}

// retired returns the part hashes of the versions replaced, oldest first.
func (st *artifactState) retired() [][]uint64 {
	if st.old == nil {
		return nil
	}
	return st.old.versions
}

// cursor is how far a replay has reached in an artifact: in its current
// version (verCurrent), in a retired one (ver >= 0), or in a version held
// pending (verPending).
type cursor struct {
	epoch int
	ver   int
	pos   int
	// after is the place in time (a retired index, or len(retired) for the
	// current version) of the last version matched in this window, -1 if
	// none: a version held pending comes after it.
	after int
}

const (
	verCurrent = -1
	verPending = -2
)

func newArtifacts(seed maphash.Seed) artifacts {
	return artifacts{seed: seed}
}

// newWindow voids every replay cursor.
func (as *artifacts) newWindow() { as.epoch++ }

// count returns how many artifacts t holds.
func (as *artifacts) count(t *a2a.Task) int { return len(t.Artifacts) + as.fresh.n }

// at returns artifact i of t, which t holds. The pointer is valid until
// the next buildAll.
func (as *artifacts) at(t *a2a.Task, i int) *a2a.Artifact {
	if i < len(t.Artifacts) {
		return &t.Artifacts[i]
	}
	return as.fresh.at(i - len(t.Artifacts))
}

// lookup returns the artifact held with this ID and its state, or nils.
// The artifact's Parts are built: they hold every part.
func (as *artifacts) lookup(t *a2a.Task, id string) (*a2a.Artifact, *artifactState) {
	a, st := as.lookupUnbuilt(t, id)
	if a != nil {
		as.build(st, a)
	}
	return a, st
}

// lookupUnbuilt is lookup without building the artifact's Parts: its
// caller reads its parts through partAt, or none.
func (as *artifacts) lookupUnbuilt(t *a2a.Task, id string) (*a2a.Artifact, *artifactState) {
	h := as.hash(id)
	i, ok := as.byID.find(id, h, func(i int) string { return as.at(t, i).ID })
	if !ok {
		as.missed, as.missedHash = id, h
		return nil, nil
	}
	return as.at(t, i), as.states.at(i)
}

// hash returns the hash of an ID for the index (idIndex).
func (as *artifacts) hash(id string) uint32 { return idHash(as.seed, id) }

// build moves the parts of the artifact's tail into its Parts.
func (as *artifacts) build(st *artifactState, a *a2a.Artifact) {
	if st.more != nil && st.more.n > 0 {
		a.Parts = st.more.moveTo(a.Parts)
	}
}

// partCount returns how many parts the artifact holds, built or not.
func partCount(st *artifactState, a *a2a.Artifact) int {
	if st.more == nil {
		return len(a.Parts)
	}
	return len(a.Parts) + st.more.n
}

// partAt returns part i of the artifact, built or not (i below
// partCount): the part held, or one built in buf.
func partAt(st *artifactState, a *a2a.Artifact, i int, buf *a2a.Part) *a2a.Part {
	if i < len(a.Parts) {
		return &a.Parts[i]
	}
	return st.more.at(i-len(a.Parts), buf)
}

// buildAll moves the artifacts opened since the last into t's Artifacts,
// and builds the Parts of every artifact of t that has a tail: after it,
// t's artifacts hold every part. Its cost is that of the artifacts and
// parts moved.
func (as *artifacts) buildAll(t *a2a.Task) {
	if as.fresh.n > 0 {
		t.Artifacts = slices.Grow(t.Artifacts, as.fresh.n)
		for _, b := range as.fresh.blocks {
			t.Artifacts = append(t.Artifacts, b...)
		}
		as.fresh = blockList[a2a.Artifact]{}
	}
	for _, id := range as.unbuilt {
		if i, ok := as.byID.find(id, as.hash(id), func(i int) string { return as.at(t, i).ID }); ok {
			st := as.states.at(i)
			as.build(st, &t.Artifacts[i])
			st.more = nil
		}
	}
	clear(as.unbuilt)
	as.unbuilt = as.unbuilt[:0]
}

// lookupAt is lookup for the artifact at index i of a whole task: a server
// lists its artifacts in the order it made them, as the ledger holds them,
// so the artifact held at i is tried before the index, which a poll of a
// task of many artifacts would otherwise hash every ID of.
func (as *artifacts) lookupAt(t *a2a.Task, i int, id string) (*a2a.Artifact, *artifactState) {
	if i < as.count(t) {
		if a := as.at(t, i); a.ID == id {
			st := as.states.at(i)
			as.build(st, a)
			return a, st
		}
	}
	return as.lookup(t, id)
}

// add appends a new artifact to t: into the spare capacity of t's
// Artifacts while it has some and no fresh artifact is waiting, else
// after the fresh ones.
func (as *artifacts) add(t *a2a.Task, a a2a.Artifact) *artifactState {
	i := as.count(t)
	if as.fresh.n == 0 && len(t.Artifacts) < cap(t.Artifacts) {
		t.Artifacts = append(t.Artifacts, a)
	} else {
		*as.fresh.push() = a
	}
	h := as.missedHash
	if a.ID != as.missed { // the usual artifact is opened after its lookup missed
		h = as.hash(a.ID)
	}
	as.byID.insert(h, i)
	return as.states.push()
}

// replace puts a new version in place of the held one, remembering the part
// hashes of the old one. Callers set the artifact's cursor afterwards: the
// retired versions it may point into can shift here.
func (as *artifacts) replace(st *artifactState, held *a2a.Artifact, next a2a.Artifact) {
	if n := len(held.Parts); n > 0 && n <= maxRetiredParts {
		hs := make([]uint64, n)
		for i := range held.Parts {
			hs[i] = hashPart(as.seed, &held.Parts[i])
		}
		if st.old == nil {
			st.old = &retiredParts{}
		}
		r := st.old
		r.versions = append(r.versions, hs)
		r.n += n
		for r.n > maxRetiredParts {
			r.n -= len(r.versions[0])
			r.versions[0] = nil
			r.versions = r.versions[1:]
		}
	}
	*held = next
}

// cursorOf returns the artifact's replay cursor in the current window; a
// cursor not set in this window starts at the current version's first part.
func (as *artifacts) cursorOf(st *artifactState) cursor {
	if st.cur.epoch != as.epoch {
		return cursor{epoch: as.epoch, ver: verCurrent, after: -1}
	}
	return st.cur
}

// reachedCurrent reports whether the replay of this window has reached the
// artifact's current version: whatever version comes after it is new.
func (as *artifacts) reachedCurrent(st *artifactState) bool {
	return as.anchored(st) && st.cur.after >= len(st.retired())
}

// anchored reports whether the artifact's cursor was set in this window.
func (as *artifacts) anchored(st *artifactState) bool { return st.cur.epoch == as.epoch }

func (as *artifacts) setCursor(st *artifactState, ver, pos int) {
	after := -1
	switch {
	case ver == verPending:
		after = as.cursorOf(st).after
	case ver == verCurrent:
		after = len(st.retired())
	default:
		after = ver
	}
	st.cur = cursor{epoch: as.epoch, ver: ver, pos: pos, after: after}
}

// open appends a new artifact to t, its cursor after its parts.
func (as *artifacts) open(t *a2a.Task, a a2a.Artifact) {
	st := as.add(t, a)
	as.setCursor(st, verCurrent, len(a.Parts))
}

// replaceCurrent puts next in place of held, the artifact's current
// version, and its cursor after next's parts.
func (as *artifacts) replaceCurrent(st *artifactState, held *a2a.Artifact, next a2a.Artifact) {
	as.replace(st, held, next)
	as.setCursor(st, verCurrent, len(held.Parts))
}

// fold folds an append into held, as foldLive does; inWindow, the cursor
// goes after every part held, since what follows in the window comes after
// them.
func (as *artifacts) fold(st *artifactState, held *a2a.Artifact, u *a2a.ArtifactUpdate, inWindow bool) {
	as.foldLive(st, held, u)
	if inWindow {
		as.setCursor(st, verCurrent, partCount(st, held))
	}
}

// foldLive folds an append into held as a2a.Artifact.Apply does, without
// copying the parts held: a new part goes into the spare capacity of
// held's Parts while it has some and no tail is waiting, and else into the
// artifact's tail. held need not be built.
func (as *artifacts) foldLive(st *artifactState, held *a2a.Artifact, u *a2a.ArtifactUpdate) {
	labels := *u
	labels.Artifact.Parts = nil
	held.Apply(&labels)
	for i := range u.Artifact.Parts {
		p := u.Artifact.Parts[i].Clone()
		if (st.more == nil || st.more.n == 0) && len(held.Parts) < cap(held.Parts) {
			held.Parts = append(held.Parts, p)
			continue
		}
		if st.more == nil {
			st.more = &tail{}
			as.unbuilt = append(as.unbuilt, held.ID)
		}
		st.more.add(&p)
	}
}

// record is what the ledger holds of one artifact, and where its replay
// stands in this window: what a decision asks of it.
type record struct {
	held     *a2a.Artifact // nil when the ledger holds no artifact with the ID
	st       *artifactState
	cur      cursor // the replay cursor in this window (cursorOf)
	anchored bool   // the cursor was set in this window
	reached  bool   // the replay reached the current version
	// The version an append:false starts again (matchReplay), when asked.
	replays   bool
	replayVer int
}

// find sets r to the record of the artifact with this ID in t (r.held
// nil when there is none). Where the replay stands (the cursor, anchored,
// reached) is set only inWindow, since outside the window no decision asks;
// with match, it also says which version parts, an append:false's, starts
// again.
func (as *artifacts) find(r *record, t *a2a.Task, id string, parts []a2a.Part, inWindow, match bool) {
	a, st := as.lookup(t, id)
	if a == nil {
		return
	}
	*r = record{held: a, st: st}
	if inWindow {
		r.cur, r.anchored, r.reached = as.cursorOf(st), as.anchored(st), as.reachedCurrent(st)
	}
	if match {
		r.replayVer, r.replays = as.matchReplay(st, a, parts)
	}
}

// matchRetired returns the first retired version of which parts is a
// prefix, or -1.
func (as *artifacts) matchRetired(st *artifactState, parts []a2a.Part) int {
	if len(st.retired()) == 0 || len(parts) == 0 {
		return -1
	}
	hs := as.hashes(parts)
	for v := range st.retired() {
		if hashPrefix(hs, st.retired()[v]) {
			return v
		}
	}
	return -1
}

// matchReplay finds the version that an append:false replayed in this
// window starts again, in the order the agent made them: the retired ones,
// then the current one. A replay moves forward: once the cursor is in a
// version, the next append:false starts a later one, or restarts the same
// one with at least the parts replayed so far (an agent may send the same
// replacement twice, or replace with the whole text so far each time, which
// the ledger may hold as one version grown by a snapshot). It returns the
// version (a retired index, or verCurrent), or ok false.
func (as *artifacts) matchReplay(st *artifactState, held *a2a.Artifact, parts []a2a.Part) (ver int, ok bool) {
	c := as.cursorOf(st)
	n := len(st.retired())
	at := func(v int) int { // the version's place in time
		if v == verCurrent {
			return n
		}
		return v
	}
	from, repeat := 0, -1
	if as.anchored(st) {
		from = c.after + 1
		if c.ver != verPending {
			repeat = at(c.ver)
		}
	}
	var hs []uint64
	matches := func(i int) bool {
		if i == n {
			return isPrefix(parts, held.Parts)
		}
		if hs == nil {
			hs = as.hashes(parts)
		}
		return hashPrefix(hs, st.retired()[i])
	}
	if repeat >= 0 && len(parts) >= c.pos && matches(repeat) {
		return c.ver, true
	}
	for i := from; i <= n; i++ {
		if matches(i) {
			if i == n {
				return verCurrent, true
			}
			return i, true
		}
	}
	return 0, false
}

func (as *artifacts) hashes(parts []a2a.Part) []uint64 {
	hs := make([]uint64, len(parts))
	for i := range parts {
		hs[i] = hashPart(as.seed, &parts[i])
	}
	return hs
}
