package jsonrpc

import (
	"bytes"
	"encoding/json"

	"github.com/a2astream/a2astream/internal/jsonscan"
)

// scanEnvelope reads the envelope of a streamed response as almost every
// server writes it: an object of "jsonrpc" (a string), "id" (a string, a
// number or null) and "result", each once, spelled exactly, with "result"
// last. It returns the id as written (nil when absent) and the bytes of
// the result: everything between its name and the envelope's closing
// brace, which the caller must check is one JSON object. ok is false for
// anything else, which StreamDecoder decodes with encoding/json.
func scanEnvelope(data []byte) (id json.RawMessage, result []byte, ok bool) {
	s := jsonscan.New(data)
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
			switch s.Peek() {
			case '"':
				start := s.Pos()
				_, ok = s.String()
				id = data[start:s.Pos()]
			case 'n':
				start := s.Pos()
				ok = s.Null()
				id = data[start:s.Pos()]
			default:
				start := s.Pos()
				ok = s.Number()
				id = data[start:s.Pos()]
			}
		case "result":
			// The result runs to the envelope's closing brace.
			end := bytes.LastIndexByte(data, '}')
			if end < s.Pos() || !blank(data[end+1:]) {
				return nil, nil, false
			}
			return id, data[s.Pos():end], true
		default:
			ok = false
		}
		if !ok || seen&bit != 0 {
			return nil, nil, false
		}
		seen |= bit
		more, ok = s.NextMember()
	}
	return nil, nil, false
}

// blank reports whether b holds nothing but JSON white space.
func blank(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
		default:
			return false
		}
	}
	return true
}
