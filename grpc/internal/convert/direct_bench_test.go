package convert

import "testing"

// The same artifact chunk as BenchmarkArtifactChunk10 and 03, from the
// binary wire into the model through the StreamDecoder: the chunks of one
// stream, each with the IDs of the one before.

func BenchmarkArtifactChunk10Direct(b *testing.B) { benchDirect(b, false) }

func BenchmarkArtifactChunk03Direct(b *testing.B) { benchDirect(b, true) }

func benchDirect(b *testing.B, v03 bool) {
	data := chunkBytes(b, v03, "a chunk of the answer, forty bytes long.")
	d := NewStreamDecoder(v03)
	b.ReportAllocs()
	for b.Loop() {
		if _, u, err := d.Decode(data); u != nil || err != nil {
			b.Fatal(u, err)
		}
	}
}
