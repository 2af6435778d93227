package a2atest

import (
	"strconv"
	"time"

	"github.com/a2astream/a2astream/a2a"
)

// ResubscribeStyle is how an [Agent] answers tasks/resubscribe (0.3) and
// SubscribeToTask (1.0). Each style copies a real server's behaviour.
type ResubscribeStyle int

const (
	// LiveOnly sends only the events that fall due after the subscription
	// arrives, with no snapshot, as a2a-go does. Once the task is settled
	// (terminal or interrupted) it answers -32001 (task not found) as an SSE
	// event, as a2a-go does once a turn is over.
	LiveOnly ResubscribeStyle = iota + 1
	// SnapshotFirst sends a Task snapshot as of now, then the live events, as
	// @a2a-js/sdk does and A2A 1.0 requires. A subscription to a terminal task
	// gets -32004 (unsupported operation) as plain JSON in 1.0 and the Task
	// snapshot alone in 0.3; a subscription to an interrupted task gets the
	// snapshot and is closed (see [WithStayOpenOnInterrupt]).
	SnapshotFirst
	// FullReplay sends every event of the task already due, from the initial
	// Task on, then the live ones, and closes after the settling event. It
	// makes clients see every chunk and message twice.
	FullReplay
)

// String returns the style's name.
func (s ResubscribeStyle) String() string {
	switch s {
	case LiveOnly:
		return "LiveOnly"
	case SnapshotFirst:
		return "SnapshotFirst"
	case FullReplay:
		return "FullReplay"
	}
	return "ResubscribeStyle(" + strconv.Itoa(int(s)) + ")"
}

type stepKind int

const (
	stepStatus stepKind = iota + 1
	stepArtifact
	stepSay
	stepPause
	stepReply
)

// Step is one step of an [Agent]'s script. Build steps with [Working],
// [Status], [Chunk], [ArtifactChunk], [Say], [AskInput], [AskAuth], [Finish],
// [Pause] and [Reply], and give a step's event metadata with
// [Step.WithMetadata]; the zero Step does nothing.
//
// A script becomes a timeline when its task is created: every step but
// Pause yields one event, due after the sum of the Pause durations before it.
// A settling status (terminal, input-required) ends the part of the script
// that is scheduled; see [AskInput] and [Finish].
type Step struct {
	kind       stepKind
	state      a2a.TaskState
	text       string
	artifact   a2a.Artifact
	appendPart bool
	lastChunk  bool
	finish     bool
	d          time.Duration
	msgID      string         // a status message's ID; "" for a fresh one
	metadata   map[string]any // WithMetadata: the event's metadata
}

// Working is a working status update. A non-empty text adds an agent status
// message carrying it (with a fresh UUID message ID), which is also appended
// to the task's history.
func Working(text string) Step { return Status(a2a.StateWorking, text) }

// Status is a status update to state, with an agent status message if text is
// not empty. It is meant for non-settling states; a settling state behaves as
// in [AskInput], [AskAuth] or [Finish].
func Status(state a2a.TaskState, text string) Step {
	return Step{kind: stepStatus, state: state, text: text}
}

// Chunk is an artifact update carrying one text part, for the artifact with
// ID (and name) artifactID. appendChunk appends the part to the artifact;
// otherwise it replaces the artifact (or adds it). lastChunk is passed through.
func Chunk(artifactID, text string, appendChunk, lastChunk bool) Step {
	return ArtifactChunk(a2a.Artifact{ID: artifactID, Name: artifactID, Parts: []a2a.Part{a2a.TextPart(text)}}, appendChunk, lastChunk)
}

// ArtifactChunk is an artifact update carrying a copy of art, with the given
// append and lastChunk flags.
func ArtifactChunk(art a2a.Artifact, appendChunk, lastChunk bool) Step {
	return Step{kind: stepArtifact, artifact: art.Clone(), appendPart: appendChunk, lastChunk: lastChunk}
}

// Say is an agent message event inside the task (its taskId and contextId
// set), appended to the task's history.
func Say(text string) Step { return Step{kind: stepSay, text: text} }

// AskInput moves the task to input-required with prompt as the agent status
// message (none if empty). The script stops here: the steps after it are
// scheduled only when a follow-up message for the task arrives, from its
// arrival time on.
func AskInput(prompt string) Step { return Status(a2a.StateInputRequired, prompt) }

// AskAuth moves the task to auth-required with text as the agent status
// message. It settles streams like a terminal state (they close after it),
// but it does not stop the script: the steps after it run on schedule, as if
// credentials had arrived out of band. Put a [Pause] after it to keep the
// task waiting, or end the script with it to leave the task there.
func AskAuth(text string) Step { return Status(a2a.StateAuthRequired, text) }

// Finish is the final status update, normally completed, failed, canceled or
// rejected, with an agent status message if text is not empty. The steps
// after it are never run.
func Finish(state a2a.TaskState, text string) Step {
	return Step{kind: stepStatus, state: state, text: text, finish: true}
}

// Pause delays every later step by d.
func Pause(d time.Duration) Step { return Step{kind: stepPause, d: d} }

// Reply makes the agent answer with a single agent Message (its contextId
// set, no taskId) instead of a task: the stream carries that one event and
// closes, and no task is created. It must be the only step of the script;
// in a longer script it acts as [Say].
func Reply(text string) Step { return Step{kind: stepReply, text: text} }

// WithMetadata returns a copy of s whose event carries md as its metadata:
// a status update's (which a client folds into the task's metadata, where
// [terminal.ReadStructured] reads a structured failure), an artifact
// update's or an agent message's. The step keeps a deep copy of md. It has
// no effect on [Pause], and on [Reply] it sets the reply's metadata.
func (s Step) WithMetadata(md map[string]any) Step {
	s.metadata = (&a2a.Message{Metadata: md}).Clone().Metadata
	return s
}

// eventMetadata is a fresh deep copy of the step's metadata, nil if none, so
// that no two events share a map.
func (s Step) eventMetadata() map[string]any {
	if len(s.metadata) == 0 {
		return nil
	}
	return (&a2a.Message{Metadata: s.metadata}).Clone().Metadata
}

// String describes the step, for test failure messages.
func (s Step) String() string {
	switch s.kind {
	case stepStatus:
		return "Status(" + string(s.state) + ", " + strconv.Quote(s.text) + ")"
	case stepArtifact:
		return "ArtifactChunk(" + strconv.Quote(s.artifact.ID) + ", append=" + strconv.FormatBool(s.appendPart) +
			", last=" + strconv.FormatBool(s.lastChunk) + ")"
	case stepSay:
		return "Say(" + strconv.Quote(s.text) + ")"
	case stepPause:
		return "Pause(" + s.d.String() + ")"
	case stepReply:
		return "Reply(" + strconv.Quote(s.text) + ")"
	}
	return "Step{}"
}
