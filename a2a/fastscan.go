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
func (f *fastEvent) update(s *jsonscan.Scanner, top bool) (uint, bool) {
	return s.Members(func(name []byte) (uint, bool) {
		switch string(name) {
		case "kind":
			v, ok := s.String()
			switch {
			case !top || !ok:
				return 0, false
			case s.Is(v, "artifact-update"):
				f.result = fastArtifactUpdate
			case s.Is(v, "status-update"):
				f.result = fastStatusUpdate
			default:
				return 0, false
			}
			return memberKind, true
		case "taskId":
			return memberTaskID, f.str(s, fastTaskID)
		case "contextId":
			return memberContextID, f.str(s, fastContextID)
		case "final":
			var ok bool
			f.final, ok = s.Bool()
			return memberFinal, ok
		case "append":
			var ok bool
			f.append, ok = s.Bool()
			return memberAppend, ok
		case "lastChunk":
			var ok bool
			f.lastChunk, ok = s.Bool()
			return memberLastChunk, ok
		case "metadata":
			return memberMetadata, s.EmptyObject()
		case "artifact":
			return memberArtifact, f.scanArtifact(s)
		case "status":
			return memberStatus, f.scanStatus(s)
		case "artifactUpdate", "statusUpdate":
			if !top {
				return 0, false
			}
			bit, want := uint(memberArtifactUpdate), uint(artifactMembers)
			f.result = fastArtifactUpdate
			if name[0] == 's' {
				bit, want = memberStatusUpdate, statusMembers
				f.result = fastStatusUpdate
			}
			inner, ok := f.update(s, false)
			return bit, ok && inner&^want == 0
		}
		return 0, false
	})
}

// str reads a string into f.strs[i].
func (f *fastEvent) str(s *jsonscan.Scanner, i int) bool {
	var ok bool
	f.strs[i], ok = s.String()
	return ok
}

// scanArtifact reads an artifact.
func (f *fastEvent) scanArtifact(s *jsonscan.Scanner) bool {
	f.artifact = true
	_, ok := s.Members(func(name []byte) (uint, bool) {
		switch string(name) {
		case "artifactId":
			return 1, f.str(s, fastArtifactID)
		case "name":
			return 2, f.str(s, fastName)
		case "description":
			return 4, f.str(s, fastDescription)
		case "parts":
			return 8, f.scanParts(s)
		case "metadata":
			return 16, s.EmptyObject()
		}
		return 0, false
	})
	return ok
}

// scanStatus reads a task's status.
func (f *fastEvent) scanStatus(s *jsonscan.Scanner) bool {
	f.status = true
	_, ok := s.Members(func(name []byte) (uint, bool) {
		switch string(name) {
		case "state":
			return 1, f.str(s, fastState)
		case "timestamp":
			return 2, f.str(s, fastTimestamp)
		case "message":
			return 4, f.scanMessage(s)
		}
		return 0, false
	})
	return ok
}

// scanMessage reads a status's message. Its "kind", which wireObject
// decodes and message() ignores, may be any string. Its parts are under
// "parts" or, in the v0.3 proto, under "content"; a message with both, or
// with an empty "content" (which wireObject reads by other rules), is left
// to encoding/json.
func (f *fastEvent) scanMessage(s *jsonscan.Scanner) bool {
	f.message = true
	_, ok := s.Members(func(name []byte) (uint, bool) {
		switch string(name) {
		case "kind":
			_, ok := s.String()
			return 1, ok
		case "messageId":
			return 2, f.str(s, fastMessageID)
		case "contextId":
			return 4, f.str(s, fastMessageContextID)
		case "taskId":
			return 8, f.str(s, fastMessageTaskID)
		case "role":
			return 16, f.str(s, fastRole)
		case "parts", "content":
			// One bit for both: a message with both is not read here.
			f.content = name[0] == 'c'
			return 32, f.scanParts(s) && (!f.content || f.parts > 0)
		case "metadata":
			return 64, s.EmptyObject()
		}
		return 0, false
	})
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
	_, ok := s.Members(func(name []byte) (uint, bool) {
		switch string(name) {
		case "kind":
			v, ok := s.String()
			return 1, ok && s.Is(v, "text")
		case "text":
			return 2, f.str(s, i)
		case "mediaType":
			return 4, f.str(s, i+1)
		case "filename":
			return 8, f.str(s, i+2)
		case "metadata":
			return 16, s.EmptyObject()
		}
		return 0, false
	})
	return ok
}
