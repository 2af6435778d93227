package ledger

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Each row of the table in status_changes.go's comment: the facts of an
// event's status and whether decideStatusChange says it changes the status
// held.
func TestDecideStatusChangeFollowsItsTable(t *testing.T) {
	for _, tc := range []struct {
		name    string
		f       statusChangeFacts
		changes bool
	}{
		{"not a status", statusChangeFacts{task: true}, false},
		{"no task", statusChangeFacts{status: true}, true},
		{"replay", statusChangeFacts{status: true, task: true, replayed: true}, false},
		{"other status", statusChangeFacts{status: true, task: true, sameMessage: true}, true},
		{"other status: another message", statusChangeFacts{status: true, task: true, sameState: true}, true},
		{"no message ID", statusChangeFacts{status: true, task: true, sameState: true, sameMessage: true}, false},
		{"revised", statusChangeFacts{status: true, task: true, sameState: true, sameMessage: true, withID: true, version: versionRevised}, true},
		{"same", statusChangeFacts{status: true, task: true, sameState: true, sameMessage: true, withID: true, version: versionSame}, false},
		{"same: an older version", statusChangeFacts{status: true, task: true, sameState: true, sameMessage: true, withID: true, version: versionOld}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reason, _, _ := strings.Cut(tc.name, ":")
			changes, got := decideStatusChange(tc.f)
			require.Equal(t, tc.changes, changes)
			require.Equal(t, reason, got)
		})
	}
}
