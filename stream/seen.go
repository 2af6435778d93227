package stream

import (
	"slices"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/checkpoint"
)

// seen is what the application was handed, folded one yielded delta at a
// time: the marks a checkpoint holds, and an index of their artifacts.
type seen struct {
	marks
	index map[string]int // artifact ID → arts index
}

// marks is the substance of a checkpoint. It holds no content, only counts
// and digests, so that taking a checkpoint costs the same after a 50 MB
// answer as after a word.
type marks struct {
	events uint64 // deltas yielded
	status statusMark
	latest time.Time // the newest status timestamp yielded
	// shown holds the statuses yielded at the latest timestamp and those
	// without one, each once, at most maxShown (the newest): a replay of
	// one is recognised after a resume. Its array is never changed in
	// place (see noteShown).
	shown []statusMark
	arts  []artifactMark
	// msgs holds a mark per version of a message yielded, already in the
	// binary form a checkpoint writes, with the running checksum of the
	// checkpoint's bytes up to their end. It only grows (a later version
	// adds a mark that supersedes the earlier one), so a checkpoint shares
	// it instead of copying, and writing one copies it once and checksums
	// only what follows it.
	msgs checkpoint.Messages
}

// The marks of seen are the checkpoint format's types, so that writing a
// checkpoint copies nothing but its bytes (see Checkpoint.data).
type (
	// statusMark is a status yielded, with the digest of its message (0
	// for none).
	statusMark = checkpoint.Status
	// artifactMark is how much of an artifact was yielded: its first
	// parts, with the digest of those parts and of its labels, and the
	// digests of its metadata (see checkpoint.Artifact).
	artifactMark = checkpoint.Artifact
)

// maxShown bounds seen.shown: past it the oldest are forgotten. A server
// sets a handful of statuses at one instant, and a status whose message
// was delivered is told by its message anyway; only a status without a
// message, forgotten, may be shown again after a resume.
const maxShown = checkpoint.MaxShown

// noteShown records the status last yielded in shown. It never changes
// shown's array in place but makes a new one, so checkpoints share it.
func (w *seen) noteShown() {
	st := w.status
	keep := w.shown
	switch {
	case st.At.IsZero():
	case st.At.After(w.latest):
		// A newer instant: the statuses of the older one go, those
		// without a timestamp stay.
		keep = nil
		for _, m := range w.shown {
			if m.At.IsZero() {
				keep = append(keep, m)
			}
		}
	case st.At.Before(w.latest):
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

// mark adds a message mark.
func (w *seen) mark(id string, d digest) { w.msgs.Add(id, uint64(d)) }

// add folds one yielded delta.
func (w *seen) add(ev a2a.Event) {
	w.events++
	switch e := ev.(type) {
	case *a2a.StatusUpdate:
		st := &e.Status
		w.status = statusMark{State: st.State, MessageID: messageID(st.Message), At: st.Timestamp}
		if m := st.Message; m != nil {
			d := messageDigest(m)
			w.status.Message = uint64(d)
			w.mark(m.ID, d)
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
		w.arts = append(w.arts, artifactMark{ID: a.ID})
	}
	m := &w.arts[i]
	if !held || !u.Append {
		*m = artifactMark{ID: a.ID, Digest: uint64(digestStart), Name: uint64(digestStart.field(a.Name)),
			Description: uint64(digestStart.field(a.Description)), Meta: metaDigests(a.Metadata)}
	} else {
		if a.Name != "" {
			m.Name = uint64(digestStart.field(a.Name))
		}
		if a.Description != "" {
			m.Description = uint64(digestStart.field(a.Description))
		}
		if !m.MetaUnknown {
			m.Meta = withMetadata(m.Meta, a.Metadata)
		}
	}
	m.Parts += len(a.Parts)
	m.Digest = uint64(digest(m.Digest).parts(a.Parts))
}
