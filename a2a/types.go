package a2a

import (
	"bytes"
	"encoding/json"
	"maps"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/a2astream/a2astream/internal/canonjson"
)

// Part is one piece of content of a message or an artifact. Exactly one of
// Text, Data, URL and Raw carries the content; a Part with none of them is an
// empty text part.
//
// On the 0.3 wire URL and Raw are a file part's "file.uri" and "file.bytes",
// and Filename and MediaType are its "name" and "mimeType".
type Part struct {
	Text      string
	Data      json.RawMessage
	URL       string
	Raw       []byte
	MediaType string
	Filename  string
	Metadata  map[string]any
}

// IsText reports whether the part carries text (and nothing else).
func (p *Part) IsText() bool { return p.Data == nil && p.URL == "" && p.Raw == nil }

// Equal reports whether two parts have the same content, media type, file
// name and metadata. Data compares by JSON value: the order of an object's
// members, white space, escapes in strings and the way a number is written
// do not matter (1, 1.0 and 10E-1 are one number, and 9007199254740993 is
// not 9007199254740992), and of members with the same name only the last
// counts, as encoding/json reads it. Invalid UTF-8 and a lone surrogate in
// a string read as U+FFFD, as encoding/json reads them; data that is not a
// single valid JSON value equals only the same bytes.
func (p *Part) Equal(q *Part) bool {
	if p.Text != q.Text || p.URL != q.URL || p.MediaType != q.MediaType || p.Filename != q.Filename {
		return false
	}
	if (p.Data != nil || q.Data != nil) && (p.Data == nil || q.Data == nil || !canonjson.Equal(p.Data, q.Data)) {
		return false
	}
	if (p.Raw == nil) != (q.Raw == nil) || !bytes.Equal(p.Raw, q.Raw) {
		return false
	}
	return metadataEqual(p.Metadata, q.Metadata)
}

// Clone returns a deep copy of the part.
func (p *Part) Clone() Part {
	c := *p
	if c.Data != nil {
		c.Data = bytes.Clone(c.Data)
	}
	if c.Raw != nil {
		c.Raw = bytes.Clone(c.Raw)
	}
	c.Metadata = cloneMetadata(c.Metadata)
	return c
}

// TextPart returns a text part.
func TextPart(text string) Part { return Part{Text: text} }

// Message is one turn of conversation: a user's request, an agent's reply or
// status message, or a human's answer to an input-required prompt.
type Message struct {
	ID        string
	TaskID    string
	ContextID string
	Role      Role
	Parts     []Part
	Metadata  map[string]any
}

// NewTextMessage returns a message with one text part and a fresh random
// (UUID) message ID.
func NewTextMessage(role Role, text string) *Message {
	return &Message{ID: uuid.NewString(), Role: role, Parts: []Part{{Text: text}}}
}

// Text returns the concatenated text of the message's text parts. It is ""
// for a nil message, so a prompt or status that may carry none reads safely.
func (m *Message) Text() string {
	if m == nil {
		return ""
	}
	return partsText(m.Parts)
}

// Clone returns a deep copy of the message. Clone of nil is nil.
func (m *Message) Clone() *Message {
	if m == nil {
		return nil
	}
	c := *m
	c.Parts = cloneParts(m.Parts)
	c.Metadata = cloneMetadata(m.Metadata)
	return &c
}

// Artifact is an output of a task, built from parts that may arrive in
// several chunks.
type Artifact struct {
	ID          string
	Name        string
	Description string
	Parts       []Part
	Metadata    map[string]any
}

// Text returns the concatenated text of the artifact's text parts.
func (a *Artifact) Text() string {
	if a == nil {
		return ""
	}
	return partsText(a.Parts)
}

// Clone returns a deep copy of the artifact.
func (a *Artifact) Clone() Artifact {
	c := *a
	c.Parts = cloneParts(a.Parts)
	c.Metadata = cloneMetadata(a.Metadata)
	return c
}

// TaskStatus is a task's state, with the agent's optional status message.
type TaskStatus struct {
	State     TaskState
	Message   *Message
	Timestamp time.Time // in UTC; zero when the server sent none or one that does not parse
}

// Task is the unit of work an agent runs for a client.
//
// A task into which [Task.Apply] folded a long history keeps an index of
// it, which [Task.Clone] leaves out: compare tasks by their fields, or
// compare clones, rather than with reflect.DeepEqual.
type Task struct {
	ID        string
	ContextID string
	Status    TaskStatus
	Artifacts []Artifact
	History   []Message
	Metadata  map[string]any

	// hist is where Apply finds a message of a long history by its ID;
	// nil until then, and never shared with a clone.
	hist *historyIndex
}

// Clone returns a deep copy of the task. Clone of nil is nil.
func (t *Task) Clone() *Task {
	if t == nil {
		return nil
	}
	c := *t
	c.hist = nil
	c.Status.Message = t.Status.Message.Clone()
	if t.Artifacts != nil {
		c.Artifacts = make([]Artifact, len(t.Artifacts))
		for i := range t.Artifacts {
			c.Artifacts[i] = t.Artifacts[i].Clone()
		}
	}
	if t.History != nil {
		c.History = make([]Message, len(t.History))
		for i := range t.History {
			c.History[i] = *t.History[i].Clone()
		}
	}
	c.Metadata = cloneMetadata(t.Metadata)
	return &c
}

// Artifact returns the task's artifact with the given ID, or nil. It scans
// from the newest artifact, the one updates most often name.
func (t *Task) Artifact(id string) *Artifact {
	for i := len(t.Artifacts) - 1; i >= 0; i-- {
		if t.Artifacts[i].ID == id {
			return &t.Artifacts[i]
		}
	}
	return nil
}

// StatusUpdate reports a change of a task's status.
type StatusUpdate struct {
	TaskID    string
	ContextID string
	Status    TaskStatus
	// Final is the 0.3 "final" flag. A2A 1.0 has no such field; it is false
	// for events decoded from 1.0 and not written when encoding 1.0.
	Final    bool
	Metadata map[string]any
}

// ArtifactUpdate carries an artifact, or a chunk of one. With Append the
// parts extend the artifact of the same ID; without it they replace it.
type ArtifactUpdate struct {
	TaskID    string
	ContextID string
	Artifact  Artifact
	Append    bool
	LastChunk bool
	Metadata  map[string]any
}

// Event is one result on an A2A stream: a *Task, *Message, *StatusUpdate or
// *ArtifactUpdate, the four the wire carries, or a *MessageRevision, which
// only a stream's deltas hold. The set is closed; no other type implements
// Event.
type Event interface {
	isEvent()
}

func (*Task) isEvent()           {}
func (*Message) isEvent()        {}
func (*StatusUpdate) isEvent()   {}
func (*ArtifactUpdate) isEvent() {}

func partsText(parts []Part) string {
	switch {
	case len(parts) == 1 && parts[0].IsText():
		return parts[0].Text
	}
	var b strings.Builder
	for i := range parts {
		if parts[i].IsText() {
			b.WriteString(parts[i].Text)
		}
	}
	return b.String()
}

func cloneParts(ps []Part) []Part {
	if ps == nil {
		return nil
	}
	c := make([]Part, len(ps))
	for i := range ps {
		c[i] = ps[i].Clone()
	}
	return c
}

func cloneMetadata(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = cloneValue(v)
	}
	return c
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return cloneMetadata(x)
	case []any:
		c := make([]any, len(x))
		for i := range x {
			c[i] = cloneValue(x[i])
		}
		return c
	}
	return v
}

func metadataEqual(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	return maps.EqualFunc(a, b, valueEqual)
}

func valueEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			return metadataEqual(x, y)
		}
	case []any:
		if y, ok := b.([]any); ok {
			if len(x) != len(y) {
				return false
			}
			for i := range x {
				if !valueEqual(x[i], y[i]) {
					return false
				}
			}
			return true
		}
	case string, float64, bool, nil, json.Number:
		if a == b {
			return true
		}
	}
	// Values of different Go types, or that did not come from JSON decoding
	// (an int against a float64, a map[string]string against a
	// map[string]any): compare their encodings, so that the result does not
	// depend on which side is which.
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}
