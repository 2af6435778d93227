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
	kind  eventKind
	state string // evStatus: the new state
	final bool   // evStatus: the last event of the task
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

// userMessage is the message that started a task.
type userMessage struct{ id, text string }

// task is one task the agent runs: the events it has produced so far, and a
// channel closed (and replaced) whenever it produces another.
type task struct {
	id, contextID string
	user          userMessage

	mu      sync.Mutex
	n       int // events produced so far (a prefix of script)
	changed chan struct{}
}

// taskView is a snapshot of a task, as a Task object shows it.
type taskView struct {
	id, contextID string
	user          userMessage
	state         string
	artifacts     []artifact
}

// terminal reports a task whose script has ended.
func (v taskView) terminal() bool { return v.state == "completed" }

// view returns the task as it is after its first n events.
func (t *task) view(n int) taskView {
	v := taskView{id: t.id, contextID: t.contextID, user: t.user, state: "submitted"}
	for _, e := range script[:n] {
		switch e.kind {
		case evStatus:
			v.state = e.state
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
// already produced when the task starts.
func (t *task) run(delay time.Duration) {
	for range len(script) - 1 {
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
	t := &task{id: "task-" + n, contextID: "ctx-" + n, user: m, n: 1, changed: make(chan struct{})}
	a.tasks[t.id] = t
	a.mu.Unlock()
	go t.run(a.delay)
	return t
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
			if err := write(script[i], t.view(i+1)); err != nil {
				return false
			}
		}
		if n == len(script) {
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
