package convert

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/a2astream/a2astream/a2a"
	pb03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	pb10 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
	"github.com/a2astream/a2astream/transport"
)

// The StreamDecoder must give what proto.Unmarshal into the generated
// StreamResponse and then EventOf10/EventOf03 give, for any bytes: the same
// event (require.Equal: reflect.DeepEqual, stricter than the model's own
// Part.Equal), or an error of the same kind. "The same kind" is: where
// proto.Unmarshal fails, StreamDecoder.Decode's unmarshalErr, with the same
// text (the codec returns it to grpc-go, which makes it the INTERNAL status
// it made of proto's error before); where the converter refuses the
// message, Decode's err, a *transport.ProtocolError with the same Reason
// and text. The fast path never makes an error of its own: any message it
// does not read as it is goes the generated way, so the errors are those
// of the generated way by construction, and the tests check it.

// generated is the reference: the generated message and the converter,
// called here directly, not through the StreamDecoder.
func generated(v03 bool, data []byte) (a2a.Event, error, error) {
	if v03 {
		var r pb03.StreamResponse
		if err := proto.Unmarshal(data, &r); err != nil {
			return nil, err, nil
		}
		ev, err := EventOf03(&r)
		return ev, nil, err
	}
	var r pb10.StreamResponse
	if err := proto.Unmarshal(data, &r); err != nil {
		return nil, err, nil
	}
	ev, err := EventOf10(&r)
	return ev, nil, err
}

// fastPath reports whether the fast path reads data.
func fastPath(v03 bool, data []byte) bool {
	var v eventView
	return v.parse(data, v03)
}

// otherChunk is decoded between two decodings of the same bytes, so that
// anything the decoder kept of one event would show in the next.
func otherChunk(t testing.TB, v03 bool) []byte {
	var b []byte
	var err error
	if v03 {
		b, err = proto.Marshal(&pb03.StreamResponse{Payload: &pb03.StreamResponse_ArtifactUpdate{ArtifactUpdate: &pb03.TaskArtifactUpdateEvent{
			TaskId: "other-task", ContextId: "other-context",
			Artifact: &pb03.Artifact{ArtifactId: "other", Name: "n", Parts: []*pb03.Part{{Part: &pb03.Part_Text{Text: "other text"}}}},
		}}})
	} else {
		b, err = proto.Marshal(&pb10.StreamResponse{Payload: &pb10.StreamResponse_ArtifactUpdate{ArtifactUpdate: &pb10.TaskArtifactUpdateEvent{
			TaskId: "other-task", ContextId: "other-context",
			Artifact: &pb10.Artifact{ArtifactId: "other", Name: "n", Parts: []*pb10.Part{{Content: &pb10.Part_Text{Text: "other text"}, MediaType: "text/html"}}},
		}}})
	}
	require.NoError(t, err)
	require.True(t, fastPath(v03, b))
	return b
}

// requireSameAsGenerated decodes data with one StreamDecoder twice, with
// another event between, and checks each result against the reference.
// It reports whether the fast path read data.
func requireSameAsGenerated(t testing.TB, v03 bool, data []byte) bool {
	want, wantUnmarshal, wantErr := generated(v03, data)
	d := NewStreamDecoder(v03)
	other := otherChunk(t, v03)
	for round := range 2 {
		got, unmarshalErr, err := d.Decode(data)
		requireSameError(t, wantUnmarshal, unmarshalErr, "v03 %v, round %d: unmarshal error of %x", v03, round, data)
		requireSameError(t, wantErr, err, "v03 %v, round %d: conversion error of %x", v03, round, data)
		if wantErr != nil {
			var want, got *transport.ProtocolError
			require.True(t, errors.As(wantErr, &want))
			require.True(t, errors.As(err, &got), "v03 %v: a *transport.ProtocolError: %v", v03, err)
			require.Equal(t, want.Reason, got.Reason)
		}
		require.Equal(t, want, got, "v03 %v, round %d: event of %x", v03, round, data)
		_, u, err := d.Decode(other)
		require.NoError(t, u)
		require.NoError(t, err)
	}
	return fastPath(v03, data)
}

func requireSameError(t testing.TB, want, got error, msgAndArgs ...any) {
	t.Helper()
	if want == nil {
		require.NoError(t, got, msgAndArgs...)
		return
	}
	require.Error(t, got, msgAndArgs...)
	require.Equal(t, want.Error(), got.Error(), msgAndArgs...)
}

// extraCaptures adds the seeds of the captures under the directory
// A2AGRPC_CAPTURES names, when it is set: a directory of
// <server>-v1.0/*.jsonl and <server>-v0.3/*.jsonl, as the project's shared
// notes on the gRPC binding hold them (a superset of testdata/captures).
func extraCaptures(t testing.TB) []seed {
	root := os.Getenv("A2AGRPC_CAPTURES")
	if root == "" {
		return nil
	}
	var out []seed
	for suffix, base := range map[string]uint8{"-v1.0": 0, "-v0.3": 3} {
		files, err := filepath.Glob(filepath.Join(root, "*"+suffix, "*.jsonl"))
		require.NoError(t, err)
		require.NotEmpty(t, files, "%s: no captures", root)
		out = append(out, seedsOf(t, files, base)...)
	}
	return out
}

// TestDirectDecodeMatchesGeneratedOnCaptures: every recorded result, read
// as the bytes of a StreamResponse of its version (a SendMessageResponse
// and a Task are bytes a StreamResponse reads too, so they are read as
// well, of both versions), decodes as the generated way decodes it; and
// every recorded stream event without a task or metadata goes the fast
// path.
func TestDirectDecodeMatchesGeneratedOnCaptures(t *testing.T) {
	seeds := append(captureSeeds(t), extraCaptures(t)...)
	var events, fast int
	for _, s := range seeds {
		for _, v03 := range []bool{false, true} {
			isFast := requireSameAsGenerated(t, v03, s.data)
			if s.kind != 0 && s.kind != 3 || v03 != (s.kind == 3) {
				continue
			}
			events++
			if isFast {
				fast++
				continue
			}
			// The events the fast path leaves: tasks, and events with
			// metadata or data parts.
			ev, _, err := generated(v03, s.data)
			require.NoError(t, err)
			require.True(t, hasMore(ev), "a recorded event left to the generated way: %#v", ev)
		}
	}
	t.Logf("%d recorded events, %d read by the fast path", events, fast)
	require.GreaterOrEqual(t, fast, 40)
}

// hasMore reports an event the fast path leaves by design: a task, or an
// event with metadata, a data part or a file part.
func hasMore(ev a2a.Event) bool {
	parts := func(ps []a2a.Part) bool {
		for _, p := range ps {
			if p.Metadata != nil || p.Data != nil {
				return true
			}
		}
		return false
	}
	msg := func(m *a2a.Message) bool { return m != nil && (m.Metadata != nil || parts(m.Parts)) }
	switch x := ev.(type) {
	case *a2a.Task:
		return true
	case *a2a.Message:
		return msg(x)
	case *a2a.StatusUpdate:
		return x.Metadata != nil || msg(x.Status.Message)
	case *a2a.ArtifactUpdate:
		return x.Metadata != nil || x.Artifact.Metadata != nil || parts(x.Artifact.Parts)
	}
	return false
}

// --- a table by hand, field by field ---

func tag(num protowire.Number, typ protowire.Type) []byte {
	return protowire.AppendTag(nil, num, typ)
}

func fstr(num protowire.Number, s string) []byte {
	return protowire.AppendString(tag(num, protowire.BytesType), s)
}

func fvar(num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(tag(num, protowire.VarintType), v)
}

func fmsg(num protowire.Number, fields ...[]byte) []byte {
	return protowire.AppendBytes(tag(num, protowire.BytesType), bytes.Join(fields, nil))
}

func cat(fields ...[]byte) []byte { return bytes.Join(fields, nil) }

// directCases are bytes by hand: each shape the fast path reads, and each
// it leaves to the generated way, with what the fast path must do of it.
// The same bytes are read as 1.0 and 0.3 (fast10, fast03).
func directCases() []struct {
	name           string
	data           []byte
	fast10, fast03 bool
} {
	text := fmsg(5, fstr(1, "hello")) // a message's text part: text 1 in both versions
	chunk := func(extra ...[]byte) []byte {
		return fmsg(4, cat(fstr(1, "t"), fstr(2, "c"), fmsg(3, cat(fstr(1, "a"), cat(extra...))), fvar(4, 1)))
	}
	parts10 := func(p ...[]byte) []byte { return cat(fstr(1, "a"), fmsg(4, cat(p...))) }
	artifact10 := func(art ...[]byte) []byte { return fmsg(4, cat(fstr(1, "t"), fmsg(3, cat(art...)))) }
	artifact03 := func(art ...[]byte) []byte { return fmsg(4, cat(fstr(1, "t"), fmsg(3, cat(art...)))) }
	status := func(st ...[]byte) []byte { return fmsg(3, cat(fstr(1, "t"), fstr(2, "c"), fmsg(3, cat(st...)))) }
	message := func(m ...[]byte) []byte { return fmsg(2, cat(m...)) }
	ts := func(f ...[]byte) []byte { return fmsg(3, cat(f...)) }
	return []struct {
		name           string
		data           []byte
		fast10, fast03 bool
	}{
		{"empty", nil, false, false},
		{"a task", fmsg(1, fstr(1, "t")), false, false},
		{"artifact chunk, no parts", chunk(), true, true},
		{"artifact chunk, 1.0 parts (a 0.3 description)", artifact10(parts10(fstr(1, "x"), fstr(6, "f.txt"), fstr(7, "text/plain"))), true, true},
		{"artifact chunk, 0.3 parts", artifact03(fstr(1, "a"), fstr(3, "name"), fstr(4, "desc"), fmsg(5, fstr(1, "x"))), false, true},
		{"artifact without artifact", fmsg(4, fstr(1, "t")), false, false},
		{"artifact of length 0", fmsg(4), false, false},
		{"status update of length 0", fmsg(3), true, true},
		{"message of length 0", fmsg(2), true, true},
		{"status without status", fmsg(3, fstr(1, "t")), true, true},
		{"status, state only", status(fvar(1, 2)), true, true},
		{"status, every state", status(fvar(1, 8)), true, true},
		{"status, state not in the proto", status(fvar(1, 9)), false, false},
		{"status, state as a huge varint", status(fvar(1, 1<<32+2)), false, false},
		{"status, state twice", status(fvar(1, 2), fvar(1, 3)), false, false},
		{"status, timestamp", status(fvar(1, 2), ts(fvar(1, 1764000000), fvar(2, 5))), true, true},
		{"status, timestamp of length 0", status(ts()), true, true},
		{"status, timestamp too late", status(ts(fvar(1, 253402300800))), true, true},
		{"status, timestamp negative nanos", status(ts(fvar(1, 1), fvar(2, uint64(1<<64-1)))), true, true},
		{"status, timestamp nanos too many", status(ts(fvar(1, 1), fvar(2, 1e9))), true, true},
		{"status, timestamp with an unknown field", status(ts(fvar(1, 1), fstr(9, "x"))), true, true},
		{"status, timestamp seconds as bytes", status(ts(fstr(1, "x"))), false, false},
		{"status, message", status(fmsg(2, fstr(1, "m"), fstr(2, "c"), fstr(3, "t"), fvar(4, 2), fmsg(5, fstr(1, "working")))), true, true},
		{"status, message of another role", status(fmsg(2, fvar(4, 3))), false, false},
		{"status, message with an empty Struct", status(fmsg(2, fmsg(6))), true, true},
		{"status, message with metadata", status(fmsg(2, fmsg(6, fmsg(1, fstr(1, "k"))))), false, false},
		{"status, message with extensions", status(fmsg(2, fstr(7, "urn:x"))), false, false},
		{"status, message with reference task IDs", status(fmsg(2, fstr(8, "t2"))), false, true},
		{"status update, final", fmsg(3, cat(fstr(1, "t"), fvar(4, 1))), false, true},
		{"status update, final as a big varint", fmsg(3, cat(fstr(1, "t"), fvar(4, 1<<40))), false, true},
		{"status update, metadata of length 0", fmsg(3, cat(fstr(1, "t"), fmsg(4), fmsg(5))), true, false},
		{"message", message(fstr(1, "m"), fvar(4, 1), text, text), true, true},
		{"message, 8 parts", message(bytes.Repeat(fmsg(5, fstr(1, "p")), 8)), true, true},
		{"message, 9 parts", message(bytes.Repeat(fmsg(5, fstr(1, "p")), 9)), false, false},
		{"message, part with no content", message(fmsg(5)), false, false},
		{"message, part with two contents", message(fmsg(5, fstr(1, "a"), fstr(3, "u"))), false, false},
		{"message, part with text twice", message(fmsg(5, fstr(1, "a"), fstr(1, "b"))), false, false},
		{"message, raw part", message(fmsg(5, fstr(2, "\xff\x00"))), true, false},
		{"message, empty raw part", message(fmsg(5, fstr(2, ""))), true, false},
		{"message, URL part", message(fmsg(5, fstr(3, "https://x/y"))), true, false},
		{"message, data part", message(fmsg(5, fmsg(4, fvar(4, 1)))), false, false},
		{"message, 0.3 file part", message(fmsg(5, fmsg(2, fstr(1, "https://x")))), true, false},
		{"message, text not UTF-8", message(fmsg(5, fstr(1, "a\xffb"))), false, false},
		{"message, ID not UTF-8", message(fstr(1, "\xc3")), false, false},
		{"message, ID twice", message(fstr(1, "a"), fstr(1, "b")), false, false},
		{"message, ID as a varint", message(fvar(1, 7)), false, false},
		{"message, unknown fields of every type", message(fvar(99, 1), fstr(100, "x"), protowire.AppendFixed32(tag(101, protowire.Fixed32Type), 1), protowire.AppendFixed64(tag(102, protowire.Fixed64Type), 1), fstr(1, "m")), true, true},
		{"message, unknown field at the largest number", message(fvar(protowire.MaxValidNumber, 1)), true, true},
		{"message, a group", message(tag(50, protowire.StartGroupType), tag(50, protowire.EndGroupType)), false, false},
		{"message and artifact: two members of the oneof", cat(message(), chunk()), false, false},
		{"message twice: merged there", cat(message(fstr(1, "a")), message(fstr(3, "t"))), false, false},
		{"unknown field beside the payload", cat(fvar(7, 1), chunk()), true, true},
		{"payload as a varint", fvar(4, 1), false, false},
		{"truncated", chunk()[:5], false, false},
		{"field number 0", cat(fvar(0, 1), chunk()), false, false},
		{"artifact, metadata", artifact10(fstr(1, "a"), fmsg(5, fmsg(1, fstr(1, "k"))), fmsg(6, fmsg(1, fstr(1, "k")))), false, false},
		{"artifact, parts as a varint", artifact10(fvar(4, 1)), false, false},
		{"artifact chunk, append as bytes", fmsg(4, cat(fmsg(3), fstr(4, ""))), false, false},
	}
}

func TestDirectDecodeByHand(t *testing.T) {
	for _, c := range directCases() {
		for _, v03 := range []bool{false, true} {
			fast := requireSameAsGenerated(t, v03, c.data)
			want := c.fast10
			if v03 {
				want = c.fast03
			}
			require.Equal(t, want, fast, "%s (v03 %v): the fast path reads it", c.name, v03)
		}
	}
}

// FuzzDirectDecodeMatchesGenerated reads the bytes as a 1.0 (even kind) or
// 0.3 (odd kind) StreamResponse: the StreamDecoder gives what the generated
// way gives, event or error.
func FuzzDirectDecodeMatchesGenerated(f *testing.F) {
	for _, s := range captureSeeds(f) {
		f.Add(uint8(0), s.data)
		f.Add(uint8(1), s.data)
	}
	for _, c := range directCases() {
		f.Add(uint8(0), c.data)
		f.Add(uint8(1), c.data)
	}
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		requireSameAsGenerated(t, kind%2 == 1, data)
	})
}

// TestDirectDecodeKeepsNothingOfTheBytes: the events decoded from one
// buffer, overwritten by the next message and then by garbage, as grpc-go
// reuses its pooled receive buffers, keep their values.
func TestDirectDecodeKeepsNothingOfTheBytes(t *testing.T) {
	for _, v03 := range []bool{false, true} {
		var msgs [][]byte
		for _, s := range captureSeeds(t) {
			if fastPath(v03, s.data) {
				msgs = append(msgs, s.data)
			}
		}
		for _, c := range directCases() {
			if fastPath(v03, c.data) {
				msgs = append(msgs, c.data)
			}
		}
		require.NotEmpty(t, msgs)
		d := NewStreamDecoder(v03)
		buf := make([]byte, 0, 1<<16)
		var got, want []a2a.Event
		for _, m := range msgs {
			w, _, err := generated(v03, m)
			require.NoError(t, err)
			want = append(want, w)
			buf = append(buf[:0], m...)
			ev, u, err := d.Decode(buf)
			require.NoError(t, u)
			require.NoError(t, err)
			got = append(got, ev)
		}
		for i := range buf[:cap(buf)] {
			buf[:cap(buf)][i] = 0xaa
		}
		require.Equal(t, want, got, "v03 %v: events changed with the buffer", v03)
	}
}

// chunkBytes is a text artifact chunk as a2a-js sends it: task and
// context IDs, an artifact ID, one text part, append.
func chunkBytes(t testing.TB, v03 bool, text string) []byte {
	var b []byte
	var err error
	if v03 {
		b, err = proto.Marshal(&pb03.StreamResponse{Payload: &pb03.StreamResponse_ArtifactUpdate{ArtifactUpdate: &pb03.TaskArtifactUpdateEvent{
			TaskId: "bff0492c-bf72-4b0b-8ac9-d35bf8bb82d2", ContextId: "b797c749-b41f-4038-b7b3-81997bb919d9", Append: true,
			Artifact: &pb03.Artifact{ArtifactId: "a1", Parts: []*pb03.Part{{Part: &pb03.Part_Text{Text: text}}}},
		}}})
	} else {
		b, err = proto.Marshal(&pb10.StreamResponse{Payload: &pb10.StreamResponse_ArtifactUpdate{ArtifactUpdate: &pb10.TaskArtifactUpdateEvent{
			TaskId: "bff0492c-bf72-4b0b-8ac9-d35bf8bb82d2", ContextId: "b797c749-b41f-4038-b7b3-81997bb919d9", Append: true,
			Artifact: &pb10.Artifact{ArtifactId: "a1", Parts: []*pb10.Part{{Content: &pb10.Part_Text{Text: text}}}},
		}}})
	}
	require.NoError(t, err)
	return b
}

// statusBytes is a working status update with a message of one text
// part and a timestamp, as a2a-js sends it.
func statusBytes(t testing.TB, v03 bool) []byte {
	var b []byte
	var err error
	const task, ctx = "bff0492c-bf72-4b0b-8ac9-d35bf8bb82d2", "b797c749-b41f-4038-b7b3-81997bb919d9" // chunkBytes's
	if v03 {
		b, err = proto.Marshal(&pb03.StreamResponse{Payload: &pb03.StreamResponse_StatusUpdate{StatusUpdate: &pb03.TaskStatusUpdateEvent{
			TaskId: task, ContextId: ctx, Status: &pb03.TaskStatus{State: pb03.TaskState_TASK_STATE_WORKING, Timestamp: timestampOf(timeOf(nil).AddDate(2026, 0, 0)),
				Update: &pb03.Message{MessageId: "06325c56-f4d2-49c2-a8ed-1dddcfcdeb6d", TaskId: task, ContextId: ctx, Role: pb03.Role_ROLE_AGENT,
					Content: []*pb03.Part{{Part: &pb03.Part_Text{Text: "working"}}}}},
		}}})
	} else {
		b, err = proto.Marshal(&pb10.StreamResponse{Payload: &pb10.StreamResponse_StatusUpdate{StatusUpdate: &pb10.TaskStatusUpdateEvent{
			TaskId: task, ContextId: ctx, Status: &pb10.TaskStatus{State: pb10.TaskState_TASK_STATE_WORKING, Timestamp: timestampOf(timeOf(nil).AddDate(2026, 0, 0)),
				Message: &pb10.Message{MessageId: "06325c56-f4d2-49c2-a8ed-1dddcfcdeb6d", TaskId: task, ContextId: ctx, Role: pb10.Role_ROLE_AGENT,
					Parts: []*pb10.Part{{Content: &pb10.Part_Text{Text: "working"}, MediaType: "text/plain"}}}},
		}}})
	}
	require.NoError(t, err)
	return b
}

// TestDirectDecodeAllocations: a text artifact chunk takes one allocation
// and a sixteenth once its IDs are the last event's, as the next chunk of an
// artifact repeats them: its text, and its event, made 16 at a time
// (AllocsPerRun rounds the sixteenth down); the first chunk of a stream
// takes five (its event, the three IDs, the text). A status update of the
// same task with a message of one text part takes two (the event with its
// message and part, the text) when its message ID is the last status
// message's, as here, and three with a new one.
func TestDirectDecodeAllocations(t *testing.T) {
	for _, v03 := range []bool{false, true} {
		chunk := chunkBytes(t, v03, strings.Repeat("x", 40))
		var err error
		first := testing.AllocsPerRun(100, func() { _, _, err = NewStreamDecoder(v03).Decode(chunk) })
		require.NoError(t, err)
		made := testing.AllocsPerRun(100, func() { _ = NewStreamDecoder(v03) })
		require.Equal(t, 5.0, first-made, "v03 %v: the first chunk", v03)
		d := NewStreamDecoder(v03)
		next := testing.AllocsPerRun(100, func() { _, _, err = d.Decode(chunk) })
		require.NoError(t, err)
		require.Equal(t, 1.0, next, "v03 %v: the next chunk", v03)

		status := statusBytes(t, v03)
		require.True(t, fastPath(v03, status))
		_, _, err = d.Decode(status)
		require.NoError(t, err)
		st := testing.AllocsPerRun(100, func() {
			_, _, err = d.Decode(chunk)
			require.NoError(t, err)
			_, _, err = d.Decode(status)
		})
		require.NoError(t, err)
		require.Equal(t, 3.0, st, "v03 %v: a chunk (1 and a sixteenth) and a status update (2), one after the other", v03)
	}
}
