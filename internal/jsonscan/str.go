package jsonscan

import (
	"encoding/binary"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Str is a string value that a [Scanner] read: where its characters are in
// the data, between the quotes, and the length of its value. Its zero value
// is the empty string. A Str refers to the data by offsets: it is copied
// out of the same data it was read from, with [Str.CopyTo].
type Str struct {
	lo, hi int  // the raw characters, data[lo:hi]
	n      int  // the length of the value in bytes
	plain  bool // data[lo:hi] is the value: no escapes, valid UTF-8
}

// Len returns the length in bytes of the string's value, unescaped.
func (v Str) Len() int { return v.n }

// Is reports whether the value is want, written without escapes.
func (v Str) Is(data []byte, want string) bool {
	return v.plain && string(data[v.lo:v.hi]) == want
}

// String reads a string value and returns it as a Str: one pass over its
// characters, which checks them as encoding/json does (no control
// characters, only the escapes JSON defines) and counts the length of the
// value that [Str.CopyTo] writes.
func (s *Scanner) String() (Str, bool) {
	if !s.next('"') {
		return Str{}, false
	}
	d := s.data
	lo, i := s.pos, s.pos
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
			return Str{}, false
		}
		switch c := d[i]; {
		case c == '"':
			s.pos = i + 1
			return Str{lo: lo, hi: i, n: i - lo + grow, plain: plain}, true
		case c == '\\':
			plain = false
			if i+1 >= len(d) {
				return Str{}, false
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
				grow--
			case 'u':
				r, size := escapedRune(d[i:])
				if size == 0 {
					return Str{}, false
				}
				i += size
				grow += utf8.RuneLen(r) - size
			default:
				return Str{}, false
			}
		case c < ' ':
			return Str{}, false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && size == 1 {
				// encoding/json writes U+FFFD for each byte that does not
				// begin a character: 3 bytes for 1.
				plain = false
				grow += utf8.RuneLen(utf8.RuneError) - 1
			}
			i += size
		}
	}
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

// CopyTo writes the string's value to b: data is what the Scanner read
// the string from. It writes exactly v.Len() bytes, the value encoding/json
// decodes: escapes decoded, a lone surrogate and each byte of invalid UTF-8
// written as U+FFFD.
func (v Str) CopyTo(b *strings.Builder, data []byte) {
	raw := data[v.lo:v.hi]
	if v.plain {
		b.Write(raw)
		return
	}
	start := 0 // raw[start:i] is to be written as it is
	for i := 0; i < len(raw); {
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
	b.Write(raw[start:])
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
