package ledger

import "github.com/a2astream/a2astream/a2a"

// window is the replay window: open from a resubscribe until the stream is
// known to be live again.
//
// Without evidence of a replay (a server that resends nothing), the first
// new part closes it, so that later new parts equal to held ones are not
// skipped. Once an event of this window was recognised as a replay, the
// server is replaying from the start, and content the client never saw may
// still be old (missed in an earlier gap): the window then stays open for
// the rest of the connection, the cursors telling replay from news, and an
// artifact version never seen is held pending until the replay tells
// whether it is old (a version the client holds follows: it is dropped) or
// new (a status newer in time, or the task's terminal status, arrives: it
// is delivered). A connection that ends first drops what it held; the next
// snapshot or get-task brings it.
type window struct {
	open      bool
	replaying bool           // an event of this window was a replay
	pending   []a2a.Artifact // versions never seen, held, in arrival order
	// withoutID counts the messages without an ID met in this window, by
	// content (messages.contentKey): while the server replays, the k-th of
	// a content is a replay when the history holds k of it.
	withoutID map[uint64]int
	// news is the statuses this connection's status updates brought as
	// news (status_news.go).
	news statusNews
}

func (w *window) start() { *w = window{open: true, pending: w.pending[:0]} }

func (w *window) close() {
	w.clearPending()
	*w = window{pending: w.pending}
}

func (w *window) replayed() {
	if w.open {
		w.replaying = true
	}
}

// hold holds a version never seen, in place of any held for the artifact.
func (w *window) hold(a a2a.Artifact) {
	w.drop(a.ID)
	w.pending = append(w.pending, a)
}

// extend folds an append into the version held for its artifact.
func (w *window) extend(u *a2a.ArtifactUpdate) {
	for i := range w.pending {
		if w.pending[i].ID == u.Artifact.ID {
			w.pending[i].Apply(u)
			return
		}
	}
}

// drop forgets the version held for the artifact, if any.
func (w *window) drop(id string) {
	for i := range w.pending {
		if w.pending[i].ID == id {
			w.pending = append(w.pending[:i], w.pending[i+1:]...)
			return
		}
	}
}

// windowStep is what one event does to the window, as a decision says it.
type windowStep struct {
	replayed bool // the event was a replay: the server replays from the start
	live     bool // the event delivered new parts and the server does not replay: the window closes
	drop     bool // the version held pending for the event's artifact is moot
}

// step makes the changes s says, for an event of artifact id.
func (w *window) step(s windowStep, id string) {
	if s.replayed {
		w.replayed()
	}
	if s.live {
		w.open = false
	}
	if s.drop {
		w.drop(id)
	}
}

// closesWindow is the window's rule for new content: an open window closes
// once newParts > 0 new parts were delivered, unless the server is
// replaying.
func closesWindow(open, replaying bool, newParts int) bool {
	return open && !replaying && newParts > 0
}

// clearPending forgets the versions held.
func (w *window) clearPending() {
	clear(w.pending)
	w.pending = w.pending[:0]
}

// metWithoutID counts one more message without an ID of content k
// (messages.contentKey) met in this window.
func (w *window) metWithoutID(k uint64) {
	if w.withoutID == nil {
		w.withoutID = map[uint64]int{}
	}
	w.withoutID[k]++
}
