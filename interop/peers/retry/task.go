package main

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"time"
)

// eventKind says what a stream event is.
type eventKind int

const (
	evTask eventKind = iota
	evStatus
	evArtifact
)

// artifact is an artifact, or one chunk of it: its text parts.
type artifact struct {
	id, name string
	parts    []string
}

// event is one event of a task's script.
type event struct {
	kind    eventKind
	state   string // evStatus: the new state
	message string // evStatus: the text of the agent's status message, or ""
	// evStatus: the last event of a stream in 0.3 ("final": true), of the
	// task or (in the -auth mode) of its turn before auth-required.
	final bool
	// evArtifact: the chunk, and whether it appends to the artifact and
	// is its last chunk.
	artifact          artifact
	append, lastChunk bool
}

// script is the "stream" scenario of the interop tests (see
// interop/README.md): the artifact "story" in three chunks, then "summary".
var script = []event{
	{kind: evTask},
	{kind: evStatus, state: "working"},
	{kind: evArtifact, artifact: artifact{id: "story", name: "story", parts: []string{"Once upon a time, "}}},
	{kind: evArtifact, artifact: artifact{id: "story", parts: []string{"a gopher "}}, append: true},
	{kind: evArtifact, artifact: artifact{id: "story", parts: []string{"met a node."}}, append: true, lastChunk: true},
	{kind: evArtifact, artifact: artifact{id: "summary", name: "summary", parts: []string{"A short story."}}, lastChunk: true},
	{kind: evStatus, state: "completed", final: true},
}

// signIn is the status message of the auth-required status.
const signIn = "Please sign in"

// authScript is the script of the -auth mode: the "stream" scenario
// interrupted after the first chunk of "story" by auth-required, with the
// status message signIn (final in 0.3, where an interrupted state ends the
// stream), and resumed by working once the agent has the token.
func authScript(d dialect) (events []event, gate int) {
	gate = 4 // the index of the working that follows auth-required
	events = append(slices.Clone(script[:3]),
		event{kind: evStatus, state: "auth-required", message: signIn, final: !d.v10},
		event{kind: evStatus, state: "working"})
	return append(events, script[3:]...), gate
}

// userMessage is the message that started a task.
type userMessage struct{ id, text string }

// task is one task the agent runs: the events it has produced so far, and a
// channel closed (and replaced) whenever it produces another.
type task struct {
	id, contextID string
	user          userMessage
	script        []event
	// gate, when positive, is the index of the event that waits for the
	// token (authorized closed) instead of the delay.
	gate       int
	authorized chan struct{}

	mu      sync.Mutex
	n       int // events produced so far (a prefix of script)
	changed chan struct{}
	granted bool // authorized is closed
}

// taskView is a snapshot of a task, as a Task object shows it.
type taskView struct {
	id, contextID string
	user          userMessage
	state         string
	// message is the text of the status message, or ""; messageID its ID.
	message, messageID string
	artifacts          []artifact
	// ended: the script has ended.
	ended bool
}

// terminal reports a task whose script has ended.
func (v taskView) terminal() bool { return v.ended }

// view returns the task as it is after its first n events.
func (t *task) view(n int) taskView {
	v := taskView{id: t.id, contextID: t.contextID, user: t.user, state: "submitted", ended: n == len(t.script)}
	for i, e := range t.script[:n] {
		switch e.kind {
		case evStatus:
			v.state, v.message, v.messageID = e.state, e.message, ""
			if e.message != "" {
				// The same ID in every snapshot: one status, one message.
				v.messageID = t.id + "-status-" + strconv.Itoa(i)
			}
		case evArtifact:
			i := slices.IndexFunc(v.artifacts, func(a artifact) bool { return a.id == e.artifact.id })
			switch {
			case i < 0:
				v.artifacts = append(v.artifacts, artifact{id: e.artifact.id, name: e.artifact.name, parts: slices.Clone(e.artifact.parts)})
			case e.append:
				v.artifacts[i].parts = append(v.artifacts[i].parts, e.artifact.parts...)
			default:
				v.artifacts[i] = artifact{id: e.artifact.id, name: e.artifact.name, parts: slices.Clone(e.artifact.parts)}
			}
		}
	}
	return v
}

// progress returns the number of events produced so far and a channel
// closed when there are more.
func (t *task) progress() (int, <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n, t.changed
}

// run produces the script's events, delay apart; the first (the Task) is
// already produced when the task starts. The gate event waits for the token
// instead, and comes at once when it arrives.
func (t *task) run(delay time.Duration) {
	for i := 1; i < len(t.script); i++ {
		if i == t.gate {
			<-t.authorized // authorize produced it
			continue
		}
		time.Sleep(delay)
		t.mu.Lock()
		t.n++
		close(t.changed)
		t.changed = make(chan struct{})
		t.mu.Unlock()
	}
}

// start creates a task for the user's message and starts its script.
func (a *agent) start(m userMessage) *task {
	a.mu.Lock()
	a.seq++
	n := strconv.Itoa(a.seq)
	t := &task{id: "task-" + n, contextID: "ctx-" + n, user: m, script: script, n: 1, changed: make(chan struct{})}
	if a.token != "" {
		t.script, t.gate = authScript(a.d)
		t.authorized = make(chan struct{})
	}
	a.tasks[t.id] = t
	a.mu.Unlock()
	go t.run(a.delay)
	return t
}

// waiting reports whether the task, after its first n events, is in
// auth-required waiting for the token.
func (t *task) waiting(n int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.gate > 0 && n == t.gate && !t.granted
}

// authorize lets a task waiting for the token go on: it produces the gate
// event (working) at once, so that the call that brought the token serves
// it. A token that comes before the agent asked for it, or after it went
// on, changes nothing.
func (t *task) authorize() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gate <= 0 || t.n != t.gate || t.granted {
		return
	}
	t.granted = true
	t.n++
	close(t.changed)
	t.changed = make(chan struct{})
	close(t.authorized)
}

// lookup returns the task with that ID, or nil.
func (a *agent) lookup(id string) *task {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.tasks[id]
}

// follow calls write with each event of t from the from-th on, as it is
// produced, until the script ends, ctx ends, or write fails. stop, when it
// is at least from, ends the stream after that many events instead.
func (t *task) follow(ctx context.Context, from, stop int, write func(event, taskView) error) (ended bool) {
	i := from
	for {
		n, changed := t.progress()
		for ; i < n; i++ {
			if stop >= 0 && i >= stop {
				return false
			}
			if err := write(t.script[i], t.view(i+1)); err != nil {
				return false
			}
		}
		if n == len(t.script) {
			return true
		}
		if stop >= 0 && i >= stop {
			return false
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}
