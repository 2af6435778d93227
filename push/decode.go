package push

import (
	"encoding/json"

	"github.com/a2astream/a2astream/a2a"
)

// shape is what decode reads of a body beside the event, to tell the
// versions apart: a 0.3 object has a "kind", a 1.0 one a member naming its
// type. encoding/json matches the names as package a2a's decoder does.
type shape struct {
	Kind string    `json:"kind"`
	Task *struct{} `json:"task"`
}

// decode reads a notification body: one event of one task. It returns the
// notification and its task's ID, or the class of the refusal:
// "undecodable" (not JSON, or not a stream result) or "shape" (a result a
// notification cannot be: a 0.3 event other than a Task snapshot, a message
// of no task, a task of no ID).
func decode(body []byte) (n Notification, taskID, class string) {
	ev, err := a2a.Codec{}.DecodeEvent(body)
	if err != nil {
		return Notification{}, "", "undecodable"
	}
	var s shape
	if err := json.Unmarshal(body, &s); err != nil {
		return Notification{}, "", "undecodable"
	}
	v := a2a.V10
	if s.Kind != "" || (s.Task == nil && isTask(ev)) {
		// A 0.3 object, or a bare Task snapshot: a 0.3 notification is
		// the whole Task, never an update.
		if !isTask(ev) {
			return Notification{}, "", "shape"
		}
		v = a2a.V03
	}
	switch e := ev.(type) {
	case *a2a.Task:
		taskID = e.ID
	case *a2a.StatusUpdate:
		taskID = e.TaskID
	case *a2a.ArtifactUpdate:
		taskID = e.TaskID
	case *a2a.Message:
		taskID = e.TaskID
	}
	if taskID == "" {
		return Notification{}, "", "shape"
	}
	return Notification{Event: ev, Version: v}, taskID, ""
}

func isTask(ev a2a.Event) bool {
	_, ok := ev.(*a2a.Task)
	return ok
}
