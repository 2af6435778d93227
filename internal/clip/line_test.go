package clip

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestLineExamples(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"task failed", 64, "task failed"},
		{"a\r\nb\rc\nd", 64, "a b c d"},
		{"a\vb\fc\u0085d\u2028e\u2029f", 64, "a b c d e f"},
		{"\x1b[31mred\x7f", 64, " [31mred "},
		{"\u202eevil\u202c", 64, " evil "},
		{"a\xffb", 64, "a\ufffdb"},
		{"abcdef", 6, "abcdef"},               // it fits exactly
		{"abcdefg", 6, "abc…"},                // cut to n bytes, ellipsis included
		{"ab\ncdefg", 7, "ab c…"},             // breaks read as spaces, then cut
		{"ab€€", 6, "ab…"},                    // no character cut
		{"\xff\xff\xff", 6, "\ufffd…"},        // each stray byte a U+FFFD of three bytes
		{strings.Repeat("\n", 100), 5, "  …"}, // a cut after the breaks
		{"abcdef", 0, "…"},                    // n below the ellipsis counts as the ellipsis
	} {
		got := Line(c.s, c.n)
		require.Equal(t, c.want, got, "Line(%q, %d)", c.s, c.n)
	}
}

// TestLineIsOneBoundedLine builds every string of up to three pieces (text,
// breaks, controls, bidi controls, broken UTF-8) and cuts it at every bound:
// the result is valid UTF-8, holds nothing Breaks names, is at most n bytes
// (the ellipsis's length at least), and is the whole line when it fits.
func TestLineIsOneBoundedLine(t *testing.T) {
	pieces := []string{
		"a", "é", "€", "😀", "\r", "\n", "\r\n", "\v", "\f", "\u0085", "\u2028", "\u2029",
		"\x00", "\x1b", "\x7f", "\u009b", "\u202e", "\u2066", "\u200f", "\xff", "\xe2\x82",
	}
	var all []string
	var grow func(s string, depth int)
	grow = func(s string, depth int) {
		all = append(all, s)
		if depth == 3 {
			return
		}
		for _, p := range pieces {
			grow(s+p, depth+1)
		}
	}
	grow("", 0)
	for _, s := range all {
		whole := Line(s, 1<<20)
		for n := 0; n <= len(whole)+1; n++ {
			got := Line(s, n)
			require.True(t, utf8.ValidString(got), "Line(%q, %d) = %q", s, n, got)
			require.LessOrEqual(t, len(got), max(n, len(Ellipsis)), "Line(%q, %d) = %q", s, n, got)
			for _, r := range got {
				require.False(t, Breaks(r), "Line(%q, %d) = %q", s, n, got)
			}
			if len(whole) <= max(n, len(Ellipsis)) {
				require.Equal(t, whole, got, "Line(%q, %d)", s, n)
			} else {
				kept, cut := strings.CutSuffix(got, Ellipsis)
				require.True(t, cut && strings.HasPrefix(whole, kept), "Line(%q, %d) = %q", s, n, got)
			}
		}
	}
}
