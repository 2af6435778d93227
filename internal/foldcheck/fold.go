package foldcheck

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// Mode says which checks a [Fold] makes.
type Mode int

const (
	// Strict makes every check of the package doc, those on messages
	// included. It is the zero Mode.
	Strict Mode = iota
	// Loose skips the checks on messages (revisions, and message IDs
	// delivered twice), which messages without an ID or with data parts
	// only do not fit; the checks on artifacts and the deltas-only check
	// stay.
	Loose
)

// Fold is what an application builds from the deltas it is handed. The zero
// Fold is empty and [Strict]. A Fold is not safe for concurrent use.
type Fold struct {
	// Mode is the checks the Fold makes; set it before the first Apply.
	Mode Mode
	// Events are the events applied, in order.
	Events []a2a.Event
	// Task is the events folded by [a2a.Task.Apply].
	Task a2a.Task
	// Messages are the IDs of the messages delivered (new messages and
	// status messages, not revisions), in order.
	Messages []string
	// States are the states of the status updates, in order.
	States []a2a.TaskState
	// Shown is each message's text as the application shows it: a new
	// message's text, replaced by each revision's.
	Shown map[string]string
}

// Apply folds one event and checks it: an append only to an artifact the
// application holds, a delta and not a Task, and in [Strict] mode a revision
// only of a message delivered, that shows another text, and whose Added, when
// it extends the message, continues the text shown.
func (f *Fold) Apply(t testing.TB, ev a2a.Event) {
	t.Helper()
	if u, ok := ev.(*a2a.ArtifactUpdate); ok {
		require.False(t, u.Append && f.Task.Artifact(u.Artifact.ID) == nil,
			"append to artifact %s, which the application never saw", u.Artifact.ID)
	}
	f.Events = append(f.Events, ev)
	f.Task.Apply(ev)
	switch e := ev.(type) {
	case *a2a.ArtifactUpdate:
	case *a2a.StatusUpdate:
		f.States = append(f.States, e.Status.State)
		if m := e.Status.Message; m != nil {
			f.deliver(m)
		}
	case *a2a.Message:
		f.deliver(e)
	case *a2a.MessageRevision:
		if f.Mode == Strict {
			old, ok := f.Shown[e.Message.ID]
			require.True(t, ok, "a revision of message %s, never delivered", e.Message.ID)
			require.NotEqual(t, old, e.Message.Text(), "a revision of %s that shows the same text again", e.Message.ID)
			if e.Extends {
				added := (&a2a.Message{Parts: e.Added}).Text()
				require.Equal(t, e.Message.Text(), old+added, "an extending revision's Added continues the text shown")
			}
		}
		f.show(e.Message)
	default:
		t.Fatalf("yielded %T; only deltas may be yielded", ev)
	}
}

func (f *Fold) deliver(m *a2a.Message) {
	f.Messages = append(f.Messages, m.ID)
	f.show(m)
}

func (f *Fold) show(m *a2a.Message) {
	if f.Shown == nil {
		f.Shown = map[string]string{}
	}
	f.Shown[m.ID] = m.Text()
}

// RequireArtifacts asserts that the fold's artifacts equal want, the
// producer's (a stream's Task().Artifacts, the ledger's task), order
// included. when says at which point, for the failure message.
func (f *Fold) RequireArtifacts(t testing.TB, want []a2a.Artifact, when string) {
	t.Helper()
	got := f.Task.Artifacts
	require.Equal(t, len(want), len(got), "%s: artifact count", when)
	for i := range want {
		require.Equal(t, want[i], got[i], "%s: artifact %d (%s)", when, i, want[i].ID)
	}
}

// RequireArtifactsAnyOrder asserts that the fold's artifacts equal want, each
// with the same parts, name, description and metadata, in any order: after
// a gap the application learns of artifacts in the order they are revealed,
// not in the order of the server's task.
func (f *Fold) RequireArtifactsAnyOrder(t testing.TB, want []a2a.Artifact, msg string) {
	t.Helper()
	require.Equal(t, len(want), len(f.Task.Artifacts), "%s: artifact count", msg)
	for i := range want {
		j := f.Find(want[i].ID)
		require.GreaterOrEqual(t, j, 0, "%s: artifact %s missing", msg, want[i].ID)
		require.Equal(t, want[i], f.Task.Artifacts[j], "%s: artifact %s", msg, want[i].ID)
	}
}

// RequireMessagesOnce asserts, in [Strict] mode, that no message ID was
// delivered twice; in [Loose] mode it checks nothing.
func (f *Fold) RequireMessagesOnce(t testing.TB) {
	t.Helper()
	if f.Mode != Strict {
		return
	}
	seen := map[string]bool{}
	for _, id := range f.Messages {
		require.False(t, seen[id], "message %s delivered twice", id)
		seen[id] = true
	}
}

// Find returns the index in Task.Artifacts of the artifact id, or -1.
func (f *Fold) Find(id string) int {
	for i := range f.Task.Artifacts {
		if f.Task.Artifacts[i].ID == id {
			return i
		}
	}
	return -1
}

// Text returns the text of the artifact id as the application holds it, or
// "" if it holds none.
func (f *Fold) Text(id string) string {
	if i := f.Find(id); i >= 0 {
		return f.Task.Artifacts[i].Text()
	}
	return ""
}
