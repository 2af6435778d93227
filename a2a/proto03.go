package a2a

import (
	"encoding/json"
	"fmt"
)

// This file holds the encoder of the 0.3 HTTP+JSON dialect.
//
// The 0.3 HTTP+JSON binding is transcoded from the v0.3 proto, and servers
// (@a2a-js/sdk 0.3.x, a2a-python 0.3) send the proto-JSON of its messages,
// not the JSON-RPC shapes of 0.3:
//
//	{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_INPUT_REQUIRED",
//	  "message":{"messageId":"m","role":"ROLE_AGENT","content":[{"text":"need more input"}]}},"final":true}}
//
// A message's parts sit under "content" (an artifact's stay under "parts"),
// parts have no "kind", a file is {"file":{"fileWithUri"|"fileWithBytes",
// "mimeType","name"}}, a data part is {"data":{"data":{…}}}, roles are
// ROLE_USER and ROLE_AGENT, states are TASK_STATE_* with the British
// TASK_STATE_CANCELLED, and a status update keeps its "final".

// encodeEventProto03 encodes e as a 0.3 HTTP+JSON stream result: a
// StreamResponse wrapper holding proto-JSON.
func encodeEventProto03(e Event) ([]byte, error) {
	if isNil(e) {
		return nil, fmt.Errorf("a2a: cannot encode a nil event (%T)", e)
	}
	var obj any
	switch x := e.(type) {
	case *Task:
		obj = struct {
			Task p3Task `json:"task"`
		}{p3TaskOf(x)}
	case *Message:
		obj = struct {
			Message p3Message `json:"message"`
		}{p3MessageOf(x)}
	case *StatusUpdate:
		obj = struct {
			StatusUpdate p3StatusUpdate `json:"statusUpdate"`
		}{p3StatusUpdate{
			TaskID: x.TaskID, ContextID: x.ContextID, Status: p3StatusOf(&x.Status),
			Final: x.Final, Metadata: x.Metadata,
		}}
	case *ArtifactUpdate:
		obj = struct {
			ArtifactUpdate p3ArtifactUpdate `json:"artifactUpdate"`
		}{p3ArtifactUpdate{
			TaskID: x.TaskID, ContextID: x.ContextID, Artifact: p3ArtifactOf(&x.Artifact),
			Append: x.Append, LastChunk: x.LastChunk, Metadata: x.Metadata,
		}}
	default:
		return nil, fmt.Errorf("a2a: cannot encode event of type %T", e)
	}
	return marshal(obj)
}

// The proto-JSON of the v0.3 proto, in the proto's field order. As
// ProtoJSON does, it leaves out empty strings, false and empty lists; a
// status's state and a message's role are always written.

type p3Task struct {
	ID        string         `json:"id,omitempty"`
	ContextID string         `json:"contextId,omitempty"`
	Status    p3Status       `json:"status"`
	Artifacts []p3Artifact   `json:"artifacts,omitempty"`
	History   []p3Message    `json:"history,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

type p3Status struct {
	State     string     `json:"state"`
	Message   *p3Message `json:"message,omitempty"`
	Timestamp string     `json:"timestamp,omitempty"`
}

type p3Message struct {
	MessageID string         `json:"messageId,omitempty"`
	ContextID string         `json:"contextId,omitempty"`
	TaskID    string         `json:"taskId,omitempty"`
	Role      string         `json:"role"`
	Content   []p3Part       `json:"content,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

type p3Artifact struct {
	ArtifactID  string         `json:"artifactId,omitempty"`
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Parts       []p3Part       `json:"parts,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

type p3StatusUpdate struct {
	TaskID    string         `json:"taskId,omitempty"`
	ContextID string         `json:"contextId,omitempty"`
	Status    p3Status       `json:"status"`
	Final     bool           `json:"final,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

type p3ArtifactUpdate struct {
	TaskID    string         `json:"taskId,omitempty"`
	ContextID string         `json:"contextId,omitempty"`
	Artifact  p3Artifact     `json:"artifact"`
	Append    bool           `json:"append,omitempty"`
	LastChunk bool           `json:"lastChunk,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// p3Part is the proto's Part: a oneof of text, file and data, then
// metadata (which a2a-python's v0.3 proto has and @a2a-js/sdk 0.3.x
// ignores).
type p3Part struct {
	Text     *string        `json:"text,omitempty"`
	File     *p3File        `json:"file,omitempty"`
	Data     *p3Data        `json:"data,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// p3File is the proto's FilePart. Bytes are base64 once, as @a2a-js/sdk
// writes and reads them. "name" is a2a-python's; @a2a-js/sdk 0.3.x ignores
// it.
type p3File struct {
	FileWithURI   string  `json:"fileWithUri,omitempty"`
	FileWithBytes *[]byte `json:"fileWithBytes,omitempty"`
	MimeType      string  `json:"mimeType,omitempty"`
	Name          string  `json:"name,omitempty"`
}

type p3Data struct {
	Data json.RawMessage `json:"data"`
}

func p3TaskOf(t *Task) p3Task {
	e := p3Task{ID: t.ID, ContextID: t.ContextID, Status: p3StatusOf(&t.Status), Metadata: t.Metadata}
	if len(t.Artifacts) > 0 {
		e.Artifacts = make([]p3Artifact, len(t.Artifacts))
		for i := range t.Artifacts {
			e.Artifacts[i] = p3ArtifactOf(&t.Artifacts[i])
		}
	}
	if len(t.History) > 0 {
		e.History = make([]p3Message, len(t.History))
		for i := range t.History {
			e.History[i] = p3MessageOf(&t.History[i])
		}
	}
	return e
}

func p3StatusOf(s *TaskStatus) p3Status {
	e := p3Status{State: encodeState03Proto(s.State)}
	if s.Message != nil {
		m := p3MessageOf(s.Message)
		e.Message = &m
	}
	if !s.Timestamp.IsZero() {
		e.Timestamp = formatTimestamp(s.Timestamp)
	}
	return e
}

// encodeState03Proto writes a state as the v0.3 proto's enum names: those
// of 1.0, but TASK_STATE_CANCELLED.
func encodeState03Proto(s TaskState) string {
	s = parseState(string(s))
	if s == StateCanceled {
		return "TASK_STATE_CANCELLED"
	}
	return states10[s]
}

func p3MessageOf(m *Message) p3Message {
	return p3Message{
		MessageID: m.ID,
		ContextID: m.ContextID,
		TaskID:    m.TaskID,
		Role:      encodeRole(V10, m.Role),
		Content:   p3PartsOf(m.Parts),
		Metadata:  m.Metadata,
	}
}

func p3ArtifactOf(a *Artifact) p3Artifact {
	return p3Artifact{ArtifactID: a.ID, Name: a.Name, Description: a.Description, Parts: p3PartsOf(a.Parts), Metadata: a.Metadata}
}

func p3PartsOf(ps []Part) []p3Part {
	if len(ps) == 0 {
		return nil
	}
	out := make([]p3Part, len(ps))
	for i := range ps {
		p := &ps[i]
		e := &out[i]
		e.Metadata = p.Metadata
		switch {
		case p.Data != nil:
			e.Data = &p3Data{Data: p.Data}
		case p.URL != "":
			e.File = &p3File{FileWithURI: p.URL, MimeType: p.MediaType, Name: p.Filename}
		case p.Raw != nil:
			e.File = &p3File{FileWithBytes: &p.Raw, MimeType: p.MediaType, Name: p.Filename}
		default:
			e.Text = &p.Text
		}
	}
	return out
}
