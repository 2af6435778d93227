package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/a2astream/a2astream/relay"
)

// noError fails t at once when err is not nil.
func noError(t *testing.T, err error, what string, args ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", fmt.Sprintf(what, args...), err)
	}
}

// isError fails t at once unless errors.Is(err, target).
func isError(t *testing.T, err, target error, what string, args ...any) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: got error %v; want %v", fmt.Sprintf(what, args...), err, target)
	}
}

// equal fails t at once unless got == want.
func equal[T comparable](t *testing.T, got, want T, what string, args ...any) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: got %v; want %v", fmt.Sprintf(what, args...), got, want)
	}
}

// entries makes the entries from..to (inclusive), each with a name and
// data of its own.
func entries(from, to uint64) []relay.Entry {
	var es []relay.Entry
	for s := from; s <= to; s++ {
		es = append(es, entry(s))
	}
	return es
}

func entry(seq uint64) relay.Entry {
	name := "delta"
	if seq%3 == 0 {
		name = "status"
	}
	return relay.Entry{Seq: seq, Name: name, Data: fmt.Appendf(nil, `{"seq":%d,"text":"part %d\u00e9"}`, seq, seq)}
}

// sameEntries fails t at once unless got holds exactly want, in order.
func sameEntries(t *testing.T, got, want []relay.Entry, what string, args ...any) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = got[i].Seq == want[i].Seq && got[i].Name == want[i].Name && bytes.Equal(got[i].Data, want[i].Data)
	}
	if !ok {
		t.Fatalf("%s: got entries %s; want %s", fmt.Sprintf(what, args...), seqs(got), seqs(want))
	}
}

func seqs(es []relay.Entry) string {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range es {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d:%s:%s", e.Seq, e.Name, e.Data)
	}
	b.WriteByte(']')
	return b.String()
}

// tail fails t unless the log's tail is want.
func tail(t *testing.T, l relay.Log, want uint64, what string) {
	t.Helper()
	got, err := l.Tail(t.Context())
	noError(t, err, "Tail %s", what)
	equal(t, got, want, "Tail %s", what)
}

// all reads every entry after after, in pages of 100.
func all(t *testing.T, l relay.Log, after uint64) []relay.Entry {
	t.Helper()
	var out []relay.Entry
	for {
		page, err := l.Read(t.Context(), after, 100)
		noError(t, err, "Read after %d", after)
		if len(page) == 0 {
			return out
		}
		out = append(out, page...)
		after = page[len(page)-1].Seq
	}
}
