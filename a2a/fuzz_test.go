package a2a_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/a2astream/a2astream/a2a"
)

// FuzzUnmarshalEvent checks that decoding never panics, and that whatever
// decodes can be written in both versions and read back to a model that
// writes the very same bytes again.
func FuzzUnmarshalEvent(f *testing.F) {
	for _, results := range captureResults(f) {
		for _, r := range results {
			f.Add(r)
		}
	}
	goldens, err := filepath.Glob(filepath.Join("testdata", "golden", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, g := range goldens {
		b, err := os.ReadFile(g)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"raw":"-_8"},{"data":{"h":"<b>"}},{"text":"t","data":null}]}}`))
	f.Add([]byte(`{"kind":"status-update","taskId":"t","contextId":"c","status":{"state":"TASK_STATE_CANCELLED","timestamp":"2026-11-22T04:52:44.1+02:00"},"final":true,"metadata":{"a":[1,{"b":null}]}}`))
	f.Add([]byte(`{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"file","file":{"bytes":"aGk=","uri":"u","name":"n"}}]}`))

	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := a2a.UnmarshalEvent(data)
		if err != nil {
			return
		}
		for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
			b1, err := a2a.MarshalEvent(v, ev)
			if err != nil {
				t.Fatalf("MarshalEvent(%s) of decoded %s: %v", v, data, err)
			}
			again, err := a2a.UnmarshalEvent(b1)
			if err != nil {
				t.Fatalf("UnmarshalEvent(%s) of our own %s encoding: %v", b1, v, err)
			}
			b2, err := a2a.MarshalEvent(v, again)
			if err != nil {
				t.Fatalf("MarshalEvent(%s) of re-decoded %s: %v", v, b1, err)
			}
			if !bytes.Equal(b1, b2) {
				t.Fatalf("round trip in %s not stable:\ninput  %s\ngot    %s\nwant   %s", v, data, b2, b1)
			}
		}
	})
}
