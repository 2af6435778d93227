package a2a

import "slices"

// Apply folds one update of this artifact into it. Without Append the update
// is a new version: it replaces the artifact whole. With Append its parts are
// added after the parts held; a name or description it carries replaces the
// one held, and its metadata is merged in, key by key, its values winning.
// These are the rules of the official A2A SDKs.
//
// Apply copies what it takes from u, so u may be changed or reused after. It
// does not check IDs: the caller has found the artifact u names. To fold an
// update into a task, finding or adding its artifact, use [Task.Apply].
func (a *Artifact) Apply(u *ArtifactUpdate) {
	if !u.Append {
		*a = u.Artifact.Clone()
		return
	}
	n := &u.Artifact
	// Each part copied straight into the list: a stream appends one chunk
	// per event, and a list of copies made first would be one allocation
	// per event.
	a.Parts = slices.Grow(a.Parts, len(n.Parts))
	for i := range n.Parts {
		a.Parts = append(a.Parts, n.Parts[i].Clone())
	}
	if n.Name != "" {
		a.Name = n.Name
	}
	if n.Description != "" {
		a.Description = n.Description
	}
	if len(n.Metadata) > 0 {
		if a.Metadata == nil {
			a.Metadata = make(map[string]any, len(n.Metadata))
		}
		for k, v := range n.Metadata {
			a.Metadata[k] = cloneValue(v)
		}
	}
}

// Apply folds one event into the task, the way a client builds a task from
// what its stream yields:
//
//   - a *Task replaces t whole (a deep copy);
//   - a *StatusUpdate sets the status, its message joins the history, and
//     its metadata folds into the task's, key by key, a later value winning
//     (as the stream's Task holds it);
//   - a *Message joins the history;
//   - a *MessageRevision replaces the message of its ID in the history;
//   - an *ArtifactUpdate is applied to the artifact of its ID by
//     [Artifact.Apply], or, if the task has no such artifact, adds it as
//     new (an append included: its parts are the first the client holds).
//
// A message whose ID the history already holds is a new version of it and
// replaces that entry (the newest, in a history a caller gave the same ID
// twice); a message without an ID is always added. Apply keeps
// copies: the event may be changed or reused after.
//
// Folding every event a stream yields, in order, into an empty task rebuilds
// the stream's Task().Artifacts exactly, and the agent's messages of its
// history. The user's own messages are not events; the stream's Task holds
// them too.
//
// Apply finds a message of a long history (128 messages or more) through
// an index the task keeps, so that folding n messages costs time linear in
// n. The index is built on first need, and built again when the history was
// changed other than by Apply: replaced, cut, appended to, or its first or
// last entry rewritten (an ID rewritten in place between them is not
// noticed: assign a new slice instead). A copy of the task by value gets an
// index of its own, and a history of its own when it is indexed: a task
// then no longer shares its history's array with another, whose Apply
// would write into it. Apply finds an artifact by scanning from the newest, so
// its cost grows with the number of artifacts held: fine for a task of
// hundreds. An application that holds many thousands of artifacts should
// index them by ID and call [Artifact.Apply] itself.
func (t *Task) Apply(ev Event) {
	switch e := ev.(type) {
	case *Task:
		*t = *e.Clone()
	case *StatusUpdate:
		t.Status = e.Status
		t.Status.Message = e.Status.Message.Clone()
		if m := e.Status.Message; m != nil {
			t.addMessage(m)
		}
		for k, v := range e.Metadata {
			if t.Metadata == nil {
				t.Metadata = make(map[string]any, len(e.Metadata))
			}
			t.Metadata[k] = cloneValue(v)
		}
	case *Message:
		t.addMessage(e)
	case *MessageRevision:
		if e.Message != nil {
			t.addMessage(e.Message)
		}
	case *ArtifactUpdate:
		if a := t.Artifact(e.Artifact.ID); a != nil {
			a.Apply(e)
			return
		}
		t.Artifacts = append(t.Artifacts, e.Artifact.Clone())
	}
}

// addMessage adds m to the history, or replaces the entry of its ID.
func (t *Task) addMessage(m *Message) {
	if m.ID != "" {
		if i := t.messageAt(m.ID); i >= 0 {
			t.History[i] = *m.Clone()
			return
		}
	}
	t.History = append(t.History, *m.Clone())
	if x := t.hist; x != nil && x.owner == t {
		x.appended(t.History, m.ID, len(t.History)-1)
	}
}
