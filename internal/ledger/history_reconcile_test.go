package ledger

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Each row of the table in history_reconcile.go's comment: the facts of one
// message of a whole task's history and the verdict decideHistory gives,
// the row named by its reason (a second case of a row adds what differs).
func TestDecideHistoryFollowsItsTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    historyFacts
		want historyVerdict
	}{
		{"status copy held", historyFacts{withoutID: true, statusCopy: true, met: 2, held: 2},
			historyVerdict{statusHeld: true}},
		{"status copy", historyFacts{withoutID: true, statusCopy: true, met: 1, held: 0},
			historyVerdict{}},
		{"content held", historyFacts{withoutID: true, met: 1, held: 3},
			historyVerdict{}},
		{"content held: the user's", historyFacts{withoutID: true, user: true, met: 3, held: 3},
			historyVerdict{}},
		{"content new", historyFacts{withoutID: true, met: 2, held: 1},
			historyVerdict{hold: true, deliver: true}},
		{"content new: the user's, held and not delivered", historyFacts{withoutID: true, user: true, met: 1},
			historyVerdict{hold: true}},
		{"status message", historyFacts{statusMessage: true, known: true, version: versionRevised},
			historyVerdict{}},
		{"revised", historyFacts{known: true, version: versionRevised},
			historyVerdict{revise: true}},
		{"older", historyFacts{known: true, version: versionOld},
			historyVerdict{replayed: true}},
		{"known", historyFacts{known: true, version: versionSame},
			historyVerdict{}},
		{"known: the user's, whatever its version", historyFacts{known: true, user: true, version: versionRevised},
			historyVerdict{}},
		{"new", historyFacts{},
			historyVerdict{hold: true, deliver: true}},
		{"new: the user's, held and not delivered", historyFacts{user: true},
			historyVerdict{hold: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.reason, _, _ = strings.Cut(tc.name, ":")
			require.Equal(t, tc.want, decideHistory(tc.f))
		})
	}
}
