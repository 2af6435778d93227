package a2agrpc_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	a2apbv03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	a2apbv1 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
)

// strict is how the captures are read: a field name the protos do not have
// is an error, not a loss.
var strict = protojson.UnmarshalOptions{DiscardUnknown: false}

// A capture line's kind says which message its "msg" holds. Lines without a
// "msg" (metadata, errors, notes) are skipped; a "msg" of a kind missing
// here fails the test, so that no recorded message goes unread.
var (
	kinds10 = map[string]func() proto.Message{
		"send-streaming": func() proto.Message { return new(a2apbv1.SendMessageRequest) },
		"subscribe":      func() proto.Message { return new(a2apbv1.SubscribeToTaskRequest) },
		"event":          func() proto.Message { return new(a2apbv1.StreamResponse) },
		"unary-result":   func() proto.Message { return new(a2apbv1.SendMessageResponse) },
		"get-task":       func() proto.Message { return new(a2apbv1.Task) },
		"cancel-result":  func() proto.Message { return new(a2apbv1.Task) },
	}
	kinds03 = map[string]func() proto.Message{
		"send-streaming": func() proto.Message { return new(a2apbv03.SendMessageRequest) },
		"subscribe":      func() proto.Message { return new(a2apbv03.TaskSubscriptionRequest) },
		"event":          func() proto.Message { return new(a2apbv03.StreamResponse) },
		"unary-result":   func() proto.Message { return new(a2apbv03.SendMessageResponse) },
		"get-task":       func() proto.Message { return new(a2apbv03.Task) },
		"cancel-result":  func() proto.Message { return new(a2apbv03.Task) },
	}
)

// record is one recorded message: where it came from, its kind ("event:"
// kinds as "event") and its proto-JSON as recorded.
type record struct {
	where, kind string
	raw         []byte
}

// records reads every line with a "msg" of the captures in dir.
func records(t *testing.T, dir string) []record {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "captures", dir, "*.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var out []record
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for line := 1; sc.Scan(); line++ {
			where := filepath.Base(file) + ":" + strconv.Itoa(line)
			var rec struct {
				Kind string          `json:"kind"`
				Msg  json.RawMessage `json:"msg"`
			}
			require.NoError(t, json.Unmarshal(sc.Bytes(), &rec), where)
			if rec.Msg != nil {
				kind, _, _ := strings.Cut(rec.Kind, ":")
				out = append(out, record{where: where, kind: kind, raw: rec.Msg})
			}
		}
		require.NoError(t, sc.Err())
	}
	return out
}

// captured is one recorded message decoded: its JSON as the protos name the
// fields, and the message.
type captured struct {
	where string
	json  []byte
	msg   proto.Message
}

// readCaptures decodes every message of the captures in dir strictly.
// rename, if not nil, rewrites a message's JSON before it is decoded.
func readCaptures(t *testing.T, dir string, kinds map[string]func() proto.Message, rename func(any, protoreflect.MessageDescriptor)) []captured {
	t.Helper()
	var out []captured
	for _, r := range records(t, dir) {
		newMsg, ok := kinds[r.kind]
		require.True(t, ok, "%s: no message type known for kind %q", r.where, r.kind)
		m := newMsg()
		raw := r.raw
		if rename != nil {
			v := decodeJSON(t, raw)
			rename(v, m.ProtoReflect().Descriptor())
			var err error
			raw, err = json.Marshal(v)
			require.NoError(t, err, r.where)
		}
		require.NoError(t, strict.Unmarshal(raw, m), r.where)
		out = append(out, captured{where: r.where, json: raw, msg: m})
	}
	return out
}

// requireSameJSON checks that the message, written back as proto-JSON,
// says what the capture said: no field was dropped or changed on the way in.
func requireSameJSON(t *testing.T, c captured) {
	t.Helper()
	back, err := protojson.Marshal(c.msg)
	require.NoError(t, err, c.where)
	require.Equal(t, decodeJSON(t, c.json), decodeJSON(t, back), c.where)
}

func TestCapturesOf10DecodeIntoTheProtos(t *testing.T) {
	caps := readCaptures(t, "v1.0", kinds10, nil)
	var events, parts int
	for _, c := range caps {
		requireSameJSON(t, c)
		if r, ok := c.msg.(*a2apbv1.StreamResponse); ok {
			require.NotNil(t, r.GetPayload(), c.where)
			events++
			if m := r.GetStatusUpdate().GetStatus().GetMessage(); m != nil {
				parts += len(m.GetParts())
			}
		}
	}
	require.GreaterOrEqual(t, events, 20, "events decoded")
	require.NotZero(t, parts, "parts of the status updates' messages")
}

func TestCapturesOf03DecodeIntoTheProtos(t *testing.T) {
	caps := readCaptures(t, "v0.3", kinds03, renameMessageParts)
	var events, content int
	for _, c := range caps {
		requireSameJSON(t, c)
		if r, ok := c.msg.(*a2apbv03.StreamResponse); ok {
			require.NotNil(t, r.GetPayload(), c.where)
			events++
			if m := r.GetStatusUpdate().GetStatus().GetUpdate(); m != nil {
				content += len(m.GetContent())
			}
		}
	}
	require.GreaterOrEqual(t, events, 30, "events decoded")
	require.NotZero(t, content, "content of the status updates' messages")
}

// The 0.3 captures were rendered with a2a-go v0.3.3's generated code, which
// names a message's field 5 "parts"; the v0.3.0 specification and these
// protos name it "content". Read strictly, the captures as recorded are
// refused; read leniently, the message's parts would be lost without a word.
func TestCapturesOf03NameAMessagesPartsAsA2AGoDoes(t *testing.T) {
	var refused int
	for _, r := range records(t, "v0.3") {
		err := strict.Unmarshal(r.raw, kinds03[r.kind]())
		if !bytes.Contains(r.raw, []byte(`"messageId"`)) {
			require.NoError(t, err, r.where) // no message, nothing renamed
			continue
		}
		require.ErrorContains(t, err, `unknown field "parts"`, r.where)
		refused++
	}
	require.NotZero(t, refused)
}

func TestCapturesSurviveTheBinaryWire(t *testing.T) {
	caps := append(readCaptures(t, "v1.0", kinds10, nil), readCaptures(t, "v0.3", kinds03, renameMessageParts)...)
	for _, c := range caps {
		b, err := proto.Marshal(c.msg)
		require.NoError(t, err, c.where)
		back := c.msg.ProtoReflect().New().Interface()
		require.NoError(t, proto.Unmarshal(b, back), c.where)
		require.True(t, proto.Equal(c.msg, back), "%s: got %v; want %v", c.where, back, c.msg)
	}
}

// renameMessageParts renames the "parts" of every 0.3 Message in v (the
// proto-JSON of a message of type md) to "content", leaving an artifact's
// "parts" as they are.
func renameMessageParts(v any, md protoreflect.MessageDescriptor) {
	obj, ok := v.(map[string]any)
	if !ok || md.FullName().Parent() == "google.protobuf" {
		return
	}
	if md.FullName() == (*a2apbv03.Message)(nil).ProtoReflect().Descriptor().FullName() {
		if parts, ok := obj["parts"]; ok {
			delete(obj, "parts")
			obj["content"] = parts
		}
	}
	for key, val := range obj {
		fd := md.Fields().ByJSONName(key)
		if fd == nil {
			fd = md.Fields().ByTextName(key)
		}
		if fd == nil || fd.Message() == nil {
			continue
		}
		switch {
		case fd.IsMap():
			if m, ok := val.(map[string]any); ok && fd.MapValue().Message() != nil {
				for _, e := range m {
					renameMessageParts(e, fd.MapValue().Message())
				}
			}
		case fd.IsList():
			if l, ok := val.([]any); ok {
				for _, e := range l {
					renameMessageParts(e, fd.Message())
				}
			}
		default:
			renameMessageParts(val, fd.Message())
		}
	}
}

// decodeJSON decodes b keeping numbers as they were written.
func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	return v
}
