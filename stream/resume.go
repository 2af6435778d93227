package stream

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/ledger"
)

// Resume follows the task of cp again, from where the application that
// took cp left it: in another process after a restart, or on another
// replica. It fetches the task first (get-task), hands over what the task
// holds that cp does not (the unseen tail of each artifact, the messages
// not yet handed over, the status if it moved on), then follows the task as
// Subscribe does, on every server style: by polling when the stream cp was
// taken from polled, else by streaming. The stream's Checkpoint then goes on from cp.
//
// What the application saw is told apart from what it did not by counts
// and digests (cp holds no content):
//
//   - an artifact whose first parts still match cp's digest gets only the
//     parts after them (with its name, description and metadata values
//     when they changed, as an append: with no new part, an append of
//     those alone); one the agent replaced since (other parts, fewer, or
//     without the name, description or a metadata key the application
//     holds) is handed over whole, as a replacement (Append false), in the
//     place the application holds it in. A checkpoint of format 1 holds no
//     digest of an artifact's metadata: the task's is taken as the
//     application's then, and nothing of it is handed over;
//   - a message whose version matches cp's is not handed over again; one
//     the agent revised since comes as an *a2a.Message with the same ID,
//     the new version to show in place of the old (a2a.Task.Apply does
//     so); one the task no longer lists is never handed over again;
//   - a prompt cp replied to is not asked again: while the task still
//     shows it, the stream waits for the agent. A reply whose send got no
//     response may have reached the agent: it is sent again (the same
//     reply) only with WithIdempotentSends, as a stream that never stopped
//     would, when the task does not list it; a reply saved in flight
//     (WithCheckpointBeforeReply), only with WithIdempotentSends and when
//     the task proves it did not arrive (it lists the user's messages, and
//     not the reply). Otherwise the stream waits.
//
// The stream speaks cp's protocol version. cp must come from a Client of
// the same binding; a checkpoint that names no task, or of another binding,
// ends the stream at once in a *CheckpointError (ErrCheckpointForeign), with
// no call made. A get-task that answers the task in another context than
// cp's ends the stream in a *transport.ProtocolError; one whose status is older than
// the newest status cp shows, and not terminal, is taken as from a replica
// that lags, and its status is not handed over. The task's metadata and
// its user messages are taken as the agent holds them, not handed over.
func (c *Client) Resume(ctx context.Context, cp *Checkpoint, opts ...Option) *Stream {
	s := newStream(ctx, c, opts, "Resume")
	if s.phase == phaseDone {
		return s
	}
	var refused string
	switch {
	case cp == nil:
		refused = "Resume needs a checkpoint, and got nil"
	case cp.taskID == "":
		refused = "it names no task: its stream knew none yet"
	case cp.binding != "" && cp.binding != c.binding:
		refused = fmt.Sprintf("it was taken over %s, and this Client speaks %s", cp.binding, c.binding)
	}
	if refused != "" {
		s.enter(s.end(&CheckpointError{Err: ErrCheckpointForeign, Reason: refused}))
		return s
	}
	s.taskID = cp.taskID
	if cp.version != "" {
		s.v, s.nego = cp.version, false
	}
	s.seen = cp.marks.resumed()
	p := cp.replied()
	s.prompt = prompt{replied: p.key, reply: p.reply, unconfirmed: p.sent == replyUnheard}
	s.push.resumedFrom(cp.push)
	s.resuming = cp
	return s
}

// resumed returns what a resumed stream goes on from: a copy of w with its
// own artifact records and their index, and message records that it
// appends to without touching the checkpoint's (their capacity is their
// length).
func (w marks) resumed() seen {
	w.arts = slices.Clone(w.arts)
	index := make(map[string]int, len(w.arts))
	for i := range w.arts {
		index[w.arts[i].ID] = i
	}
	w.msgs = w.msgs.Shared()
	return seen{marks: w, index: index}
}

// makesCall reports whether the phase calls the agent: a resumed stream
// makes its get-task (phaseResume) before any of these.
func (p phase) makesCall() bool {
	switch p {
	case phaseSend, phaseReply, phaseSubscribe, phaseFetch, phaseProbe, phasePollSend, phasePollReply, phasePoll, phaseCatchUp, phasePushSet:
		return true
	}
	return false
}

// resume fetches the task a checkpoint names, seeds the ledger with what
// the checkpoint says the application holds of it, and hands over the
// rest; then the stream follows the task.
func (s *Stream) resume() report {
	t, _, r, ok := s.fetchTask(phaseResume)
	if !ok {
		return r
	}
	if p := s.resuming.replied(); p.sent == replyInFlight {
		// The reply may have reached the agent: it is sent again only
		// when the task proves it did not, and only with
		// WithIdempotentSends (see afterNews).
		s.prompt.unconfirmed = provesNotReceived(t, p.reply)
	}
	seed, delivered, shown, replaced := seedTask(s.resuming, t)
	if st := &t.Status; !st.State.Terminal() && !st.Timestamp.IsZero() && st.Timestamp.Before(s.resuming.marks.latest) {
		// The task fetched shows a status older than one the application
		// was shown: a replica or store that lags. The seeded ledger notes
		// its state as seen, as a stream that never stopped would have, so
		// that the ledger takes it as the past (a prompt answered is not
		// asked again) and not as a state never seen. A terminal state is
		// never the past of a state shown.
		shown = append(shown, a2a.TaskStatus{State: st.State, Timestamp: st.Timestamp})
	}
	s.unfetched = unfetched(s.resuming, t)
	s.resuming = nil
	s.ledger = ledger.Resume(seed, delivered, shown)
	s.deliverFetched(t, true)
	s.placeReplaced(replaced)
	return found(s.newsFacts(afterResume))
}

// provesNotReceived reports whether t proves that the agent never took
// reply: it keeps the user's messages in the history (it lists one), and
// reply is not among them. A server that keeps none (a2a-go) proves
// nothing.
func provesNotReceived(t *a2a.Task, reply *a2a.Message) bool {
	keeps := false
	for i := range t.History {
		m := &t.History[i]
		if m.ID == reply.ID {
			return false
		}
		keeps = keeps || m.Role == a2a.RoleUser
	}
	return keeps
}

// seedTask returns t as the application holds it, by cp: the artifacts
// cut to the parts cp counts (those whose parts or labels cp's digests do
// not match are left out, to be handed over whole), the messages cp holds
// in the version it holds, and the status cp shows. It also returns the
// IDs of the messages cp holds that t does not list (they were handed
// over, and are never handed over again), the statuses cp says were
// shown at the newest time, with their messages as t holds them, for the
// ledger to know a replay of them (see ledger.Resume), and the IDs of the
// artifacts cp holds that t lists and the seed leaves out, in the order
// the application holds them: folding t adds them last, and placeReplaced
// puts them back in their place.
func seedTask(cp *Checkpoint, t *a2a.Task) (*a2a.Task, []string, []a2a.TaskStatus, []string) {
	w := &cp.marks
	marks := w.msgs.All()
	last := make(map[string]digest, len(marks)) // each message's last version handed over
	unnamed := map[digest]int{}                 // messages without an ID handed over, by content
	for _, m := range marks {
		if m.ID == "" {
			unnamed[digest(m.Digest)]++
		} else {
			last[m.ID] = digest(m.Digest)
		}
	}
	seed := &a2a.Task{ID: t.ID, ContextID: t.ContextID, Metadata: t.Metadata}
	listed := make(map[string]bool, len(last))
	for i := range t.History {
		m := &t.History[i]
		switch {
		case m.Role == a2a.RoleUser:
			// The stream's own messages: never handed over.
			seed.History = append(seed.History, *m)
			listed[m.ID] = true
		case m.ID == "":
			if d := messageDigest(m); unnamed[d] > 0 {
				unnamed[d]--
				seed.History = append(seed.History, *m)
			}
		default:
			d, held := last[m.ID]
			if !held {
				continue
			}
			listed[m.ID] = true
			if d == messageDigest(m) {
				seed.History = append(seed.History, *m)
			}
		}
	}

	st, cur := &w.status, &t.Status
	switch {
	case st.State == "":
		seed.Status = a2a.TaskStatus{State: a2a.StateUnknown}
	case st.State == cur.State && st.MessageID == messageID(cur.Message) && digest(st.Message) == statusDigest(cur.Message):
		seed.Status = *cur
		seed.Status.Message = cur.Message.Clone()
		listed[st.MessageID] = true
	default:
		// The task moved on: the status shown, without its message (the
		// history holds it, or it is recorded as handed over), at the
		// newest time shown, so that the statuses a replay brings before
		// it are known as old.
		seed.Status = a2a.TaskStatus{State: st.State, Timestamp: w.latest}
	}

	index := make(map[string]int, len(w.arts))
	for i := range w.arts {
		index[w.arts[i].ID] = i
	}
	var left []int // the marks of the artifacts left out, by index
	for i := range t.Artifacts {
		a := &t.Artifacts[i]
		j, held := index[a.ID]
		if !held {
			continue
		}
		if sa, ok := heldOf(&w.arts[j], a); ok {
			seed.Artifacts = append(seed.Artifacts, sa)
		} else {
			left = append(left, j)
		}
	}
	slices.Sort(left)
	left = slices.Compact(left) // a task may list an artifact twice
	var replaced []string
	for _, j := range left {
		replaced = append(replaced, w.arts[j].ID)
	}

	var delivered []string
	for id := range last {
		if !listed[id] {
			delivered = append(delivered, id)
		}
	}
	slices.Sort(delivered)
	return seed, delivered, shownStatuses(w.shown, t), replaced
}

// shownStatuses returns the statuses of marks, each with its message as t
// holds it; a status whose message t does not hold in the version shown
// is left out (nothing tells its replay from news then but its message's
// ID, which the ledger knows as delivered).
func shownStatuses(marks []statusMark, t *a2a.Task) []a2a.TaskStatus {
	var out []a2a.TaskStatus
	for _, m := range marks {
		st := a2a.TaskStatus{State: m.State, Timestamp: m.At}
		if m.MessageID != "" || m.Message != 0 {
			held := heldMessage(t, m.MessageID, digest(m.Message))
			if held == nil {
				continue
			}
			st.Message = held.Clone()
		}
		out = append(out, st)
	}
	return out
}

// heldMessage returns the message of t (its status message, or one of its
// history) with this ID and digest, or nil.
func heldMessage(t *a2a.Task, id string, d digest) *a2a.Message {
	if m := t.Status.Message; m != nil && m.ID == id && messageDigest(m) == d {
		return m
	}
	for i := range t.History {
		if m := &t.History[i]; m.ID == id && messageDigest(m) == d {
			return m
		}
	}
	return nil
}

// statusDigest is the digest a status mark holds of its message: 0 for
// none.
func statusDigest(m *a2a.Message) digest {
	if m == nil {
		return 0
	}
	return messageDigest(m)
}

// heldOf returns a as the application holds it by m: its first parts, as
// many as m counts, with the labels m's digests match (a name or
// description that changed is left empty, a metadata key whose value
// changed or that the application lacks is left out, and the append of
// the parts after comes with a's). It reports false when a's first parts
// are not those m counts (a has fewer, or the agent replaced it since), or
// when a lacks a name, a description or a metadata key the application
// holds, which no append can take away: a is then to be handed over
// whole, as a replacement. Metadata m does not know (a format 1
// checkpoint) is taken as a's.
func heldOf(m *artifactMark, a *a2a.Artifact) (a2a.Artifact, bool) {
	if m.Parts > len(a.Parts) || digestStart.parts(a.Parts[:m.Parts]) != digest(m.Digest) {
		return a2a.Artifact{}, false
	}
	held := a2a.Artifact{ID: a.ID, Parts: a.Parts[:m.Parts:m.Parts], Metadata: a.Metadata}
	if !m.MetaUnknown {
		md, ok := heldMetadata(m, a.Metadata)
		if !ok {
			return a2a.Artifact{}, false
		}
		held.Metadata = md
	}
	none := uint64(digestStart.field(""))
	switch {
	case uint64(digestStart.field(a.Name)) == m.Name:
		held.Name = a.Name
	case a.Name == "" && m.Name != none:
		return a2a.Artifact{}, false
	}
	switch {
	case uint64(digestStart.field(a.Description)) == m.Description:
		held.Description = a.Description
	case a.Description == "" && m.Description != none:
		return a2a.Artifact{}, false
	}
	return held, true
}

// heldMetadata returns the keys of md that the application holds with the
// same value, by m's digests: md itself when it holds them all and no
// other. It reports false when md lacks a key the application holds.
func heldMetadata(m *artifactMark, md map[string]any) (map[string]any, bool) {
	var held map[string]any
	found, same := 0, 0
	for k, v := range md {
		i, ok := slices.BinarySearchFunc(m.Meta, uint64(keyDigest(k)), func(e metaEntry, k uint64) int { return cmp.Compare(e.Key, k) })
		if !ok {
			continue
		}
		found++
		if m.Meta[i].Value != uint64(valueDigest(v)) {
			continue
		}
		same++
		if held == nil {
			held = make(map[string]any, len(m.Meta))
		}
		held[k] = v
	}
	switch {
	case found < len(m.Meta):
		return nil, false
	case same == len(md):
		return md, true
	}
	return held, true
}

// unfetched returns the marks of the artifacts cp holds that t, the task
// fetched on resume, does not list: a store that lags (an agent never
// removes an artifact). Nil when t lists them all.
func unfetched(cp *Checkpoint, t *a2a.Task) map[string]artifactMark {
	listed := make(map[string]bool, len(t.Artifacts))
	for i := range t.Artifacts {
		listed[t.Artifacts[i].ID] = true
	}
	var out map[string]artifactMark
	for _, m := range cp.marks.arts {
		if listed[m.ID] {
			continue
		}
		if out == nil {
			out = map[string]artifactMark{}
		}
		out[m.ID] = m
	}
	return out
}

// holdUnfetched lets the ledger hold the artifacts the application holds
// that the task fetched on resume lacked, once ev shows them whole: a task
// that lists one, or an update that replaces one, whose first parts are
// those the application holds, with its name and description. Only the
// parts after them are news then. One whose first parts, name or
// description differ was replaced since, and is handed over whole: its ID
// is returned, for deliver to give it its place (placeReplaced) once the
// fold has added it last. A copy with fewer parts than the application
// holds tells nothing, and the artifact stays unfetched; so does an
// append, whose place in the artifact nothing tells.
func (s *Stream) holdUnfetched(ev a2a.Event) (replaced []string) {
	switch e := ev.(type) {
	case *a2a.Task:
		for i := range e.Artifacts {
			if !s.holdIfHeld(&e.Artifacts[i]) {
				replaced = append(replaced, e.Artifacts[i].ID)
			}
		}
	case *a2a.ArtifactUpdate:
		if !e.Append && !s.holdIfHeld(&e.Artifact) {
			replaced = append(replaced, e.Artifact.ID)
		}
	}
	return replaced
}

// holdIfHeld is holdUnfetched for one artifact. It reports false when the
// artifact was unfetched and is not held: the agent replaced it since.
func (s *Stream) holdIfHeld(a *a2a.Artifact) bool {
	m, ok := s.unfetched[a.ID]
	if !ok || m.Parts > len(a.Parts) {
		return true
	}
	delete(s.unfetched, a.ID)
	// Held only with the labels the application holds: a task that
	// lists it may lag (a snapshot), and hands no changed label over then.
	// (held's metadata is a's keys that the application holds alike.)
	held, ok := heldOf(&m, a)
	if !ok || held.Name != a.Name || held.Description != a.Description || len(held.Metadata) != len(a.Metadata) {
		return false
	}
	s.ledger.Hold(held, s.placeOf(a.ID))
	return true
}

// placeReplaced gives each artifact of ids, which the application holds
// and the task fetched on resume replaced (seedTask), the place it has in
// the application's task: the fold of that task added it last, and the
// application replaces it where it holds it. ids are in the application's
// order, so that each goes after those it comes after there. While the
// fold's deltas are yielded (a view), each takes its place in the view
// too, as its replacement is yielded.
func (s *Stream) placeReplaced(ids []string) {
	if len(ids) == 0 {
		return
	}
	for _, id := range ids {
		s.ledger.Place(id, s.placeOf(id))
	}
	if v := s.out.view; v != nil {
		v.placeOf = s.placeAmong
	}
}

// placeOf returns the index that the artifact with this ID has, in the
// application's task, among the artifacts the ledger holds.
func (s *Stream) placeOf(id string) int { return s.placeAmong(id, s.ledger.Task().Artifacts) }

// placeAmong returns the index that the artifact with this ID has, in the
// application's task, among arts: how many of them the application got
// before it. The application adds an artifact where the stream first
// yielded it, and seen records that order; an artifact seen does not know
// goes after every one it knows.
func (s *Stream) placeAmong(id string, arts []a2a.Artifact) int {
	mine, known := s.seen.index[id]
	at := 0
	for i := range arts {
		if j, ok := s.seen.index[arts[i].ID]; ok && (!known || j < mine) {
			at++
		}
	}
	return at
}
