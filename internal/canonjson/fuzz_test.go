package canonjson_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/a2astream/a2astream/internal/canonjson"
)

// FuzzCanonicalJSON checks Canonical against encoding/json on any bytes:
// what is valid JSON canonicalises to valid JSON that encoding/json reads as
// the same value, and canonicalising again changes nothing; two inputs with
// one canonical form are one value to encoding/json (numbers through
// float64, so that check is one way only); invalid JSON is returned as it
// is.
func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":[true,null,"x"]}`, `{"a":[null,"x",true],"b":1.0}`, `{"a":1,"a":2}`,
		`[1e2,100,1E+2,-0,0.0]`, `"\u00e9\ud800\n"`, `{"\u0061":{"z":{},"y":[]}}`,
		` {"k" : [ 9007199254740993 , 1.5e-400 ] } `, `{"a":}`, `[1,]`, `{}`, `null`,
	} {
		f.Add([]byte(s), []byte(s))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ca := canonjson.Canonical(a)
		if !json.Valid(a) {
			if !bytes.Equal(ca, a) {
				t.Fatalf("invalid JSON %q canonicalised to %q", a, ca)
			}
			return
		}
		if !json.Valid(ca) {
			t.Fatalf("%q canonicalised to invalid JSON %q", a, ca)
		}
		if again := canonjson.Canonical(ca); !bytes.Equal(again, ca) {
			t.Fatalf("not idempotent: %q → %q → %q", a, ca, again)
		}
		var va, vc any
		errA, errC := json.Unmarshal(a, &va), json.Unmarshal(ca, &vc)
		if (errA == nil) != (errC == nil) {
			t.Fatalf("%q (err %v) canonicalised to %q (err %v)", a, errA, ca, errC)
		}
		if errA == nil && !reflect.DeepEqual(va, vc) {
			t.Fatalf("%q canonicalised to %q, another value: %#v and %#v", a, ca, va, vc)
		}
		if !json.Valid(b) || !bytes.Equal(ca, canonjson.Canonical(b)) {
			return
		}
		var vb any
		if json.Unmarshal(b, &vb) == nil && errA == nil && !reflect.DeepEqual(va, vb) {
			t.Fatalf("%q and %q share the canonical form %q but are other values: %#v and %#v", a, b, ca, va, vb)
		}
	})
}
