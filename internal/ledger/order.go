package ledger

import (
	"slices"

	"github.com/a2astream/a2astream/a2a"
)

// A whole task (a poll, a get-task, a snapshot) does not say in which order
// its changes happened, but a stream would have handed them over one by
// one. Its deltas are put in the order a stream most likely showed them:
// the history's messages first (the history is the past of the current
// status: mostly the messages of statuses the agent has left), then the
// artifacts and the status. A status that still works (submitted, working)
// was set before the artifacts it works on, so it comes before them; a
// prompt (input-required, auth-required) or an ending (a terminal state)
// was set after them, so it comes after them.

// artifactsBeforeStatus reports whether a whole task's artifact deltas go
// before the delta of its status, in state st: when st asks the client
// (a prompt) or ends the task. A status that still works goes first.
func artifactsBeforeStatus(st a2a.TaskState) bool {
	return st.Interrupted() || st.Terminal()
}

// inStreamOrder reorders the deltas d of one whole task, computed as its
// artifacts' (d[:arts]), its history's messages (the next msgs), then its
// status's (the rest: the status update and the revision of its message,
// if any), into the order artifactsBeforeStatus gives for state st. It
// moves the artifact deltas in place and allocates nothing.
func inStreamOrder(d []a2a.Event, arts, msgs int, st a2a.TaskState) {
	if arts == 0 || arts == len(d) {
		return
	}
	end := len(d) // the artifacts go after the status
	if artifactsBeforeStatus(st) {
		end = arts + msgs // between the messages and the status
	}
	rotateLeft(d[:end], arts)
}

// rotateLeft moves s[:k] to the end of s, keeping the order within both
// parts.
func rotateLeft(s []a2a.Event, k int) {
	slices.Reverse(s[:k])
	slices.Reverse(s[k:])
	slices.Reverse(s)
}
