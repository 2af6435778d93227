package jsonrpc

import (
	"github.com/a2astream/a2astream/internal/jsonscan"
)

// scanEnvelope reads, with s, the envelope of a streamed response as almost
// every server writes it: an object of "jsonrpc" (a string), "id" (a
// string, a number or null) and "result", each once, spelled exactly, with
// "result" last. end is the offset of the envelope's closing brace, the
// text's last one (see closingBrace). It returns where the id is, as
// written (idLo -1 when absent), and where the result starts: it runs to
// end, and the caller must check it is one JSON object. ok is false for
// anything else, which StreamDecoder decodes with encoding/json.
func scanEnvelope(s *jsonscan.Scanner, end int) (idLo, idHi, result int, ok bool) {
	idLo, idHi = -1, -1
	var seen uint8
	more, ok := s.BeginObject()
	for ok && more {
		var name []byte
		if name, ok = s.Name(); !ok {
			break
		}
		var bit uint8
		switch string(name) {
		case "jsonrpc":
			bit = 1
			_, ok = s.String()
		case "id":
			bit = 2
			c := s.Peek()
			idLo = s.Pos()
			switch c {
			case '"':
				_, ok = s.String()
			case 'n':
				ok = s.Null()
			default:
				ok = s.Number()
			}
			idHi = s.Pos()
		case "result":
			// The result runs to the envelope's closing brace.
			if end < s.Pos() {
				return -1, -1, 0, false
			}
			return idLo, idHi, s.Pos(), true
		default:
			ok = false
		}
		if !ok || seen&bit != 0 {
			return -1, -1, 0, false
		}
		seen |= bit
		more, ok = s.NextMember()
	}
	return -1, -1, 0, false
}

// closingBrace returns the offset of the last byte of the text made of
// pieces, one after the other, that is not JSON white space, if it is a
// '}'; else -1.
func closingBrace(pieces [][]byte) int {
	off := 0
	for _, p := range pieces {
		off += len(p)
	}
	for k := len(pieces) - 1; k >= 0; k-- {
		p := pieces[k]
		off -= len(p)
		for i := len(p) - 1; i >= 0; i-- {
			switch p[i] {
			case ' ', '\t', '\n', '\r':
				continue
			case '}':
				return off + i
			}
			return -1
		}
	}
	return -1
}

// cut is the bytes from offset lo to hi of the text made of pieces, one
// after the other, without a new list: the pieces that hold them, as a
// part of pieces whose first and last elements are cut to them in place.
// A big event's list of pieces is long (a piece per 16 KiB), and a copy of
// it would be garbage of its size. Until restore puts them back, pieces'
// elements are changed.
type cut struct {
	pieces      [][]byte
	i, j        int    // the span is pieces[i:j]
	first, last []byte // pieces[i] and pieces[j-1] as they were
}

// cutSpan cuts pieces to the bytes from lo to hi (see cut).
func cutSpan(pieces [][]byte, lo, hi int) cut {
	c := cut{pieces: pieces}
	off := 0
	for k, p := range pieces {
		a, b := max(lo-off, 0), min(hi-off, len(p))
		off += len(p)
		if a >= b {
			continue
		}
		if c.j == 0 {
			c.i, c.first = k, p
		}
		c.j, c.last = k+1, p
		if k == c.i {
			pieces[k] = p[a:b]
		} else {
			pieces[k] = p[:b]
		}
	}
	return c
}

// span returns the cut pieces (nil for none).
func (c cut) span() [][]byte {
	if c.j == 0 {
		return nil
	}
	return c.pieces[c.i:c.j:c.j]
}

// restore puts back the pieces' elements cutSpan changed.
func (c cut) restore() {
	if c.j == 0 {
		return
	}
	c.pieces[c.i] = c.first
	c.pieces[c.j-1] = c.last
}
