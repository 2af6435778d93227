package jsonscan

// Scanner reads one JSON text from its start: objects, arrays, names,
// strings, numbers and literals, each checked as encoding/json checks
// them. Every method first skips the white space JSON allows before a
// token. A method that does not find what it reads reports not ok, and the
// Scanner is then of no further use: the caller gives up on the text.
//
// A Scanner holds data and a position, and nothing else: it is a value to
// keep on the stack, made with [New] for each text. It is not safe for
// concurrent use.
type Scanner struct {
	data []byte
	pos  int
}

// New returns a Scanner at the start of data. data is read, never written.
func New(data []byte) Scanner { return Scanner{data: data} }

// Data returns the data the Scanner reads.
func (s *Scanner) Data() []byte { return s.data }

// Pos returns the offset in data of the next byte to read.
func (s *Scanner) Pos() int { return s.pos }

// skip skips JSON white space.
func (s *Scanner) skip() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// Peek skips white space and returns the next byte without reading it, or
// 0 at the end of data.
func (s *Scanner) Peek() byte {
	s.skip()
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// next reads c if it is the next byte after white space.
func (s *Scanner) next(c byte) bool {
	s.skip()
	if s.pos < len(s.data) && s.data[s.pos] == c {
		s.pos++
		return true
	}
	return false
}

// End skips white space and reports whether data ends there.
func (s *Scanner) End() bool {
	s.skip()
	return s.pos == len(s.data)
}

// BeginObject reads the '{' that opens an object. more reports whether a
// member follows: it is false for an empty object, whose '}' is read too.
func (s *Scanner) BeginObject() (more, ok bool) {
	if !s.next('{') {
		return false, false
	}
	if s.next('}') {
		return false, true
	}
	return true, true
}

// NextMember reads what follows a member's value: a ',' (more is true) or
// the '}' that closes the object.
func (s *Scanner) NextMember() (more, ok bool) { return s.after('}') }

// BeginArray reads the '[' that opens an array. more reports whether an
// element follows: it is false for an empty array, whose ']' is read too.
func (s *Scanner) BeginArray() (more, ok bool) {
	if !s.next('[') {
		return false, false
	}
	if s.next(']') {
		return false, true
	}
	return true, true
}

// NextElement reads what follows an array's element: a ',' (more is true)
// or the ']' that closes the array.
func (s *Scanner) NextElement() (more, ok bool) { return s.after(']') }

// after reads a ',' or the closing byte end.
func (s *Scanner) after(end byte) (more, ok bool) {
	s.skip()
	if s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ',':
			s.pos++
			return true, true
		case end:
			s.pos++
			return false, true
		}
	}
	return false, false
}

// Name reads a member's name and the ':' after it, and returns the name as
// it is written in data. It is ok only for a name written without escapes
// (and without control characters, which JSON forbids), whose bytes are
// then the name itself: a decoder that compares them with the names it
// knows takes any other spelling for a name it does not know.
func (s *Scanner) Name() ([]byte, bool) {
	if !s.next('"') {
		return nil, false
	}
	d := s.data
	for i := s.pos; i < len(d); i++ {
		switch c := d[i]; {
		case c == '"':
			name := d[s.pos:i]
			s.pos = i + 1
			return name, s.next(':')
		case c == '\\' || c < ' ':
			return nil, false
		}
	}
	return nil, false
}

// Members reads an object whose members are each known and each met at
// most once. For each member it calls member with the member's name, as
// Name returns it, with the scanner at the member's value: member reads the
// value and returns the bit that stands for the name, and whether it read
// the value. Members returns the bits of the names it met, and ok false at
// the first name member does not know (bit 0), a bit met twice, a value
// member could not read, or bad syntax.
func (s *Scanner) Members(member func(name []byte) (bit uint, ok bool)) (seen uint, ok bool) {
	more, ok := s.BeginObject()
	for ok && more {
		var name []byte
		var bit uint
		if name, ok = s.Name(); ok {
			bit, ok = member(name)
		}
		if !ok || bit == 0 || seen&bit != 0 {
			return 0, false
		}
		seen |= bit
		more, ok = s.NextMember()
	}
	if !ok {
		return 0, false
	}
	return seen, true
}

// Bool reads the literal true or false.
func (s *Scanner) Bool() (v, ok bool) {
	s.skip()
	rest := s.data[s.pos:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		s.pos += 4
		return true, true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		s.pos += 5
		return false, true
	}
	return false, false
}

// Null reads the literal null.
func (s *Scanner) Null() bool {
	s.skip()
	if rest := s.data[s.pos:]; len(rest) >= 4 && string(rest[:4]) == "null" {
		s.pos += 4
		return true
	}
	return false
}

// EmptyObject reads an object with no members, {} with any white space
// inside.
func (s *Scanner) EmptyObject() bool {
	more, ok := s.BeginObject()
	return ok && !more
}

// Number reads a number, as JSON writes one: an optional minus, an integer
// part without leading zeros, then an optional fraction and exponent.
func (s *Scanner) Number() bool {
	s.skip()
	d, i := s.data, s.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		i = digits(d, i)
	default:
		return false
	}
	if i < len(d) && d[i] == '.' {
		j := digits(d, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := digits(d, i)
		if j == i {
			return false
		}
		i = j
	}
	s.pos = i
	return true
}

// digits returns the offset of the first byte at or after i in d that is
// not a decimal digit.
func digits(d []byte, i int) int {
	for i < len(d) && '0' <= d[i] && d[i] <= '9' {
		i++
	}
	return i
}
