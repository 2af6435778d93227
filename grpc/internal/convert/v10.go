package convert

import (
	"fmt"

	"github.com/a2astream/a2astream/a2a"
	pb "github.com/a2astream/a2astream/grpc/internal/a2apb/v1"
)

// A2A 1.0: the proto is the JSON of the JSON-RPC binding, field for field,
// so the model maps onto it whole, but for what the model has no field for:
// a message's extensions and reference_task_ids and an artifact's
// extensions are read past.

// SendRequest10 builds the request of SendStreamingMessage (unary false)
// or SendMessage (unary true), as the library's JSON-RPC binding sends it:
// the message, the tenant, and for a unary send a configuration asking it to
// return at once (return_immediately).
func SendRequest10(m *a2a.Message, tenant string, unary bool) (*pb.SendMessageRequest, error) {
	msg, err := Message10(m)
	if err != nil {
		return nil, err
	}
	r := &pb.SendMessageRequest{Tenant: tenant, Message: msg}
	if unary {
		r.Configuration = &pb.SendMessageConfiguration{ReturnImmediately: true}
	}
	return r, nil
}

// GetTaskRequest10 builds a get-task request asking for the whole history.
func GetTaskRequest10(id, tenant string) (*pb.GetTaskRequest, error) {
	if err := checkTaskID(id); err != nil {
		return nil, err
	}
	n := int32(FullHistory)
	return &pb.GetTaskRequest{Tenant: tenant, Id: id, HistoryLength: &n}, nil
}

// CancelTaskRequest10 builds a cancel request.
func CancelTaskRequest10(id, tenant string) (*pb.CancelTaskRequest, error) {
	if err := checkTaskID(id); err != nil {
		return nil, err
	}
	return &pb.CancelTaskRequest{Tenant: tenant, Id: id}, nil
}

// SubscribeRequest10 builds a SubscribeToTask request.
func SubscribeRequest10(id, tenant string) (*pb.SubscribeToTaskRequest, error) {
	if err := checkTaskID(id); err != nil {
		return nil, err
	}
	return &pb.SubscribeToTaskRequest{Tenant: tenant, Id: id}, nil
}

// --- a2a → pb ---

var states10 = map[a2a.TaskState]pb.TaskState{
	a2a.StateSubmitted:     pb.TaskState_TASK_STATE_SUBMITTED,
	a2a.StateWorking:       pb.TaskState_TASK_STATE_WORKING,
	a2a.StateCompleted:     pb.TaskState_TASK_STATE_COMPLETED,
	a2a.StateFailed:        pb.TaskState_TASK_STATE_FAILED,
	a2a.StateCanceled:      pb.TaskState_TASK_STATE_CANCELED,
	a2a.StateInputRequired: pb.TaskState_TASK_STATE_INPUT_REQUIRED,
	a2a.StateRejected:      pb.TaskState_TASK_STATE_REJECTED,
	a2a.StateAuthRequired:  pb.TaskState_TASK_STATE_AUTH_REQUIRED,
}

// State10 converts a state; StateUnknown, and any state the model does not
// define, is TASK_STATE_UNSPECIFIED.
func State10(s a2a.TaskState) pb.TaskState { return states10[s] }

// Role10 converts a role; any other than user and agent is ROLE_UNSPECIFIED.
func Role10(r a2a.Role) pb.Role {
	switch r {
	case a2a.RoleUser:
		return pb.Role_ROLE_USER
	case a2a.RoleAgent:
		return pb.Role_ROLE_AGENT
	}
	return pb.Role_ROLE_UNSPECIFIED
}

// Message10 converts a message.
func Message10(m *a2a.Message) (*pb.Message, error) {
	if m == nil {
		return nil, invalid("nil message")
	}
	parts, err := parts10(m.Parts)
	if err != nil {
		return nil, err
	}
	md, err := structOf(m.Metadata)
	if err != nil {
		return nil, err
	}
	return &pb.Message{
		MessageId: m.ID, ContextId: m.ContextID, TaskId: m.TaskID,
		Role: Role10(m.Role), Parts: parts, Metadata: md,
	}, nil
}

func parts10(ps []a2a.Part) ([]*pb.Part, error) {
	if len(ps) == 0 {
		return nil, nil
	}
	out := make([]*pb.Part, len(ps))
	for i := range ps {
		p, err := part10(&ps[i])
		if err != nil {
			return nil, fmt.Errorf("part %d: %w", i, err)
		}
		out[i] = p
	}
	return out, nil
}

// part10 converts a part. As in the model, one of data, URL, bytes and text
// is its content, in that order; a part with none is an empty text part.
func part10(p *a2a.Part) (*pb.Part, error) {
	md, err := structOf(p.Metadata)
	if err != nil {
		return nil, err
	}
	out := &pb.Part{Metadata: md, Filename: p.Filename, MediaType: p.MediaType}
	switch {
	case p.Data != nil:
		v, err := valueOf(p.Data)
		if err != nil {
			return nil, err
		}
		out.Content = &pb.Part_Data{Data: v}
	case p.URL != "":
		out.Content = &pb.Part_Url{Url: p.URL}
	case p.Raw != nil:
		out.Content = &pb.Part_Raw{Raw: p.Raw}
	default:
		out.Content = &pb.Part_Text{Text: p.Text}
	}
	return out, nil
}

func artifact10(a *a2a.Artifact) (*pb.Artifact, error) {
	parts, err := parts10(a.Parts)
	if err != nil {
		return nil, err
	}
	md, err := structOf(a.Metadata)
	if err != nil {
		return nil, err
	}
	return &pb.Artifact{ArtifactId: a.ID, Name: a.Name, Description: a.Description, Parts: parts, Metadata: md}, nil
}

func status10(s *a2a.TaskStatus) (*pb.TaskStatus, error) {
	out := &pb.TaskStatus{State: State10(s.State), Timestamp: timestampOf(s.Timestamp)}
	if s.Message != nil {
		m, err := Message10(s.Message)
		if err != nil {
			return nil, within("status message", err)
		}
		out.Message = m
	}
	return out, nil
}

// Task10 converts a task.
func Task10(t *a2a.Task) (*pb.Task, error) {
	if t == nil {
		return nil, invalid("nil task")
	}
	st, err := status10(&t.Status)
	if err != nil {
		return nil, err
	}
	md, err := structOf(t.Metadata)
	if err != nil {
		return nil, err
	}
	out := &pb.Task{Id: t.ID, ContextId: t.ContextID, Status: st, Metadata: md}
	for i := range t.Artifacts {
		a, err := artifact10(&t.Artifacts[i])
		if err != nil {
			return nil, within(fmt.Sprintf("artifact %d", i), err)
		}
		out.Artifacts = append(out.Artifacts, a)
	}
	for i := range t.History {
		m, err := Message10(&t.History[i])
		if err != nil {
			return nil, within(fmt.Sprintf("history %d", i), err)
		}
		out.History = append(out.History, m)
	}
	return out, nil
}

// StreamResponse10 converts a stream event (a *a2a.Task, *a2a.Message,
// *a2a.StatusUpdate or *a2a.ArtifactUpdate), as a server sends it. A status
// update's Final, which 1.0 does not have, is left out.
func StreamResponse10(e a2a.Event) (*pb.StreamResponse, error) {
	switch x := e.(type) {
	case *a2a.Task:
		t, err := Task10(x)
		if err != nil {
			return nil, err
		}
		return &pb.StreamResponse{Payload: &pb.StreamResponse_Task{Task: t}}, nil
	case *a2a.Message:
		m, err := Message10(x)
		if err != nil {
			return nil, err
		}
		return &pb.StreamResponse{Payload: &pb.StreamResponse_Message{Message: m}}, nil
	case *a2a.StatusUpdate:
		if x == nil {
			break
		}
		st, err := status10(&x.Status)
		if err != nil {
			return nil, err
		}
		md, err := structOf(x.Metadata)
		if err != nil {
			return nil, err
		}
		return &pb.StreamResponse{Payload: &pb.StreamResponse_StatusUpdate{StatusUpdate: &pb.TaskStatusUpdateEvent{
			TaskId: x.TaskID, ContextId: x.ContextID, Status: st, Metadata: md,
		}}}, nil
	case *a2a.ArtifactUpdate:
		if x == nil {
			break
		}
		a, err := artifact10(&x.Artifact)
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

// StateOf10 reads a state: TASK_STATE_UNSPECIFIED is a2a.StateUnknown, as
// the JSON decoders read it; a value the proto does not define is refused.
func StateOf10(s pb.TaskState) (a2a.TaskState, error) {
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
	case pb.TaskState_TASK_STATE_CANCELED:
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

// RoleOf10 reads a role: ROLE_UNSPECIFIED is "", as the JSON decoders read
// a role they do not know; a value the proto does not define is refused.
func RoleOf10(r pb.Role) (a2a.Role, error) {
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

// MessageOf10 reads a message.
func MessageOf10(m *pb.Message) (*a2a.Message, error) {
	if m == nil {
		return nil, malformed("no message")
	}
	role, err := RoleOf10(m.GetRole())
	if err != nil {
		return nil, err
	}
	parts, err := partsOf10(m.GetParts())
	if err != nil {
		return nil, err
	}
	md, err := mapOf(m.GetMetadata())
	if err != nil {
		return nil, err
	}
	return &a2a.Message{ID: m.GetMessageId(), TaskID: m.GetTaskId(), ContextID: m.GetContextId(), Role: role, Parts: parts, Metadata: md}, nil
}

func partsOf10(ps []*pb.Part) ([]a2a.Part, error) {
	if len(ps) == 0 {
		return nil, nil
	}
	out := make([]a2a.Part, len(ps))
	for i, p := range ps {
		if err := partOf10(p, &out[i]); err != nil {
			return nil, within(fmt.Sprintf("part %d", i), err)
		}
	}
	return out, nil
}

// partOf10 reads a part into out. A part with no content set (not even
// empty text) is refused: the proto's oneof says which content a part has.
func partOf10(p *pb.Part, out *a2a.Part) error {
	switch c := p.GetContent().(type) {
	case *pb.Part_Text:
		out.Text = c.Text
	case *pb.Part_Raw:
		out.Raw = nonEmpty(c.Raw)
	case *pb.Part_Url:
		out.URL = c.Url
	case *pb.Part_Data:
		d, err := dataOf(c.Data)
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
	out.Metadata, out.Filename, out.MediaType = md, p.GetFilename(), p.GetMediaType()
	return nil
}

func artifactOf10(a *pb.Artifact) (a2a.Artifact, error) {
	if a == nil {
		return a2a.Artifact{}, malformed("no artifact")
	}
	parts, err := partsOf10(a.GetParts())
	if err != nil {
		return a2a.Artifact{}, err
	}
	md, err := mapOf(a.GetMetadata())
	if err != nil {
		return a2a.Artifact{}, err
	}
	return a2a.Artifact{ID: a.GetArtifactId(), Name: a.GetName(), Description: a.GetDescription(), Parts: parts, Metadata: md}, nil
}

// statusOf10 reads a status; a missing one is the unknown state, as the
// JSON decoders read a missing status.
func statusOf10(s *pb.TaskStatus) (a2a.TaskStatus, error) {
	state, err := StateOf10(s.GetState())
	if err != nil {
		return a2a.TaskStatus{}, err
	}
	out := a2a.TaskStatus{State: state, Timestamp: timeOf(s.GetTimestamp())}
	if s.GetMessage() != nil {
		m, err := MessageOf10(s.GetMessage())
		if err != nil {
			return a2a.TaskStatus{}, within("status message", err)
		}
		out.Message = m
	}
	return out, nil
}

// TaskOf10 reads a task: the answer of GetTask and CancelTask.
func TaskOf10(t *pb.Task) (*a2a.Task, error) {
	if t == nil {
		return nil, malformed("no task")
	}
	st, err := statusOf10(t.GetStatus())
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
			if out.Artifacts[i], err = artifactOf10(a); err != nil {
				return nil, within(fmt.Sprintf("task artifact %d", i), err)
			}
		}
	}
	if n := len(t.GetHistory()); n > 0 {
		out.History = make([]a2a.Message, n)
		for i, m := range t.GetHistory() {
			hm, err := MessageOf10(m)
			if err != nil {
				return nil, within(fmt.Sprintf("task history %d", i), err)
			}
			out.History[i] = *hm
		}
	}
	return out, nil
}

// EventOf10 reads one result of a stream: a *a2a.Task, *a2a.Message,
// *a2a.StatusUpdate or *a2a.ArtifactUpdate. A response without a payload
// is refused.
func EventOf10(r *pb.StreamResponse) (a2a.Event, error) {
	switch p := r.GetPayload().(type) {
	case *pb.StreamResponse_Task:
		return event(TaskOf10(p.Task))
	case *pb.StreamResponse_Message:
		return event(MessageOf10(p.Message))
	case *pb.StreamResponse_StatusUpdate:
		u := p.StatusUpdate
		if u == nil {
			return nil, malformed("no status update")
		}
		st, err := statusOf10(u.GetStatus())
		if err != nil {
			return nil, within("status update", err)
		}
		md, err := mapOf(u.GetMetadata())
		if err != nil {
			return nil, within("status update", err)
		}
		return &a2a.StatusUpdate{TaskID: u.GetTaskId(), ContextID: u.GetContextId(), Status: st, Metadata: md}, nil
	case *pb.StreamResponse_ArtifactUpdate:
		u := p.ArtifactUpdate
		if u == nil {
			return nil, malformed("no artifact update")
		}
		a, err := artifactOf10(u.GetArtifact())
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

// SendResultOf10 reads the answer of SendMessage: a *a2a.Task or a
// *a2a.Message. A response without a payload is refused.
func SendResultOf10(r *pb.SendMessageResponse) (a2a.Event, error) {
	switch p := r.GetPayload().(type) {
	case *pb.SendMessageResponse_Task:
		return event(TaskOf10(p.Task))
	case *pb.SendMessageResponse_Message:
		return event(MessageOf10(p.Message))
	}
	return nil, malformed("send message response has no payload")
}
