package ledger

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Each row of the first table in task_reconcile.go's comment: the facts of
// a whole task and the verdict decideTask gives, the row named by its
// reason (a second case of a row adds what differs).
func TestDecideTaskFollowsItsTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    taskFacts
		want taskVerdict
	}{
		{"result", taskFacts{kind: taskResult, open: true},
			taskVerdict{authoritative: true, present: true, metadataWins: true}},
		{"snapshot past", taskFacts{kind: taskSnapshot, open: true, older: true, task: true},
			taskVerdict{replayed: true}},
		{"snapshot past: a status seen before, not the one held", taskFacts{kind: taskSnapshot, open: true, task: true, replayed: true},
			taskVerdict{replayed: true}},
		{"snapshot past: lacks an artifact, the window closed", taskFacts{kind: taskSnapshot, task: true, current: true, lacks: true},
			taskVerdict{replayed: true, metadataWins: true}},
		{"snapshot past: the window closed, lags", taskFacts{kind: taskSnapshot, task: true, older: true, lags: true},
			taskVerdict{replayed: true}},
		{"snapshot present", taskFacts{kind: taskSnapshot, open: true, task: true},
			taskVerdict{present: true, metadataWins: true}},
		{"snapshot present: the status held, even if seen before", taskFacts{kind: taskSnapshot, open: true, task: true, current: true, replayed: true},
			taskVerdict{present: true, metadataWins: true}},
		{"snapshot present: no task known", taskFacts{kind: taskSnapshot, open: true, replayed: true},
			taskVerdict{present: true, metadataWins: true}},
		{"stale", taskFacts{kind: taskEvent, open: true},
			taskVerdict{replayed: true}},
		{"stale: a result that lags", taskFacts{kind: taskResult, lags: true, open: true},
			taskVerdict{replayed: true}},
		{"whole task", taskFacts{kind: taskEvent},
			taskVerdict{metadataWins: true}},
		{"whole task: the window open, covered", taskFacts{kind: taskEvent, open: true, covers: true},
			taskVerdict{}},
		{"whole task: a result that lags", taskFacts{kind: taskResult, lags: true},
			taskVerdict{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.reason, _, _ = strings.Cut(tc.name, ":")
			require.Equal(t, tc.want, decideTask(tc.f))
		})
	}
}

// Each row of the second table in task_reconcile.go's comment: whether a
// whole task's status is checked for a replay.
func TestChecksStatusFollowsItsTable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		f     taskStatusFacts
		check bool
	}{
		{"lags", taskStatusFacts{lags: true, authoritative: true}, true},
		{"window", taskStatusFacts{open: true}, true},
		{"news", taskStatusFacts{}, false},
		{"news: authoritative, the window open", taskStatusFacts{open: true, authoritative: true}, false},
		{"news: its history lists the message sent after", taskStatusFacts{open: true, listsSentAfter: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reason, _, _ := strings.Cut(tc.name, ":")
			check, got := checksStatus(tc.f)
			require.Equal(t, tc.check, check)
			require.Equal(t, reason, got)
		})
	}
}
