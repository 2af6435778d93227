package a2awire

// State returns the canonical spelling of a task state, the 0.3 one that
// a2a.TaskState holds, for every spelling seen on the wire; it never fails:
// an unrecognised state is "unknown" (a2a.StateUnknown).
func State(s string) string {
	switch s {
	case "submitted", "TASK_STATE_SUBMITTED":
		return "submitted"
	case "working", "TASK_STATE_WORKING":
		return "working"
	case "input-required", "TASK_STATE_INPUT_REQUIRED":
		return "input-required"
	case "auth-required", "TASK_STATE_AUTH_REQUIRED":
		return "auth-required"
	case "completed", "TASK_STATE_COMPLETED":
		return "completed"
	case "canceled", "cancelled", "TASK_STATE_CANCELED", "TASK_STATE_CANCELLED":
		return "canceled"
	case "failed", "TASK_STATE_FAILED":
		return "failed"
	case "rejected", "TASK_STATE_REJECTED":
		return "rejected"
	}
	return "unknown"
}
