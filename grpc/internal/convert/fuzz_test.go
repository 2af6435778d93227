package convert

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/a2astream/a2astream/a2a"
	pb03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	pb10 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
)

// The fuzz target reads bytes as a server's message of one of six kinds
// (kind % 6: 1.0 StreamResponse, SendMessageResponse, Task; then the same in
// 0.3), and converts it. It must never panic; a result it converts must
// convert back to the proto and read again, and after that first reading
// a second round trip must change nothing.

type fuzzKind struct {
	msg  func() proto.Message
	read func(proto.Message) (a2a.Event, error)
	back func(a2a.Event) (proto.Message, error)
}

var fuzzKinds = []fuzzKind{
	{func() proto.Message { return new(pb10.StreamResponse) },
		func(m proto.Message) (a2a.Event, error) { return EventOf10(m.(*pb10.StreamResponse)) },
		func(e a2a.Event) (proto.Message, error) { return StreamResponse10(e) }},
	{func() proto.Message { return new(pb10.SendMessageResponse) },
		func(m proto.Message) (a2a.Event, error) { return SendResultOf10(m.(*pb10.SendMessageResponse)) },
		func(e a2a.Event) (proto.Message, error) { return StreamResponse10(e) }},
	{func() proto.Message { return new(pb10.Task) },
		func(m proto.Message) (a2a.Event, error) { return event(TaskOf10(m.(*pb10.Task))) },
		func(e a2a.Event) (proto.Message, error) { return StreamResponse10(e) }},
	{func() proto.Message { return new(pb03.StreamResponse) },
		func(m proto.Message) (a2a.Event, error) { return EventOf03(m.(*pb03.StreamResponse)) },
		func(e a2a.Event) (proto.Message, error) { return StreamResponse03(e) }},
	{func() proto.Message { return new(pb03.SendMessageResponse) },
		func(m proto.Message) (a2a.Event, error) { return SendResultOf03(m.(*pb03.SendMessageResponse)) },
		func(e a2a.Event) (proto.Message, error) { return StreamResponse03(e) }},
	{func() proto.Message { return new(pb03.Task) },
		func(m proto.Message) (a2a.Event, error) { return event(TaskOf03(m.(*pb03.Task))) },
		func(e a2a.Event) (proto.Message, error) { return StreamResponse03(e) }},
}

// backAndForth converts e to the proto of kind k, through the wire, and back.
func backAndForth(t *testing.T, k fuzzKind, e a2a.Event) a2a.Event {
	m, err := k.back(e)
	require.NoError(t, err, "a result read converts back")
	b, err := proto.Marshal(m)
	require.NoError(t, err)
	r := m.ProtoReflect().New().Interface()
	require.NoError(t, proto.Unmarshal(b, r))
	var again a2a.Event
	if r10, ok := r.(*pb10.StreamResponse); ok {
		again, err = EventOf10(r10)
	} else {
		again, err = EventOf03(r.(*pb03.StreamResponse))
	}
	require.NoError(t, err, "what was sent reads again")
	return again
}

func FuzzResultsFromServers(f *testing.F) {
	for _, s := range captureSeeds(f) {
		f.Add(s.kind, s.data)
	}
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		k := fuzzKinds[int(kind)%len(fuzzKinds)]
		m := k.msg()
		if proto.Unmarshal(data, m) != nil {
			return
		}
		e, err := k.read(m)
		if err != nil {
			require.Nil(t, e)
			return
		}
		once := backAndForth(t, k, e)
		twice := backAndForth(t, k, once)
		require.Equal(t, norm(once), norm(twice))
	})
}

type seed struct {
	kind uint8
	data []byte
}

// captureSeeds reads every recorded result of the captures as the binary
// message a server sent.
func captureSeeds(f testing.TB) []seed {
	var out []seed
	for dir, base := range map[string]uint8{"v1.0": 0, "v0.3": 3} {
		files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "captures", dir, "*.jsonl"))
		require.NoError(f, err)
		require.NotEmpty(f, files)
		out = append(out, seedsOf(f, files, base)...)
	}
	require.GreaterOrEqual(f, len(out), 50)
	return out
}

// seedsOf reads every recorded result of the capture files, of the
// version whose first kind is base (0 for 1.0, 3 for 0.3).
func seedsOf(f testing.TB, files []string, base uint8) []seed {
	kinds := map[string]uint8{"event": 0, "unary-result": 1, "get-task": 2, "cancel-result": 2}
	var out []seed
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var rec struct {
				Kind string          `json:"kind"`
				Msg  json.RawMessage `json:"msg"`
			}
			require.NoError(f, json.Unmarshal(sc.Bytes(), &rec))
			kind, _, _ := strings.Cut(rec.Kind, ":")
			k, ok := kinds[kind]
			if rec.Msg == nil || !ok {
				continue
			}
			k += base
			raw := rec.Msg
			if base == 3 {
				raw = contentNotParts(f, raw)
			}
			m := fuzzKinds[k].msg()
			require.NoError(f, protojson.Unmarshal(raw, m), file)
			b, err := proto.Marshal(m)
			require.NoError(f, err)
			out = append(out, seed{k, b})
		}
	}
	return out
}

// contentNotParts renames the "parts" of every message (an object with a
// "messageId") to "content", as the v0.3.0 proto names them: the 0.3
// captures were rendered with a2a-go's generated code, which says "parts".
func contentNotParts(f testing.TB, raw []byte) []byte {
	var v any
	require.NoError(f, json.Unmarshal(raw, &v))
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if p, ok := x["parts"]; ok && x["messageId"] != nil {
				delete(x, "parts")
				x["content"] = p
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	b, err := json.Marshal(v)
	require.NoError(f, err)
	return b
}
