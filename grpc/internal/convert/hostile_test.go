package convert

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/a2astream/a2astream/a2a"
	pb03 "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
	pb10 "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
	"github.com/a2astream/a2astream/transport"
)

// requireMalformed checks that err is the ProtocolError of a server's
// message the model cannot hold, naming what is wrong.
func requireMalformed(t *testing.T, err error, says string) {
	t.Helper()
	var pe *transport.ProtocolError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "malformed result", pe.Reason)
	require.ErrorContains(t, err, says)
}

func TestHostileResultsOf10AreRefused(t *testing.T) {
	text := &pb10.Part{Content: &pb10.Part_Text{Text: "x"}}
	status := func(s *pb10.TaskStatus) *pb10.StreamResponse {
		return &pb10.StreamResponse{Payload: &pb10.StreamResponse_StatusUpdate{StatusUpdate: &pb10.TaskStatusUpdateEvent{TaskId: "t", Status: s}}}
	}
	msgWith := func(m *pb10.Message) *pb10.StreamResponse {
		return &pb10.StreamResponse{Payload: &pb10.StreamResponse_Message{Message: m}}
	}
	nan, _ := structpb.NewStruct(map[string]any{"x": math.NaN()})
	for name, tc := range map[string]struct {
		r    *pb10.StreamResponse
		says string
	}{
		"nil response":          {nil, "stream response has no payload"},
		"no payload":            {&pb10.StreamResponse{}, "stream response has no payload"},
		"nil task":              {&pb10.StreamResponse{Payload: &pb10.StreamResponse_Task{}}, "no task"},
		"nil message":           {&pb10.StreamResponse{Payload: &pb10.StreamResponse_Message{}}, "no message"},
		"nil status update":     {&pb10.StreamResponse{Payload: &pb10.StreamResponse_StatusUpdate{}}, "no status update"},
		"nil artifact update":   {&pb10.StreamResponse{Payload: &pb10.StreamResponse_ArtifactUpdate{}}, "no artifact update"},
		"update of no artifact": {&pb10.StreamResponse{Payload: &pb10.StreamResponse_ArtifactUpdate{ArtifactUpdate: &pb10.TaskArtifactUpdateEvent{TaskId: "t"}}}, "no artifact"},
		"unknown state":         {status(&pb10.TaskStatus{State: 42}), "unknown task state 42"},
		"unknown role":          {msgWith(&pb10.Message{Role: 7, Parts: []*pb10.Part{text}}), "unknown role 7"},
		"part with no content":  {msgWith(&pb10.Message{Role: pb10.Role_ROLE_AGENT, Parts: []*pb10.Part{text, {}}}), "part 1: a2agrpc: part has no content"},
		"nil part":              {msgWith(&pb10.Message{Parts: []*pb10.Part{nil}}), "part has no content"},
		"NaN in metadata":       {msgWith(&pb10.Message{Parts: []*pb10.Part{text}, Metadata: nan}), "not finite"},
		"NaN in data":           {msgWith(&pb10.Message{Parts: []*pb10.Part{{Content: &pb10.Part_Data{Data: structpb.NewNumberValue(math.Inf(1))}}}}), "not finite"},
		"bad status message":    {status(&pb10.TaskStatus{State: pb10.TaskState_TASK_STATE_WORKING, Message: &pb10.Message{Role: 9}}), "status message"},
		"bad history":           {&pb10.StreamResponse{Payload: &pb10.StreamResponse_Task{Task: &pb10.Task{Id: "t", History: []*pb10.Message{nil}}}}, "task history 0"},
	} {
		t.Run(name, func(t *testing.T) {
			ev, err := EventOf10(tc.r)
			require.Nil(t, ev)
			requireMalformed(t, err, tc.says)
		})
	}
	_, err := SendResultOf10(&pb10.SendMessageResponse{})
	requireMalformed(t, err, "send message response has no payload")
	_, err = TaskOf10(nil)
	requireMalformed(t, err, "no task")
}

func TestHostileResultsOf03AreRefused(t *testing.T) {
	msgWith := func(m *pb03.Message) *pb03.StreamResponse {
		return &pb03.StreamResponse{Payload: &pb03.StreamResponse_Msg{Msg: m}}
	}
	for name, tc := range map[string]struct {
		r    *pb03.StreamResponse
		says string
	}{
		"no payload":           {&pb03.StreamResponse{}, "stream response has no payload"},
		"nil msg":              {&pb03.StreamResponse{Payload: &pb03.StreamResponse_Msg{}}, "no message"},
		"unknown state":        {&pb03.StreamResponse{Payload: &pb03.StreamResponse_Task{Task: &pb03.Task{Status: &pb03.TaskStatus{State: -1}}}}, "unknown task state -1"},
		"unknown role":         {msgWith(&pb03.Message{Role: 3}), "unknown role 3"},
		"part with no content": {msgWith(&pb03.Message{Content: []*pb03.Part{{}}}), "part has no content"},
		"empty file part":      {msgWith(&pb03.Message{Content: []*pb03.Part{{Part: &pb03.Part_File{File: &pb03.FilePart{MimeType: "a/b"}}}}}), "neither a URI nor bytes"},
		"nil file part":        {msgWith(&pb03.Message{Content: []*pb03.Part{{Part: &pb03.Part_File{}}}}), "neither a URI nor bytes"},
		"NaN in data": {msgWith(&pb03.Message{Content: []*pb03.Part{{Part: &pb03.Part_Data{Data: &pb03.DataPart{
			Data: &structpb.Struct{Fields: map[string]*structpb.Value{"x": structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewNumberValue(math.NaN())}})}},
		}}}}}), "not finite"},
	} {
		t.Run(name, func(t *testing.T) {
			ev, err := EventOf03(tc.r)
			require.Nil(t, ev)
			requireMalformed(t, err, tc.says)
		})
	}
	_, err := SendResultOf03(nil)
	requireMalformed(t, err, "send message response has no payload")
}

// What a server may leave out, or spell oddly, reads as the JSON decoders
// read it: no error.
func TestLenientResults(t *testing.T) {
	ev, err := EventOf10(&pb10.StreamResponse{Payload: &pb10.StreamResponse_StatusUpdate{StatusUpdate: &pb10.TaskStatusUpdateEvent{
		TaskId: "t", Metadata: &structpb.Struct{},
	}}})
	require.NoError(t, err)
	require.Equal(t, &a2a.StatusUpdate{TaskID: "t", Status: a2a.TaskStatus{State: a2a.StateUnknown}}, ev, "no status, empty metadata")

	bad := &timestamppb.Timestamp{Seconds: math.MaxInt64}
	ev, err = EventOf03(&pb03.StreamResponse{Payload: &pb03.StreamResponse_StatusUpdate{StatusUpdate: &pb03.TaskStatusUpdateEvent{
		Status: &pb03.TaskStatus{State: pb03.TaskState_TASK_STATE_WORKING, Timestamp: bad},
	}}})
	require.NoError(t, err)
	require.True(t, ev.(*a2a.StatusUpdate).Status.Timestamp.IsZero(), "a timestamp out of range reads as none")

	ev, err = EventOf03(&pb03.StreamResponse{Payload: &pb03.StreamResponse_Msg{Msg: &pb03.Message{Content: []*pb03.Part{
		{Part: &pb03.Part_Data{Data: &pb03.DataPart{}}},
		{Part: &pb03.Part_File{File: &pb03.FilePart{File: &pb03.FilePart_FileWithBytes{}}}},
		{Part: &pb03.Part_Text{}},
	}}}})
	require.NoError(t, err)
	require.Equal(t, []a2a.Part{{Data: json.RawMessage("{}")}, {Raw: []byte{}}, {}}, ev.(*a2a.Message).Parts)
}

func TestBadTaskIDsAreRefused(t *testing.T) {
	for _, f := range []func(string) error{
		func(id string) error { _, err := GetTaskRequest10(id, ""); return err },
		func(id string) error { _, err := CancelTaskRequest10(id, ""); return err },
		func(id string) error { _, err := SubscribeRequest10(id, ""); return err },
		func(id string) error { _, err := GetTaskRequest03(id); return err },
		func(id string) error { _, err := CancelTaskRequest03(id); return err },
		func(id string) error { _, err := SubscribeRequest03(id); return err },
	} {
		require.ErrorIs(t, f(""), ErrBadTaskID)
	}
	_, err := SubscribeRequest03("a/b")
	require.ErrorIs(t, err, ErrBadTaskID)
	require.ErrorContains(t, err, `"a/b" holds a "/"`)
	_, err = SubscribeRequest10("a/b", "")
	require.NoError(t, err, "1.0 names a task by its ID alone")

	for _, name := range []string{"", "tasks/", "t1", "task/t1", "tasks/a/b", "/tasks/t1", "projects/p/tasks/t1"} {
		_, err := TaskIDOfName(name)
		require.ErrorIs(t, err, ErrBadTaskID, name)
	}
}

func TestUnsendableMessagesAreRefused(t *testing.T) {
	bad := map[string]*a2a.Message{
		"nil":             nil,
		"invalid data":    {Parts: []a2a.Part{{Data: json.RawMessage(`{"a":`)}}},
		"NaN in metadata": {Parts: []a2a.Part{a2a.TextPart("x")}, Metadata: map[string]any{"x": math.NaN()}},
		"a channel":       {Parts: []a2a.Part{a2a.TextPart("x")}, Metadata: map[string]any{"x": make(chan int)}},
	}
	for name, m := range bad {
		_, err := SendRequest10(m, "", false)
		require.ErrorIs(t, err, transport.ErrInvalidMessage, name)
		_, err = SendRequest03(m, false)
		require.ErrorIs(t, err, transport.ErrInvalidMessage, name)
	}
	// A 0.3 DataPart holds an object only; 1.0 holds any JSON value.
	for _, data := range []string{`[1,2]`, `"s"`, `3`, `null`} {
		m := &a2a.Message{Parts: []a2a.Part{{Data: json.RawMessage(data)}}}
		_, err := SendRequest03(m, false)
		require.ErrorIs(t, err, transport.ErrInvalidMessage, data)
		require.ErrorContains(t, err, "JSON object only")
		r, err := SendRequest10(m, "", false)
		require.NoError(t, err, data)
		got, err := MessageOf10(r.GetMessage())
		require.NoError(t, err)
		require.JSONEq(t, data, string(got.Parts[0].Data))
	}
	_, err := StreamResponse10(&a2a.MessageRevision{})
	require.ErrorIs(t, err, transport.ErrInvalidMessage)
	_, err = StreamResponse03((*a2a.StatusUpdate)(nil))
	require.True(t, errors.Is(err, transport.ErrInvalidMessage))
}
