package jsonscan

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// walk reads a JSON text with s, every token the way the fast decoders read
// it, and returns a trace of what it read (names, values, string lengths,
// positions), whether all of it read, and the length of its longest name
// or number.
func walk(s *Scanner) (trace string, ok bool, longest int) {
	var out strings.Builder
	var value func(depth int) bool
	value = func(depth int) bool {
		if depth > 16 {
			return false
		}
		// Where each value ends: where it starts may differ by the white
		// space before it, which a Scanner may skip sooner in pieces.
		defer func() { fmt.Fprintf(&out, "@%d", s.Pos()) }()
		switch s.Peek() {
		case '{', '[':
			obj := s.Peek() == '{'
			var more, ok bool
			if obj {
				more, ok = s.BeginObject()
			} else {
				more, ok = s.BeginArray()
			}
			out.WriteByte('<')
			for ok && more {
				if obj {
					name, ok := s.Name()
					if !ok {
						return false
					}
					longest = max(longest, len(name))
					fmt.Fprintf(&out, "%q:", name)
				}
				if !value(depth + 1) {
					return false
				}
				if obj {
					more, ok = s.NextMember()
				} else {
					more, ok = s.NextElement()
				}
			}
			out.WriteByte('>')
			return ok
		case '"':
			v, ok := s.String()
			if !ok {
				return false
			}
			var b strings.Builder
			s.Copy(&b, v)
			fmt.Fprintf(&out, "%s/%d/%v", strconv.Quote(b.String()), v.Len(), s.Is(v, b.String()))
			return true
		case 't', 'f':
			v, ok := s.Bool()
			fmt.Fprint(&out, v)
			return ok
		case 'n':
			out.WriteString("null")
			return s.Null()
		default:
			start := s.Pos()
			ok := s.Number()
			longest = max(longest, s.Pos()-start)
			return ok
		}
	}
	ok = value(0) && s.End()
	fmt.Fprintf(&out, "@%d", s.Pos())
	return out.String(), ok, longest
}

// splits returns the text cut into pieces in several ways: at one offset,
// in pieces of n bytes, and with empty pieces between.
func splits(text []byte) map[string][][]byte {
	ways := map[string][][]byte{}
	for _, k := range []int{0, 1, len(text) / 3, len(text) / 2, len(text) - 1} {
		if k >= 0 && k <= len(text) {
			ways[fmt.Sprintf("at %d", k)] = [][]byte{text[:k], text[k:]}
		}
	}
	for _, n := range []int{1, 2, 3, 5, 7, 13} {
		var p [][]byte
		for i := 0; i < len(text); i += n {
			p = append(p, text[i:min(len(text), i+n)], nil)
		}
		ways[fmt.Sprintf("by %d", n)] = p
	}
	return ways
}

// requirePiecesAsWhole checks that a text read in pieces reads as it does
// whole when it reads at all: a Scanner may give up on a text in pieces
// that it reads whole (see Scanner), never read it otherwise. With all,
// the text must also read in pieces whenever it reads whole and has no
// name or number over maxCut bytes: for texts of objects, strings and
// numbers only, which the Scanner reads however they are cut.
func requirePiecesAsWhole(t *testing.T, text []byte, all bool) {
	t.Helper()
	whole := New(text)
	want, wantOK, longest := walk(&whole)
	ways := splits(text)
	if all {
		for k := range len(text) + 1 {
			ways[fmt.Sprintf("at %d", k)] = [][]byte{text[:k], text[k:]}
		}
	}
	for name, pieces := range ways {
		s := NewPieces(pieces)
		got, ok, _ := walk(&s)
		if ok {
			require.True(t, wantOK, "%q %s: read in pieces, not whole: %s", text, name, got)
			require.Equal(t, want, got, "%q %s", text, name)
		} else if all && wantOK && longest <= maxCut {
			require.Fail(t, "not read in pieces", "%q %s: %s; whole: %s", text, name, got, want)
		}
	}
}

var piecesInputs = []string{
	`{"jsonrpc":"2.0","id":"7b0c5a1e","result":{"kind":"artifact-update","taskId":"t1","append":false,"lastChunk":true,` +
		`"artifact":{"artifactId":"a","parts":[{"kind":"text","text":"The quick brown fox\njumps \u00e9\ud83d\ude00 \u00e9x\ud83dy"}]}}}`,
	`[12345678901234567890, -0.5e+17, 0, true, false, null, {}, [], "", "\"\\\/\b\f\n\r\t"]`,
	"[\"\xff\xc3\xa9\xf0\x9f\x98\x80\xed\xa0\x80\", \"\\ud83d\\u0041\", \"\\ud83d\"]",
	`{"a-name-that-is-rather-long-but-not-too-long-for-a-cut": 1}`,
	`[1.]`, `[1e+]`, `[-]`, `[tru]`, `[nul]`, `{"a\u0062":1}`, `["\x"]`, `["\u12g4"]`, "[\"a\x01\"]", `[1] x`, `"abc`,
}

func TestPiecesReadAsWhole(t *testing.T) {
	t.Parallel()
	for _, in := range piecesInputs {
		requirePiecesAsWhole(t, []byte(in), false)
	}
	// Objects of strings and numbers read however they are cut: a string
	// longer than a piece, of every kind of character, names, numbers and
	// white space.
	long := strings.Repeat(`ab\n\u00e9\ud83d\ude00`+"\xc3\xa9\xff", 40)
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":"7b0c5a1e","result":{"kind":"artifact-update","artifact":{"text":"` + long + `"}}}`,
		` { "id" : -12.5e+3 , "a" : { "b" : "c\"" , "d":{ } } , "e" : "` + long + `" } `,
		`{"id":123,"x":"\ud83d\ude00\ud83d","y":"\u00e9\n\t"}`,
	} {
		requirePiecesAsWhole(t, []byte(in), true)
	}
}

// A name or number longer than maxCut, cut between pieces, is not read; one
// of maxCut bytes is.
func TestPiecesLongTokens(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		text string
		ok   bool
	}{
		{`{"` + strings.Repeat("n", maxCut) + `":1}`, true},
		{`{"` + strings.Repeat("n", maxCut+1) + `":1}`, false},
		{`[` + strings.Repeat("1", maxCut) + `]`, true},
		{`[` + strings.Repeat("1", maxCut+1) + `]`, false},
	} {
		text := []byte(tt.text)
		s := NewPieces([][]byte{text[:3], text[3:]})
		_, ok, _ := walk(&s)
		require.Equal(t, tt.ok, ok, "%s", tt.text)
	}
}

// FuzzPiecesReadAsWhole checks that any text reads the same in pieces as
// whole.
func FuzzPiecesReadAsWhole(f *testing.F) {
	for _, in := range piecesInputs {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if len(text) > 4096 {
			return
		}
		requirePiecesAsWhole(t, text, false)
	})
}
