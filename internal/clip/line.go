package clip

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line returns s as one line of at most n bytes, its ellipsis included, for
// a person to read on a terminal or in a log: every character that breaks
// a line or steers the display reads as one space (a CRLF as one), and
// invalid UTF-8 reads as U+FFFD, one per stray byte; then the line is cut
// as [Text] cuts, to n-len([Ellipsis]) bytes and the ellipsis, when it is
// longer than n. The characters read as a space are those [Breaks] names.
// The result is valid UTF-8 and holds none of them. n below len(Ellipsis)
// counts as len(Ellipsis).
func Line(s string, n int) string {
	n = max(n, len(Ellipsis))
	if !needsLine(s) {
		if len(s) <= n {
			return s
		}
		return Text(s, n-len(Ellipsis))
	}
	var b strings.Builder
	b.Grow(min(len(s), n+utf8.UTFMax))
	for i := 0; i < len(s) && b.Len() <= n; {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\r' && strings.HasPrefix(s[i+size:], "\n"):
			b.WriteByte(' ')
			size++ // a CRLF is one break
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case Breaks(r):
			b.WriteByte(' ')
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	line := b.String()
	if len(line) <= n {
		return line
	}
	return Text(line, n-len(Ellipsis))
}

// needsLine reports whether s holds a character Line replaces.
func needsLine(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < ' ' || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || Breaks(r) {
			return true
		}
		i += size
	}
	return false
}

// Breaks reports whether r must not reach a line for a person as it is: a
// control character (C0, DEL and C1, among them CR, LF, VT, FF and NEL), a
// line or paragraph separator (U+2028, U+2029), or a bidirectional control
// (U+061C, U+200E, U+200F, U+202A…U+202E, U+2066…U+2069), which reorders
// the text around it as it is displayed.
func Breaks(r rune) bool {
	switch {
	case unicode.IsControl(r), r == '\u2028', r == '\u2029':
		return true
	case r == '\u061c', r == '\u200e', r == '\u200f':
		return true
	case '\u202a' <= r && r <= '\u202e', '\u2066' <= r && r <= '\u2069':
		return true
	}
	return false
}
