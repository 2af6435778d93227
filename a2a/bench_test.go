package a2a_test

import (
	"testing"

	"github.com/a2astream/a2astream/a2a"
)

// Typical artifact chunks as js 1.3.0 sends them, in each dialect.
var (
	benchArtifact03 = []byte(`{"kind":"artifact-update","taskId":"6a799648-30b9-4e70-87fa-d9d210d16cc3","contextId":"b31c51cb-5a60-40be-ae0c-dbbee0aaf5a3","artifact":{"artifactId":"5ea3272b-c35e-4652-b4fd-91d73f0c756a","parts":[{"kind":"text","text":"chunk-2 of the streamed report","metadata":{}}],"metadata":{}},"append":true,"lastChunk":true,"metadata":{}}`)
	benchArtifact10 = []byte(`{"artifactUpdate":{"taskId":"45cca664-8eb5-41df-a5b8-4751ba90c17b","contextId":"dc471aba-e1b1-45fa-9368-8f43db5dcc27","artifact":{"artifactId":"ee6201aa-c32c-4c5f-afae-b16d97c60692","parts":[{"text":"chunk-2 of the streamed report","metadata":{},"mediaType":"text/plain"}],"metadata":{}},"append":true,"lastChunk":true,"metadata":{}}}`)
)

func BenchmarkUnmarshalEvent(b *testing.B) {
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
				if _, err := a2a.UnmarshalEvent(bc.in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkMarshalEvent(b *testing.B) {
	ev, err := a2a.UnmarshalEvent(benchArtifact10)
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range []a2a.Version{a2a.V03, a2a.V10} {
		out, err := a2a.MarshalEvent(v, ev)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("artifact-"+v.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(out)))
			for b.Loop() {
				if _, err := a2a.MarshalEvent(v, ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
