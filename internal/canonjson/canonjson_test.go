package canonjson_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/internal/canonjson"
)

// Canonical encodes a JSON value one way, whatever the key order, white
// space, string escapes and number notation it came in; values that differ
// keep distinct encodings.
func TestCanonicalJSON(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{` { "b" : [ 1 , { "z" : null , "y" : true } ] , "a" : false } `, `{"a":false,"b":[1,{"y":true,"z":null}]}`},
		{`{"a":1,"a":2}`, `{"a":2}`},
		{`{"b":{"a":1,"a":{"y":1,"x":2}},"a":0}`, `{"a":0,"b":{"a":{"x":2,"y":1}}}`},
		{`[ 1 , [ { "b" : 2 , "a" : [ { "d" : 0 , "c" : 0 } ] } ] , { } ]`, `[1,[{"a":[{"c":0,"d":0}],"b":2}],{}]`},
		{`{"a":{"b":1},"b":{"a":1}}`, `{"a":{"b":1},"b":{"a":1}}`},
		{`{"b":0,"a":0,"b":1}`, `{"a":0,"b":1}`},
		{`{}`, `{}`},
		{`[]`, `[]`},
		{`[ ]`, `[]`},
		{`{ }`, `{}`},
		{`0`, `0`},
		{`-0.0e5`, `0`},
		{`1`, `1`},
		{`1.0`, `1`},
		{`10E-1`, `1`},
		{`0.1e1`, `1`},
		{`100`, `1e2`},
		{`-1.50`, `-15e-1`},
		{`0.00012`, `12e-5`},
		{`1e+2`, `1e2`},
		{`12345678901234567890123`, `12345678901234567890123`},
		{`9007199254740993`, `9007199254740993`},
		{`1e400`, `1e400`},
		{`1e99999999999999999999`, `1e99999999999999999999`},
		{`"\u00e9\u0041\/"`, `"éA/"`},
		{`"\ud83d\ude00"`, `"😀"`},
		// A surrogate that is not part of a pair, and invalid UTF-8, read
		// as U+FFFD, as encoding/json reads them.
		{`"\uD800x"`, "\"\ufffdx\""},
		{`"\udc00\ud800"`, "\"\ufffd\ufffd\""},
		{`"a\"b\\c\n\t\u0001\u001F"`, `"a\"b\\c\n\t\u0001\u001f"`},
		{`"\b\f\r"`, `"\b\f\r"`},
		{"\"\x7f\xff\"", "\"\x7f\ufffd\""},
		// Two names that differ only in invalid bytes are one name: the
		// last member wins, whatever the sort (found by FuzzCanonicalJSON).
		{"{\"\":{\"\xff\":{},\"\x96\":[]}}", "{\"\":{\"\ufffd\":[]}}"},
		// Not JSON: returned as it is.
		{`{"a":1`, `{"a":1`},
		{`{"a":1} x`, `{"a":1} x`},
		{`01`, `01`},
		{`1.`, `1.`},
		{`-`, `-`},
		{`"\x"`, `"\x"`},
		{"\"a\nb\"", "\"a\nb\""},
		{`tru`, `tru`},
		{`[1,]`, `[1,]`},
		{`[1, ]`, `[1, ]`},
		{`{"a":1 , }`, `{"a":1 , }`},
		{`[1 2]`, `[1 2]`},
		{`{"a":1 "b":2}`, `{"a":1 "b":2}`},
		{`[`, `[`},
		{`{"a":1,`, `{"a":1,`},
		{`{"a" 1}`, `{"a" 1}`},
		{``, ``},
		{strings.Repeat("[", 10002) + strings.Repeat("]", 10002), strings.Repeat("[", 10002) + strings.Repeat("]", 10002)},
	}
	for _, tc := range tests {
		got := string(canonjson.Canonical([]byte(tc.in)))
		require.Equal(t, tc.want, got, "Canonical(%q)", tc.in)
		if json.Valid([]byte(tc.in)) && len(tc.in) < 1000 {
			require.True(t, json.Valid([]byte(got)), "Canonical(%q) = %q is not JSON", tc.in, got)
			require.Equal(t, got, string(canonjson.Canonical([]byte(got))), "Canonical is idempotent on %q", tc.in)
		}
	}
	distinct := []string{`1`, `"1"`, `10`, `-1`, `1.5`, `true`, `null`, `[1]`, `{"a":1}`, `{"a":"1"}`, `{"a":1,"b":1}`, `"\ufffd"`, `"\ufffe"`}
	seen := map[string]string{}
	for _, in := range distinct {
		c := string(canonjson.Canonical([]byte(in)))
		require.NotContains(t, seen, c, "%q and %q encode alike", in, seen[c])
		seen[c] = in
	}
}

// Objects out of order nested deep around a large value cost time and
// memory in proportion to the data, not to the data times the depth: a
// server's data part cannot make comparing parts slow.
func TestCanonicalJSONDeepNestingIsLinear(t *testing.T) {
	const depth = 5000
	big := strings.Repeat("x", 1<<20)
	in := strings.Repeat(`{"b":`, depth) + `"` + big + `"` + strings.Repeat(`,"a":1}`, depth)
	want := strings.Repeat(`{"a":1,"b":`, depth) + `"` + big + `"` + strings.Repeat(`}`, depth)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := canonjson.Canonical([]byte(in))
	runtime.ReadMemStats(&after)
	require.Equal(t, want, string(got))
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8*len(in)), "bytes allocated for %d bytes of data", len(in))
}

// jsonForm writes one textual form of the random JSON value that r0 draws
// (the same value for the same r0 state), with its own choices from r: white
// space, member order, string escapes and number notation.
func jsonForm(b *strings.Builder, r0, r *rand.Rand, depth int) {
	space := func() {
		if r.IntN(3) == 0 {
			b.WriteString([]string{" ", "\n", "\t ", "\r\n"}[r.IntN(4)])
		}
	}
	space()
	switch k := r0.IntN(7); {
	case depth > 3 || k == 0:
		// A number: n × 10^e, written in one of several ways.
		n, e := r0.IntN(2000)-1000, r0.IntN(7)-3
		digits := fmt.Sprint(n)
		switch form := r.IntN(3); {
		case form == 0 || n == 0:
			fmt.Fprintf(b, "%se%d", digits, e)
		case form == 1:
			fmt.Fprintf(b, "%s.000E%+d", digits, e)
		default:
			fmt.Fprintf(b, "%s0e%d", digits, e-1)
		}
	case k == 1:
		s := []string{"", "a", "é", "x\"y", "tab\t", "😀", "A/B"}[r0.IntN(7)]
		b.WriteByte('"')
		for _, c := range s {
			switch {
			case c == '"' || c == '\\':
				b.WriteString(`\` + string(c))
			case c < 0x20 || r.IntN(3) == 0:
				for _, u := range utf16.Encode([]rune{c}) {
					fmt.Fprintf(b, `\u%04X`, u)
				}
			default:
				b.WriteRune(c)
			}
		}
		b.WriteByte('"')
	case k == 2:
		b.WriteString([]string{"true", "false", "null"}[r0.IntN(3)])
	case k <= 4:
		n := r0.IntN(4)
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			jsonForm(b, r0, r, depth+1)
		}
		space()
		b.WriteByte(']')
	default:
		// Members are drawn in name order, then written in an order of
		// r's choosing, each value with its own r0 state.
		n := r0.IntN(4)
		seeds := make([]uint64, n)
		for i := range seeds {
			seeds[i] = r0.Uint64()
		}
		order := r.Perm(n)
		b.WriteByte('{')
		for i, m := range order {
			if i > 0 {
				b.WriteByte(',')
			}
			space()
			fmt.Fprintf(b, `"k%d"`, m)
			space()
			b.WriteByte(':')
			jsonForm(b, rand.New(rand.NewPCG(seeds[m], 1)), r, depth+1)
		}
		space()
		b.WriteByte('}')
	}
	space()
}

// Random JSON values, each written in two forms: the canonical encodings
// are equal, valid JSON, and decode to what the forms decode to.
func TestCanonicalJSONProperty(t *testing.T) {
	t.Parallel()
	for seed := range uint64(2000) {
		var f1, f2 strings.Builder
		jsonForm(&f1, rand.New(rand.NewPCG(seed, 0)), rand.New(rand.NewPCG(seed, 1)), 0)
		jsonForm(&f2, rand.New(rand.NewPCG(seed, 0)), rand.New(rand.NewPCG(seed, 2)), 0)
		c1, c2 := canonjson.Canonical([]byte(f1.String())), canonjson.Canonical([]byte(f2.String()))
		require.Equal(t, string(c1), string(c2), "seed %d: %s and %s", seed, f1.String(), f2.String())
		require.True(t, json.Valid(c1), "seed %d: %s", seed, c1)
		var want, got any
		require.NoError(t, json.Unmarshal([]byte(f1.String()), &want))
		require.NoError(t, json.Unmarshal(c1, &got))
		require.Equal(t, want, got, "seed %d: %s decodes otherwise than %s", seed, c1, f1.String())
	}
}
