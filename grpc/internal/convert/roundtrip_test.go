package convert

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/a2astream/a2astream/a2a"
	pb03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	pb10 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
)

var when = time.Date(2026, 11, 29, 12, 30, 45, 123456789, time.UTC)

// roundTripEvents is a table of events with every kind of part, state,
// role, metadata and timestamp the model holds.
func roundTripEvents() map[string]a2a.Event {
	md := map[string]any{"n": 1.5, "s": "x", "b": true, "nil": nil, "list": []any{1.0, "two"}, "obj": map[string]any{"k": "v"}}
	parts := []a2a.Part{
		{Text: "hello"},
		{Text: ""},
		{Text: "typed", MediaType: "text/markdown", Filename: "a.md", Metadata: map[string]any{"p": "q"}},
		{Data: json.RawMessage(`{"a":[1,2,{"b":null}],"c":"d"}`)},
		{URL: "https://example.com/f.pdf", MediaType: "application/pdf", Filename: "f.pdf"},
		{Raw: []byte{0, 1, 2, 255}, MediaType: "application/octet-stream", Filename: "b.bin"},
		{Raw: []byte{}},
	}
	msg := &a2a.Message{ID: "m1", TaskID: "t1", ContextID: "c1", Role: a2a.RoleAgent, Parts: parts, Metadata: md}
	evs := map[string]a2a.Event{
		"message":         msg,
		"user message":    &a2a.Message{ID: "m0", Role: a2a.RoleUser, Parts: []a2a.Part{{Text: "hi"}}},
		"no role":         &a2a.Message{ID: "m2", Parts: []a2a.Part{{Text: "who"}}},
		"artifact update": &a2a.ArtifactUpdate{TaskID: "t1", ContextID: "c1", Append: true, LastChunk: true, Metadata: md, Artifact: a2a.Artifact{ID: "a1", Name: "out", Description: "d", Parts: parts, Metadata: md}},
		"bare artifact":   &a2a.ArtifactUpdate{TaskID: "t1", Artifact: a2a.Artifact{ID: "a2"}},
		"task": &a2a.Task{ID: "t1", ContextID: "c1", Metadata: md,
			Status:    a2a.TaskStatus{State: a2a.StateInputRequired, Message: msg, Timestamp: when},
			Artifacts: []a2a.Artifact{{ID: "a1", Parts: parts}, {ID: "a2", Name: "two"}},
			History:   []a2a.Message{*msg, {ID: "m0", Role: a2a.RoleUser, Parts: []a2a.Part{{Text: "q"}}}},
		},
		"bare task": &a2a.Task{ID: "t2", Status: a2a.TaskStatus{State: a2a.StateUnknown}},
	}
	for _, s := range []a2a.TaskState{a2a.StateSubmitted, a2a.StateWorking, a2a.StateInputRequired, a2a.StateAuthRequired,
		a2a.StateCompleted, a2a.StateCanceled, a2a.StateFailed, a2a.StateRejected, a2a.StateUnknown} {
		evs["status "+string(s)] = &a2a.StatusUpdate{TaskID: "t1", ContextID: "c1", Status: a2a.TaskStatus{State: s, Timestamp: when.Truncate(time.Millisecond)}}
	}
	evs["status with message"] = &a2a.StatusUpdate{TaskID: "t1", ContextID: "c1", Metadata: md, Status: a2a.TaskStatus{State: a2a.StateWorking, Message: msg}}
	evs["final status"] = &a2a.StatusUpdate{TaskID: "t1", Final: true, Status: a2a.TaskStatus{State: a2a.StateCompleted}}
	return evs
}

// lost03 is what the 0.3 proto cannot carry of an event: the media type
// and file name of a text or data part. (A part's metadata and a file's
// name came into the spec's proto after the v0.3.0 tag; 0.3 servers built
// from it send them, and the module's 0.3 proto has them.)
func lost03(e a2a.Event) a2a.Event {
	strip := func(ps []a2a.Part) {
		for i := range ps {
			p := &ps[i]
			if p.URL == "" && p.Raw == nil {
				p.MediaType, p.Filename = "", ""
			}
		}
	}
	switch x := e.(type) {
	case *a2a.Message:
		x = x.Clone()
		strip(x.Parts)
		return x
	case *a2a.Task:
		x = x.Clone()
		for i := range x.Artifacts {
			strip(x.Artifacts[i].Parts)
		}
		for i := range x.History {
			strip(x.History[i].Parts)
		}
		if x.Status.Message != nil {
			strip(x.Status.Message.Parts)
		}
		return x
	case *a2a.StatusUpdate:
		c := *x
		c.Status.Message = c.Status.Message.Clone()
		if c.Status.Message != nil {
			strip(c.Status.Message.Parts)
		}
		return &c
	case *a2a.ArtifactUpdate:
		c := *x
		c.Artifact = x.Artifact.Clone()
		strip(c.Artifact.Parts)
		return &c
	}
	return e
}

// wire sends m through the binary wire and back, into a new message.
func wire[T proto.Message](t *testing.T, m T) T {
	t.Helper()
	b, err := proto.Marshal(m)
	require.NoError(t, err)
	back := m.ProtoReflect().New().Interface().(T)
	require.NoError(t, proto.Unmarshal(b, back))
	return back
}

func TestRoundTrip10(t *testing.T) {
	codec := a2a.Codec{Version: a2a.V10, Binding: a2a.BindingGRPC}
	for name, e := range roundTripEvents() {
		t.Run(name, func(t *testing.T) {
			r, err := StreamResponse10(e)
			require.NoError(t, err)
			got, err := EventOf10(wire(t, r))
			require.NoError(t, err)
			want := e
			if u, ok := e.(*a2a.StatusUpdate); ok && u.Final {
				c := *u
				c.Final = false // 1.0 has no final
				want = &c
			}
			require.Equal(t, norm(want), norm(got))

			// The library's JSON decoder reads the proto-JSON as the converter reads the proto.
			j, err := protojson.Marshal(r)
			require.NoError(t, err)
			fromJSON, err := codec.DecodeEvent(j)
			require.NoError(t, err)
			require.Equal(t, norm(fromJSON), norm(got))
		})
	}
}

func TestRoundTrip03(t *testing.T) {
	codec := a2a.Codec{Version: a2a.V03, Binding: a2a.BindingGRPC}
	for name, e := range roundTripEvents() {
		t.Run(name, func(t *testing.T) {
			r, err := StreamResponse03(e)
			require.NoError(t, err, "what 0.3 cannot carry is left out, never refused")
			got, err := EventOf03(wire(t, r))
			require.NoError(t, err)
			require.Equal(t, norm(lost03(e)), norm(got))

			j, err := protojson.Marshal(r)
			require.NoError(t, err)
			fromJSON, err := codec.DecodeEvent(j)
			require.NoError(t, err)
			require.Equal(t, norm(fromJSON), norm(got))
		})
	}
}

func TestRoundTripTasks(t *testing.T) {
	for name, e := range roundTripEvents() {
		task, ok := e.(*a2a.Task)
		if !ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			p10, err := Task10(task)
			require.NoError(t, err)
			got10, err := TaskOf10(wire(t, p10))
			require.NoError(t, err)
			require.Equal(t, norm(task), norm(got10))

			p03, err := Task03(task)
			require.NoError(t, err)
			got03, err := TaskOf03(wire(t, p03))
			require.NoError(t, err)
			require.Equal(t, norm(lost03(task)), norm(got03))
		})
	}
}

func TestSendResults(t *testing.T) {
	task := &a2a.Task{ID: "t", Status: a2a.TaskStatus{State: a2a.StateSubmitted}}
	msg := a2a.NewTextMessage(a2a.RoleAgent, "done")

	got, err := SendResultOf10(&pb10.SendMessageResponse{Payload: &pb10.SendMessageResponse_Task{Task: must(Task10(task))}})
	require.NoError(t, err)
	require.Equal(t, task, got)
	got, err = SendResultOf10(&pb10.SendMessageResponse{Payload: &pb10.SendMessageResponse_Message{Message: must(Message10(msg))}})
	require.NoError(t, err)
	require.Equal(t, msg, got)

	got, err = SendResultOf03(&pb03.SendMessageResponse{Payload: &pb03.SendMessageResponse_Task{Task: must(Task03(task))}})
	require.NoError(t, err)
	require.Equal(t, task, got)
	got, err = SendResultOf03(&pb03.SendMessageResponse{Payload: &pb03.SendMessageResponse_Msg{Msg: must(Message03(msg))}})
	require.NoError(t, err)
	require.Equal(t, msg, got)
}

func TestRequests(t *testing.T) {
	msg := &a2a.Message{ID: "m", TaskID: "t", ContextID: "c", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("more")}}

	s, err := SendRequest10(msg, "acme", false)
	require.NoError(t, err)
	require.Nil(t, s.GetConfiguration(), "a streaming send has no configuration, as on JSON-RPC")
	require.Equal(t, "acme", s.GetTenant())
	require.Equal(t, "more", s.GetMessage().GetParts()[0].GetText())
	require.Equal(t, pb10.Role_ROLE_USER, s.GetMessage().GetRole())
	s, err = SendRequest10(msg, "", true)
	require.NoError(t, err)
	require.True(t, s.GetConfiguration().GetReturnImmediately())

	s3, err := SendRequest03(msg, false)
	require.NoError(t, err)
	require.Nil(t, s3.GetConfiguration())
	require.Equal(t, "more", s3.GetRequest().GetContent()[0].GetText())
	s3, err = SendRequest03(msg, true)
	require.NoError(t, err)
	require.NotNil(t, s3.GetConfiguration())
	require.False(t, s3.GetConfiguration().GetBlocking())

	g, err := GetTaskRequest10("t", "acme")
	require.NoError(t, err)
	require.True(t, proto.Equal(&pb10.GetTaskRequest{Tenant: "acme", Id: "t", HistoryLength: proto.Int32(FullHistory)}, g))
	c, err := CancelTaskRequest10("t", "")
	require.NoError(t, err)
	require.Equal(t, "t", c.GetId())
	sub, err := SubscribeRequest10("t", "")
	require.NoError(t, err)
	require.Equal(t, "t", sub.GetId())

	g3, err := GetTaskRequest03("t")
	require.NoError(t, err)
	require.True(t, proto.Equal(&pb03.GetTaskRequest{Name: "tasks/t", HistoryLength: FullHistory}, g3))
	c3, err := CancelTaskRequest03("t")
	require.NoError(t, err)
	require.Equal(t, "tasks/t", c3.GetName())
	sub3, err := SubscribeRequest03("t")
	require.NoError(t, err)
	require.Equal(t, "tasks/t", sub3.GetName())
	id, err := TaskIDOfName(sub3.GetName())
	require.NoError(t, err)
	require.Equal(t, "t", id)
}

// A send never fails for what the 0.3 proto has no field for.
func TestSend03LeavesOutWhatTheProtoCannotCarry(t *testing.T) {
	msg := &a2a.Message{ID: "m", Role: a2a.RoleUser, Parts: []a2a.Part{
		{Text: "x", Metadata: map[string]any{"k": "v"}, MediaType: "text/plain", Filename: "x.txt"},
		{URL: "https://example.com/a", Filename: "a", MediaType: "image/png", Metadata: map[string]any{"k": 1.0}},
	}}
	r, err := SendRequest03(msg, false)
	require.NoError(t, err)
	parts := r.GetRequest().GetContent()
	require.Equal(t, "x", parts[0].GetText())
	require.Equal(t, "https://example.com/a", parts[1].GetFile().GetFileWithUri())
	require.Equal(t, "image/png", parts[1].GetFile().GetMimeType())
}

func TestMetadataOfAnyTypeGoesAsItsJSON(t *testing.T) {
	type point struct{ X, Y int }
	msg := &a2a.Message{ID: "m", Role: a2a.RoleUser, Parts: []a2a.Part{a2a.TextPart("x")},
		Metadata: map[string]any{"p": point{1, 2}, "n": json.Number("7"), "i": int64(3)}}
	for _, conv := range []func(*a2a.Message) (*a2a.Message, error){
		func(m *a2a.Message) (*a2a.Message, error) { return MessageOf10(must(Message10(m))) },
		func(m *a2a.Message) (*a2a.Message, error) { return MessageOf03(must(Message03(m))) },
	} {
		got, err := conv(msg)
		require.NoError(t, err)
		require.Equal(t, map[string]any{"p": map[string]any{"X": 1.0, "Y": 2.0}, "n": 7.0, "i": 3.0}, got.Metadata)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// norm makes events comparable: a part's data as one JSON spelling.
func norm(e a2a.Event) a2a.Event {
	fix := func(ps []a2a.Part) {
		for i := range ps {
			if ps[i].Data != nil {
				var v any
				if json.Unmarshal(ps[i].Data, &v) == nil {
					ps[i].Data, _ = json.Marshal(v)
				}
			}
		}
	}
	switch x := e.(type) {
	case *a2a.Message:
		x = x.Clone()
		fix(x.Parts)
		return x
	case *a2a.Task:
		x = x.Clone()
		for i := range x.Artifacts {
			fix(x.Artifacts[i].Parts)
		}
		for i := range x.History {
			fix(x.History[i].Parts)
		}
		if x.Status.Message != nil {
			fix(x.Status.Message.Parts)
		}
		return x
	case *a2a.StatusUpdate:
		c := *x
		c.Status.Message = c.Status.Message.Clone()
		if c.Status.Message != nil {
			fix(c.Status.Message.Parts)
		}
		return &c
	case *a2a.ArtifactUpdate:
		c := *x
		c.Artifact = x.Artifact.Clone()
		fix(c.Artifact.Parts)
		return &c
	}
	return e
}
