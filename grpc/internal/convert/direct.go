package convert

import (
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
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

// --- the views: what the fast path read, before anything is allocated ---

// The payload kinds of a StreamResponse, by field number (the same in 0.3
// and 1.0).
const (
	payloadMessage        = 2
	payloadStatusUpdate   = 3
	payloadArtifactUpdate = 4
)

type partKind uint8

const (
	partText partKind = iota + 1
	partRaw
	partURL
)

type partView struct {
	kind                         partKind
	content, filename, mediaType []byte
}

type partsView struct {
	n  int
	ps [maxDirectParts]partView
}

type messageView struct {
	id, contextID, taskID []byte
	role                  a2a.Role
	parts                 partsView
}

type statusView struct {
	state  a2a.TaskState
	hasMsg bool
	msg    messageView
	ts     time.Time
}

type eventView struct {
	payload           int
	taskID, contextID []byte
	status            statusView
	final             bool
	artID, name, desc []byte
	parts             partsView // the artifact's
	append, lastChunk bool
	msg               messageView // a message payload's
	seenArtifact      bool
}

// fields walks the fields of a message: each call of f gets a field's
// number, wire type and value (a varint's value in v, a bytes field's in
// b). f returns ok for a field it read, skipField for one the message does
// not have (skipped, as proto keeps it among the unknown fields), and fail
// for one the fast path does not read; fail, a group, or bytes that do not
// parse end the walk with false: the generated way.
func fields(b []byte, f func(num protowire.Number, typ protowire.Type, v uint64, b []byte) result) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || num > protowire.MaxValidNumber {
			return false
		}
		b = b[n:]
		var v uint64
		var val []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			val, n = protowire.ConsumeBytes(b)
		case protowire.Fixed32Type:
			_, n = protowire.ConsumeFixed32(b)
		case protowire.Fixed64Type:
			_, n = protowire.ConsumeFixed64(b)
		default:
			return false // a group, or no wire type: the generated way
		}
		if n < 0 {
			return false
		}
		b = b[n:]
		switch f(num, typ, v, val) {
		case fail:
			return false
		case skipField, ok:
		}
	}
	return true
}

type result uint8

const (
	ok result = iota
	skipField
	fail
)

// once marks field num seen in *seen; a field seen before fails (proto
// would keep the last or merge: the generated way does). Numbers above 63
// are never known fields here.
func once(seen *uint64, num protowire.Number) bool {
	bit := uint64(1) << uint(num)
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

// expect fails a known field of another wire type than want.
func expect(typ, want protowire.Type) result {
	if typ != want {
		return fail // a known field of another wire type: proto keeps it as unknown
	}
	return ok
}

func text(b []byte) bool { return utf8.Valid(b) }

func (v *eventView) parse(b []byte, v03 bool) bool {
	return fields(b, func(num protowire.Number, typ protowire.Type, _ uint64, val []byte) result {
		switch num {
		case 1: // a task: the generated way
			return fail
		case payloadMessage, payloadStatusUpdate, payloadArtifactUpdate:
			if v.payload != 0 || expect(typ, protowire.BytesType) != ok {
				return fail // two members of the oneof: the last wins there
			}
			v.payload = int(num)
			var good bool
			switch num {
			case payloadMessage:
				good = v.msg.parse(val, v03)
			case payloadStatusUpdate:
				good = v.parseStatusUpdate(val, v03)
			default:
				good = v.parseArtifactUpdate(val, v03)
			}
			if !good {
				return fail
			}
			return ok
		}
		return skipField
	}) && v.payload != 0 && (v.payload != payloadArtifactUpdate || v.seenArtifact)
}

// str reads a string field: once, of wire type bytes, UTF-8.
func str(seen *uint64, num protowire.Number, typ protowire.Type, val []byte, dst *[]byte) result {
	if !once(seen, num) || typ != protowire.BytesType || !text(val) {
		return fail
	}
	*dst = val
	return ok
}

// flag reads a bool field: once, a varint.
func flag(seen *uint64, num protowire.Number, typ protowire.Type, x uint64, dst *bool) result {
	if !once(seen, num) || typ != protowire.VarintType {
		return fail
	}
	*dst = protowire.DecodeBool(x)
	return ok
}

// noMetadata reads a metadata field: once, of wire type bytes, and empty
// (a Struct with fields goes the generated way).
func noMetadata(seen *uint64, num protowire.Number, typ protowire.Type, val []byte) result {
	if !once(seen, num) || typ != protowire.BytesType || len(val) != 0 {
		return fail
	}
	return ok
}

func (v *eventView) parseStatusUpdate(b []byte, v03 bool) bool {
	var seen uint64
	v.status.state = a2a.StateUnknown
	return fields(b, func(num protowire.Number, typ protowire.Type, x uint64, val []byte) result {
		switch num {
		case 1:
			return str(&seen, num, typ, val, &v.taskID)
		case 2:
			return str(&seen, num, typ, val, &v.contextID)
		case 3:
			if !once(&seen, num) || typ != protowire.BytesType || !v.status.parse(val, v03) {
				return fail
			}
			return ok
		case 4:
			if v03 {
				return flag(&seen, num, typ, x, &v.final)
			}
			return noMetadata(&seen, num, typ, val)
		case 5:
			if v03 {
				return noMetadata(&seen, num, typ, val)
			}
		}
		return skipField
	})
}

func (v *eventView) parseArtifactUpdate(b []byte, v03 bool) bool {
	var seen uint64
	return fields(b, func(num protowire.Number, typ protowire.Type, x uint64, val []byte) result {
		switch num {
		case 1:
			return str(&seen, num, typ, val, &v.taskID)
		case 2:
			return str(&seen, num, typ, val, &v.contextID)
		case 3:
			if !once(&seen, num) || typ != protowire.BytesType || !v.parseArtifact(val, v03) {
				return fail
			}
			v.seenArtifact = true
			return ok
		case 4:
			return flag(&seen, num, typ, x, &v.append)
		case 5:
			return flag(&seen, num, typ, x, &v.lastChunk)
		case 6:
			return noMetadata(&seen, num, typ, val)
		}
		return skipField
	})
}

// The field numbers of an Artifact, which differ between the versions.
type artifactFields struct{ id, name, desc, parts, metadata, extensions protowire.Number }

var (
	artifact10Fields = artifactFields{1, 2, 3, 4, 5, 6}
	artifact03Fields = artifactFields{1, 3, 4, 5, 6, 7}
)

func (v *eventView) parseArtifact(b []byte, v03 bool) bool {
	af := artifact10Fields
	if v03 {
		af = artifact03Fields
	}
	var seen uint64
	return fields(b, func(num protowire.Number, typ protowire.Type, _ uint64, val []byte) result {
		switch num {
		case af.id:
			return str(&seen, num, typ, val, &v.artID)
		case af.name:
			return str(&seen, num, typ, val, &v.name)
		case af.desc:
			return str(&seen, num, typ, val, &v.desc)
		case af.parts:
			if typ != protowire.BytesType || !v.parts.add(val, v03) {
				return fail
			}
			return ok
		case af.metadata:
			return noMetadata(&seen, num, typ, val)
		case af.extensions:
			return fail
		}
		return skipField
	})
}

// parse reads a TaskStatus: state 1, message 2, timestamp 3 in both
// versions.
func (s *statusView) parse(b []byte, v03 bool) bool {
	var seen uint64
	return fields(b, func(num protowire.Number, typ protowire.Type, x uint64, val []byte) result {
		switch num {
		case 1:
			if !once(&seen, num) || typ != protowire.VarintType {
				return fail
			}
			st, good := stateOf(x, v03)
			if !good {
				return fail
			}
			s.state = st
			return ok
		case 2:
			if !once(&seen, num) || typ != protowire.BytesType || !s.msg.parse(val, v03) {
				return fail
			}
			s.hasMsg = true
			return ok
		case 3:
			if !once(&seen, num) || typ != protowire.BytesType {
				return fail
			}
			ts, good := timestamp(val)
			if !good {
				return fail
			}
			s.ts = ts
			return ok
		}
		return skipField
	})
}

// stateOf reads a TaskState as StateOf10 and StateOf03 do; a value they
// refuse goes the generated way.
func stateOf(x uint64, v03 bool) (a2a.TaskState, bool) {
	if x > uint64(pb10.TaskState_TASK_STATE_AUTH_REQUIRED) {
		return "", false
	}
	var (
		st  a2a.TaskState
		err error
	)
	if v03 {
		st, err = StateOf03(pb03.TaskState(x))
	} else {
		st, err = StateOf10(pb10.TaskState(x))
	}
	return st, err == nil
}

// timestamp reads a google.protobuf.Timestamp as timeOf reads the
// generated one: its time in UTC, or the zero time for one that is not
// valid.
func timestamp(b []byte) (time.Time, bool) {
	var (
		seen  uint64
		secs  int64
		nanos int32
	)
	good := fields(b, func(num protowire.Number, typ protowire.Type, x uint64, _ []byte) result {
		switch num {
		case 1, 2:
			if !once(&seen, num) || typ != protowire.VarintType {
				return fail
			}
			if num == 1 {
				secs = int64(x)
			} else {
				nanos = int32(x)
			}
			return ok
		}
		return skipField
	})
	if !good {
		return time.Time{}, false
	}
	// timestamppb's CheckValid: years 1 to 9999, nanos in [0, 1e9).
	const minSecs, maxSecs = -62135596800, 253402300799
	if secs < minSecs || secs > maxSecs || nanos < 0 || nanos >= 1e9 {
		return time.Time{}, true
	}
	return time.Unix(secs, int64(nanos)).UTC(), true
}

// parse reads a Message: message_id 1, context_id 2, task_id 3, role 4,
// parts (content in 0.3) 5, metadata 6, extensions 7, reference_task_ids 8
// (1.0).
func (m *messageView) parse(b []byte, v03 bool) bool {
	var seen uint64
	return fields(b, func(num protowire.Number, typ protowire.Type, x uint64, val []byte) result {
		switch num {
		case 1:
			return str(&seen, num, typ, val, &m.id)
		case 2:
			return str(&seen, num, typ, val, &m.contextID)
		case 3:
			return str(&seen, num, typ, val, &m.taskID)
		case 4:
			if !once(&seen, num) || typ != protowire.VarintType {
				return fail
			}
			switch x {
			case 0:
				m.role = ""
			case 1:
				m.role = a2a.RoleUser
			case 2:
				m.role = a2a.RoleAgent
			default:
				return fail
			}
			return ok
		case 5:
			if typ != protowire.BytesType || !m.parts.add(val, v03) {
				return fail
			}
			return ok
		case 6:
			return noMetadata(&seen, num, typ, val)
		case 7:
			return fail
		case 8:
			if !v03 {
				return fail
			}
		}
		return skipField
	})
}

// add reads one more part.
func (ps *partsView) add(b []byte, v03 bool) bool {
	if ps.n == maxDirectParts {
		return false
	}
	p := &ps.ps[ps.n]
	var good bool
	if v03 {
		good = p.parse03(b)
	} else {
		good = p.parse10(b)
	}
	if !good || p.kind == 0 {
		return false // no content: refused, the generated way
	}
	ps.n++
	return true
}

// parse10 reads a 1.0 Part: text 1, raw 2, url 3, data 4 (a oneof),
// metadata 5, filename 6, media_type 7.
func (p *partView) parse10(b []byte) bool {
	var seen uint64
	return fields(b, func(num protowire.Number, typ protowire.Type, _ uint64, val []byte) result {
		switch num {
		case 1, 2, 3:
			if p.kind != 0 || typ != protowire.BytesType || num != 2 && !text(val) {
				return fail // a second member of the oneof: the last wins there
			}
			p.kind = [...]partKind{1: partText, 2: partRaw, 3: partURL}[num]
			p.content = val
			return ok
		case 4:
			return fail
		case 5:
			return noMetadata(&seen, num, typ, val)
		case 6:
			return str(&seen, num, typ, val, &p.filename)
		case 7:
			return str(&seen, num, typ, val, &p.mediaType)
		}
		return skipField
	})
}

// parse03 reads a 0.3 Part: text 1, file 2, data 3 (a oneof); only text
// is read here.
func (p *partView) parse03(b []byte) bool {
	return fields(b, func(num protowire.Number, typ protowire.Type, _ uint64, val []byte) result {
		switch num {
		case 1:
			if p.kind != 0 || typ != protowire.BytesType || !text(val) {
				return fail
			}
			p.kind, p.content = partText, val
			return ok
		case 2, 3:
			return fail
		}
		return skipField
	})
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
