package a2a

import "github.com/a2astream/a2astream/internal/a2awire"

// TaskState is the canonical state of a task, whatever its wire spelling.
// The values are the A2A 0.3 spellings; the codecs map the 1.0 enum names
// (TASK_STATE_WORKING, …) onto them.
type TaskState string

// The task states of A2A 0.3 and 1.0.
const (
	StateSubmitted     TaskState = "submitted"
	StateWorking       TaskState = "working"
	StateInputRequired TaskState = "input-required"
	StateAuthRequired  TaskState = "auth-required"
	StateCompleted     TaskState = "completed"
	StateCanceled      TaskState = "canceled"
	StateFailed        TaskState = "failed"
	StateRejected      TaskState = "rejected"
	// StateUnknown stands for 0.3 "unknown", 1.0 TASK_STATE_UNSPECIFIED, a
	// missing state, and any spelling this package does not recognise.
	StateUnknown TaskState = "unknown"
)

// Terminal reports whether the task can never change again: completed,
// canceled, failed or rejected.
func (s TaskState) Terminal() bool {
	switch s {
	case StateCompleted, StateCanceled, StateFailed, StateRejected:
		return true
	}
	return false
}

// Interrupted reports whether the task waits on the client: input-required or
// auth-required.
func (s TaskState) Interrupted() bool {
	return s == StateInputRequired || s == StateAuthRequired
}

// Role says who wrote a message.
type Role string

// The two roles of A2A.
const (
	RoleUser  Role = "user"
	RoleAgent Role = "agent"
)

var states10 = map[TaskState]string{
	StateSubmitted:     "TASK_STATE_SUBMITTED",
	StateWorking:       "TASK_STATE_WORKING",
	StateInputRequired: "TASK_STATE_INPUT_REQUIRED",
	StateAuthRequired:  "TASK_STATE_AUTH_REQUIRED",
	StateCompleted:     "TASK_STATE_COMPLETED",
	StateCanceled:      "TASK_STATE_CANCELED",
	StateFailed:        "TASK_STATE_FAILED",
	StateRejected:      "TASK_STATE_REJECTED",
	StateUnknown:       "TASK_STATE_UNSPECIFIED",
}

// parseState accepts every spelling seen on the wire and never fails: an
// unrecognised state is StateUnknown. The spellings are internal/a2awire's,
// which package chain reads a link's state with too.
func parseState(s string) TaskState { return TaskState(a2awire.State(s)) }

// encodeState writes s in version v. The state is first brought to its
// canonical form, so a model holding a wire spelling ("cancelled",
// "TASK_STATE_WORKING") is still written the way v spells it.
func encodeState(v Version, s TaskState) string {
	s = parseState(string(s))
	if v == V10 {
		return states10[s]
	}
	return string(s)
}

func parseRole(s string) Role {
	switch s {
	case "user", "ROLE_USER":
		return RoleUser
	case "agent", "ROLE_AGENT":
		return RoleAgent
	}
	return ""
}

func encodeRole(v Version, r Role) string {
	if v == V10 {
		switch r {
		case RoleUser:
			return "ROLE_USER"
		case RoleAgent:
			return "ROLE_AGENT"
		}
		return "ROLE_UNSPECIFIED"
	}
	return string(r)
}
