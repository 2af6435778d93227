package a2a

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/a2astream/a2astream/internal/a2awire"
)

// encodeEvent encodes e as a stream result in the JSON-RPC JSON of version
// v: a flat object with "kind" for 0.3, a
// {"task"|"message"|"statusUpdate"|"artifactUpdate": …} wrapper for 1.0.
func encodeEvent(v Version, e Event) ([]byte, error) {
	if err := checkVersion(v); err != nil {
		return nil, err
	}
	if isNil(e) {
		return nil, fmt.Errorf("a2a: cannot encode a nil event (%T)", e)
	}
	var obj any
	switch x := e.(type) {
	case *Task:
		obj = encTask(v, x)
		if v == V10 {
			obj = struct {
				Task any `json:"task"`
			}{obj}
		}
	case *Message:
		obj = encMessage(v, x)
		if v == V10 {
			obj = struct {
				Message any `json:"message"`
			}{obj}
		}
	case *StatusUpdate:
		obj = encStatusUpdate(v, x)
		if v == V10 {
			obj = struct {
				StatusUpdate any `json:"statusUpdate"`
			}{obj}
		}
	case *ArtifactUpdate:
		obj = encArtifactUpdate(v, x)
		if v == V10 {
			obj = struct {
				ArtifactUpdate any `json:"artifactUpdate"`
			}{obj}
		}
	default:
		return nil, fmt.Errorf("a2a: cannot encode event of type %T", e)
	}
	return marshal(obj)
}

// encodeTask encodes a bare Task in the JSON-RPC JSON of version v, the
// shape of get-task and cancel results.
func encodeTask(v Version, t *Task) ([]byte, error) {
	if err := checkVersion(v); err != nil {
		return nil, err
	}
	if t == nil {
		return nil, fmt.Errorf("a2a: cannot encode a nil task")
	}
	return marshal(encTask(v, t))
}

// encodeMessage encodes a message in the JSON-RPC JSON of version v, as it
// appears in send parameters and in history.
func encodeMessage(v Version, m *Message) ([]byte, error) {
	if err := checkVersion(v); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("a2a: cannot encode a nil message")
	}
	return marshal(encMessage(v, m))
}

// marshal is json.Marshal without HTML escaping (internal/a2awire's
// Marshal): A2A is not embedded in HTML, and escaping would rewrite the
// bytes of a part's raw JSON data.
func marshal(obj any) ([]byte, error) { return a2awire.Marshal(obj) }

func isNil(e Event) bool {
	switch x := e.(type) {
	case *Task:
		return x == nil
	case *Message:
		return x == nil
	case *StatusUpdate:
		return x == nil
	case *ArtifactUpdate:
		return x == nil
	}
	return e == nil
}

func checkVersion(v Version) error {
	if v != V03 && v != V10 {
		return fmt.Errorf("a2a: unsupported protocol version %q", string(v))
	}
	return nil
}

type encTaskT struct {
	Kind      string         `json:"kind,omitempty"`
	ID        string         `json:"id"`
	ContextID string         `json:"contextId"`
	Status    encStatusT     `json:"status"`
	Artifacts []encArtifactT `json:"artifacts,omitempty"`
	History   []encMessageT  `json:"history,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

type encStatusT struct {
	State     string       `json:"state"`
	Message   *encMessageT `json:"message,omitempty"`
	Timestamp string       `json:"timestamp,omitempty"`
}

type encMessageT struct {
	Kind      string         `json:"kind,omitempty"`
	MessageID string         `json:"messageId"`
	Role      string         `json:"role"`
	Parts     []any          `json:"parts"`
	TaskID    string         `json:"taskId,omitempty"`
	ContextID string         `json:"contextId,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

type encArtifactT struct {
	ArtifactID  string         `json:"artifactId"`
	Name        string         `json:"name,omitempty"`
	Description string         `json:"description,omitempty"`
	Parts       []any          `json:"parts"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

type encStatusUpdateT struct {
	Kind      string         `json:"kind,omitempty"`
	TaskID    string         `json:"taskId"`
	ContextID string         `json:"contextId"`
	Status    encStatusT     `json:"status"`
	Final     *bool          `json:"final,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

type encArtifactUpdateT struct {
	Kind      string         `json:"kind,omitempty"`
	TaskID    string         `json:"taskId"`
	ContextID string         `json:"contextId"`
	Artifact  encArtifactT   `json:"artifact"`
	Append    bool           `json:"append,omitempty"`
	LastChunk bool           `json:"lastChunk,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

type encPart03 struct {
	Kind     string          `json:"kind"`
	Text     *string         `json:"text,omitempty"`
	File     *encFile03      `json:"file,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"`
	Metadata map[string]any  `json:"metadata,omitempty"`
}

type encFile03 struct {
	Name     string  `json:"name,omitempty"`
	MimeType string  `json:"mimeType,omitempty"`
	Bytes    *[]byte `json:"bytes,omitempty"`
	URI      string  `json:"uri,omitempty"`
}

type encPart10 struct {
	Text      *string         `json:"text,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	URL       string          `json:"url,omitempty"`
	Raw       *[]byte         `json:"raw,omitempty"`
	MediaType string          `json:"mediaType,omitempty"`
	Filename  string          `json:"filename,omitempty"`
	Metadata  map[string]any  `json:"metadata,omitempty"`
}

func kind(v Version, k string) string {
	if v == V03 {
		return k
	}
	return ""
}

func encTask(v Version, t *Task) encTaskT {
	e := encTaskT{Kind: kind(v, "task"), ID: t.ID, ContextID: t.ContextID, Status: encStatus(v, &t.Status), Metadata: t.Metadata}
	for i := range t.Artifacts {
		e.Artifacts = append(e.Artifacts, encArtifact(v, &t.Artifacts[i]))
	}
	for i := range t.History {
		e.History = append(e.History, encMessage(v, &t.History[i]))
	}
	return e
}

func encStatus(v Version, s *TaskStatus) encStatusT {
	e := encStatusT{State: encodeState(v, s.State)}
	if s.Message != nil {
		m := encMessage(v, s.Message)
		e.Message = &m
	}
	if !s.Timestamp.IsZero() {
		e.Timestamp = formatTimestamp(s.Timestamp)
	}
	return e
}

// timeLayout is ISO 8601 in UTC with millisecond precision, as 1.0 asks.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// formatTimestamp writes t in UTC with millisecond precision, or with as many
// digits as it needs when it is finer than that (a2a-go sends nanoseconds),
// so that a decoded timestamp is written back unchanged.
func formatTimestamp(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond()%int(time.Millisecond) != 0 {
		return t.Format(time.RFC3339Nano)
	}
	return t.Format(timeLayout)
}

func encMessage(v Version, m *Message) encMessageT {
	return encMessageT{
		Kind:      kind(v, "message"),
		MessageID: m.ID,
		Role:      encodeRole(v, m.Role),
		Parts:     encParts(v, m.Parts),
		TaskID:    m.TaskID,
		ContextID: m.ContextID,
		Metadata:  m.Metadata,
	}
}

func encArtifact(v Version, a *Artifact) encArtifactT {
	return encArtifactT{ArtifactID: a.ID, Name: a.Name, Description: a.Description, Parts: encParts(v, a.Parts), Metadata: a.Metadata}
}

func encStatusUpdate(v Version, u *StatusUpdate) encStatusUpdateT {
	e := encStatusUpdateT{Kind: kind(v, "status-update"), TaskID: u.TaskID, ContextID: u.ContextID, Status: encStatus(v, &u.Status), Metadata: u.Metadata}
	if v == V03 {
		final := u.Final
		e.Final = &final
	}
	return e
}

func encArtifactUpdate(v Version, u *ArtifactUpdate) encArtifactUpdateT {
	return encArtifactUpdateT{
		Kind: kind(v, "artifact-update"), TaskID: u.TaskID, ContextID: u.ContextID,
		Artifact: encArtifact(v, &u.Artifact), Append: u.Append, LastChunk: u.LastChunk, Metadata: u.Metadata,
	}
}

func encParts(v Version, ps []Part) []any {
	out := make([]any, len(ps))
	for i := range ps {
		p := &ps[i]
		if v == V03 {
			out[i] = encPart03For(p)
		} else {
			out[i] = encPart10For(p)
		}
	}
	return out
}

func encPart03For(p *Part) encPart03 {
	e := encPart03{Metadata: p.Metadata}
	switch {
	case p.Data != nil:
		e.Kind, e.Data = "data", p.Data
	case p.URL != "":
		e.Kind, e.File = "file", &encFile03{Name: p.Filename, MimeType: p.MediaType, URI: p.URL}
	case p.Raw != nil:
		raw := p.Raw
		e.Kind, e.File = "file", &encFile03{Name: p.Filename, MimeType: p.MediaType, Bytes: &raw}
	default:
		text := p.Text
		e.Kind, e.Text = "text", &text
	}
	return e
}

func encPart10For(p *Part) encPart10 {
	e := encPart10{MediaType: p.MediaType, Filename: p.Filename, Metadata: p.Metadata}
	switch {
	case p.Data != nil:
		e.Data = p.Data
	case p.URL != "":
		e.URL = p.URL
	case p.Raw != nil:
		raw := p.Raw
		e.Raw = &raw
	default:
		text := p.Text
		e.Text = &text
	}
	return e
}
