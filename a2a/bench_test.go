package a2a_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/internal/jsonrpc"
)

// Typical artifact chunks as js 1.3.0 sends them, in each dialect, and as
// js 0.3.14 sends them over HTTP+JSON (testdata/rest/js-0.3.14-rest-stream-hello.txt).
// Over HTTP+JSON 1.0 sends the same object as over JSON-RPC.
var (
	benchArtifact03     = []byte(`{"kind":"artifact-update","taskId":"6a799648-30b9-4e70-87fa-d9d210d16cc3","contextId":"b31c51cb-5a60-40be-ae0c-dbbee0aaf5a3","artifact":{"artifactId":"5ea3272b-c35e-4652-b4fd-91d73f0c756a","parts":[{"kind":"text","text":"chunk-2 of the streamed report","metadata":{}}],"metadata":{}},"append":true,"lastChunk":true,"metadata":{}}`)
	benchArtifact10     = []byte(`{"artifactUpdate":{"taskId":"45cca664-8eb5-41df-a5b8-4751ba90c17b","contextId":"dc471aba-e1b1-45fa-9368-8f43db5dcc27","artifact":{"artifactId":"ee6201aa-c32c-4c5f-afae-b16d97c60692","parts":[{"text":"chunk-2 of the streamed report","metadata":{},"mediaType":"text/plain"}],"metadata":{}},"append":true,"lastChunk":true,"metadata":{}}}`)
	benchArtifact03REST = []byte(`{"artifactUpdate":{"taskId":"d3129619-12f1-4813-b8db-b884a03f3ea0","contextId":"1dd87d71-a7a9-40dd-acaf-23bde28988cc","artifact":{"artifactId":"48c0be8e-ee1a-4f51-8c73-b2b0448e8bf9","parts":[{"text":"chunk-2 of the streamed report"}]},"append":true,"lastChunk":true}}`)
)

func BenchmarkDecodeEvent(b *testing.B) {
	for _, bc := range []struct {
		name string
		in   []byte
	}{
		{"artifact-0.3", benchArtifact03},
		{"artifact-1.0", benchArtifact10},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.in)))
			for b.Loop() {
				if _, err := (a2a.Codec{}).DecodeEvent(bc.in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeEventPerWire decodes the data line of each binding's stream
// with the decoder of that (version, binding).
func BenchmarkDecodeEventPerWire(b *testing.B) {
	for _, bc := range []struct {
		name string
		v    a2a.Version
		bind a2a.Binding
		in   []byte
	}{
		{"artifact-0.3-jsonrpc", a2a.V03, a2a.BindingJSONRPC, benchArtifact03},
		{"artifact-0.3-rest", a2a.V03, a2a.BindingHTTPJSON, benchArtifact03REST},
		{"artifact-1.0-jsonrpc", a2a.V10, a2a.BindingJSONRPC, benchArtifact10},
		{"artifact-1.0-rest", a2a.V10, a2a.BindingHTTPJSON, benchArtifact10},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.in)))
			for b.Loop() {
				if _, err := (a2a.Codec{Version: bc.v, Binding: bc.bind}).DecodeEvent(bc.in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEventDecoder decodes the same data lines with one EventDecoder,
// as a stream does.
func BenchmarkEventDecoder(b *testing.B) {
	for _, bc := range []struct {
		name string
		v    a2a.Version
		in   []byte
	}{
		{"artifact-0.3-rest", a2a.V03, benchArtifact03REST},
		{"artifact-1.0-rest", a2a.V10, benchArtifact10},
	} {
		b.Run(bc.name, func(b *testing.B) {
			d := a2a.NewEventDecoder(a2a.Codec{Version: bc.v, Binding: a2a.BindingHTTPJSON})
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.in)))
			for b.Loop() {
				if _, err := d.Decode(bc.in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkJSONRPCEventDecoder is the JSON-RPC counterpart of
// BenchmarkEventDecoder: the same results in a JSON-RPC envelope, read with
// it by the binding's decoder (jsonrpc.StreamDecoder).
func BenchmarkJSONRPCEventDecoder(b *testing.B) {
	for _, bc := range []struct {
		name string
		in   []byte
	}{
		{"artifact-0.3", benchArtifact03},
		{"artifact-1.0", benchArtifact10},
	} {
		in := []byte(`{"jsonrpc":"2.0","id":1,"result":` + string(bc.in) + `}`)
		b.Run(bc.name, func(b *testing.B) {
			d := jsonrpc.NewStreamDecoder(a2a.V10)
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if _, _, err := d.Decode(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncodeEvent(b *testing.B) {
	ev, err := a2a.Codec{}.DecodeEvent(benchArtifact10)
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		out, err := a2a.Codec{Version: v}.EncodeEvent(ev)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("artifact-"+v.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(out)))
			for b.Loop() {
				if _, err := (a2a.Codec{Version: v}).EncodeEvent(ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	out, err := a2a.Codec{Version: a2a.V03, Binding: a2a.BindingHTTPJSON}.EncodeEvent(ev)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("artifact-0.3-rest", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(out)))
		for b.Loop() {
			if _, err := (a2a.Codec{Version: a2a.V03, Binding: a2a.BindingHTTPJSON}).EncodeEvent(ev); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The decode floor's structs, as bench/cmd/a2abench defines them: the
// fields of an artifact update a client needs at least, which one
// json.Unmarshal of each data line decodes.
type (
	floor03 struct {
		ID     string `json:"id"`
		Result struct {
			Kind     string `json:"kind"`
			TaskID   string `json:"taskId"`
			Artifact struct {
				ArtifactID string `json:"artifactId"`
				Parts      []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"artifact"`
		} `json:"result"`
	}
	floor10 struct {
		ID     string `json:"id"`
		Result struct {
			ArtifactUpdate *struct {
				TaskID   string `json:"taskId"`
				Artifact struct {
					ArtifactID string `json:"artifactId"`
					Parts      []struct {
						Text string `json:"text"`
					} `json:"parts"`
				} `json:"artifact"`
			} `json:"artifactUpdate"`
		} `json:"result"`
	}
)

// BenchmarkFastDecodeVsFloor sets the fast decoders, the binding's
// StreamDecoder over JSON-RPC and the EventDecoder over HTTP+JSON, each
// reading the whole model of the event, against the decode floor of
// bench/: one json.Unmarshal of the same data into its small struct.
func BenchmarkFastDecodeVsFloor(b *testing.B) {
	rpc := func(res []byte) []byte {
		return []byte(`{"jsonrpc":"2.0","id":"1faab19d-2b15-47fc-bd65-fee8174ca091","result":` + string(res) + `}`)
	}
	for _, bc := range []struct {
		name  string
		c     a2a.Codec
		in    []byte
		floor func() any
	}{
		{"0.3", a2a.Codec{Version: a2a.V03}, rpc(benchArtifact03), func() any { return new(floor03) }},
		{"1.0", a2a.Codec{Version: a2a.V10}, rpc(benchArtifact10), func() any { return new(floor10) }},
		{"rest-0.3", a2a.Codec{Version: a2a.V03, Binding: a2a.BindingHTTPJSON}, benchArtifact03REST, func() any { return new(floor10) }},
		{"rest-1.0", a2a.Codec{Version: a2a.V10, Binding: a2a.BindingHTTPJSON}, benchArtifact10, func() any { return new(floor10) }},
	} {
		b.Run(bc.name+"/fast", func(b *testing.B) {
			decode := a2a.NewEventDecoder(bc.c).Decode
			if bc.c.Binding != a2a.BindingHTTPJSON {
				d := jsonrpc.NewStreamDecoder(bc.c.Version)
				decode = func(data []byte) (a2a.Event, error) {
					_, ev, err := d.Decode(data)
					return ev, err
				}
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.in)))
			for b.Loop() {
				if _, err := decode(bc.in); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bc.name+"/json.Unmarshal-floor", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.in)))
			for b.Loop() {
				if err := json.Unmarshal(bc.in, bc.floor()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTaskApplyMessages folds n agent messages with distinct IDs into
// an empty task, as an application folds a long conversation's stream, then
// sends each again (a revision, found by its ID): the cost of finding a
// message in the history by its ID.
func BenchmarkTaskApplyMessages(b *testing.B) {
	for _, n := range []int{100, 2000, 20000} {
		msgs := make([]a2a.Message, n)
		for i := range msgs {
			msgs[i] = a2a.Message{ID: "m-" + strconv.Itoa(i), Role: a2a.RoleAgent, Parts: []a2a.Part{a2a.TextPart("word ")}}
		}
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var t a2a.Task
				for i := range msgs {
					t.Apply(&msgs[i])
				}
				for i := range msgs {
					t.Apply(&a2a.MessageRevision{Message: &msgs[i]})
				}
			}
		})
	}
}
