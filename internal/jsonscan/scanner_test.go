package jsonscan

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNumberMatchesEncodingJSON: a number the Scanner reads is one JSON
// value to encoding/json, and one it refuses is not.
func TestNumberMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"0", "-0", "1", "-1", "10", "1.5", "-1.5e3", "1E+2", "1e-2", "0.0",
		"01", "-", "+1", "1.", ".5", "1e", "1e+", "--1", "0x1", "1.5e3.2", "NaN", "",
	} {
		s := New([]byte(in))
		ok := s.Number() && s.End()
		require.Equal(t, json.Valid([]byte(in)), ok, "%q", in)
	}
}

// TestScannerObjects reads objects and arrays, the literals and names, as
// the fast decoders read them, and gives up on what JSON does not allow.
func TestScannerObjects(t *testing.T) {
	t.Parallel()
	s := New([]byte(` { "a" : [ true , false , null ] , "b\u0063" : 1, "c":{ } } `))
	more, ok := s.BeginObject()
	require.True(t, ok && more)
	name, ok := s.Name()
	require.True(t, ok)
	require.Equal(t, "a", string(name))
	more, ok = s.BeginArray()
	require.True(t, ok && more)
	v, ok := s.Bool()
	require.True(t, ok && v)
	more, ok = s.NextElement()
	require.True(t, ok && more)
	v, ok = s.Bool()
	require.True(t, ok && !v)
	more, ok = s.NextElement()
	require.True(t, ok && more)
	require.True(t, s.Null())
	more, ok = s.NextElement()
	require.True(t, ok && !more)
	more, ok = s.NextMember()
	require.True(t, ok && more)
	_, ok = s.Name()
	require.False(t, ok, "a name with escapes is not read")

	s = New([]byte(`{"c":{ },"d":[]}`))
	_, _ = s.BeginObject()
	_, _ = s.Name()
	require.True(t, s.EmptyObject())
	more, ok = s.NextMember()
	require.True(t, ok && more)
	_, _ = s.Name()
	more, ok = s.BeginArray()
	require.True(t, ok && !more)
	more, ok = s.NextMember()
	require.True(t, ok && !more)
	require.True(t, s.End())

	// One member, read as the fast decoders read it; each of these has
	// something JSON does not allow, or that the reader does not read.
	member := func(s *Scanner, read func(*Scanner) bool) bool {
		if more, ok := s.BeginObject(); !ok || !more {
			return false
		}
		if _, ok := s.Name(); !ok || !read(s) {
			return false
		}
		more, ok := s.NextMember()
		return ok && !more && s.End()
	}
	boolean := func(s *Scanner) bool { _, ok := s.Bool(); return ok }
	for _, tc := range []struct {
		in   string
		read func(*Scanner) bool
	}{
		{`{"a" 1}`, (*Scanner).Number},
		{`{"a":1;}`, (*Scanner).Number},
		{`{"a":1}}`, (*Scanner).Number},
		{`{"a\n":1}`, (*Scanner).Number},
		{"{\"a\x01\":1}", (*Scanner).Number},
		{`{a:1}`, (*Scanner).Number},
		{`{"a":tru}`, boolean},
		{`{"a":truex}`, boolean},
		{`{"a":nul}`, (*Scanner).Null},
		{`{"a":{"b":1}}`, (*Scanner).EmptyObject},
		{`{"a":[]}`, (*Scanner).EmptyObject},
	} {
		s := New([]byte(tc.in))
		require.False(t, member(&s, tc.read), "%s", tc.in)
	}
	for _, in := range []string{`{"a":1}`, `{"a":true}`, `{"a":null}`, `{"a":{}}`} {
		s := New([]byte(in))
		read := map[byte]func(*Scanner) bool{'1': (*Scanner).Number, 't': boolean, 'n': (*Scanner).Null, '{': (*Scanner).EmptyObject}[in[5]]
		require.True(t, member(&s, read), "%s", in)
	}
}

// TestMembersReadsEachKnownNameOnce: Members gives the bits of the names
// met, and gives up on a name it is not told of, a name met twice, a value
// not read and bad syntax.
func TestMembersReadsEachKnownNameOnce(t *testing.T) {
	t.Parallel()
	members := func(in string) (uint, bool) {
		s := New([]byte(in))
		seen, ok := s.Members(func(name []byte) (uint, bool) {
			switch string(name) {
			case "a":
				_, ok := s.Bool()
				return 1, ok
			case "b":
				return 2, s.Null()
			}
			return 0, false
		})
		return seen, ok && s.End()
	}
	for _, c := range []struct {
		in   string
		seen uint
		ok   bool
	}{
		{`{}`, 0, true},
		{` { "a" : true , "b" : null } `, 3, true},
		{`{"b":null}`, 2, true},
		{`{"a":true,"a":false}`, 0, false},
		{`{"a":true,"c":1}`, 0, false},
		{`{"a":1}`, 0, false},
		{`{"a":true,}`, 0, false},
		{`{"a":true`, 0, false},
		{`{"\u0061":true}`, 0, false},
		{`[]`, 0, false},
	} {
		seen, ok := members(c.in)
		require.Equal(t, c.ok, ok, "%s", c.in)
		require.Equal(t, c.seen, seen, "%s", c.in)
	}
}
