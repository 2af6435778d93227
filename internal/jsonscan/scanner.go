package jsonscan

// Scanner reads one JSON text from its start: objects, arrays, names,
// strings, numbers and literals, each checked as encoding/json checks
// them. Every method first skips the white space JSON allows before a
// token. A method that does not find what it reads reports not ok, and the
// Scanner is then of no further use: the caller gives up on the text.
//
// A text may also come in pieces ([NewPieces]), as the data of a big
// event does: the Scanner then reads across them. A string cut between two
// pieces reads as it would in one, as do a name or number of up to 64
// bytes, the bytes of syntax and white space; a literal (true, false,
// null) cut in two, or one that follows an array's ',' at the start of a
// piece, reads as not ok, as the price of keeping the methods that read literals
// small enough to be inlined: the caller then decodes the text another way.
//
// A Scanner holds the text and a position: it is a value to keep on the
// stack, made with [New] or [NewPieces] for each text. It is not safe for
// concurrent use.
type Scanner struct {
	data []byte   // the piece being read: all of the text made by New
	pos  int      // the offset in data of the next byte
	base int      // the offset in the text of data[0]
	segs [][]byte // the text's pieces, for a text made by NewPieces
	seg  int      // the index of data in segs
}

// maxCut is the longest name or number that a Scanner reads when it is cut
// between two pieces: longer ones it reports as not ok.
const maxCut = 64

// New returns a Scanner at the start of data. data is read, never written.
func New(data []byte) Scanner { return Scanner{data: data} }

// NewPieces returns a Scanner at the start of the text made of pieces, one
// after the other. The pieces are read, never written; any may be empty.
func NewPieces(pieces [][]byte) Scanner {
	if len(pieces) == 0 {
		return Scanner{}
	}
	return Scanner{data: pieces[0], segs: pieces}
}

// Pos returns the offset in the text of the next byte to read.
func (s *Scanner) Pos() int { return s.base + s.pos }

// skip skips JSON white space in the piece being read. It stops at the
// piece's end: the methods kept small enough to be inlined (next, after,
// Bool, Null) read within one piece and report not ok at its end (a
// literal cut between pieces: the caller then decodes the text another
// way), and the others call skipAll first.
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

// skipAll is skip across pieces: past white space and the ends of pieces,
// so that the next byte of the text, if there is one, is in data. Only a
// text in pieces needs it.
func (s *Scanner) skipAll() {
	s.skip()
	for s.pos == len(s.data) && s.advance() {
		s.skip()
	}
}

// advance moves the Scanner, at the end of a piece, to the start of the
// next one, and reports whether there was one.
func (s *Scanner) advance() bool {
	if s.seg+1 >= len(s.segs) {
		return false
	}
	s.base += len(s.data)
	s.seg++
	s.data, s.pos = s.segs[s.seg], 0
	return true
}

// window copies the next len(w) bytes of the text, or as many as are left,
// into w, without reading them, and returns how many it copied.
func (s *Scanner) window(w []byte) int {
	n := copy(w, s.data[s.pos:])
	for k := s.seg + 1; n < len(w) && k < len(s.segs); k++ {
		n += copy(w[n:], s.segs[k])
	}
	return n
}

// skipN reads n bytes, which the text holds, across pieces.
func (s *Scanner) skipN(n int) {
	for n > len(s.data)-s.pos {
		n -= len(s.data) - s.pos
		s.pos = len(s.data)
		if !s.advance() {
			return
		}
	}
	s.pos += n
}

// Peek skips white space and returns the next byte without reading it, or
// 0 at the end of data.
func (s *Scanner) Peek() byte {
	s.skip()
	if s.segs != nil {
		s.skipAll()
	}
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

// End skips white space and reports whether the text ends there.
func (s *Scanner) End() bool {
	s.skip()
	if s.segs != nil {
		s.skipAll()
	}
	return s.pos == len(s.data)
}

// BeginObject reads the '{' that opens an object. more reports whether a
// member follows: it is false for an empty object, whose '}' is read too.
func (s *Scanner) BeginObject() (more, ok bool) {
	if s.segs != nil {
		s.skipAll()
	}
	if !s.next('{') {
		return false, false
	}
	if s.segs != nil {
		s.skipAll()
	}
	if s.next('}') {
		return false, true
	}
	return true, true
}

// NextMember reads what follows a member's value: a ',' (more is true) or
// the '}' that closes the object.
func (s *Scanner) NextMember() (more, ok bool) {
	if s.segs != nil {
		s.skipAll()
	}
	return s.after('}')
}

// BeginArray reads the '[' that opens an array. more reports whether an
// element follows: it is false for an empty array, whose ']' is read too.
func (s *Scanner) BeginArray() (more, ok bool) {
	if s.segs != nil {
		s.skipAll()
	}
	if !s.next('[') {
		return false, false
	}
	if s.segs != nil {
		s.skipAll()
	}
	if s.next(']') {
		return false, true
	}
	return true, true
}

// NextElement reads what follows an array's element: a ',' (more is true)
// or the ']' that closes the array.
func (s *Scanner) NextElement() (more, ok bool) {
	if s.segs != nil {
		s.skipAll()
	}
	return s.after(']')
}

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
	if s.segs != nil {
		s.skipAll()
	}
	if !s.next('"') {
		return nil, false
	}
	d := s.data
	for i := s.pos; i < len(d); i++ {
		switch c := d[i]; {
		case c == '"':
			name := d[s.pos:i]
			s.pos = i + 1
			if s.segs != nil {
				return name, s.colon()
			}
			return name, s.next(':')
		case c == '\\' || c < ' ':
			return nil, false
		}
	}
	if s.seg+1 < len(s.segs) {
		return s.nameAcross()
	}
	return nil, false
}

// nameAcross is Name for a name cut between two pieces: it returns a copy
// of the name, of up to maxCut bytes.
func (s *Scanner) nameAcross() ([]byte, bool) {
	var w [maxCut + 1]byte
	n := s.window(w[:])
	for i, c := range w[:n] {
		switch {
		case c == '"':
			name := append([]byte(nil), w[:i]...)
			s.skipN(i + 1)
			return name, s.colon()
		case c == '\\' || c < ' ':
			return nil, false
		}
	}
	return nil, false
}

// colon reads the ':' after a name in a text in pieces, and the white
// space after it, so that the value starts in data.
func (s *Scanner) colon() bool {
	s.skipAll()
	ok := s.next(':')
	s.skipAll()
	return ok
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
		if s.segs != nil {
			s.skipAll()
		}
		more, ok = s.after('}') // NextMember, inlined

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
	if s.segs != nil {
		s.skipAll()
	}
	d := s.data[s.pos:]
	n, ok := number(d)
	if n == len(d) && s.seg+1 < len(s.segs) {
		return s.numberAcross()
	}
	s.pos += n
	return ok
}

// numberAcross is Number for a number that may go on in the next piece.
func (s *Scanner) numberAcross() bool {
	var w [maxCut + 1]byte
	n, ok := number(w[:s.window(w[:])])
	if !ok || n > maxCut {
		return false
	}
	s.skipN(n)
	return true
}

// number reads the number at the start of d, and returns its length and
// whether it is one; when it is not, n is where it stopped being one, which
// is len(d) when d ends too soon.
func number(d []byte) (n int, ok bool) {
	i := 0
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		i = digits(d, i)
	default:
		return i, false
	}
	if i < len(d) && d[i] == '.' {
		j := digits(d, i+1)
		if j == i+1 {
			return j, false
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
			return j, false
		}
		i = j
	}
	return i, true
}

// digits returns the offset of the first byte at or after i in d that is
// not a decimal digit.
func digits(d []byte, i int) int {
	for i < len(d) && '0' <= d[i] && d[i] <= '9' {
		i++
	}
	return i
}
