package a2a

import "github.com/a2astream/a2astream/internal/jsonscan"

// This file holds the scan of the fast path of EventDecoder.Decode (see
// fastdecode.go): it reads the members of an artifact or status update
// into a fastEvent, and reports not ok for anything else. Each object's
// members are read in any order, each at most once, and only those the
// shape has: a name it does not know, or one it has seen, ends the scan.

// scan reads the result's object.
func (f *fastEvent) scan(s *jsonscan.Scanner) bool {
	seen, ok := f.update(s, true)
	switch {
	case !ok:
		return false
	case seen == memberArtifactUpdate || seen == memberStatusUpdate:
		f.wrapped = true
		return true
	case seen&memberKind == 0:
		return false
	case f.result == fastArtifactUpdate:
		return seen&^(memberKind|artifactMembers) == 0
	case f.result == fastStatusUpdate:
		return seen&^(memberKind|statusMembers) == 0
	}
	return false
}

// update reads the object of an update and returns the names it held. The
// outer object (top) may hold a "kind" or a wrapper; the object in a
// wrapper may hold neither.
func (f *fastEvent) update(s *jsonscan.Scanner, top bool) (seen int, ok bool) {
	more, ok := s.BeginObject()
	for ok && more {
		var name []byte
		if name, ok = s.Name(); !ok {
			break
		}
		var bit int
		switch string(name) {
		case "kind":
			bit = memberKind
			var v jsonscan.Str
			v, ok = s.String()
			switch {
			case !top || !ok:
				ok = false
			case v.Is(s.Data(), "artifact-update"):
				f.result = fastArtifactUpdate
			case v.Is(s.Data(), "status-update"):
				f.result = fastStatusUpdate
			default:
				ok = false
			}
		case "taskId":
			bit = memberTaskID
			f.strs[fastTaskID], ok = s.String()
		case "contextId":
			bit = memberContextID
			f.strs[fastContextID], ok = s.String()
		case "final":
			bit = memberFinal
			f.final, ok = s.Bool()
		case "append":
			bit = memberAppend
			f.append, ok = s.Bool()
		case "lastChunk":
			bit = memberLastChunk
			f.lastChunk, ok = s.Bool()
		case "metadata":
			bit = memberMetadata
			ok = s.EmptyObject()
		case "artifact":
			bit = memberArtifact
			ok = f.scanArtifact(s)
		case "status":
			bit = memberStatus
			ok = f.scanStatus(s)
		case "artifactUpdate", "statusUpdate":
			bit, f.result = memberArtifactUpdate, fastArtifactUpdate
			want := artifactMembers
			if name[0] == 's' {
				bit, f.result, want = memberStatusUpdate, fastStatusUpdate, statusMembers
			}
			if !top {
				return 0, false
			}
			var inner int
			inner, ok = f.update(s, false)
			ok = ok && inner&^want == 0
		default:
			ok = false
		}
		if !ok || seen&bit != 0 {
			return 0, false
		}
		seen |= bit
		more, ok = s.NextMember()
	}
	return seen, ok
}

// scanArtifact reads an artifact.
func (f *fastEvent) scanArtifact(s *jsonscan.Scanner) bool {
	f.artifact = true
	var seen uint8
	more, ok := s.BeginObject()
	for ok && more {
		var name []byte
		if name, ok = s.Name(); !ok {
			break
		}
		var bit uint8
		switch string(name) {
		case "artifactId":
			bit = 1
			f.strs[fastArtifactID], ok = s.String()
		case "name":
			bit = 2
			f.strs[fastName], ok = s.String()
		case "description":
			bit = 4
			f.strs[fastDescription], ok = s.String()
		case "parts":
			bit = 8
			ok = f.scanParts(s)
		case "metadata":
			bit = 16
			ok = s.EmptyObject()
		default:
			ok = false
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		more, ok = s.NextMember()
	}
	return ok
}

// scanStatus reads a task's status.
func (f *fastEvent) scanStatus(s *jsonscan.Scanner) bool {
	f.status = true
	var seen uint8
	more, ok := s.BeginObject()
	for ok && more {
		var name []byte
		if name, ok = s.Name(); !ok {
			break
		}
		var bit uint8
		switch string(name) {
		case "state":
			bit = 1
			f.strs[fastState], ok = s.String()
		case "timestamp":
			bit = 2
			f.strs[fastTimestamp], ok = s.String()
		case "message":
			bit = 4
			ok = f.scanMessage(s)
		default:
			ok = false
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		more, ok = s.NextMember()
	}
	return ok
}

// scanMessage reads a status's message. Its "kind", which wireObject
// decodes and message() ignores, may be any string. Its parts are under
// "parts" or, in the v0.3 proto, under "content"; a message with both, or
// with an empty "content" (which wireObject reads by other rules), is left
// to encoding/json.
func (f *fastEvent) scanMessage(s *jsonscan.Scanner) bool {
	f.message = true
	var seen uint8
	more, ok := s.BeginObject()
	for ok && more {
		var name []byte
		if name, ok = s.Name(); !ok {
			break
		}
		var bit uint8
		switch string(name) {
		case "kind":
			bit = 1
			_, ok = s.String()
		case "messageId":
			bit = 2
			f.strs[fastMessageID], ok = s.String()
		case "contextId":
			bit = 4
			f.strs[fastMessageContextID], ok = s.String()
		case "taskId":
			bit = 8
			f.strs[fastMessageTaskID], ok = s.String()
		case "role":
			bit = 16
			f.strs[fastRole], ok = s.String()
		case "parts", "content":
			// One bit for both: a message with both is not read here.
			bit = 32
			f.content = name[0] == 'c'
			ok = f.scanParts(s) && (!f.content || f.parts > 0)
		case "metadata":
			bit = 64
			ok = s.EmptyObject()
		default:
			ok = false
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		more, ok = s.NextMember()
	}
	return ok
}

// scanParts reads a list of text parts. An event has one list of parts,
// its artifact's or its status message's.
func (f *fastEvent) scanParts(s *jsonscan.Scanner) bool {
	if f.parts > 0 {
		return false
	}
	more, ok := s.BeginArray()
	for ok && more {
		if f.parts == fastMaxParts || !f.scanPart(s, fastPart+3*f.parts) {
			return false
		}
		f.parts++
		more, ok = s.NextElement()
	}
	return ok
}

// scanPart reads a text part: its strings go from f.strs[i].
func (f *fastEvent) scanPart(s *jsonscan.Scanner, i int) bool {
	var seen uint8
	more, ok := s.BeginObject()
	for ok && more {
		var name []byte
		if name, ok = s.Name(); !ok {
			break
		}
		var bit uint8
		switch string(name) {
		case "kind":
			bit = 1
			var v jsonscan.Str
			v, ok = s.String()
			ok = ok && v.Is(s.Data(), "text")
		case "text":
			bit = 2
			f.strs[i], ok = s.String()
		case "mediaType":
			bit = 4
			f.strs[i+1], ok = s.String()
		case "filename":
			bit = 8
			f.strs[i+2], ok = s.String()
		case "metadata":
			bit = 16
			ok = s.EmptyObject()
		default:
			ok = false
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		more, ok = s.NextMember()
	}
	return ok
}
