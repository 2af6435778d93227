package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// readString reads the JSON string in data with a Scanner and copies its
// value out, as the fast decoders do: its value, the length the Scanner
// counted for it, and ok false where the Scanner gives up or when something
// follows the string.
func readString(data []byte) (value string, n int, ok bool) {
	s := New(data)
	v, ok := s.String()
	if !ok || !s.End() {
		return "", 0, false
	}
	var b strings.Builder
	s.Copy(&b, v)
	return b.String(), v.Len(), true
}

// requireStringAsEncodingJSON checks one JSON text against encoding/json:
// a string value the Scanner reads has the value, and the length, that
// encoding/json decodes; and it reads every string encoding/json reads.
func requireStringAsEncodingJSON(t *testing.T, data []byte) {
	t.Helper()
	var want string
	wantErr := json.Unmarshal(data, &want)
	got, n, ok := readString(data)
	if wantErr != nil {
		require.False(t, ok, "%q: read %q; encoding/json: %v", data, got, wantErr)
		return
	}
	require.True(t, ok, "%q: not read; encoding/json reads %q", data, want)
	require.Equal(t, want, got, "%q", data)
	require.Equal(t, len(want), n, "%q: the length counted in the scan", data)
}

// TestStringMatchesEncodingJSON: escapes, surrogates, invalid UTF-8,
// control characters, and runs longer than the eight bytes read at a time,
// with a special byte at every offset within them.
func TestStringMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	inputs := []string{
		`""`, `"a"`, `"\"\\\/\b\f\n\r\t"`, `"\u0041\u00e9\u20AC\u0000\uFFFF"`,
		`"\ud83d\ude00"`, `"\ud83d"`, `"\ude00"`, `"\ud83d\ud83d\ude00"`, `"\ud83dx"`, `"\ud83d\n"`, `"\ud83d\u0041"`,
		`"\u12"`, `"\u12g4"`, `"\x"`, `"\'"`, `"\`, `"abc`, `"a"b`, `"a" `, ` "a"`,
		"\"a\tb\"", "\"a\x00\"", "\"a\x1f\"", "\"a\x7f\"", "\"\xff\"", "\"\xc3\"", "\"\xc3\xa9\"",
		"\"\xed\xa0\x80\"", "\"\xf0\x9f\x98\x80\"", "\"\xf0\x9f\x98\"", "\"\xef\xbf\xbd\"", "\"\xf4\x90\x80\x80\"",
	}
	for _, special := range []string{`"`, `\n`, `\u00e9`, `\ud83d\ude00`, "\xff", "\xc3\xa9", "\x01", "\x80"} {
		for i := range 20 {
			inputs = append(inputs, `"`+strings.Repeat("x", i)+special+strings.Repeat("y", 20-i)+`"`)
		}
	}
	for _, in := range inputs {
		requireStringAsEncodingJSON(t, []byte(in))
	}
}

// FuzzStringMatchesEncodingJSON checks any JSON text against
// encoding/json's reading of it as a string.
func FuzzStringMatchesEncodingJSON(f *testing.F) {
	for _, s := range []string{`"a\u00e9\ud83d\ude00\ud800"`, "\"\xff\xed\xa0\x80\"", `"\"\\\/\b\f\n\r\t"`, `"0123456789abcdef\n"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		requireStringAsEncodingJSON(t, data)
	})
}
