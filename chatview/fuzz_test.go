package chatview_test

import (
	"encoding/json"
	"testing"

	"github.com/a2astream/a2astream/chatview"
)

// FuzzScreenJSON: whatever bytes UnmarshalJSON is given, it reads a Screen
// or returns an error; a Screen it read encodes to bytes that read back to
// the same encoding.
func FuzzScreenJSON(f *testing.F) {
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"opened":[{"kind":"artifact","id":"a1"},{"kind":"message","id":"m1"},{"kind":"status","id":"s1"}],"status":["s1"]}`))
	f.Add([]byte(`{"opened":[{"kind":"message","id":""}],"status":[""]}`))
	f.Add([]byte(`{"opened":[{"kind":"window","id":"w"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var sc chatview.Screen
		if err := json.Unmarshal(data, &sc); err != nil {
			return
		}
		first, err := json.Marshal(sc)
		if err != nil {
			t.Fatalf("a Screen read from %q does not encode: %v", data, err)
		}
		var again chatview.Screen
		if err := json.Unmarshal(first, &again); err != nil {
			t.Fatalf("a Screen's own encoding %q does not read back: %v", first, err)
		}
		second, err := json.Marshal(again)
		if err != nil {
			t.Fatal(err)
		}
		if string(first) != string(second) {
			t.Fatalf("encodings differ: %s then %s", first, second)
		}
	})
}
