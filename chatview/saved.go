package chatview

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
)

// savedScreen is a Screen as JSON: the panes it opened and the IDs of the
// messages that came in a status, each sorted, so that one Screen always
// encodes to the same bytes.
type savedScreen struct {
	Opened []savedPane `json:"opened,omitempty"`
	Status []string    `json:"status,omitempty"`
}

type savedPane struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

// MarshalJSON encodes which panes the Screen opened, and nothing of their
// text, so that a program that restarts can go on with the Screen it had.
// Save it with what the user was shown and the stream's checkpoint, in the
// same write: after [stream.Client.Resume], a Screen read back with
// UnmarshalJSON continues a pane the user saw (Opens false) where a new
// Screen would open it again.
//
// [stream.Client.Resume]: https://pkg.go.dev/github.com/a2astream/a2astream/stream#Client.Resume
func (sc Screen) MarshalJSON() ([]byte, error) {
	var s savedScreen
	for p := range sc.opened {
		s.Opened = append(s.Opened, savedPane{Kind: p.Kind.String(), ID: p.ID})
	}
	slices.SortFunc(s.Opened, func(a, b savedPane) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID))
	})
	for id, ok := range sc.status {
		if ok {
			s.Status = append(s.Status, id)
		}
	}
	slices.Sort(s.Status)
	return json.Marshal(s)
}

// UnmarshalJSON reads a Screen that MarshalJSON wrote, in place of the
// Screen's state. A pane of a kind it does not know is an error, and
// leaves the Screen as it was.
func (sc *Screen) UnmarshalJSON(data []byte) error {
	var s savedScreen
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("chatview: reading a screen: %w", err)
	}
	var next Screen
	for _, p := range s.Opened {
		k, ok := parseKind(p.Kind)
		if !ok {
			return fmt.Errorf("chatview: reading a screen: unknown pane kind %q", p.Kind)
		}
		next.open(Pane{Kind: k, ID: p.ID})
	}
	for _, id := range s.Status {
		if next.status == nil {
			next.status = map[string]bool{}
		}
		next.status[id] = true
	}
	*sc = next
	return nil
}

// parseKind is the inverse of PaneKind.String, for the kinds of a pane.
func parseKind(s string) (PaneKind, bool) {
	for _, k := range []PaneKind{PaneArtifact, PaneMessage, PaneStatus} {
		if k.String() == s {
			return k, true
		}
	}
	return 0, false
}
