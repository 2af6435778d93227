package chatview

import "github.com/a2astream/a2astream/a2a"

// Screen says what each event a stream yields adds to a user's
// screen, so that a chat UI prints an agent's words without a switch over
// the event types:
//
//	var screen chatview.Screen
//	for s.Next() {
//		t := screen.Add(s.Event())
//		if t.NewLine {
//			fmt.Println()
//		}
//		fmt.Print(t.Content)
//	}
//
// It keeps which panes (artifacts and messages) it has opened, so that it
// can tell a chunk that starts an artifact from one that replaces what was
// shown of it, and which pane the last text went to, so that a terminal
// that prints in a row knows when to start a line (Text.NewLine). Feed it
// every event of one stream, in order, and nothing else: a UI that shows
// what it returns, clearing a pane on Replace, shows each word the agent
// sent once, across drops and replays, and ends with the task's text (the
// text of its artifacts and of its agent messages, the status messages
// included).
//
// Only text parts are text: a data, file or URL part adds nothing to
// Content. Read those from the event, or from the stream's Task once the event
// is applied.
//
// The zero Screen is ready to use. It holds one entry per artifact and
// message it met, as the task does; it is not safe for concurrent use.
type Screen struct {
	opened map[Pane]struct{} // panes that met an event
	status map[string]bool   // IDs of the messages that came in a status
	line   Pane              // the pane of the last Text with a pane
}

// Pane is where a Text belongs on the screen: an artifact, a message, or a
// status message, with its ID. A UI with one pane per artifact and message
// finds it by Pane; one that prints everything in a row reads Text.NewLine
// instead.
type Pane struct {
	Kind PaneKind
	// ID is the artifact's ID, or the message's. A message without an ID
	// (some servers send them) has ID "" and a pane of its own each time.
	ID string
}

// PaneKind is the kind of a [Pane].
type PaneKind int

// The kinds of pane. The zero PaneKind is no pane: the event adds no text.
const (
	// PaneArtifact is an artifact's text, as the agent streams its output.
	PaneArtifact PaneKind = iota + 1
	// PaneMessage is a message of the agent's (or, rarely, the user's: see
	// Text.Role), yielded on its own.
	PaneMessage
	// PaneStatus is a status message: the text the agent gave with a state
	// (working, input-required, failed ...), and later versions of it.
	PaneStatus
)

// String returns "artifact", "message", "status", or "none".
func (k PaneKind) String() string {
	switch k {
	case PaneArtifact:
		return "artifact"
	case PaneMessage:
		return "message"
	case PaneStatus:
		return "status"
	}
	return "none"
}

// Text is what one event adds to the screen.
type Text struct {
	// Pane is where the text belongs. It is the zero Pane for an event
	// that adds no text to any pane: a status update without a message.
	Pane Pane
	// Role is the role of the message the text comes from; empty for
	// artifact text, which is the agent's output.
	Role a2a.Role
	// Opens says that this is the first event of its pane: a UI makes the
	// pane, or writes a label. It is always set for a message without an
	// ID.
	Opens bool
	// Replace says that what the pane showed is out of date: clear it,
	// then show Content. It is set for an artifact chunk that replaces an
	// artifact already opened (Append false, after a gap the artifact as
	// the server holds it), and for a message the agent sent again with
	// other text than an extension of the one shown. Content may then be
	// empty: the new version has no text. It is never set with Opens.
	Replace bool
	// Content is the text to add to the pane: the text parts of an
	// artifact chunk, of a message or status message, or what a revision
	// adds to the message shown, joined without separator.
	Content string
	// NewLine says that a UI printing every text in a row, as a terminal
	// does, starts a new line before Content: the text opens or replaces
	// its pane, or its pane is not the one the last text went to (the
	// agent interleaves two artifacts, or the text of an artifact missed
	// in a gap comes after another's). It is false for a Text without a
	// pane. The first text after a Screen is read back (UnmarshalJSON)
	// starts a line.
	NewLine bool
}

// Add returns what ev, the event a Stream just yielded, adds to the screen,
// and notes the pane it opens. A *a2a.Task (which a Stream never yields),
// nil and a status update without a message add nothing.
func (sc *Screen) Add(ev a2a.Event) Text {
	t := sc.text(ev)
	if t.Pane != (Pane{}) {
		t.NewLine = t.Opens || t.Replace || t.Pane != sc.line
		sc.line = t.Pane
	}
	return t
}

// text returns what ev adds to its pane, and notes the pane it opens.
func (sc *Screen) text(ev a2a.Event) Text {
	switch ev := ev.(type) {
	case *a2a.ArtifactUpdate:
		p := Pane{Kind: PaneArtifact, ID: ev.Artifact.ID}
		opened := sc.open(p)
		return Text{Pane: p, Opens: !opened, Replace: opened && !ev.Append, Content: ev.Artifact.Text()}
	case *a2a.Message:
		return sc.message(ev, PaneMessage)
	case *a2a.StatusUpdate:
		if ev.Status.Message == nil {
			return Text{}
		}
		return sc.message(ev.Status.Message, PaneStatus)
	case *a2a.MessageRevision:
		m := ev.Message
		if m == nil {
			return Text{}
		}
		p := Pane{Kind: PaneMessage, ID: m.ID}
		if sc.status[m.ID] {
			p.Kind = PaneStatus
		}
		opened := sc.open(p)
		if ev.Extends {
			return Text{Pane: p, Role: m.Role, Opens: !opened, Content: (&a2a.Message{Parts: ev.Added}).Text()}
		}
		return Text{Pane: p, Role: m.Role, Opens: !opened, Replace: opened, Content: m.Text()}
	}
	return Text{}
}

// message returns a message's text, in a pane of kind k.
func (sc *Screen) message(m *a2a.Message, k PaneKind) Text {
	p := Pane{Kind: k, ID: m.ID}
	if k == PaneStatus && m.ID != "" {
		if sc.status == nil {
			sc.status = map[string]bool{}
		}
		sc.status[m.ID] = true
	}
	opened := sc.open(p)
	return Text{Pane: p, Role: m.Role, Opens: !opened, Replace: opened, Content: m.Text()}
}

// open notes that p met an event, and reports whether it had before.
func (sc *Screen) open(p Pane) bool {
	if p.ID == "" && p.Kind != PaneArtifact {
		return false
	}
	if _, ok := sc.opened[p]; ok {
		return true
	}
	if sc.opened == nil {
		sc.opened = map[Pane]struct{}{}
	}
	sc.opened[p] = struct{}{}
	return false
}
