package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/a2astream/a2astream/a2a"
	"github.com/a2astream/a2astream/reconnect"
	"github.com/a2astream/a2astream/stream"
)

// The events relayed to the browser. Each is one SSE event whose name is
// the constant and whose data is the JSON of the matching payload type.
const (
	evStatus   = "status"       // statusEvent: the task's state changed
	evArtifact = "artifact"     // artifactEvent: a chunk of an artifact
	evMessage  = "message"      // messageEvent: a message from the agent
	evNotice   = "notice"       // noticeEvent: the connection dropped, or resumed
	evInput    = "input"        // inputEvent: the agent asks a question
	evAnswered = "answered"     // messageEvent: the question was answered
	evDone     = "done"         // doneEvent: the conversation ended well (last event)
	evError    = "stream-error" // errorEvent: the conversation ended in an error (last event)
)

type statusEvent struct {
	State     a2a.TaskState `json:"state"`
	Text      string        `json:"text,omitempty"` // the agent's status message
	ID        string        `json:"id,omitempty"`   // its ID, which later versions (message events) name
	TaskID    string        `json:"taskId,omitempty"`
	ContextID string        `json:"contextId,omitempty"`
}

type artifactEvent struct {
	ID     string `json:"id"`
	Name   string `json:"name,omitempty"`
	Text   string `json:"text"`
	Append bool   `json:"append"` // append to the artifact, or replace it
}

type messageEvent struct {
	ID   string `json:"id,omitempty"`
	Text string `json:"text"`
	// Append adds Text to the message (or status note) of this ID shown
	// before. Otherwise Text is a new message, or, when one of this ID is
	// shown, its new version: it replaces it.
	Append bool `json:"append,omitempty"`
}

type noticeEvent struct {
	Kind    string `json:"kind"` // "reconnecting" or "resumed"
	Attempt int    `json:"attempt"`
	Max     int    `json:"max"`
	Text    string `json:"text"` // e.g. "reconnecting (1/3)…"
}

type inputEvent struct {
	Prompt string `json:"prompt"`
}

type doneEvent struct {
	State     a2a.TaskState `json:"state,omitempty"` // empty for a message answer
	Text      string        `json:"text,omitempty"`
	ContextID string        `json:"contextId,omitempty"`
}

type errorEvent struct {
	Kind  string `json:"kind"`  // e.g. "failed", "connection-lost", "no-answer"
	Title string `json:"title"` // one plain sentence
	Text  string `json:"text"`  // the error itself
}

// relayed is one encoded event.
type relayed struct {
	name string
	data []byte
}

// conversation is the log of events of one message sent to the agent, and
// the mailbox for the answers to its questions. Its goroutine (see
// server.drive) appends to the log; any number of event streams read it.
type conversation struct {
	id      string
	answers chan string   // holds at most the one answer to the open question
	screen  stream.Screen // what each event adds; used by the driving goroutine only

	mu      sync.Mutex
	events  []relayed
	changed chan struct{} // closed and replaced whenever events grows
	done    bool          // the last event is in the log
	asking  bool          // a question is open
}

func newConversation(id string) *conversation {
	return &conversation{id: id, answers: make(chan string, 1), changed: make(chan struct{})}
}

// since returns the events from index next on, a channel closed when more
// arrive, and whether they are the last ones.
func (c *conversation) since(next int) (evs []relayed, changed <-chan struct{}, last bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if next < len(c.events) {
		evs = c.events[next:len(c.events):len(c.events)]
	}
	return evs, c.changed, c.done
}

// delivered reports whether a reader who has seen n events has seen them
// all, and no more will come.
func (c *conversation) delivered(n int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.done && n >= len(c.events)
}

// ended reports whether the conversation is over.
func (c *conversation) ended() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.done
}

// publish appends an event to the log and wakes the readers.
func (c *conversation) publish(name string, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.publishLocked(name, v)
}

func (c *conversation) publishLocked(name string, v any) {
	if c.done {
		return
	}
	data, _ := json.Marshal(v) // cannot fail: the payloads hold strings, ints and bools
	c.events = append(c.events, relayed{name: name, data: data})
	close(c.changed)
	c.changed = make(chan struct{})
}

// relay turns one stream event into a browser event: what stream.Screen
// says it adds, and the task's state when it is a status update. task is
// the stream's task after the event, for the artifact's name.
func (c *conversation) relay(ev a2a.Event, task *a2a.Task) {
	t := c.screen.Add(ev)
	if su, ok := ev.(*a2a.StatusUpdate); ok {
		c.publish(evStatus, statusEvent{State: su.Status.State, Text: t.Content, ID: t.Pane.ID, TaskID: su.TaskID, ContextID: su.ContextID})
		return
	}
	switch t.Pane.Kind {
	case stream.PaneArtifact:
		out := artifactEvent{ID: t.Pane.ID, Text: t.Content, Append: !t.Replace}
		if task != nil {
			if art := task.Artifact(t.Pane.ID); art != nil {
				out.Name = art.Name
			}
		}
		c.publish(evArtifact, out)
	case stream.PaneMessage, stream.PaneStatus:
		c.publish(evMessage, messageEvent{ID: t.Pane.ID, Text: t.Content, Append: !t.Opens && !t.Replace})
	}
}

// notice relays a reconnect or resume.
func (c *conversation) notice(n stream.Notice) {
	out := noticeEvent{Kind: n.Kind.String(), Attempt: n.Attempt, Max: n.MaxAttempts}
	switch n.Kind {
	case stream.Reconnecting:
		out.Text = fmt.Sprintf("reconnecting (%d/%d)…", n.Attempt, n.MaxAttempts)
	default:
		out.Text = n.Kind.String()
	}
	c.publish(evNotice, out)
}

// ask shows prompt to the person and waits for their answer, or for ctx to
// end.
func (c *conversation) ask(ctx context.Context, prompt string) (string, error) {
	c.mu.Lock()
	select {
	case <-c.answers: // a late answer to an earlier question
	default:
	}
	c.asking = true
	c.publishLocked(evInput, inputEvent{Prompt: prompt})
	c.mu.Unlock()

	defer func() {
		c.mu.Lock()
		c.asking = false
		c.mu.Unlock()
	}()
	select {
	case a := <-c.answers:
		c.publish(evAnswered, messageEvent{Text: a})
		return a, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// answer delivers the answer to the open question. It reports false when no
// question is open, or when it was answered already.
func (c *conversation) answer(text string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.asking {
		return false
	}
	c.asking = false
	c.answers <- text // never blocks: one answer per question, drained by ask
	return true
}

// end appends the last event: done, or the error the stream ended with.
func (c *conversation) end(e stream.Ending) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.Err != nil {
		c.publishLocked(evError, describe(e))
	} else {
		out := doneEvent{State: e.State}
		switch {
		case e.Task != nil:
			out.ContextID, out.Text = e.Task.ContextID, e.Task.Status.Message.Text()
		case e.Answer != nil:
			out.ContextID = e.Answer.ContextID
		}
		c.publishLocked(evDone, out)
	}
	c.done = true
	c.asking = false
}

// describe explains how a stream ended in an error, for a person: a kind
// the page can style, a plain title, and the error's own text. The task's
// own endings read from e.State, the others from the error.
func describe(e stream.Ending) errorEvent {
	err := e.Err
	out := errorEvent{Kind: "error", Title: "Something went wrong.", Text: err.Error()}
	switch e.State {
	case "":
	case a2a.StateInputRequired:
		out.Kind, out.Title = "no-answer", "The agent's question was not answered."
		return out
	default:
		out.Kind, out.Title = string(e.State), endingTitle(e.State)
		if why := statusText(e.Task); why != "" {
			out.Text = why // the agent's reason, without a task ID
		}
		return out
	}
	var (
		lost   *reconnect.Error
		rpc    *a2a.RPCError
		status *stream.HTTPError
		proto  *stream.ProtocolError
	)
	switch {
	case errors.As(err, &lost):
		out.Kind, out.Title = "connection-lost", "The connection to the agent was lost and could not be resumed."
	case errors.As(err, &rpc):
		out.Kind, out.Title = "agent-error", "The agent answered with an error."
	case errors.As(err, &status):
		out.Kind, out.Title = "http-error", "The agent's server answered with an HTTP error."
	case errors.As(err, &proto):
		if st, reason, ok := reportedEnding(proto.Event); ok {
			// The agent's server broke the protocol while reporting an
			// ending (a failure under another task ID, say): the person
			// reads the ending and the agent's reason.
			out.Kind, out.Title, out.Text = string(st), endingTitle(st), reason
			break
		}
		out.Kind, out.Title = "protocol-error", "The agent sent something this client cannot read."
	case errors.Is(err, context.Canceled):
		out.Kind, out.Title = "stopped", "The chat server stopped this conversation."
	}
	return out
}

// statusText returns the text of a task's status message, or "".
func statusText(t *a2a.Task) string {
	if t == nil {
		return ""
	}
	return t.Status.Message.Text()
}

// reportedEnding returns the ending a status event reports, with the
// agent's reason, when it reports one.
func reportedEnding(ev a2a.Event) (a2a.TaskState, string, bool) {
	var st a2a.TaskStatus
	switch e := ev.(type) {
	case *a2a.StatusUpdate:
		st = e.Status
	case *a2a.Task:
		st = e.Status
	default:
		return "", "", false
	}
	reason := st.Message.Text()
	if !st.State.Terminal() || st.State == a2a.StateCompleted || reason == "" {
		return "", "", false
	}
	return st.State, reason, true
}

// endingTitle is the headline of a typed ending.
func endingTitle(state a2a.TaskState) string {
	switch state {
	case a2a.StateFailed:
		return "The task failed."
	case a2a.StateRejected:
		return "The agent turned the task down."
	case a2a.StateCanceled:
		return "The task was canceled."
	}
	return "The agent needs you to sign in first." // auth-required
}
