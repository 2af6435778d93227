package relay

import (
	"cmp"
	"encoding/json"
	"fmt"

	"github.com/a2astream/a2astream/a2a"
)

// View is what a browser shows after the events up to Seq: the fold of
// those events by Apply (a relay's events, as JSON; chatview.Screen is
// another thing, the fold of a stream's A2A events for a program that
// prints them). It is the data of a snapshot (Log.SaveSnapshot)
// and of an EventGone event, as JSON. A page that folds the events the way
// Apply does shows exactly View after them, however often it reconnected
// or was sent away with EventGone.
//
// A View is not safe for concurrent use.
type View struct {
	Seq       uint64        `json:"seq"`
	State     a2a.TaskState `json:"state,omitempty"`
	TaskID    string        `json:"taskId,omitempty"`
	ContextID string        `json:"contextId,omitempty"`
	// Panes are the artifacts, messages, status messages and answers, in
	// the order they opened.
	Panes []ViewPane `json:"panes"`
	// Question is the question open, nil when none is.
	Question *InputData `json:"question,omitempty"`
	// End is the last event, EventEnd or EventFailure, once the stream
	// ended.
	End *FinalEvent `json:"end,omitempty"`

	index map[string]int // Pane.Key → place in Panes
}

// ViewPane is one pane of a View.
type ViewPane struct {
	Key  string   `json:"key"`  // as the events name it (ArtifactData.Pane, MessageData.Pane)
	Kind string   `json:"kind"` // "artifact", "message", "status", or "answer" for a person's answer
	ID   string   `json:"id,omitempty"`
	Name string   `json:"name,omitempty"` // an artifact's name
	Role a2a.Role `json:"role,omitempty"`

	text []byte
}

// Text returns the text the pane shows.
func (p *ViewPane) Text() string { return string(p.text) }

type paneJSON struct {
	Key  string   `json:"key"`
	Kind string   `json:"kind"`
	ID   string   `json:"id,omitempty"`
	Name string   `json:"name,omitempty"`
	Role a2a.Role `json:"role,omitempty"`
	Text string   `json:"text"`
}

// MarshalJSON encodes the pane with its text.
func (p ViewPane) MarshalJSON() ([]byte, error) {
	return json.Marshal(paneJSON{Key: p.Key, Kind: p.Kind, ID: p.ID, Name: p.Name, Role: p.Role, Text: string(p.text)})
}

// UnmarshalJSON decodes a pane encoded by MarshalJSON.
func (p *ViewPane) UnmarshalJSON(b []byte) error {
	var j paneJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*p = ViewPane{Key: j.Key, Kind: j.Kind, ID: j.ID, Name: j.Name, Role: j.Role, text: []byte(j.Text)}
	return nil
}

// FinalEvent is the last event of a stream, EventEnd or EventFailure, as
// a View keeps it (stream.Ending is how the stream ended, which this
// event tells browsers).
type FinalEvent struct {
	Name string          `json:"name"` // EventEnd or EventFailure
	Data json.RawMessage `json:"data"` // its EndData or FailureData
}

// ParseView decodes a View from its JSON: a snapshot's Data, or a
// GoneData's View. Empty data is the empty screen, before the first
// event.
func ParseView(data []byte) (*View, error) {
	s := &View{}
	if len(data) == 0 {
		return s, nil
	}
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("relay: bad screen: %w", err)
	}
	s.index = make(map[string]int, len(s.Panes))
	for i, p := range s.Panes {
		s.index[p.Key] = i
	}
	return s, nil
}

// Apply folds the next event into the screen. e must follow the screen:
// its Seq is Seq+1. Notices change nothing but Seq; event names Apply does
// not know are skipped, for pages older than their relay. It fails, and
// changes nothing, for an entry out of order or whose data does not decode.
func (s *View) Apply(e Entry) error {
	if e.Seq != s.Seq+1 {
		return fmt.Errorf("relay: entry %d does not follow %d", e.Seq, s.Seq)
	}
	var err error
	switch e.Name {
	case EventStatus:
		var d StatusData
		if err = json.Unmarshal(e.Data, &d); err == nil {
			s.State = d.State
			s.TaskID = cmp.Or(d.TaskID, s.TaskID)
			s.ContextID = cmp.Or(d.ContextID, s.ContextID)
		}
	case EventArtifact:
		var d ArtifactData
		if err = json.Unmarshal(e.Data, &d); err == nil {
			p := s.pane(d.Pane, "artifact", d.ID, "")
			p.Name = cmp.Or(d.Name, p.Name)
			p.write(d.Text, d.Append)
		}
	case EventMessage:
		var d MessageData
		if err = json.Unmarshal(e.Data, &d); err == nil {
			s.pane(d.Pane, d.Kind, d.ID, d.Role).write(d.Text, d.Append)
		}
	case EventInput:
		var d InputData
		if err = json.Unmarshal(e.Data, &d); err == nil {
			s.Question = &d
		}
	case EventAnswered:
		var d AnsweredData
		if err = json.Unmarshal(e.Data, &d); err == nil {
			if s.Question != nil && s.Question.Prompt == d.Prompt {
				s.Question = nil
			}
			s.pane(answerPane(d.Prompt), "answer", "", a2a.RoleUser).write(d.Text, d.Append)
		}
	case EventEnd, EventFailure:
		if !json.Valid(e.Data) {
			err = fmt.Errorf("not JSON")
			break
		}
		s.End = &FinalEvent{Name: e.Name, Data: json.RawMessage(append([]byte(nil), e.Data...))}
		s.Question = nil
	}
	if err != nil {
		return fmt.Errorf("relay: bad %s entry %d: %w", e.Name, e.Seq, err)
	}
	s.Seq = e.Seq
	return nil
}

// Pane returns the pane with this key, nil when none opened.
func (s *View) Pane(key string) *ViewPane {
	if i, ok := s.index[key]; ok {
		return &s.Panes[i]
	}
	return nil
}

// pane returns the pane with this key, opening it when none did.
func (s *View) pane(key, kind, id string, role a2a.Role) *ViewPane {
	if i, ok := s.index[key]; ok {
		return &s.Panes[i]
	}
	if s.index == nil {
		s.index = map[string]int{}
	}
	s.index[key] = len(s.Panes)
	s.Panes = append(s.Panes, ViewPane{Key: key, Kind: kind, ID: id, Role: role})
	return &s.Panes[len(s.Panes)-1]
}

// write adds text to the pane, or replaces its text.
func (p *ViewPane) write(text string, appendText bool) {
	if !appendText {
		p.text = p.text[:0]
	}
	p.text = append(p.text, text...)
}
