package a2awire_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/internal/a2awire"
)

// Every spelling of a state on the wire reads as its 0.3 spelling; anything
// else is "unknown".
func TestStateReadsEverySpelling(t *testing.T) {
	for spelling, want := range map[string]string{
		"submitted": "submitted", "TASK_STATE_SUBMITTED": "submitted",
		"working": "working", "TASK_STATE_WORKING": "working",
		"input-required": "input-required", "TASK_STATE_INPUT_REQUIRED": "input-required",
		"auth-required": "auth-required", "TASK_STATE_AUTH_REQUIRED": "auth-required",
		"completed": "completed", "TASK_STATE_COMPLETED": "completed",
		"canceled": "canceled", "cancelled": "canceled", "TASK_STATE_CANCELED": "canceled", "TASK_STATE_CANCELLED": "canceled",
		"failed": "failed", "TASK_STATE_FAILED": "failed",
		"rejected": "rejected", "TASK_STATE_REJECTED": "rejected",
		"unknown": "unknown", "TASK_STATE_UNSPECIFIED": "unknown", "": "unknown", "Failed": "unknown",
	} {
		require.Equal(t, want, a2awire.State(spelling), "%q", spelling)
	}
}
