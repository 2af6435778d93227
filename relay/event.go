package relay

import (
	"encoding/json"

	"github.com/a2astream/a2astream/a2a"
)

// The names of the SSE events a relay sends. Each event's data is the JSON
// of the payload type the comment names. The driver writes all but
// EventGone to the log; the handler writes EventGone to one reader.
const (
	// EventStatus: the task's state changed (StatusData).
	EventStatus = "status"
	// EventArtifact: text of an artifact, to add to its pane or to replace
	// it (ArtifactData).
	EventArtifact = "artifact"
	// EventMessage: text of a message or status message, to add to its
	// pane or to replace it (MessageData).
	EventMessage = "message"
	// EventNotice: the driver's connection to the agent dropped, or
	// resumed (NoticeData). It is not part of the screen.
	EventNotice = "notice"
	// EventInput: the agent asks a question; answer it with a POST naming
	// its Prompt (InputData).
	EventInput = "input"
	// EventAnswered: the question was answered, by this browser or another
	// (AnsweredData).
	EventAnswered = "answered"
	// EventEnd: the stream ended without an error: the task completed, or
	// the agent answered with a message (EndData). It is the last event.
	EventEnd = "end"
	// EventFailure: the stream ended in an error (FailureData). It is the
	// last event. It is not named "error": EventSource fires an "error"
	// event of its own when its connection fails.
	EventFailure = "failure"
	// EventGone: the events after the reader's Last-Event-ID cannot be
	// replayed (GoneData); the reader starts again from the screen it
	// carries. Its ID is the screen's Seq.
	EventGone = "gone"
)

// StatusData is the data of an EventStatus event.
type StatusData struct {
	State     a2a.TaskState `json:"state"`
	TaskID    string        `json:"taskId,omitempty"`
	ContextID string        `json:"contextId,omitempty"`
}

// ArtifactData is the data of an EventArtifact event: text for the pane
// Pane.
type ArtifactData struct {
	Pane string `json:"pane"` // the pane's key, "artifact:<id>"
	ID   string `json:"id"`   // the artifact's ID
	Name string `json:"name,omitempty"`
	Text string `json:"text"`
	// Append adds Text to the pane; otherwise Text replaces what the pane
	// shows, or opens it.
	Append bool `json:"append,omitempty"`
}

// MessageData is the data of an EventMessage event: text for the pane Pane.
type MessageData struct {
	// Pane is the pane's key: "message:<id>" or "status:<id>"; a message
	// without an ID gets a pane of its own, "message#<seq>" or
	// "status#<seq>" after the Seq of the event that opens it.
	Pane string   `json:"pane"`
	ID   string   `json:"id,omitempty"`   // the message's ID
	Kind string   `json:"kind"`           // "message", or "status" for a status message
	Role a2a.Role `json:"role,omitempty"` // who wrote it: "agent", rarely "user"
	Text string   `json:"text"`
	// Append adds Text to the pane; otherwise Text replaces what the pane
	// shows, or opens it.
	Append bool `json:"append,omitempty"`
}

// NoticeData is the data of an EventNotice event.
type NoticeData struct {
	Kind    string `json:"kind"` // "reconnecting" or "resumed"
	Attempt int    `json:"attempt,omitempty"`
	Max     int    `json:"max,omitempty"`
	Text    string `json:"text"` // e.g. "reconnecting (1/3)…"
}

// InputData is the data of an EventInput event.
type InputData struct {
	// Prompt names the question in the answer's POST: the Seq of this
	// event.
	Prompt uint64 `json:"prompt"`
	// Text is the agent's question, cut after 16 KiB (the chunk size) with
	// an ellipsis; may be empty. The question is also the status message
	// that comes before, in full.
	Text string `json:"text"`
	// Question names the agent's question, as the stream tells prompts
	// apart: "id:<status message ID>", or "text:<digest of its text and
	// the status's timestamp>". A driver that takes the stream over and is
	// asked the same question again keeps this prompt rather than asking
	// anew.
	Question string `json:"question,omitempty"`
}

// AnsweredData is the data of an EventAnswered event. An answer longer
// than the driver's chunk size (WithChunkSize) comes in several events of
// the same Prompt, in one commit: the first closes the question and opens
// the answer's pane, the others add to it.
type AnsweredData struct {
	Prompt uint64 `json:"prompt"`
	Text   string `json:"text"` // the answer applied, or a piece of it
	// Append adds Text to the answer's pane; otherwise Text replaces
	// what it shows, or opens it.
	Append bool `json:"append,omitempty"`
}

// EndData is the data of an EventEnd event.
type EndData struct {
	State     a2a.TaskState `json:"state,omitempty"` // "completed"; empty for a message answer
	TaskID    string        `json:"taskId,omitempty"`
	ContextID string        `json:"contextId,omitempty"`
	Text      string        `json:"text"` // one line: "completed", "answered"
}

// FailureData is the data of an EventFailure event.
type FailureData struct {
	// Kind is what ended the stream, for a page to style: "failed",
	// "rejected", "canceled", "auth-required", "no-answer" (the question
	// was not answered in time), "connection-lost", "agent-error",
	// "http-error", "protocol-error", "stopped" (the stream was stopped
	// before its task ended), "unresumable" (its driver died before the
	// stream knew its task, or left a checkpoint that does not parse: see
	// Run), "lost" (the store lost the stream's log, and no driver can
	// resume it: see Handler; this event is not in the log), or "error".
	Kind  string        `json:"kind"`
	State a2a.TaskState `json:"state,omitempty"` // the task's state, when it ended
	// Text is one line of at most 512 bytes, as stream.Ending.String, meant for
	// people: a task's ending with the agent's reason ("failed: out of
	// paper"), the agent's own message of an error it answered with, or
	// words such as "the agent could not be reached (HTTP 502)". It never
	// holds the error's text, which names the agent's host, port and path:
	// Drive logs that (WithLogger).
	Text string `json:"text"`
}

// GoneData is the data of an EventGone event.
type GoneData struct {
	// Reason is why the events cannot be replayed: "trimmed" (past
	// retention), "epoch" (the ID is of another log), "ahead" (the ID is
	// past the log's tail), "unparsable", or "lost": the store lost the
	// stream's log, and a failure event of kind "lost" follows, which ends
	// the stream (a page may keep what it shows until then).
	Reason string `json:"reason"`
	// View is what the browser shows after the entry View.Seq: a View,
	// as JSON (its member is named "screen"). Events with later Seqs
	// follow.
	View json.RawMessage `json:"screen"`
}
