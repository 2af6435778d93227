package a2atest

import (
	"slices"
	"sort"
	"time"

	"github.com/a2astream/a2astream/a2a"
	"github.com/google/uuid"
)

type entryKind int

const (
	// entryTask is the initial Task of a task's timeline.
	entryTask entryKind = iota + 1
	// entryEvent is a status update, artifact update or agent message.
	entryEvent
	// entryFollowUp is a user's follow-up message. Its ev is the stale
	// snapshot a 1.0 follow-up stream starts with: the Task as it was just
	// before, still input-required, with the follow-up already at the end of
	// its history (as @a2a-js/sdk 1.3.0 stores the message before it runs
	// the executor; see js-1.3.0-stream-followup.txt and
	// js-1.3.0-rest-followup.txt).
	entryFollowUp
)

// entry is one event of a task's timeline. Entries are never modified once
// added, so they are shared with the streams that write them.
type entry struct {
	kind entryKind
	due  time.Time
	ev   a2a.Event
	msg  *a2a.Message // the user message of an entryFollowUp
}

// task is the server side of one task: its timeline, ordered by due time.
// The agent's mutex guards every field.
type task struct {
	id, contextID string
	entries       []entry
	pending       []Step        // the script after an AskInput, waiting for a follow-up
	changed       chan struct{} // closed and replaced when the timeline changes
	cumulative    bool          // WithCumulativeMessage: each turn's text in one status message
	push          *taskPushes   // its webhooks (push.go); nil if none
}

func newTask(user *a2a.Message, now time.Time) *task {
	t := &task{id: uuid.NewString(), contextID: user.ContextID, changed: make(chan struct{})}
	if t.contextID == "" {
		t.contextID = uuid.NewString()
	}
	m := t.userMessage(user)
	initial := &a2a.Task{
		ID:        t.id,
		ContextID: t.contextID,
		Status:    a2a.TaskStatus{State: a2a.StateSubmitted, Timestamp: now},
		History:   []a2a.Message{*m},
	}
	t.entries = []entry{{kind: entryTask, due: now, ev: initial}}
	return t
}

// userMessage returns a copy of m bound to the task, as the agent stores it.
func (t *task) userMessage(m *a2a.Message) *a2a.Message {
	c := m.Clone()
	c.TaskID, c.ContextID = t.id, t.contextID
	if c.Role == "" {
		c.Role = a2a.RoleUser
	}
	if c.ID == "" {
		c.ID = uuid.NewString()
	}
	return c
}

// notify wakes every stream waiting on the timeline.
func (t *task) notify() {
	close(t.changed)
	t.changed = make(chan struct{})
}

// dueCount is the number of entries due at now.
func (t *task) dueCount(now time.Time) int {
	return sort.Search(len(t.entries), func(i int) bool { return t.entries[i].due.After(now) })
}

// state is the task as of now.
func (t *task) state(now time.Time) *a2a.Task { return t.fold(t.dueCount(now)) }

// fold applies the first n entries, giving the task as a client that saw
// them all would know it. The result shares nothing with the timeline.
func (t *task) fold(n int) *a2a.Task {
	var cur *a2a.Task
	for _, e := range t.entries[:n] {
		switch e.kind {
		case entryTask:
			cur = e.ev.(*a2a.Task).Clone()
		case entryFollowUp:
			cur.History = append(cur.History, *e.msg.Clone())
		case entryEvent:
			applyEvent(cur, e.ev)
		}
	}
	return cur
}

func applyEvent(cur *a2a.Task, ev a2a.Event) {
	// A message sent again under its ID (WithCumulativeMessage) is a new
	// version of it: the history keeps the latest, once, as Apply does.
	cur.Apply(ev)
}

// schedule turns steps into entries from base on. It stops after a settling
// status that pauses (input-required: the rest waits in pending for a
// follow-up) or ends (Finish, terminal states) the script.
func (t *task) schedule(steps []Step, base time.Time) {
	at := base
	t.pending = nil
	run := steps
	if t.cumulative {
		run = cumulative(steps, uuid.NewString())
	}
	for i, s := range run {
		switch s.kind {
		case stepPause:
			at = at.Add(max(s.d, 0))
		case stepStatus:
			t.add(at, &a2a.StatusUpdate{
				TaskID:    t.id,
				ContextID: t.contextID,
				Status:    a2a.TaskStatus{State: s.state, Message: t.agentMessage(s.text, s.msgID), Timestamp: at},
				Metadata:  s.eventMetadata(),
			})
			switch {
			case s.finish || s.state.Terminal():
				return
			case s.state == a2a.StateInputRequired:
				t.pending = slices.Clone(steps[i+1:])
				return
			}
		case stepArtifact:
			t.add(at, &a2a.ArtifactUpdate{
				TaskID:    t.id,
				ContextID: t.contextID,
				Artifact:  s.artifact.Clone(),
				Append:    s.appendPart,
				LastChunk: s.lastChunk,
				Metadata:  s.eventMetadata(),
			})
		case stepSay, stepReply:
			m := a2a.NewTextMessage(a2a.RoleAgent, s.text)
			m.TaskID, m.ContextID = t.id, t.contextID
			m.Metadata = s.eventMetadata()
			t.add(at, m)
		}
	}
}

func (t *task) add(at time.Time, ev a2a.Event) {
	t.entries = append(t.entries, entry{kind: entryEvent, due: at, ev: ev})
}

// agentMessage is an agent message in the task with ID id (a fresh one if
// empty), or nil for an empty text.
func (t *task) agentMessage(text, id string) *a2a.Message {
	if text == "" {
		return nil
	}
	m := a2a.NewTextMessage(a2a.RoleAgent, text)
	m.TaskID, m.ContextID = t.id, t.contextID
	if id != "" {
		m.ID = id
	}
	return m
}

// followUp records the user's answer to an input-required prompt at now and
// schedules the rest of the script from then on. cur is the task as of now,
// which followUp keeps. It returns the index of the follow-up entry.
func (t *task) followUp(user *a2a.Message, cur *a2a.Task, now time.Time) int {
	idx := len(t.entries)
	m := t.userMessage(user)
	cur.History = append(cur.History, *m.Clone())
	t.entries = append(t.entries, entry{kind: entryFollowUp, due: now, ev: cur, msg: m})
	t.schedule(t.pending, now)
	t.notify()
	return idx
}

// cancel drops the part of the timeline not yet due and adds a canceled
// status at now.
func (t *task) cancel(now time.Time) {
	t.entries = slices.Clip(t.entries[:t.dueCount(now)])
	t.pending = nil
	t.add(now, &a2a.StatusUpdate{
		TaskID:    t.id,
		ContextID: t.contextID,
		Status:    a2a.TaskStatus{State: a2a.StateCanceled, Timestamp: now},
	})
	t.notify()
}
