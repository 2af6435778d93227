// Package chatview turns the events of a stream into the text a chat screen
// shows, so that a UI prints an agent's words without a switch over the
// event types, and prints each word once.
//
// A [Screen] takes each event a [github.com/a2astream/a2astream/stream.Stream]
// yields, in order, and says what it adds: the text, the pane it belongs to
// (an artifact, a message, or the task's status), whether it opens that pane,
// and whether it replaces what the pane showed, as it does when an agent
// sends an artifact whole again after a dropped connection:
//
//	var screen chatview.Screen
//	for s.Next() {
//		t := screen.Add(s.Event())
//		if t.Replace {
//			// clear the pane t.Pane, then show t.Content
//		}
//		fmt.Print(t.Content)
//	}
//
// A UI that shows what Add returns, clearing a pane on Replace, ends with the
// task's text, across drops and replays. A terminal, which prints every text
// in a row, starts a line where Text.NewLine says, so that no line holds the
// text of two panes. Only text parts are text; read data and file parts from
// the events.
//
// The package depends on package a2a only; it does no I/O.
package chatview
