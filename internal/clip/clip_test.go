package clip

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// boundaries returns the offsets at which a range loop over s starts a
// character, and len(s): the places a cut may fall.
func boundaries(s string) map[int]bool {
	at := map[int]bool{len(s): true}
	for i := range s {
		at[i] = true
	}
	return at
}

// TestTextNeverCutsACharacterNorExceedsItsBound cuts every string of up to
// four pieces, valid characters of one to four bytes and the bytes of broken
// ones, at every bound: the result is s itself when it fits, else a prefix of
// s that ends on a character boundary (as a range loop reads s, stray bytes
// included), at most n bytes long and at least n-3, followed by the
// ellipsis; valid UTF-8 stays valid.
func TestTextNeverCutsACharacterNorExceedsItsBound(t *testing.T) {
	pieces := []string{
		"a", "é", "€", "😀", // one, two, three and four bytes
		"\x80",         // a stray continuation byte
		"\xe2\x82",     // a three-byte character without its last byte
		"\xf0\x9f\x98", // a four-byte character without its last byte
		"\xff",         // a byte that is never UTF-8
		"\xef\xbf\xbd", // U+FFFD itself, which is valid
	}
	var all []string
	var grow func(s string, depth int)
	grow = func(s string, depth int) {
		all = append(all, s)
		if depth == 4 {
			return
		}
		for _, p := range pieces {
			grow(s+p, depth+1)
		}
	}
	grow("", 0)
	require.Greater(t, len(all), 7000)

	for _, s := range all {
		at := boundaries(s)
		for n := -1; n <= len(s)+1; n++ {
			got := Text(s, n)
			if len(s) <= max(n, 0) {
				require.Equal(t, s, got)
				continue
			}
			kept, cut := strings.CutSuffix(got, Ellipsis)
			require.True(t, cut, "%q cut at %d: %q has no ellipsis", s, n, got)
			require.True(t, strings.HasPrefix(s, kept), "%q cut at %d: %q is not its prefix", s, n, kept)
			require.LessOrEqual(t, len(got), max(n, 0)+len(Ellipsis), "%q cut at %d: %q", s, n, got)
			require.GreaterOrEqual(t, len(kept), n-(utf8.UTFMax-1), "%q cut at %d: %q keeps too little", s, n, kept)
			require.True(t, at[len(kept)], "%q cut at %d: %q ends inside a character", s, n, kept)
			if utf8.ValidString(s) {
				require.True(t, utf8.ValidString(got), "%q cut at %d: %q", s, n, got)
			}
		}
	}
}

func TestTextExamples(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"task not found", 64, "task not found"},
		{"abcdef", 3, "abc…"},
		{"ab€", 3, "ab…"},             // € is three bytes: it does not fit, it is left out whole
		{"ab€", 5, "ab€"},             // it fits exactly
		{"ab\xe2\x82x", 3, "ab\xe2…"}, // a broken character is stray bytes, each kept or not
		{strings.Repeat("é", 200), Message, strings.Repeat("é", 128) + "…"},
		{"x", 0, "…"},
	} {
		require.Equal(t, c.want, Text(c.s, c.n), "Text(%q, %d)", c.s, c.n)
	}
}
