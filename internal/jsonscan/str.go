package jsonscan

import (
	"encoding/binary"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Str is a string value that a [Scanner] read: where its characters are in
// the text, between the quotes, and the length of its value. Its zero value
// is the empty string. A Str refers to the text by offsets: it is copied
// out by the Scanner that read it, with [Scanner.Copy].
type Str struct {
	lo, hi int  // the raw characters, from offset lo to hi of the text
	n      int  // the length of the value in bytes
	plain  bool // the raw characters are the value: no escapes, valid UTF-8
}

// Len returns the length in bytes of the string's value, unescaped.
func (v Str) Len() int { return v.n }

// maxSeq is the longest escape or character a string holds: a surrogate
// pair written as two \uXXXX escapes.
const maxSeq = 12

// String reads a string value and returns it as a Str: one pass over its
// characters, which checks them as encoding/json does (no control
// characters, only the escapes JSON defines) and counts the length of the
// value that [Scanner.Copy] writes.
func (s *Scanner) String() (Str, bool) {
	if s.segs != nil {
		s.skipAll()
	}
	if !s.next('"') {
		return Str{}, false
	}
	lo := s.Pos()
	d, i := s.data, s.pos
	plain := true
	grow := 0 // the value's length minus the raw characters'
	for {
		// Eight bytes at a time, while none is a quote, a backslash, a
		// control character or a byte of a multi-byte character: the
		// value of a long text is mostly such runs.
		for i+8 <= len(d) && !special(binary.LittleEndian.Uint64(d[i:])) {
			i += 8
		}
		if i >= len(d) {
			s.pos = len(d)
			if !s.advance() {
				return Str{}, false
			}
			d, i = s.data, 0
			continue
		}
		switch c := d[i]; {
		case c == '"':
			s.pos = i + 1
			hi := s.base + i
			return Str{lo: lo, hi: hi, n: hi - lo + grow, plain: plain}, true
		case c < ' ':
			return Str{}, false
		case c < utf8.RuneSelf && c != '\\':
			i++
		case len(d)-i < maxSeq && s.seg+1 < len(s.segs):
			// An escape or a multi-byte character that may be cut
			// between two pieces.
			s.pos = i
			size, g, p := s.sequenceAcross()
			if size == 0 {
				return Str{}, false
			}
			grow += g
			plain = plain && p
			s.skipN(size)
			d, i = s.data, s.pos
		default:
			size, g, p := sequence(d[i:])
			if size == 0 {
				return Str{}, false
			}
			grow += g
			plain = plain && p
			i += size
		}
	}
}

// sequenceAcross is sequence of the escape or character at the Scanner's
// position, read from a copy of the pieces that hold it.
func (s *Scanner) sequenceAcross() (size, grow int, plain bool) {
	var w [maxSeq]byte
	return sequence(w[:s.window(w[:])])
}

// sequence reads the escape or the multi-byte character at the start of b,
// whose first byte is a backslash or a byte of 0x80 or more. It returns its
// size in b (0 for an escape JSON does not define), what it adds to the
// value's length beyond that size, and whether the value holds it as it is
// written (plain: a valid UTF-8 character).
func sequence(b []byte) (size, grow int, plain bool) {
	if b[0] != '\\' {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			// encoding/json writes U+FFFD for each byte that does not
			// begin a character: 3 bytes for 1.
			return 1, utf8.RuneLen(utf8.RuneError) - 1, false
		}
		return size, 0, true
	}
	if len(b) < 2 {
		return 0, 0, false
	}
	switch b[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, -1, false
	case 'u':
		r, size := escapedRune(b)
		if size == 0 {
			return 0, 0, false
		}
		return size, utf8.RuneLen(r) - size, false
	}
	return 0, 0, false
}

// escapedRune reads the \uXXXX escape at the start of b, and the one after
// it when the two are a surrogate pair, as encoding/json does: a lone
// surrogate is U+FFFD. size is the number of bytes read, 0 when b does not
// start with a \u escape of four hex digits.
func escapedRune(b []byte) (r rune, size int) {
	r = hex4(b)
	if r < 0 {
		return 0, 0
	}
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	if pair := utf16.DecodeRune(r, hex4(b[6:])); pair != unicode.ReplacementChar {
		return pair, 12
	}
	return unicode.ReplacementChar, 6
}

// hex4 returns the code unit of the \uXXXX escape at the start of b, or -1.
func hex4(b []byte) rune {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special reports whether any of the eight bytes of w is a quote, a
// backslash, a control character or a byte of 0x80 or more: whether the
// string's scan must look at them one at a time. (Each test is the
// classic "has a zero byte" trick, which has no false positive for the
// word as a whole.)
func special(w uint64) bool {
	q := w ^ (ones * '"')
	b := w ^ (ones * '\\')
	t := (w - ones*' ') & ^w
	t |= (q - ones) & ^q
	t |= (b - ones) & ^b
	return (t|w)&highs != 0
}

// Copy writes the value of v, a string this Scanner read, to b: exactly
// v.Len() bytes, the value encoding/json decodes: escapes decoded, a lone
// surrogate and each byte of invalid UTF-8 written as U+FFFD.
func (s *Scanner) Copy(b *strings.Builder, v Str) {
	if s.segs == nil {
		copyRun(b, s.data[v.lo:v.hi], v.hi-v.lo, v.plain)
		return
	}
	seg, off := s.locate(v.lo)
	for n := v.hi - v.lo; n > 0; {
		d := s.segs[seg]
		if off == len(d) {
			seg, off = seg+1, 0
			continue
		}
		raw := d[off:min(len(d), off+n)]
		// Every escape or character that starts before stop ends in raw.
		stop := len(raw)
		if len(raw) < n && !v.plain {
			stop -= maxSeq - 1
		}
		if stop > 0 {
			k := copyRun(b, raw, stop, v.plain)
			off, n = off+k, n-k
			continue
		}
		// One escape or character that may be cut between two pieces,
		// from a copy.
		var w [maxSeq]byte
		k := 0
		for j := seg; k < len(w) && k < n && j < len(s.segs); j++ {
			p := s.segs[j]
			if j == seg {
				p = p[off:]
			}
			k += copy(w[k:min(len(w), n)], p)
		}
		size := copyRun(b, w[:k], 1, false)
		off, n = off+size, n-size
		for seg < len(s.segs) && off > len(s.segs[seg]) {
			off -= len(s.segs[seg])
			seg++
		}
	}
}

// locate returns the piece that holds offset off of the text, and the
// offset in it.
func (s *Scanner) locate(off int) (seg, in int) {
	for seg < len(s.segs)-1 && off >= len(s.segs[seg]) {
		off -= len(s.segs[seg])
		seg++
	}
	return seg, off
}

// Is reports whether the value of v, a string this Scanner read, is want,
// written without escapes.
func (s *Scanner) Is(v Str, want string) bool {
	if !v.plain || v.hi-v.lo != len(want) {
		return false
	}
	if s.segs == nil {
		return string(s.data[v.lo:v.hi]) == want
	}
	seg, off := s.locate(v.lo)
	for len(want) > 0 && seg < len(s.segs) {
		d := s.segs[seg][off:]
		k := min(len(d), len(want))
		if string(d[:k]) != want[:k] {
			return false
		}
		want = want[k:]
		seg, off = seg+1, 0
	}
	return len(want) == 0
}

// copyRun writes to b the value of the raw characters of a string, raw,
// up to the first escape or character that starts at or after stop, and
// returns where it stopped: at or after stop. plain says raw holds no
// escape nor invalid UTF-8.
func copyRun(b *strings.Builder, raw []byte, stop int, plain bool) int {
	if plain {
		b.Write(raw[:stop])
		return stop
	}
	start := 0 // raw[start:i] is to be written as it is
	i := 0
	for i < stop {
		c := raw[i]
		switch {
		case c == '\\':
			b.Write(raw[start:i])
			if raw[i+1] == 'u' {
				r, size := escapedRune(raw[i:])
				b.WriteRune(r)
				i += size
			} else {
				b.WriteByte(unescape(raw[i+1]))
				i += 2
			}
			start = i
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size == 1 {
				b.Write(raw[start:i])
				b.WriteRune(utf8.RuneError)
				start = i + 1
			}
			i += size
		}
	}
	b.Write(raw[start:i])
	return i
}

// unescape returns the byte that a one-letter escape, \c, stands for.
func unescape(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return c // '"', '\\' and '/'
}
