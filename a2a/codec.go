package a2a

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/a2astream/a2astream/internal/clip"
)

// ErrUnknownResult is wrapped by the decoding error for a JSON object that is
// none of the four stream results in either version.
var ErrUnknownResult = errors.New("a2a: unrecognised stream result")

// decodeEvent decodes one stream result in dialect d.
func decodeEvent(d dialect, data []byte) (Event, error) {
	var w wireObject
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("a2a: decoding stream result: %w", err)
	}
	return w.event(d)
}

// decodeTask decodes a bare Task in dialect d.
func decodeTask(d dialect, data []byte) (*Task, error) {
	var w wireObject
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("a2a: decoding task: %w", err)
	}
	if w.Kind != "" && w.Kind != "task" {
		return nil, fmt.Errorf("%w: want a task, got kind %q", ErrUnknownResult, clip.Text(w.Kind, clip.Field))
	}
	if w.ID == "" {
		return nil, fmt.Errorf("%w: task without an id", ErrUnknownResult)
	}
	return w.task(d), nil
}

// decodeMessage decodes a message in dialect d.
func decodeMessage(d dialect, data []byte) (*Message, error) {
	var w wireObject
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("a2a: decoding message: %w", err)
	}
	if w.Kind != "" && w.Kind != "message" {
		return nil, fmt.Errorf("%w: want a message, got kind %q", ErrUnknownResult, clip.Text(w.Kind, clip.Field))
	}
	return w.message(d), nil
}

// wireObject is the union of every object shape a stream result can take in
// either version and binding, so that one json.Unmarshal call decodes any of
// them. The 1.0 and 0.3 HTTP+JSON wrappers hold the same union, without
// "kind".
type wireObject struct {
	Kind string `json:"kind"`

	ID        string         `json:"id"`
	ContextID string         `json:"contextId"`
	TaskID    string         `json:"taskId"`
	Status    *wireStatus    `json:"status"`
	History   []wireObject   `json:"history"`
	Artifacts []wireArtifact `json:"artifacts"`
	Artifact  *wireArtifact  `json:"artifact"`
	Append    bool           `json:"append"`
	LastChunk bool           `json:"lastChunk"`
	Final     bool           `json:"final"`
	Metadata  metadata       `json:"metadata"`

	MessageID string     `json:"messageId"`
	Role      string     `json:"role"`
	Parts     []wirePart `json:"parts"`
	// Content holds a message's parts in the v0.3 proto. It is a pointer to
	// keep wireObject within its allocation size class (240 bytes).
	Content *[]wirePart `json:"content"`

	Task           *wireObject `json:"task"`
	Message        *wireObject `json:"message"`
	StatusUpdate   *wireObject `json:"statusUpdate"`
	ArtifactUpdate *wireObject `json:"artifactUpdate"`
}

type wireStatus struct {
	State     string      `json:"state"`
	Message   *wireObject `json:"message"`
	Timestamp string      `json:"timestamp"`
}

type wireArtifact struct {
	ArtifactID  string     `json:"artifactId"`
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Parts       []wirePart `json:"parts"`
	Metadata    metadata   `json:"metadata"`
}

// wireFile is a 0.3 file: {"bytes"|"uri"} in JSON-RPC, {"fileWithBytes"|
// "fileWithUri"} in the proto-JSON of HTTP+JSON. Both spellings are read in
// every dialect.
type wireFile struct {
	Name          string `json:"name"`
	MimeType      string `json:"mimeType"`
	Bytes         b64    `json:"bytes"`
	URI           string `json:"uri"`
	FileWithBytes b64    `json:"fileWithBytes"`
	FileWithURI   string `json:"fileWithUri"`
}

// uri returns the file's URI in either spelling.
func (f *wireFile) uri() string {
	if f.URI != "" {
		return f.URI
	}
	return f.FileWithURI
}

// bytes returns the file's content in either spelling, nil when absent.
func (f *wireFile) bytes() []byte {
	if f.Bytes != nil {
		return f.Bytes
	}
	return f.FileWithBytes
}

type wirePart struct {
	Kind      string          `json:"kind"`
	Text      string          `json:"text"`
	File      *wireFile       `json:"file"`
	Data      json.RawMessage `json:"data"`
	URL       string          `json:"url"`
	Raw       b64             `json:"raw"`
	MediaType string          `json:"mediaType"`
	Filename  string          `json:"filename"`
	Metadata  metadata        `json:"metadata"`
}

// b64 decodes base64 bytes in any of the spellings ProtoJSON parsers must
// accept: standard or URL-safe alphabet, with or without padding.
type b64 []byte

func (p *b64) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if d, err := enc.DecodeString(s); err == nil {
			*p = d
			return nil
		}
	}
	return fmt.Errorf("a2a: invalid base64 in a file part")
}

// metadata decodes a JSON object into a map, leaving it nil for null and for
// the empty object that some servers attach to everything.
type metadata map[string]any

func (m *metadata) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	if len(b) >= 2 && b[0] == '{' && len(bytes.TrimSpace(b[1:len(b)-1])) == 0 {
		return nil
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*m = v
	return nil
}

// event interprets a decoded stream result in dialect d.
func (w *wireObject) event(d dialect) (Event, error) {
	switch w.Kind {
	case "task":
		return w.task(d), nil
	case "message":
		return w.message(d), nil
	case "status-update":
		return w.statusUpdate(d), nil
	case "artifact-update":
		return w.artifactUpdate(d), nil
	case "":
	default:
		return nil, fmt.Errorf("%w: kind %q", ErrUnknownResult, clip.Text(w.Kind, clip.Field))
	}
	var (
		ev Event
		n  int
	)
	if w.Task != nil {
		ev, n = w.Task.task(d), n+1
	}
	if w.Message != nil {
		ev, n = w.Message.message(d), n+1
	}
	if w.StatusUpdate != nil {
		u := w.StatusUpdate.statusUpdate(d)
		if d != dialectProto03 {
			u.Final = false // 1.0 has no "final"; a stray one is ignored.
		}
		ev, n = u, n+1
	}
	if w.ArtifactUpdate != nil {
		ev, n = w.ArtifactUpdate.artifactUpdate(d), n+1
	}
	switch n {
	case 0:
		if w.ID != "" && w.Status != nil {
			// No kind and no wrapper, but the fields of a task: some servers
			// send every result as a bare Task snapshot.
			return w.task(d), nil
		}
		return nil, fmt.Errorf("%w: no kind and no task, message, statusUpdate or artifactUpdate member", ErrUnknownResult)
	case 1:
		return ev, nil
	}
	return nil, fmt.Errorf("%w: more than one of task, message, statusUpdate and artifactUpdate", ErrUnknownResult)
}

func (w *wireObject) task(d dialect) *Task {
	t := &Task{ID: w.ID, ContextID: w.ContextID, Status: w.Status.status(d), Metadata: w.Metadata}
	if len(w.Artifacts) > 0 {
		t.Artifacts = make([]Artifact, len(w.Artifacts))
		for i := range w.Artifacts {
			t.Artifacts[i] = w.Artifacts[i].artifact(d)
		}
	}
	if len(w.History) > 0 {
		t.History = make([]Message, len(w.History))
		for i := range w.History {
			t.History[i] = *w.History[i].message(d)
		}
	}
	return t
}

// message reads a message. Parts under "content" exist only in the v0.3
// proto, so they are read as proto-JSON parts in every dialect; they win
// over "parts" when a message has both.
func (w *wireObject) message(d dialect) *Message {
	var ps []Part
	switch {
	case w.Content != nil && len(*w.Content) > 0:
		ps = protoParts(*w.Content)
	case d == dialectProto03:
		ps = protoParts(w.Parts)
	default:
		ps = parts(w.Parts)
	}
	return &Message{
		ID:        w.MessageID,
		TaskID:    w.TaskID,
		ContextID: w.ContextID,
		Role:      parseRole(w.Role),
		Parts:     ps,
		Metadata:  w.Metadata,
	}
}

func (w *wireObject) statusUpdate(d dialect) *StatusUpdate {
	return &StatusUpdate{TaskID: w.TaskID, ContextID: w.ContextID, Status: w.Status.status(d), Final: w.Final, Metadata: w.Metadata}
}

func (w *wireObject) artifactUpdate(d dialect) *ArtifactUpdate {
	u := &ArtifactUpdate{TaskID: w.TaskID, ContextID: w.ContextID, Append: w.Append, LastChunk: w.LastChunk, Metadata: w.Metadata}
	if w.Artifact != nil {
		u.Artifact = w.Artifact.artifact(d)
	}
	return u
}

func (s *wireStatus) status(d dialect) TaskStatus {
	if s == nil {
		return TaskStatus{State: StateUnknown}
	}
	st := TaskStatus{State: parseState(s.State)}
	if s.Message != nil {
		st.Message = s.Message.message(d)
	}
	if s.Timestamp != "" {
		st.Timestamp = parseTimestamp(s.Timestamp)
	}
	return st
}

// parseTimestamp reads an ISO 8601 timestamp as UTC. A timestamp that does
// not parse is dropped (the zero time), not fatal: it carries no meaning the
// runtime relies on. One without a zone is taken as UTC, and one that falls
// outside years 0…9999 once in UTC is dropped because it could not be
// written back.
func parseTimestamp(s string) time.Time {
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		ts, err = time.ParseInLocation("2006-01-02T15:04:05.999999999", s, time.UTC)
		if err != nil {
			return time.Time{}
		}
	}
	ts = ts.UTC()
	if y := ts.Year(); y < 0 || y > 9999 {
		return time.Time{}
	}
	return ts
}

func (a *wireArtifact) artifact(d dialect) Artifact {
	ps := parts
	if d == dialectProto03 {
		ps = protoParts
	}
	return Artifact{ID: a.ArtifactID, Name: a.Name, Description: a.Description, Parts: ps(a.Parts), Metadata: a.Metadata}
}

// parts reads the parts of the JSON-RPC dialect: 0.3 parts told apart by
// "kind", and 1.0 parts without it.
func parts(ws []wirePart) []Part {
	if len(ws) == 0 {
		return nil
	}
	ps := make([]Part, len(ws))
	for i := range ws {
		w := &ws[i]
		p := &ps[i]
		p.MediaType, p.Filename, p.Metadata = w.MediaType, w.Filename, w.Metadata
		switch {
		case w.File != nil && (w.Kind == "file" || w.Kind == ""):
			p.URL, p.Raw = w.File.uri(), w.File.bytes()
			if p.Raw == nil && p.URL == "" {
				p.Raw = []byte{}
			}
			if w.File.MimeType != "" {
				p.MediaType = w.File.MimeType
			}
			if w.File.Name != "" {
				p.Filename = w.File.Name
			}
		case w.Kind == "text":
			p.Text = w.Text
		case w.Kind == "data":
			p.Data = normalizeData(w.Data)
		default:
			p.Text, p.Data, p.URL, p.Raw = w.Text, normalizeData(w.Data), w.URL, []byte(w.Raw)
		}
	}
	return ps
}

// protoParts reads the parts of the v0.3 proto: {"text":…},
// {"file":{"fileWithUri"|"fileWithBytes","mimeType","name"}} or
// {"data":{"data":…}}, each with optional "metadata". A part that carries a
// "kind" (the JSON-RPC shape) is read by its kind instead. Every part comes
// out with exactly one kind of content, as the proto's oneof has it: a file
// wins over data, and data over text.
func protoParts(ws []wirePart) []Part {
	if len(ws) == 0 {
		return nil
	}
	ps := make([]Part, len(ws))
	for i := range ws {
		w := &ws[i]
		p := &ps[i]
		p.Metadata = w.Metadata
		switch {
		case w.File != nil && (w.Kind == "file" || w.Kind == ""):
			if p.URL = w.File.uri(); p.URL == "" {
				if p.Raw = w.File.bytes(); p.Raw == nil {
					p.Raw = []byte{}
				}
			}
			p.MediaType, p.Filename = w.File.MimeType, w.File.Name
		case w.Kind == "text":
			p.Text = w.Text
		case w.Kind == "data":
			p.Data = normalizeData(w.Data)
		case hasValue(w.Data):
			p.Data = unwrapData(w.Data)
		default:
			p.Text = w.Text
		}
	}
	return ps
}

// hasValue reports whether a raw JSON member is present and not null.
func hasValue(d json.RawMessage) bool {
	return len(d) > 0 && !bytes.Equal(d, []byte("null"))
}

// unwrapData reads the value of a proto-JSON DataPart, {"data":{…}}: the
// value of its "data" member, compacted. A null or missing value (ProtoJSON's
// unset Struct) reads as the empty object. An object without a "data"
// member, or a value that is not an object at all, is not a DataPart; it is
// taken as the data itself, as a JSON-RPC part would carry it.
func unwrapData(d json.RawMessage) json.RawMessage {
	if d[0] != '{' {
		return normalizeData(d)
	}
	var dp struct {
		Data json.RawMessage `json:"data"`
	}
	if json.Unmarshal(d, &dp) != nil || dp.Data == nil {
		return normalizeData(d)
	}
	if !hasValue(dp.Data) {
		return json.RawMessage("{}")
	}
	return normalizeData(dp.Data)
}

// normalizeData compacts a part's JSON data so that parts compare and
// re-encode the same whatever the sender's spacing, and reads a JSON null as
// no data at all (ProtoJSON writes null for an unset field).
func normalizeData(d json.RawMessage) json.RawMessage {
	if len(d) == 0 || bytes.Equal(d, []byte("null")) {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, d) != nil {
		return d
	}
	return b.Bytes()
}
