package relay

import (
	"encoding/json"
	"strconv"
)

// paneOverhead is what a pane adds to a screen's JSON besides its text, at
// most for the names, IDs and keys of common sizes.
const paneOverhead = 256

// screenSize is the size a View's JSON would have, tracked without the
// text itself: the text bytes of each pane. Drive uses it to keep the
// snapshots it builds, and so its own memory, within a bound.
type screenSize struct {
	panes map[string]int // pane key → its text's bytes
	text  int            // their sum
}

// bytes returns about how many bytes the screen's JSON takes, before
// escaping.
func (s *screenSize) bytes() int { return s.text + paneOverhead*len(s.panes) }

// write records text of n bytes written to the pane key.
func (s *screenSize) write(key string, n int, appendText bool) {
	if s.panes == nil {
		s.panes = map[string]int{}
	}
	held := s.panes[key]
	if !appendText {
		s.text -= held
		held = 0
	}
	s.panes[key] = held + n
	s.text += n
}

// of starts from a screen.
func (s *screenSize) of(sc *View) {
	*s = screenSize{panes: make(map[string]int, len(sc.Panes))}
	for i := range sc.Panes {
		s.write(sc.Panes[i].Key, len(sc.Panes[i].text), false)
	}
}

// apply records what an entry writes, as View.Apply folds it.
func (s *screenSize) apply(e Entry) error {
	switch e.Name {
	case EventArtifact:
		var d ArtifactData
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return err
		}
		s.write(d.Pane, len(d.Text), d.Append)
	case EventMessage:
		var d MessageData
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return err
		}
		s.write(d.Pane, len(d.Text), d.Append)
	case EventAnswered:
		var d AnsweredData
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return err
		}
		s.write(answerPane(d.Prompt), len(d.Text), d.Append)
	}
	return nil
}

// answerPane is the key of the pane of the answer to the question at Seq
// prompt.
func answerPane(prompt uint64) string { return "answer:" + strconv.FormatUint(prompt, 10) }
