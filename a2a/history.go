package a2a

import "slices"

// indexFrom is the length of history from which Task.Apply finds a
// message through an index rather than by scanning: below it a scan costs
// less than keeping a map, and a task of a few messages carries no index.
const indexFrom = 128

// historyIndex is where [Task.Apply] finds the entry of a message ID in a
// long history. It is a cache: it checks, before each use, that it still
// describes the history it indexed, and indexes it again when it does not.
type historyIndex struct {
	// owner is the task indexed: a copy of a task by value shares the
	// index pointer, and must not share the map.
	owner *Task
	// at is the place, in History[:n], of the last entry of each ID.
	at map[string]int
	n  int
	// first is &History[0] when indexed, and firstID and lastID the IDs of
	// the first and the last entry indexed: a history that was replaced
	// (not only appended to), or rewritten in place (a json.Unmarshal into
	// a task that held one reuses its array), is indexed again.
	first           *Message
	firstID, lastID string
}

// messageAt returns the place of the last entry of id (not empty) in t's
// history, or -1. It finds what a scan from the newest entry finds, through
// the task's index once the history is long. A history changed other than
// by Apply is noticed when it was replaced, cut or appended to, or its first
// or last entry changed; an ID changed in place in an entry between them is
// noticed when that entry's old ID is looked up, not its new one.
func (t *Task) messageAt(id string) int {
	if len(t.History) < indexFrom {
		for i := len(t.History) - 1; i >= 0; i-- {
			if t.History[i].ID == id {
				return i
			}
		}
		return -1
	}
	x := t.historyIndex()
	i, ok := x.at[id]
	if ok && t.History[i].ID == id {
		return i
	}
	if ok {
		// An entry changed in place since it was indexed.
		x.rebuild(t.History)
		if i, ok := x.at[id]; ok {
			return i
		}
	}
	return -1
}

// historyIndex returns t's index, brought up to date with t.History (at
// least indexFrom entries long).
func (t *Task) historyIndex() *historyIndex {
	x := t.hist
	if x == nil || x.owner != t {
		x = &historyIndex{owner: t}
		t.hist = x
	}
	switch h := t.History; {
	case x.n == 0 || x.n > len(h) || x.first != &h[0] || h[0].ID != x.firstID || h[x.n-1].ID != x.lastID:
		// A history the index did not see grow may share its array with
		// another task (a copy by value, or a slice the caller assigned),
		// whose Apply writes into it where this index cannot see: the
		// task takes an array of its own before it is indexed.
		t.History = slices.Clone(h)
		x.rebuild(t.History)
	case x.n < len(h):
		x.extend(h)
	}
	return x
}

// appended records that the entry of id was appended at place i of
// history h (the task's, which was up to date before).
func (x *historyIndex) appended(h []Message, id string, i int) {
	if x.owner == nil || x.n != i || len(h) != i+1 {
		return // not in use, or out of date: the next use brings it up to date
	}
	if id != "" {
		x.at[id] = i
	}
	x.n = len(h)
	x.first, x.lastID = &h[0], id
}

// rebuild indexes h from scratch.
func (x *historyIndex) rebuild(h []Message) {
	if x.at == nil {
		x.at = make(map[string]int, len(h))
	} else {
		clear(x.at)
	}
	x.n = 0
	x.extend(h)
}

// extend indexes the entries of h after the first x.n.
func (x *historyIndex) extend(h []Message) {
	if x.at == nil {
		x.at = make(map[string]int, len(h))
	}
	for i := x.n; i < len(h); i++ {
		if id := h[i].ID; id != "" {
			x.at[id] = i
		}
	}
	x.n = len(h)
	x.first, x.firstID, x.lastID = &h[0], h[0].ID, h[len(h)-1].ID
}
