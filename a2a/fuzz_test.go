package a2a_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/jsonrpc"
)

// FuzzDecodeEvent checks that the lenient decoding of the zero Codec never
// panics, and that whatever decodes can be written in both versions and
// read back to a model that writes the very same bytes again.
func FuzzDecodeEvent(f *testing.F) {
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
		ev, err := a2a.Codec{}.DecodeEvent(data)
		if err != nil {
			return
		}
		for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
			b1, err := a2a.Codec{Version: v}.EncodeEvent(ev)
			if err != nil {
				t.Fatalf("EncodeEvent(%s) of decoded %s: %v", v, data, err)
			}
			again, err := a2a.Codec{}.DecodeEvent(b1)
			if err != nil {
				t.Fatalf("DecodeEvent(%s) of our own %s encoding: %v", b1, v, err)
			}
			b2, err := a2a.Codec{Version: v}.EncodeEvent(again)
			if err != nil {
				t.Fatalf("EncodeEvent(%s) of re-decoded %s: %v", v, b1, err)
			}
			if !bytes.Equal(b1, b2) {
				t.Fatalf("round trip in %s not stable:\ninput  %s\ngot    %s\nwant   %s", v, data, b2, b1)
			}
		}
	})
}

// FuzzDecodeEventPerWire decodes any input with the decoders of every
// Codec, each (version, binding) pair: Codec.DecodeEvent and an
// EventDecoder (over JSON-RPC, the binding's stream decoder, which reads the
// result in its response), which must agree. Whatever decodes must encode in that pair, and
// read back to a model that writes the very same bytes again. The 0.3
// HTTP+JSON dialect reads nothing it cannot write, so there the model read
// back must equal the first one too.
func FuzzDecodeEventPerWire(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "rest", "js-*"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		switch {
		case strings.HasSuffix(name, ".headers.txt"):
		case bytes.HasPrefix(b, []byte("data:")):
			for _, ev := range readSSE(f, b) {
				f.Add(ev.data)
			}
		default:
			f.Add(b)
		}
	}
	for _, results := range captureResults(f) {
		f.Add(results[0])
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
	f.Add([]byte(`{"message":` + proto03Message + `}`))
	f.Add([]byte(`{"message":{"messageId":"m","role":"ROLE_USER","content":[{"data":{}},{"data":{"data":null}},{"data":[1]},{"kind":"data","data":{"data":2}}]}}`))
	f.Add([]byte(`{"artifactUpdate":{"artifact":{"artifactId":"a","parts":[{"file":{"fileWithUri":"u","fileWithBytes":"-_8","uri":"v","name":"n"},"metadata":{"k":[]}},{"file":{}},{"text":"t","data":{"data":{"x":"<b>"}}}]},"append":true}}`))
	f.Add([]byte(`{"kind":"status-update","taskId":"t","status":{"state":"cancelled","message":{"role":"user","content":[{"text":"a"}],"parts":[{"kind":"text","text":"b"}]}},"final":true}`))

	pairs := []struct {
		v a2a.Version
		b a2a.Binding
	}{
		{a2a.V03, a2a.BindingJSONRPC}, {a2a.V03, a2a.BindingHTTPJSON},
		{a2a.V10, a2a.BindingJSONRPC}, {a2a.V10, a2a.BindingHTTPJSON},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, p := range pairs {
			c := a2a.Codec{Version: p.v, Binding: p.b}
			ev, err := c.DecodeEvent(data)
			// An EventDecoder reads the same, and carries nothing over from
			// one input to the next.
			decode := a2a.NewEventDecoder(c).Decode
			in := data
			if p.b == a2a.BindingJSONRPC {
				// Over JSON-RPC each result comes in its response, which
				// the binding's decoder (jsonrpc.StreamDecoder) reads with
				// the result. Data that is not one JSON value could make
				// another response of it (`1,"result":{…}`): it is only
				// decoded, for panics.
				d := jsonrpc.NewStreamDecoder(p.v)
				decode = func(b []byte) (a2a.Event, error) {
					_, ev, err := d.Decode(b)
					return ev, err
				}
				in = slices.Concat([]byte(`{"jsonrpc":"2.0","id":1,"result":`), data, []byte(`}`))
				if !json.Valid(data) {
					_, _ = decode(in)
					continue
				}
			}
			for range 2 {
				dev, derr := decode(in)
				if (err == nil) != (derr == nil) || !reflect.DeepEqual(ev, dev) {
					t.Fatalf("EventDecoder(%s, %s) of %q = %#v, %v; DecodeEvent gives %#v, %v", p.v, p.b, data, dev, derr, ev, err)
				}
			}
			if err != nil {
				continue
			}
			b1, err := a2a.Codec{Version: p.v, Binding: p.b}.EncodeEvent(ev)
			if err != nil {
				t.Fatalf("EncodeEvent(%s, %s) of decoded %s: %v", p.v, p.b, data, err)
			}
			again, err := a2a.Codec{Version: p.v, Binding: p.b}.DecodeEvent(b1)
			if err != nil {
				t.Fatalf("DecodeEvent(%s, %s) of our own %s: %v", p.v, p.b, b1, err)
			}
			b2, err := a2a.Codec{Version: p.v, Binding: p.b}.EncodeEvent(again)
			if err != nil {
				t.Fatalf("EncodeEvent(%s, %s) of re-decoded %s: %v", p.v, p.b, b1, err)
			}
			if !bytes.Equal(b1, b2) {
				t.Fatalf("round trip in %s over %s not stable:\ninput  %s\ngot    %s\nwant   %s", p.v, p.b, data, b2, b1)
			}
			if p.v == a2a.V03 && p.b == a2a.BindingHTTPJSON && !reflect.DeepEqual(ev, again) {
				t.Fatalf("0.3 HTTP+JSON model changed in a round trip:\ninput %s\nwrote %s\nfirst %#v\nthen  %#v", data, b1, ev, again)
			}
		}
	})
}

// FuzzRetryHint reads retry hints from any input, in every place a hint
// comes from: error data, an HTTP+JSON error body, a Retry-After header's
// value (read now, and from the earliest and latest times there are). No
// panic, a delay within [0, MaxRetryHint], no delay without retryability,
// and the same hint from an error's data as from the bare error object
// that carries it. (The links of a chain of agents are checked alike by
// package chain's FuzzChainOf, seeded with these inputs too.)
func FuzzRetryHint(f *testing.F) {
	for _, s := range []string{
		`{"retryable":true,"retryAfter":5}`, `{"retryAfter":"1e9"}`, `{"retryable":false}`,
		`[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.5s"}]`,
		`[{"@type":"x/google.rpc.RetryInfo","retryDelay":{"seconds":"3","nanos":999999999}}]`,
		`{"error":{"code":503,"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2s"}]}}`,
		`null`, `"x"`, `[1,{}]`,
		`{"retryable":true,"retryAfter":18446744074}`, `[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"9223372037s"}]`,
		`{"agent":"a","retryable":true,"retryAfter":9223372037,"downstream":{"code":-32603,"message":"m","data":{"agent":"b","retryable":true,"retryAfter":18446744074}}}`,
		`7`, `9223372037`, `18446744074`, `99999999999999999999999999`, `Fri, 31 Dec 9999 23:59:59 GMT`, `Mon, 01 Jan 0001 00:00:00 GMT`,
		`Sunday, 01-Mar-26 12:00:13 GMT`, `Sun Mar  1 12:00:13 2026`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(what string, ok bool, d time.Duration) {
			if d < 0 || d > a2a.MaxRetryHint {
				t.Fatalf("%s of %q: delay %v out of range", what, data, d)
			}
			if !ok && d != 0 {
				t.Fatalf("%s of %q: delay %v without retryability", what, data, d)
			}
		}
		e := &a2a.RPCError{Code: a2a.CodeInternalError, Data: data}
		ok, d := e.Retryable(), e.RetryAfter()
		check("RPCError", ok, d)
		hok, hd := a2a.ParseHTTPRetry(data)
		check("ParseHTTPRetry", hok, hd)
		for _, now := range []time.Time{time.Now(), {}, time.Unix(1<<62, 0)} {
			rd, rok := a2a.ParseRetryAfter(string(data), now)
			check("ParseRetryAfter at "+now.String(), rok, rd)
		}
		if !json.Valid(data) {
			return
		}
		body, err := json.Marshal(map[string]json.RawMessage{"code": []byte("-32603"), "data": data})
		if err != nil {
			return
		}
		if bok, bd := a2a.ParseHTTPRetry(body); bok != ok || bd != d {
			t.Fatalf("data %q: RPCError says (%v, %v), its bare object (%v, %v)", data, ok, d, bok, bd)
		}
	})
}

// FuzzFastDecodeMatchesEncodingJSON is the differential check of the fast
// decoders: for any input, on each of the four wires, EventDecoder.Decode
// (a decoder written for the hot shapes, falling back to encoding/json for
// the rest) gives the event Codec.DecodeEvent (encoding/json) gives, or
// both fail; over JSON-RPC the binding's StreamDecoder, with its own fast
// path for the envelope, reads each response as encoding/json reads the
// whole of it (see requireDecodersAgree). Seeded with every capture under
// testdata, the corpora of the other decoding targets, and the corners of
// strings and of the shapes the fast path reads or leaves.
func FuzzFastDecodeMatchesEncodingJSON(f *testing.F) {
	for _, events := range repositoryCaptures(f) {
		for _, data := range events {
			f.Add(data)
		}
	}
	for _, target := range []string{"FuzzDecodeEvent", "FuzzDecodeEventPerWire"} {
		names, err := filepath.Glob(filepath.Join("testdata", "fuzz", target, "*"))
		if err != nil {
			f.Fatal(err)
		}
		for _, name := range names {
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			_, lit, ok := strings.Cut(string(b), "[]byte(")
			if !ok {
				f.Fatalf("%s: not a []byte input", name)
			}
			data, err := strconv.Unquote(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(lit), ")")))
			if err != nil {
				f.Fatalf("%s: %v", name, err)
			}
			f.Add([]byte(data))
		}
	}
	for _, s := range fastDecodeCorners {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		requireDecodersAgree(t, data)
	})
}

// fastDecodeCorners are inputs at the edges of what the fast path reads:
// strings that encoding/json unescapes or repairs, and shapes one step
// away from those it reads.
var fastDecodeCorners = []string{
	`{"kind":"artifact-update","taskId":"t\"\\\/\b\f\n\r\t","contextId":"\u00e9\u20ac\ud83d\ude00","artifact":{"artifactId":"a","parts":[{"kind":"text","text":"\ud800\udbff\udfff\udc00x\ud800"}]}}`,
	"{\"artifactUpdate\":{\"taskId\":\"\xff\xfe\",\"artifact\":{\"parts\":[{\"text\":\"\xed\xa0\x80 \xc3\xa9 \xf0\x9f\x98\x80 \xf0\x9f\x98\"}]}}}",
	`{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"a"},{"text":"b","mediaType":"text/plain","filename":"f"}]},"timestamp":"2026-11-22T02:52:44.1+02:00"},"final":true}}`,
	`{"kind":"status-update","taskId":"t","status":{"state":"input-required","message":{"kind":"message","messageId":"m","role":"agent","content":[{"text":"q"}]}},"final":true,"metadata":{ }}`,
	`{"kind":"status-update","status":{"message":{"parts":[],"content":[]}}}`,
	`{"kind":"status-update","status":{"message":{"content":[]}}}`,
	`{"kind":"status-update","status":null}`,
	`{"kind":"artifact-update","TaskId":"t"}`,
	`{"kind":"artifact-update","taskId":"t","taskId":"u"}`,
	`{"kind":"artifact-update","taskId":5}`,
	`{"kind":"artifact-update","\u0074askId":"t"}`,
	`{"kind":"artifact-update","metadata":{"k":1}}`,
	`{"kind":"artifact-update","artifact":{"parts":[{"kind":"data","data":{}}]}}`,
	`{"kind":"artifact-update","artifact":{"parts":[{"file":{"uri":"u"}}]}}`,
	`{"kind":"artifact-update","artifact":{"parts":[{"text":"1"},{"text":"2"},{"text":"3"},{"text":"4"},{"text":"5"}]}}`,
	`{"kind":"artifact-update","final":true}`,
	`{"kind":"status-update","append":true}`,
	`{"kind":"task","id":"t","status":{"state":"working"}}`,
	`{"artifactUpdate":{"kind":"artifact-update"}}`,
	`{"artifactUpdate":{"artifactUpdate":{}}}`,
	`{"artifactUpdate":{},"statusUpdate":{}}`,
	`{"artifactUpdate":{},"taskId":"t"}`,
	`{"artifactUpdate":null}`,
	` {"artifactUpdate":{}} ` + "\n",
	`{"artifactUpdate":{}} {}`,
	`{"artifactUpdate":{"append":tru}}`,
	`{"artifactUpdate":{"append":truex}}`,
	`{"artifactUpdate":{"taskId":"\u12"}}`,
	`{"artifactUpdate":{"taskId":"\x"}}`,
	"{\"artifactUpdate\":{\"taskId\":\"a\tb\"}}",
	`{"jsonrpc":"2.0","id":-1.5e+3,"result":{"artifactUpdate":{}}}`,
	`{"jsonrpc":"2.0","id":01,"result":{"artifactUpdate":{}}}`,
	`{"jsonrpc":"2.0","id":null,"result":{"artifactUpdate":{}}  }  `,
	`{"result":{"artifactUpdate":{}},"jsonrpc":"2.0","id":"x"}`,
	`{"jsonrpc":"2.0","id":"x","result":{"artifactUpdate":{}},"error":{"code":1,"message":"m"}}`,
	`{"jsonrpc":"2.0","id":"x","id":"y","result":{"artifactUpdate":{}}}`,
	`{"jsonrpc":2,"id":"x","result":{"artifactUpdate":{}}}`,
	`{"jsonrpc":"2.0","id":"x","result":null}`,
	`{"jsonrpc":"2.0","id":"x","result":{"artifactUpdate":{}}}}`,
}
