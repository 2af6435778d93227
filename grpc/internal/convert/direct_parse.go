package convert

import (
	"time"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/a2astream/a2astream/a2a"
	pb03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	pb10 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
)

// The fast path of StreamDecoder, first half: the bytes of a StreamResponse
// read into views (what each field holds, as slices of the bytes) and
// checked, before anything is allocated; false for any message the fast
// path leaves to the generated way. See StreamDecoder.

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

// parse03 reads a 0.3 Part: text 1, file 2, data 3 (a oneof), metadata 4
// (added after the v0.3.0 tag); only text is read here.
func (p *partView) parse03(b []byte) bool {
	var seen uint64
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
		case 4:
			return noMetadata(&seen, num, typ, val)
		}
		return skipField
	})
}
