package a2agrpc

import (
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	pbv1 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
)

// TestMisreadFindsKnownFieldsOfTheWrongWireType: a unary answer whose bytes
// give a known field the wrong wire type, at the top or inside a task, is
// refused (a fourth stranger round's F5: a ListTasks page of tasks sent as
// a number read as an empty, complete listing); a field of a number the
// proto does not declare (an agent's newer field) is not.
func TestMisreadFindsKnownFieldsOfTheWrongWireType(t *testing.T) {
	rows := []struct {
		name  string
		bytes []byte
		bad   bool
	}{
		{"tasks sent as a number", []byte{0x08, 0x01}, true},
		{"a task's id sent as a number", []byte{0x0a, 0x02, 0x08, 0x01}, true},
		{"the page size sent as bytes", []byte{0x1a, 0x01, 'x'}, true},
		{"a field of a newer proto", []byte{0xb8, 0x3e, 0x01}, false},
		{"a newer field inside a task", []byte{0x0a, 0x03, 0xb8, 0x3e, 0x01}, false},
		{"a task as sent", []byte{0x0a, 0x05, 0x0a, 0x03, 't', '-', '1', 0x12, 0x00}, false},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			var m pbv1.ListTasksResponse
			require.NoError(t, proto.Unmarshal(r.bytes, &m), "proto decodes it")
			err := misread(m.ProtoReflect())
			if r.bad {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
		})
	}
}

// FuzzMisread: any bytes proto decodes as a ListTasks answer are read by
// misread without a panic, and an answer proto encoded itself is never
// refused.
func FuzzMisread(f *testing.F) {
	f.Add([]byte{0x08, 0x01})
	f.Add([]byte{0x0a, 0x05, 0x0a, 0x03, 't', '-', '1', 0x12, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		var m pbv1.ListTasksResponse
		if proto.Unmarshal(b, &m) != nil {
			return
		}
		_ = misread(m.ProtoReflect())
		again, err := proto.Marshal(&m)
		if err != nil {
			return
		}
		var clean pbv1.ListTasksResponse
		if err := (proto.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(again, &clean); err != nil {
			return
		}
		canon, err := proto.Marshal(&clean)
		if err != nil {
			return
		}
		var back pbv1.ListTasksResponse
		if proto.Unmarshal(canon, &back) != nil {
			t.Fatalf("proto's own bytes do not decode")
		}
		if err := misread(back.ProtoReflect()); err != nil {
			t.Fatalf("proto's own encoding refused: %v", err)
		}
	})
}
