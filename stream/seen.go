package stream

import (
	"hash/crc32"
	"slices"
	"time"

	"github.com/a2astream/a2astream/a2a"
)

// seen is what the application was handed, folded one yielded delta at a
// time: the substance of a checkpoint. It holds no content, only counts and
// digests, so that taking a checkpoint costs the same after a 50 MB answer
// as after a word.
type seen struct {
	events uint64 // deltas yielded
	status statusMark
	latest time.Time // the newest status timestamp yielded
	// shown holds the statuses yielded at the latest timestamp and those
	// without one, each once, at most maxShown (the newest): a replay of
	// one is recognised after a resume. Its array is never changed in
	// place (see noteShown).
	shown []statusMark
	arts  []artifactMark
	index map[string]int // artifact ID → arts index
	// msgs holds a mark per version of a message yielded, already in the
	// binary form a checkpoint writes (see messageMarks), and msgsSum the
	// running checksum of the checkpoint's bytes up to their end. Both
	// only grow (a later version adds a mark that supersedes the earlier
	// one), so a checkpoint shares them instead of copying, and writing
	// one copies them once and checksums only what follows them.
	msgs    messageMarks
	msgsSum uint32
}

// statusMark is the status last yielded.
type statusMark struct {
	state     a2a.TaskState
	messageID string
	message   digest // of its message, 0 for none
	at        time.Time
}

// maxShown bounds seen.shown: past it the oldest are forgotten. A server
// sets a handful of statuses at one instant, and a status whose message
// was delivered is told by its message anyway; only a status without a
// message, forgotten, may be shown again after a resume.
const maxShown = 16

// noteShown records the status last yielded in shown. It never changes
// shown's array in place but makes a new one, so checkpoints share it.
func (w *seen) noteShown() {
	st := w.status
	keep := w.shown
	switch {
	case st.at.IsZero():
	case st.at.After(w.latest):
		// A newer instant: the statuses of the older one go, those
		// without a timestamp stay.
		keep = nil
		for _, m := range w.shown {
			if m.at.IsZero() {
				keep = append(keep, m)
			}
		}
	case st.at.Before(w.latest):
		return
	}
	if slices.Contains(keep, st) {
		return
	}
	if len(keep) == maxShown {
		keep = keep[1:]
	}
	next := make([]statusMark, len(keep), len(keep)+1)
	copy(next, keep)
	w.shown = append(next, st)
}

// artifactMark is how much of an artifact was yielded: its first parts,
// with the digest of those parts and of its labels.
type artifactMark struct {
	id          string
	parts       int
	digest      digest // of the parts, in order
	name        digest
	description digest
	// meta holds a digest of each key of the metadata the application
	// holds and of its value, ascending by key digest: an append folds
	// metadata key by key, so one digest of the whole map could not follow
	// it. Its array is never changed in place (see withMetadata), so
	// checkpoints share it. metaUnknown: the mark comes from a format 1
	// checkpoint, which holds no metadata, and the artifact was not handed
	// over whole since; meta is then nil, and the metadata of the task
	// fetched on resume is taken as the application's.
	meta        []metaEntry
	metaUnknown bool
}

// messageMark is one version of a message yielded: its ID ("" for a message
// without one) and its digest.
type messageMark struct {
	id     string
	digest digest
}

// mark adds a message mark, keeping the running checksum.
func (w *seen) mark(id string, d digest) {
	if len(w.msgs) == 0 {
		w.msgsSum = headSum()
	}
	n := len(w.msgs)
	w.msgs = w.msgs.add(id, d)
	w.msgsSum = crc32.Update(w.msgsSum, castagnoli, w.msgs[n:])
}

// sum returns the checksum of a checkpoint's bytes up to the end of the
// message marks.
func (w *seen) sum() uint32 {
	if len(w.msgs) == 0 {
		return headSum()
	}
	return w.msgsSum
}

// add folds one yielded delta.
func (w *seen) add(ev a2a.Event) {
	w.events++
	switch e := ev.(type) {
	case *a2a.StatusUpdate:
		st := &e.Status
		w.status = statusMark{state: st.State, messageID: messageID(st.Message), at: st.Timestamp}
		if m := st.Message; m != nil {
			w.status.message = messageDigest(m)
			w.mark(m.ID, w.status.message)
		}
		w.noteShown()
		if st.Timestamp.After(w.latest) {
			w.latest = st.Timestamp
		}
	case *a2a.Message:
		w.mark(e.ID, messageDigest(e))
	case *a2a.MessageRevision:
		if m := e.Message; m != nil {
			w.mark(m.ID, messageDigest(m))
		}
	case *a2a.ArtifactUpdate:
		w.addArtifact(e)
	}
}

// addArtifact folds an artifact update as Artifact.Apply folds it: an
// append adds parts and changes the labels it carries; anything else, or
// the first update of an artifact, is the artifact whole.
func (w *seen) addArtifact(u *a2a.ArtifactUpdate) {
	a := &u.Artifact
	i, held := w.index[a.ID]
	if !held {
		if w.index == nil {
			w.index = map[string]int{}
		}
		i = len(w.arts)
		w.index[a.ID] = i
		w.arts = append(w.arts, artifactMark{id: a.ID})
	}
	m := &w.arts[i]
	if !held || !u.Append {
		*m = artifactMark{id: a.ID, digest: digestStart, name: digestStart.field(a.Name), description: digestStart.field(a.Description),
			meta: metaDigests(a.Metadata)}
	} else {
		if a.Name != "" {
			m.name = digestStart.field(a.Name)
		}
		if a.Description != "" {
			m.description = digestStart.field(a.Description)
		}
		if !m.metaUnknown {
			m.meta = withMetadata(m.meta, a.Metadata)
		}
	}
	m.parts += len(a.Parts)
	m.digest = m.digest.parts(a.Parts)
}
