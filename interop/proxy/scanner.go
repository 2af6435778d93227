package proxy

// Chunked-decoder states.
const (
	chunkSize = iota // reading the hex size (and any extension) up to LF
	chunkData
	chunkDataEnd // the CRLF after a chunk's data
	chunkTrailer // after the last chunk: trailer lines up to a blank line
	chunkDone
)

// bodyScanner follows a response body byte by byte: it undoes chunked
// framing, counts payload bytes and complete SSE events, and finds the
// fault's point.
type bodyScanner struct {
	fault   Fault // AfterEvents < 0: no point to find
	chunked bool

	state   int
	size    int64 // chunkSize: the size parsed so far; chunkData: bytes left
	inExt   bool  // chunkSize: past ';'
	lineLen int   // chunkTrailer: length of the current trailer line

	payload int64 // payload bytes seen
	events  int   // complete events
	mark    int64 // payload bytes when the AfterEvents-th event ended; -1 before

	lineStart bool // the previous payload byte ended a line
	dirty     bool // a byte that is not a line break since the last event
	prevCR    bool // the previous payload byte was a '\r' ending a content line
	pendingCR bool // a '\r' ended a blank line; a '\n' right after belongs to it
}

func newBodyScanner(f Fault, chunked bool) *bodyScanner {
	s := &bodyScanner{fault: f, chunked: chunked, mark: -1}
	if f.Action == Pass {
		s.fault.AfterEvents = -1
	}
	if s.fault.AfterEvents == 0 {
		s.mark = 0
	}
	return s
}

// feed scans data and returns how many of its bytes may be forwarded: all
// of them, or (with hit) only those before the fault's point.
func (s *bodyScanner) feed(data []byte) (int, bool) {
	for i, c := range data {
		before, at := s.step(c)
		if before {
			return i, true
		}
		if at {
			return i + 1, true
		}
	}
	return len(data), false
}

// step consumes one raw body byte. before reports that the point was reached
// just before c (which is then not consumed), at that it was reached with c.
func (s *bodyScanner) step(c byte) (before, at bool) {
	if !s.chunked {
		return s.payloadByte(c)
	}
	switch s.state {
	case chunkSize:
		switch {
		case c == '\n':
			s.inExt = false
			if s.size == 0 {
				s.state = chunkTrailer
				s.lineLen = 0
			} else {
				s.state = chunkData
			}
		case c == '\r' || s.inExt:
		case c == ';' || c == ' ' || c == '\t':
			s.inExt = true
		default:
			s.size = s.size*16 + int64(hexVal(c))
		}
	case chunkData:
		before, at = s.payloadByte(c)
		if !before {
			s.size--
			if s.size == 0 {
				s.state = chunkDataEnd
			}
		}
		return before, at
	case chunkDataEnd:
		if c == '\n' {
			s.state = chunkSize
			s.size = 0
		}
	case chunkTrailer:
		switch c {
		case '\n':
			if s.lineLen == 0 {
				s.state = chunkDone
			}
			s.lineLen = 0
		case '\r':
		default:
			s.lineLen++
		}
	}
	return false, false
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return 0
}

func (s *bodyScanner) payloadByte(c byte) (before, at bool) {
	if s.pendingCR {
		s.pendingCR = false
		if c == '\n' { // the LF of the CRLF that ends the blank line
			s.payload++
			s.endEvent()
			return false, s.reached()
		}
		s.endEvent() // the blank line was a lone '\r'
		if s.reached() {
			return true, false
		}
	}
	s.payload++
	crlfTail := c == '\n' && s.prevCR
	s.prevCR = false
	switch {
	case crlfTail: // the rest of a content line's CRLF
	case c == '\r' || c == '\n':
		if s.lineStart && s.dirty { // a blank line ends the event
			if c == '\r' {
				s.pendingCR = true
				return false, false
			}
			s.endEvent()
			break
		}
		s.lineStart = true
		s.prevCR = c == '\r'
	default:
		s.lineStart = false
		s.dirty = true
	}
	return false, s.reached()
}

func (s *bodyScanner) endEvent() {
	s.events++
	s.dirty = false
	s.lineStart = true
	if s.events == s.fault.AfterEvents {
		s.mark = s.payload
	}
}

func (s *bodyScanner) reached() bool {
	return s.fault.AfterEvents >= 0 && s.mark >= 0 && s.payload-s.mark >= int64(s.fault.PlusBytes)
}
