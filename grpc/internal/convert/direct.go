package convert

import (
	"google.golang.org/protobuf/proto"

	"github.com/a2astream/a2astream/a2a"
	pb03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	pb10 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
)

// StreamDecoder reads the events of one stream straight from the wire bytes
// of its StreamResponse messages, without the generated messages: it gives
// exactly what proto.Unmarshal into the generated StreamResponse and then
// EventOf10 (or EventOf03) give.
//
// It has a fast path for the events that make up almost every stream: an
// artifact update, a status update (with or without a message) and a
// message, whose parts are text, raw bytes or a URL (1.0) or text (0.3),
// with no metadata (an empty Struct is none, as mapOf reads it). Every
// other message, and any message of those kinds that is not in the common
// shape, goes the generated way (proto.Unmarshal, then the converter): a
// task, a data or file part, metadata with fields, extensions or reference
// task IDs, a field written twice (where proto keeps the last or merges),
// two members of a oneof, a field of a known number with another wire
// type, an enum value other than the proto's, a string that is not UTF-8,
// a part with no content, more than maxDirectParts parts, and any bytes that
// do not parse. So the fast path never refuses anything and never decides
// an error: each error is the generated path's own. Unknown fields of wire
// type varint, fixed32, fixed64 or bytes are skipped, as proto skips them
// (into the unknown fields the converter never reads); a group goes the
// generated way.
//
// The fast path copies every string and byte it keeps out of the message's
// bytes, which are not retained, and gives again the IDs (task, context,
// artifact, message), names, descriptions, media types and file names that
// the stream's last fast-path event had in the same place, when the bytes
// are the same. The artifact updates of a stream are made up to
// maxChunkRoom at a time, each a text of its own besides: the next chunk of
// an artifact takes an allocation for its text and a sixteenth of one for
// its event. A StreamDecoder is not safe for concurrent use.
type StreamDecoder struct {
	v03  bool
	last [nSlots]string
	// chunks is room for the next artifact updates of the stream, made
	// maxChunkRoom at a time (fewer for the first: 1, 2, 4...), so that a
	// chunk takes a fraction of an allocation for its event; rooms is how
	// many the last make held.
	chunks []artifactEvent
	rooms  int
}

// maxChunkRoom is the most artifact updates made in one allocation: an
// event kept keeps the others made with it alive (up to 15, 248 bytes
// each on 64-bit machines, their texts not included: a text has memory of
// its own).
const maxChunkRoom = 16

// maxDirectParts bounds the parts of one message or artifact the fast path
// reads; one with more goes the generated way.
const maxDirectParts = 8

// The slots of the strings a StreamDecoder gives again.
const (
	slotTask = iota
	slotContext
	slotArtifact
	slotName
	slotDescription
	slotMessage
	slotMediaType
	slotFilename
	nSlots
)

// NewStreamDecoder returns a decoder of the StreamResponse messages of A2A
// 0.3 (v03) or 1.0.
func NewStreamDecoder(v03 bool) *StreamDecoder { return &StreamDecoder{v03: v03} }

// Decode reads the bytes of one StreamResponse, which it does not retain.
// An error of proto.Unmarshal, for bytes that are no StreamResponse, is
// unmarshalErr, as it is; an error of the converter, for a StreamResponse
// the model cannot hold, is err (a *transport.ProtocolError). At most one
// of the two is set, and then the event is nil.
func (d *StreamDecoder) Decode(b []byte) (ev a2a.Event, unmarshalErr, err error) {
	var v eventView
	if v.parse(b, d.v03) {
		return d.build(&v), nil, nil
	}
	return d.Generated(b)
}

// Generated is the generated way Decode takes for a message outside the
// fast path: proto.Unmarshal into the generated StreamResponse, then
// EventOf10 or EventOf03. Its results are Decode's, by definition.
func (d *StreamDecoder) Generated(b []byte) (ev a2a.Event, unmarshalErr, err error) {
	if d.v03 {
		var r pb03.StreamResponse
		if uerr := proto.Unmarshal(b, &r); uerr != nil {
			return nil, uerr, nil
		}
		ev, err = EventOf03(&r)
		return ev, nil, err
	}
	var r pb10.StreamResponse
	if uerr := proto.Unmarshal(b, &r); uerr != nil {
		return nil, uerr, nil
	}
	ev, err = EventOf10(&r)
	return ev, nil, err
}

// --- building the event ---

// keep returns b as a string: the one in slot of the last event when it
// has the same bytes, else a copy, which the slot then holds.
func (d *StreamDecoder) keep(slot int, b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if d.last[slot] == string(b) {
		return d.last[slot]
	}
	s := string(b)
	d.last[slot] = s
	return s
}

// keepID is keep of an ID that may be the task's or the context's too (a
// message's task and context IDs), tried in those slots first.
func (d *StreamDecoder) keepID(slot int, b []byte) string {
	for _, s := range [...]int{slotTask, slotContext} {
		if len(b) > 0 && d.last[s] == string(b) {
			return d.last[s]
		}
	}
	return d.keep(slot, b)
}

// The events with their first part (and message) in one allocation.
type (
	artifactEvent struct {
		u a2a.ArtifactUpdate
		p [1]a2a.Part
	}
	statusEvent struct {
		u a2a.StatusUpdate
		m a2a.Message
		p [1]a2a.Part
	}
	messageEvent struct {
		m a2a.Message
		p [1]a2a.Part
	}
)

func (d *StreamDecoder) build(v *eventView) a2a.Event {
	switch v.payload {
	case payloadArtifactUpdate:
		e := d.chunk()
		u := &e.u
		u.TaskID, u.ContextID = d.keep(slotTask, v.taskID), d.keep(slotContext, v.contextID)
		u.Append, u.LastChunk = v.append, v.lastChunk
		a := &u.Artifact
		a.ID, a.Name, a.Description = d.keep(slotArtifact, v.artID), d.keep(slotName, v.name), d.keep(slotDescription, v.desc)
		a.Parts = d.parts(&v.parts, e.p[:])
		return u
	case payloadStatusUpdate:
		e := new(statusEvent)
		u := &e.u
		u.TaskID, u.ContextID = d.keep(slotTask, v.taskID), d.keep(slotContext, v.contextID)
		u.Final = v.final
		u.Status.State, u.Status.Timestamp = v.status.state, v.status.ts
		if v.status.hasMsg {
			d.message(&v.status.msg, &e.m, e.p[:])
			u.Status.Message = &e.m
		}
		return u
	default:
		e := new(messageEvent)
		d.message(&v.msg, &e.m, e.p[:])
		return &e.m
	}
}

// chunk returns room for an artifact update, zeroed, out of d.chunks.
func (d *StreamDecoder) chunk() *artifactEvent {
	if len(d.chunks) == 0 {
		d.rooms = min(max(2*d.rooms, 1), maxChunkRoom)
		d.chunks = make([]artifactEvent, d.rooms)
	}
	e := &d.chunks[0]
	d.chunks = d.chunks[1:]
	return e
}

func (d *StreamDecoder) message(v *messageView, m *a2a.Message, one []a2a.Part) {
	m.ID = d.keep(slotMessage, v.id)
	m.ContextID, m.TaskID = d.keepID(slotContext, v.contextID), d.keepID(slotTask, v.taskID)
	m.Role = v.role
	m.Parts = d.parts(&v.parts, one)
}

// parts builds the parts of v: in one, the event's own room for one part,
// when there is one; nil for none, as partsOf10 gives.
func (d *StreamDecoder) parts(v *partsView, one []a2a.Part) []a2a.Part {
	if v.n == 0 {
		return nil
	}
	out := one
	if v.n > 1 {
		out = make([]a2a.Part, v.n)
	}
	for i := range v.n {
		pv, p := &v.ps[i], &out[i]
		switch pv.kind {
		case partText:
			p.Text = string(pv.content)
		case partRaw:
			p.Raw = append(make([]byte, 0, len(pv.content)), pv.content...)
		case partURL:
			p.URL = string(pv.content)
		}
		p.Filename, p.MediaType = d.keep(slotFilename, pv.filename), d.keep(slotMediaType, pv.mediaType)
	}
	return out
}
