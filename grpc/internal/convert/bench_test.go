package convert

import (
	"testing"

	"google.golang.org/protobuf/proto"

	pb03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	pb10 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
)

// The common event of a stream, an artifact chunk of one text part, from
// the binary wire into the model: the unmarshal is grpc's, the conversion
// this package's.

func BenchmarkArtifactChunk10(b *testing.B) {
	data, _ := proto.Marshal(&pb10.StreamResponse{Payload: &pb10.StreamResponse_ArtifactUpdate{ArtifactUpdate: &pb10.TaskArtifactUpdateEvent{
		TaskId: "bff0492c-bf72-4b0b-8ac9-d35bf8bb82d2", ContextId: "b797c749-b41f-4038-b7b3-81997bb919d9", Append: true,
		Artifact: &pb10.Artifact{ArtifactId: "a1", Parts: []*pb10.Part{{Content: &pb10.Part_Text{Text: "a chunk of the answer, forty bytes long."}}}},
	}}})
	b.ReportAllocs()
	for b.Loop() {
		var r pb10.StreamResponse
		if err := proto.Unmarshal(data, &r); err != nil {
			b.Fatal(err)
		}
		if _, err := EventOf10(&r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkArtifactChunk03(b *testing.B) {
	data, _ := proto.Marshal(&pb03.StreamResponse{Payload: &pb03.StreamResponse_ArtifactUpdate{ArtifactUpdate: &pb03.TaskArtifactUpdateEvent{
		TaskId: "bff0492c-bf72-4b0b-8ac9-d35bf8bb82d2", ContextId: "b797c749-b41f-4038-b7b3-81997bb919d9", Append: true,
		Artifact: &pb03.Artifact{ArtifactId: "a1", Parts: []*pb03.Part{{Part: &pb03.Part_Text{Text: "a chunk of the answer, forty bytes long."}}}},
	}}})
	b.ReportAllocs()
	for b.Loop() {
		var r pb03.StreamResponse
		if err := proto.Unmarshal(data, &r); err != nil {
			b.Fatal(err)
		}
		if _, err := EventOf03(&r); err != nil {
			b.Fatal(err)
		}
	}
}

// The conversion alone.
func BenchmarkEventOf10(b *testing.B) {
	r := &pb10.StreamResponse{Payload: &pb10.StreamResponse_ArtifactUpdate{ArtifactUpdate: &pb10.TaskArtifactUpdateEvent{
		TaskId: "t", Artifact: &pb10.Artifact{ArtifactId: "a1", Parts: []*pb10.Part{{Content: &pb10.Part_Text{Text: "chunk"}}}},
	}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EventOf10(r); err != nil {
			b.Fatal(err)
		}
	}
}
