package convert

import (
	"bytes"
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/a2astream/a2astream/a2a"
	pb "github.com/a2astream/a2astream/grpc/internal/a2apb/v03"
)

// A2A 0.3: the v0.3.0 spec's proto, whose shapes differ from the JSON-RPC
// binding's; they are those of a2a.Codec{Version: a2a.V03, Binding:
// a2a.BindingGRPC}, the proto-JSON of this proto.
//
// What the v0.3.0 proto has no field for is left out when sending, never
// refused: a part's metadata, a file part's name (a2a-python's proto has
// "name"; this one, like @a2a-js/sdk's, does not), and the media type and
// file name of a text or data part. A status update's Final is carried (0.3
// has "final"); a request names a task as the resource "tasks/{id}".

// SendRequest03 builds the request of SendStreamingMessage (unary false)
// or SendMessage (unary true), as the library's JSON-RPC binding sends it.
// A unary send asks to return at once with a configuration whose blocking
// is false: proto3 cannot tell that false from an unset one, and false is
// also its default, so the configuration is sent, empty, to say it.
func SendRequest03(m *a2a.Message, unary bool) (*pb.SendMessageRequest, error) {
	msg, err := Message03(m)
	if err != nil {
		return nil, err
	}
	r := &pb.SendMessageRequest{Request: msg}
	if unary {
		r.Configuration = &pb.SendMessageConfiguration{Blocking: false}
	}
	return r, nil
}

// GetTaskRequest03 builds a get-task request asking for the whole history.
func GetTaskRequest03(id string) (*pb.GetTaskRequest, error) {
	name, err := TaskName(id)
	if err != nil {
		return nil, err
	}
	return &pb.GetTaskRequest{Name: name, HistoryLength: FullHistory}, nil
}

// CancelTaskRequest03 builds a cancel request.
func CancelTaskRequest03(id string) (*pb.CancelTaskRequest, error) {
	name, err := TaskName(id)
	if err != nil {
		return nil, err
	}
	return &pb.CancelTaskRequest{Name: name}, nil
}

// SubscribeRequest03 builds a TaskSubscription request.
func SubscribeRequest03(id string) (*pb.TaskSubscriptionRequest, error) {
	name, err := TaskName(id)
	if err != nil {
		return nil, err
	}
	return &pb.TaskSubscriptionRequest{Name: name}, nil
}

// --- a2a → pb ---

var states03 = map[a2a.TaskState]pb.TaskState{
	a2a.StateSubmitted:     pb.TaskState_TASK_STATE_SUBMITTED,
	a2a.StateWorking:       pb.TaskState_TASK_STATE_WORKING,
	a2a.StateCompleted:     pb.TaskState_TASK_STATE_COMPLETED,
	a2a.StateFailed:        pb.TaskState_TASK_STATE_FAILED,
	a2a.StateCanceled:      pb.TaskState_TASK_STATE_CANCELLED,
	a2a.StateInputRequired: pb.TaskState_TASK_STATE_INPUT_REQUIRED,
	a2a.StateRejected:      pb.TaskState_TASK_STATE_REJECTED,
	a2a.StateAuthRequired:  pb.TaskState_TASK_STATE_AUTH_REQUIRED,
}

// State03 converts a state (canceled is TASK_STATE_CANCELLED); StateUnknown,
// and any state the model does not define, is TASK_STATE_UNSPECIFIED.
func State03(s a2a.TaskState) pb.TaskState { return states03[s] }

// Role03 converts a role; any other than user and agent is ROLE_UNSPECIFIED.
func Role03(r a2a.Role) pb.Role {
	switch r {
	case a2a.RoleUser:
		return pb.Role_ROLE_USER
	case a2a.RoleAgent:
		return pb.Role_ROLE_AGENT
	}
	return pb.Role_ROLE_UNSPECIFIED
}

// Message03 converts a message; its parts go under "content".
func Message03(m *a2a.Message) (*pb.Message, error) {
	if m == nil {
		return nil, invalid("nil message")
	}
	parts, err := parts03(m.Parts)
	if err != nil {
		return nil, err
	}
	md, err := structOf(m.Metadata)
	if err != nil {
		return nil, err
	}
	return &pb.Message{
		MessageId: m.ID, ContextId: m.ContextID, TaskId: m.TaskID,
		Role: Role03(m.Role), Content: parts, Metadata: md,
	}, nil
}

func parts03(ps []a2a.Part) ([]*pb.Part, error) {
	if len(ps) == 0 {
		return nil, nil
	}
	out := make([]*pb.Part, len(ps))
	for i := range ps {
		p, err := part03(&ps[i])
		if err != nil {
			return nil, fmt.Errorf("part %d: %w", i, err)
		}
		out[i] = p
	}
	return out, nil
}

// part03 converts a part, with its metadata (Part.metadata, a field the
// spec's proto added after the v0.3.0 tag, as 0.3's JSON has it). Its media
// type and file name are carried for a file only (FilePart.name, added
// after the tag too). Data must be a JSON object, the only value a 0.3
// DataPart holds; any other is refused.
func part03(p *a2a.Part) (*pb.Part, error) {
	md, err := structOf(p.Metadata)
	if err != nil {
		return nil, err
	}
	switch {
	case p.Data != nil:
		s, err := dataStructOf(p.Data)
		if err != nil {
			return nil, err
		}
		return &pb.Part{Part: &pb.Part_Data{Data: &pb.DataPart{Data: s}}, Metadata: md}, nil
	case p.URL != "":
		return &pb.Part{Part: &pb.Part_File{File: &pb.FilePart{
			File: &pb.FilePart_FileWithUri{FileWithUri: p.URL}, MimeType: p.MediaType, Name: p.Filename,
		}}, Metadata: md}, nil
	case p.Raw != nil:
		return &pb.Part{Part: &pb.Part_File{File: &pb.FilePart{
			File: &pb.FilePart_FileWithBytes{FileWithBytes: p.Raw}, MimeType: p.MediaType, Name: p.Filename,
		}}, Metadata: md}, nil
	}
	return &pb.Part{Part: &pb.Part_Text{Text: p.Text}, Metadata: md}, nil
}

// dataStructOf converts a part's data to the Struct of a 0.3 DataPart.
func dataStructOf(data json.RawMessage) (*structpb.Struct, error) {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil, invalid("data part: a 0.3 data part holds a JSON object only")
	}
	s := new(structpb.Struct)
	if err := protojson.Unmarshal(data, s); err != nil {
		return nil, invalid("data part: %v", err)
	}
	return s, nil
}

func artifact03(a *a2a.Artifact) (*pb.Artifact, error) {
	parts, err := parts03(a.Parts)
	if err != nil {
		return nil, err
	}
	md, err := structOf(a.Metadata)
	if err != nil {
		return nil, err
	}
	return &pb.Artifact{ArtifactId: a.ID, Name: a.Name, Description: a.Description, Parts: parts, Metadata: md}, nil
}

func status03(s *a2a.TaskStatus) (*pb.TaskStatus, error) {
	out := &pb.TaskStatus{State: State03(s.State), Timestamp: timestampOf(s.Timestamp)}
	if s.Message != nil {
		m, err := Message03(s.Message)
		if err != nil {
			return nil, within("status message", err)
		}
		out.Update = m
	}
	return out, nil
}

// Task03 converts a task.
func Task03(t *a2a.Task) (*pb.Task, error) {
	if t == nil {
		return nil, invalid("nil task")
	}
	st, err := status03(&t.Status)
	if err != nil {
		return nil, err
	}
	md, err := structOf(t.Metadata)
	if err != nil {
		return nil, err
	}
	out := &pb.Task{Id: t.ID, ContextId: t.ContextID, Status: st, Metadata: md}
	for i := range t.Artifacts {
		a, err := artifact03(&t.Artifacts[i])
		if err != nil {
			return nil, within(fmt.Sprintf("artifact %d", i), err)
		}
		out.Artifacts = append(out.Artifacts, a)
	}
	for i := range t.History {
		m, err := Message03(&t.History[i])
		if err != nil {
			return nil, within(fmt.Sprintf("history %d", i), err)
		}
		out.History = append(out.History, m)
	}
	return out, nil
}

// StreamResponse03 converts a stream event, as a server sends it; a status
// update keeps its Final.
func StreamResponse03(e a2a.Event) (*pb.StreamResponse, error) {
	switch x := e.(type) {
	case *a2a.Task:
		t, err := Task03(x)
		if err != nil {
			return nil, err
		}
		return &pb.StreamResponse{Payload: &pb.StreamResponse_Task{Task: t}}, nil
	case *a2a.Message:
		m, err := Message03(x)
		if err != nil {
			return nil, err
		}
		return &pb.StreamResponse{Payload: &pb.StreamResponse_Msg{Msg: m}}, nil
	case *a2a.StatusUpdate:
		if x == nil {
			break
		}
		st, err := status03(&x.Status)
		if err != nil {
			return nil, err
		}
		md, err := structOf(x.Metadata)
		if err != nil {
			return nil, err
		}
		return &pb.StreamResponse{Payload: &pb.StreamResponse_StatusUpdate{StatusUpdate: &pb.TaskStatusUpdateEvent{
			TaskId: x.TaskID, ContextId: x.ContextID, Status: st, Final: x.Final, Metadata: md,
		}}}, nil
	case *a2a.ArtifactUpdate:
		if x == nil {
			break
		}
		a, err := artifact03(&x.Artifact)
		if err != nil {
			return nil, err
		}
		md, err := structOf(x.Metadata)
		if err != nil {
			return nil, err
		}
		return &pb.StreamResponse{Payload: &pb.StreamResponse_ArtifactUpdate{ArtifactUpdate: &pb.TaskArtifactUpdateEvent{
			TaskId: x.TaskID, ContextId: x.ContextID, Artifact: a, Append: x.Append, LastChunk: x.LastChunk, Metadata: md,
		}}}, nil
	}
	return nil, invalid("cannot send an event of type %T", e)
}

// --- pb → a2a ---

// StateOf03 reads a state: TASK_STATE_UNSPECIFIED is a2a.StateUnknown,
// TASK_STATE_CANCELLED is a2a.StateCanceled; a value the proto does not
// define is refused.
func StateOf03(s pb.TaskState) (a2a.TaskState, error) {
	switch s {
	case pb.TaskState_TASK_STATE_UNSPECIFIED:
		return a2a.StateUnknown, nil
	case pb.TaskState_TASK_STATE_SUBMITTED:
		return a2a.StateSubmitted, nil
	case pb.TaskState_TASK_STATE_WORKING:
		return a2a.StateWorking, nil
	case pb.TaskState_TASK_STATE_COMPLETED:
		return a2a.StateCompleted, nil
	case pb.TaskState_TASK_STATE_FAILED:
		return a2a.StateFailed, nil
	case pb.TaskState_TASK_STATE_CANCELLED:
		return a2a.StateCanceled, nil
	case pb.TaskState_TASK_STATE_INPUT_REQUIRED:
		return a2a.StateInputRequired, nil
	case pb.TaskState_TASK_STATE_REJECTED:
		return a2a.StateRejected, nil
	case pb.TaskState_TASK_STATE_AUTH_REQUIRED:
		return a2a.StateAuthRequired, nil
	}
	return "", malformed("unknown task state %d", int32(s))
}

// RoleOf03 reads a role: ROLE_UNSPECIFIED is ""; a value the proto does not
// define is refused.
func RoleOf03(r pb.Role) (a2a.Role, error) {
	switch r {
	case pb.Role_ROLE_UNSPECIFIED:
		return "", nil
	case pb.Role_ROLE_USER:
		return a2a.RoleUser, nil
	case pb.Role_ROLE_AGENT:
		return a2a.RoleAgent, nil
	}
	return "", malformed("unknown role %d", int32(r))
}

// MessageOf03 reads a message.
func MessageOf03(m *pb.Message) (*a2a.Message, error) {
	if m == nil {
		return nil, malformed("no message")
	}
	role, err := RoleOf03(m.GetRole())
	if err != nil {
		return nil, err
	}
	parts, err := partsOf03(m.GetContent())
	if err != nil {
		return nil, err
	}
	md, err := mapOf(m.GetMetadata())
	if err != nil {
		return nil, err
	}
	return &a2a.Message{ID: m.GetMessageId(), TaskID: m.GetTaskId(), ContextID: m.GetContextId(), Role: role, Parts: parts, Metadata: md}, nil
}

func partsOf03(ps []*pb.Part) ([]a2a.Part, error) {
	if len(ps) == 0 {
		return nil, nil
	}
	out := make([]a2a.Part, len(ps))
	for i, p := range ps {
		if err := partOf03(p, &out[i]); err != nil {
			return nil, within(fmt.Sprintf("part %d", i), err)
		}
	}
	return out, nil
}

// partOf03 reads a part into out, as the 0.3 proto-JSON decoder reads it.
// A part with no content set, and a file part with neither a URI nor
// bytes, are refused; a data part without its Struct is the empty object,
// as the JSON decoder reads {"data":{}}.
func partOf03(p *pb.Part, out *a2a.Part) error {
	switch c := p.GetPart().(type) {
	case *pb.Part_Text:
		out.Text = c.Text
	case *pb.Part_File:
		switch f := c.File.GetFile().(type) {
		case *pb.FilePart_FileWithUri:
			out.URL = f.FileWithUri
		case *pb.FilePart_FileWithBytes:
			out.Raw = nonEmpty(f.FileWithBytes)
		default:
			return malformed("file part has neither a URI nor bytes")
		}
		out.MediaType, out.Filename = c.File.GetMimeType(), c.File.GetName()
	case *pb.Part_Data:
		s := c.Data.GetData()
		if s == nil {
			out.Data = json.RawMessage("{}")
			return nil
		}
		d, err := dataOf(structpb.NewStructValue(s))
		if err != nil {
			return err
		}
		out.Data = d
	default:
		return malformed("part has no content")
	}
	md, err := mapOf(p.GetMetadata())
	if err != nil {
		return err
	}
	out.Metadata = md
	return nil
}

func artifactOf03(a *pb.Artifact) (a2a.Artifact, error) {
	if a == nil {
		return a2a.Artifact{}, malformed("no artifact")
	}
	parts, err := partsOf03(a.GetParts())
	if err != nil {
		return a2a.Artifact{}, err
	}
	md, err := mapOf(a.GetMetadata())
	if err != nil {
		return a2a.Artifact{}, err
	}
	return a2a.Artifact{ID: a.GetArtifactId(), Name: a.GetName(), Description: a.GetDescription(), Parts: parts, Metadata: md}, nil
}

func statusOf03(s *pb.TaskStatus) (a2a.TaskStatus, error) {
	state, err := StateOf03(s.GetState())
	if err != nil {
		return a2a.TaskStatus{}, err
	}
	out := a2a.TaskStatus{State: state, Timestamp: timeOf(s.GetTimestamp())}
	if s.GetUpdate() != nil {
		m, err := MessageOf03(s.GetUpdate())
		if err != nil {
			return a2a.TaskStatus{}, within("status message", err)
		}
		out.Message = m
	}
	return out, nil
}

// TaskOf03 reads a task: the answer of GetTask and CancelTask.
func TaskOf03(t *pb.Task) (*a2a.Task, error) {
	if t == nil {
		return nil, malformed("no task")
	}
	st, err := statusOf03(t.GetStatus())
	if err != nil {
		return nil, within("task status", err)
	}
	md, err := mapOf(t.GetMetadata())
	if err != nil {
		return nil, err
	}
	out := &a2a.Task{ID: t.GetId(), ContextID: t.GetContextId(), Status: st, Metadata: md}
	if n := len(t.GetArtifacts()); n > 0 {
		out.Artifacts = make([]a2a.Artifact, n)
		for i, a := range t.GetArtifacts() {
			if out.Artifacts[i], err = artifactOf03(a); err != nil {
				return nil, within(fmt.Sprintf("task artifact %d", i), err)
			}
		}
	}
	if n := len(t.GetHistory()); n > 0 {
		out.History = make([]a2a.Message, n)
		for i, m := range t.GetHistory() {
			hm, err := MessageOf03(m)
			if err != nil {
				return nil, within(fmt.Sprintf("task history %d", i), err)
			}
			out.History[i] = *hm
		}
	}
	return out, nil
}

// EventOf03 reads one result of a stream; a status update keeps its Final.
// A response without a payload is refused.
func EventOf03(r *pb.StreamResponse) (a2a.Event, error) {
	switch p := r.GetPayload().(type) {
	case *pb.StreamResponse_Task:
		return event(TaskOf03(p.Task))
	case *pb.StreamResponse_Msg:
		return event(MessageOf03(p.Msg))
	case *pb.StreamResponse_StatusUpdate:
		u := p.StatusUpdate
		if u == nil {
			return nil, malformed("no status update")
		}
		st, err := statusOf03(u.GetStatus())
		if err != nil {
			return nil, within("status update", err)
		}
		md, err := mapOf(u.GetMetadata())
		if err != nil {
			return nil, within("status update", err)
		}
		return &a2a.StatusUpdate{TaskID: u.GetTaskId(), ContextID: u.GetContextId(), Status: st, Final: u.GetFinal(), Metadata: md}, nil
	case *pb.StreamResponse_ArtifactUpdate:
		u := p.ArtifactUpdate
		if u == nil {
			return nil, malformed("no artifact update")
		}
		a, err := artifactOf03(u.GetArtifact())
		if err != nil {
			return nil, within("artifact update", err)
		}
		md, err := mapOf(u.GetMetadata())
		if err != nil {
			return nil, within("artifact update", err)
		}
		return &a2a.ArtifactUpdate{TaskID: u.GetTaskId(), ContextID: u.GetContextId(), Artifact: a, Append: u.GetAppend(), LastChunk: u.GetLastChunk(), Metadata: md}, nil
	}
	return nil, malformed("stream response has no payload")
}

// SendResultOf03 reads the answer of SendMessage: a *a2a.Task or a
// *a2a.Message. A response without a payload is refused.
func SendResultOf03(r *pb.SendMessageResponse) (a2a.Event, error) {
	switch p := r.GetPayload().(type) {
	case *pb.SendMessageResponse_Task:
		return event(TaskOf03(p.Task))
	case *pb.SendMessageResponse_Msg:
		return event(MessageOf03(p.Msg))
	}
	return nil, malformed("send message response has no payload")
}
