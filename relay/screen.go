package relay

import (
	"cmp"
	"encoding/json"
	"fmt"

	"github.com/a2astream/a2astream/a2a"
)

// Screen is what a browser shows after the events up to Seq: the fold of
// those events by Apply. It is the data of a snapshot (Log.SaveSnapshot)
// and of an EventGone event, as JSON. A page that folds the events the way
// Apply does shows exactly Screen after them, however often it reconnected
// or was sent away with EventGone.
//
// A Screen is not safe for concurrent use.
type Screen struct {
	Seq       uint64        `json:"seq"`
	State     a2a.TaskState `json:"state,omitempty"`
	TaskID    string        `json:"taskId,omitempty"`
	ContextID string        `json:"contextId,omitempty"`
	// Panes are the artifacts, messages, status messages and answers, in
	// the order they opened.
	Panes []Pane `json:"panes"`
	// Question is the question open, nil when none is.
	Question *InputData `json:"question,omitempty"`
	// End is the last event, EventEnd or EventFailure, once the stream
	// ended.
	End *Ending `json:"end,omitempty"`

	index map[string]int // Pane.Key → place in Panes
}

// Pane is one pane of a Screen.
type Pane struct {
	Key  string   `json:"key"`  // as the events name it (ArtifactData.Pane, MessageData.Pane)
	Kind string   `json:"kind"` // "artifact", "message", "status", or "answer" for a person's answer
	ID   string   `json:"id,omitempty"`
	Name string   `json:"name,omitempty"` // an artifact's name
	Role a2a.Role `json:"role,omitempty"`

	text []byte
}

// Text returns the text the pane shows.
func (p *Pane) Text() string { return string(p.text) }

type paneJSON struct {
	Key  string   `json:"key"`
	Kind string   `json:"kind"`
	ID   string   `json:"id,omitempty"`
	Name string   `json:"name,omitempty"`
	Role a2a.Role `json:"role,omitempty"`
	Text string   `json:"text"`
}

// MarshalJSON encodes the pane with its text.
func (p Pane) MarshalJSON() ([]byte, error) {
	return json.Marshal(paneJSON{Key: p.Key, Kind: p.Kind, ID: p.ID, Name: p.Name, Role: p.Role, Text: string(p.text)})
}

// UnmarshalJSON decodes a pane encoded by MarshalJSON.
func (p *Pane) UnmarshalJSON(b []byte) error {
	var j paneJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*p = Pane{Key: j.Key, Kind: j.Kind, ID: j.ID, Name: j.Name, Role: j.Role, text: []byte(j.Text)}
	return nil
}

// Ending is the last event of a stream, as a Screen keeps it.
type Ending struct {
	Name string          `json:"name"` // EventEnd or EventFailure
	Data json.RawMessage `json:"data"` // its EndData or FailureData
}

// ParseScreen decodes a Screen from its JSON: a snapshot's Data, or a
// GoneData's Screen. Empty data is the empty screen, before the first
// event.
func ParseScreen(data []byte) (*Screen, error) {
	s := &Screen{}
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
func (s *Screen) Apply(e Entry) error {
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
		s.End = &Ending{Name: e.Name, Data: json.RawMessage(append([]byte(nil), e.Data...))}
		s.Question = nil
	}
	if err != nil {
		return fmt.Errorf("relay: bad %s entry %d: %w", e.Name, e.Seq, err)
	}
	s.Seq = e.Seq
	return nil
}

// Pane returns the pane with this key, nil when none opened.
func (s *Screen) Pane(key string) *Pane {
	if i, ok := s.index[key]; ok {
		return &s.Panes[i]
	}
	return nil
}

// pane returns the pane with this key, opening it when none did.
func (s *Screen) pane(key, kind, id string, role a2a.Role) *Pane {
	if i, ok := s.index[key]; ok {
		return &s.Panes[i]
	}
	if s.index == nil {
		s.index = map[string]int{}
	}
	s.index[key] = len(s.Panes)
	s.Panes = append(s.Panes, Pane{Key: key, Kind: kind, ID: id, Role: role})
	return &s.Panes[len(s.Panes)-1]
}

// write adds text to the pane, or replaces its text.
func (p *Pane) write(text string, appendText bool) {
	if !appendText {
		p.text = p.text[:0]
	}
	p.text = append(p.text, text...)
}
