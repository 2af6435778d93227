package ledger

import (
	"hash/maphash"
	"math"

	"github.com/a2astream/a2astream/a2a"
)

// maxRetiredVersions bounds the content hashes the ledger keeps of the
// replaced versions of one message (8 bytes each). Past it the oldest are
// forgotten: a replay of one of those inside a replay window is then taken
// for a revision, unless it is a prefix of the version held.
const maxRetiredVersions = 1 << 12

// messages is the ledger's record of every message delivered or recorded,
// by ID. Every such message is also in the assembled task's history (or is
// a message answer outside any task), so the record grows with what the
// ledger holds anyway: 24 bytes a message and an 8-byte slot of the index
// (see idIndex), its ID shared with the history's copy.
type messages struct {
	seed maphash.Seed
	recs []messageRecord
	ids  idIndex // recs by ID
	// retired holds, for messages revised at least once, the content
	// hashes of the versions replaced, oldest first.
	retired map[string][]uint64
	// withoutID records the messages without an ID that the assembled
	// history holds, by content (see contentKey).
	withoutID map[uint64]contentState
	// atLatest lists the records that hold statuses seen at the newest
	// instant, each once, so that those are forgotten when a newer
	// instant comes (see clearLatest).
	atLatest []int32
}

// contentState is the ledger's record of the messages without an ID of one
// content. A task's history is matched against it by place: the k-th
// message of a content in it is held when the history holds k.
type contentState struct {
	held     int  // in the assembled history
	inStatus bool // one travelled as a status message
}

// messageRecord is the ledger's record of one message ID: 24 bytes.
type messageRecord struct {
	id       string
	at       int32       // index in the task's history; -1 when not in one
	statuses statusMarks // the statuses it travelled in (see status_seen.go)
}

func newMessages(seed maphash.Seed) messages {
	return messages{seed: seed, retired: map[string][]uint64{}, withoutID: map[uint64]contentState{}}
}

// contentKey identifies a message without an ID by its content: its role
// and its parts, compared as hashPart compares them.
func (ms *messages) contentKey(m *a2a.Message) uint64 {
	var h maphash.Hash
	h.SetSeed(ms.seed)
	h.WriteString(string(m.Role))
	h.WriteByte(0)
	var b [8]byte
	putUint64(b[:], hashParts(ms.seed, m.Parts))
	h.Write(b[:])
	return h.Sum64()
}

// holdWithoutID records that the history now holds one more message
// without an ID of m's content; inStatus when it came as a status message.
func (ms *messages) holdWithoutID(m *a2a.Message, inStatus bool) {
	if m.ID == "" {
		k := ms.contentKey(m)
		cs := ms.withoutID[k]
		cs.held++
		cs.inStatus = cs.inStatus || inStatus
		ms.withoutID[k] = cs
	}
}

// idOf returns the ID of record number i.
func (ms *messages) idOf(i int) string { return ms.recs[i].id }

// record returns the record of a message ID, or nil.
func (ms *messages) record(id string) *messageRecord {
	if i, ok := ms.number(id); ok {
		return &ms.recs[i]
	}
	return nil
}

// number returns the number of the record of a message ID.
func (ms *messages) number(id string) (int, bool) {
	if id == "" {
		return 0, false
	}
	return ms.ids.find(id, idHash(ms.seed, id), ms.idOf)
}

// add records a message ID held at index at of the history (-1 for none),
// and reports whether it was new.
func (ms *messages) add(id string, at int) bool {
	if ms.record(id) != nil {
		return false
	}
	if at > math.MaxInt32 {
		at = -1 // not found there then: judged as a message outside any task
	}
	ms.recs = append(ms.recs, messageRecord{id: id, at: int32(at)})
	ms.ids.insert(idHash(ms.seed, id), len(ms.recs)-1)
	return true
}

func (ms *messages) known(id string) bool { return ms.record(id) != nil }

// markStatus records that the message travelled as a status message.
func (ms *messages) markStatus(id string) {
	if r := ms.record(id); r != nil {
		r.statuses.setInStatus()
	}
}

// inStatus reports whether the message travelled as a status message.
func (ms *messages) inStatus(id string) bool {
	r := ms.record(id)
	return r != nil && r.statuses.inStatus()
}

// noteAtLatest records that the message of record number i, as held,
// travelled in a status in state s seen at the newest instant, and
// reports whether it could (see statusMarks.addLatest).
func (ms *messages) noteAtLatest(i int, s a2a.TaskState) bool {
	r := &ms.recs[i]
	fresh := r.statuses.latest() == 0
	if !r.statuses.addLatest(s) {
		return false
	}
	if fresh {
		ms.atLatest = append(ms.atLatest, int32(i))
	}
	return true
}

// clearLatest forgets the statuses seen at the newest instant: a newer
// one came.
func (ms *messages) clearLatest() {
	for _, i := range ms.atLatest {
		ms.recs[i].statuses.clearLatest()
	}
	ms.atLatest = ms.atLatest[:0]
}

// version is what a message with a known ID is, next to the version held.
type version int

const (
	versionSame    version = iota // the version held (or one that cannot be compared)
	versionOld                    // a replay: a prefix of the version held, or one replaced
	versionRevised                // news: other parts than the version held
)

// classify compares m, whose ID is known, with the version held in
// history. Outside a replay window every difference is a revision: the
// agent changed its message. Inside one, a version that the held one
// extends, or one the agent has since replaced, is a replay.
func (ms *messages) classify(m *a2a.Message, history []a2a.Message, inWindow bool) (version, *a2a.Message) {
	held := ms.held(m.ID, history)
	if held == nil {
		return versionSame, nil
	}
	if partsEqual(held.Parts, m.Parts) {
		return versionSame, held
	}
	if inWindow {
		if _, ok := extends(m.Parts, held.Parts); ok {
			return versionOld, held
		}
		h := ms.hash(m.Parts)
		for _, r := range ms.retired[m.ID] {
			if r == h {
				return versionOld, held
			}
		}
	}
	return versionRevised, held
}

// held returns the version of the message held in history, or nil when
// it is not there (a message answer outside any task).
func (ms *messages) held(id string, history []a2a.Message) *a2a.Message {
	i, ok := ms.number(id)
	if !ok {
		return nil
	}
	return ms.heldAt(i, history)
}

// heldAt returns the version held in history of the message of record
// number i, or nil when it is not there (see held).
func (ms *messages) heldAt(i int, history []a2a.Message) *a2a.Message {
	r := &ms.recs[i]
	if r.at < 0 || int(r.at) >= len(history) || history[r.at].ID != r.id {
		return nil
	}
	return &history[r.at]
}

// revise replaces the version held in t's history (and in its status, when
// it is the status message) with m, and returns the delta to deliver.
func (ms *messages) revise(t *a2a.Task, held, m *a2a.Message) *a2a.MessageRevision {
	r := append(ms.retired[m.ID], ms.hash(held.Parts))
	if len(r) > maxRetiredVersions {
		r = r[len(r)-maxRetiredVersions:]
	}
	ms.retired[m.ID] = r
	added, ok := extends(held.Parts, m.Parts)
	next := m.Clone()
	*held = *next
	if sm := t.Status.Message; sm != nil && sm.ID == m.ID {
		t.Status.Message = next.Clone()
	}
	return &a2a.MessageRevision{TaskID: t.ID, ContextID: t.ContextID, Message: next.Clone(), Extends: ok, Added: added}
}

func (ms *messages) hash(parts []a2a.Part) uint64 { return hashParts(ms.seed, parts) }

// hashParts hashes a list of parts as hashPart hashes each.
func hashParts(seed maphash.Seed, parts []a2a.Part) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	for i := range parts {
		var b [8]byte
		putUint64(b[:], hashPart(seed, &parts[i]))
		h.Write(b[:])
	}
	return h.Sum64()
}

// extends reports whether next holds every part of prev, the last text
// part of prev being allowed to grow, and returns what next adds: first the
// continuation of that last text part, when it grew, then the parts after.
func extends(prev, next []a2a.Part) ([]a2a.Part, bool) {
	n := len(prev)
	if n == 0 {
		return next, true
	}
	if len(next) < n || !isPrefix(prev[:n-1], next) {
		return nil, false
	}
	last, cont := &prev[n-1], &next[n-1]
	if last.Equal(cont) {
		return next[n:], true
	}
	grown := *cont
	grown.Text = last.Text
	if !last.IsText() || !cont.IsText() || len(cont.Text) < len(last.Text) || cont.Text[:len(last.Text)] != last.Text || !grown.Equal(last) {
		return nil, false
	}
	added := make([]a2a.Part, 0, 1+len(next)-n)
	added = append(added, a2a.Part{Text: cont.Text[len(last.Text):], MediaType: cont.MediaType})
	return append(added, next[n:]...), true
}
