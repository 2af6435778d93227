package ledger

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Each row of the table in message_apply.go's comment: the facts of a
// Message event and the verdict decideMessage gives, the row named by its
// reason (a second case of a row adds what differs).
func TestDecideMessageFollowsItsTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    messageFacts
		want messageVerdict
	}{
		{"revised", messageFacts{known: true, task: true, version: versionRevised, replaying: true},
			messageVerdict{revise: true}},
		{"known", messageFacts{known: true, task: true, version: versionOld},
			messageVerdict{replay: true}},
		{"known: the version held", messageFacts{known: true, task: true, version: versionSame},
			messageVerdict{replay: true}},
		{"known: the user's", messageFacts{known: true, task: true, user: true, version: versionRevised},
			messageVerdict{replay: true}},
		{"known: no task", messageFacts{known: true, version: versionRevised},
			messageVerdict{replay: true}},
		{"replayed content", messageFacts{withoutID: true, task: true, replaying: true, met: 2, held: 2},
			messageVerdict{count: true}},
		{"new content", messageFacts{withoutID: true, task: true, replaying: true, met: 3, held: 2},
			messageVerdict{count: true, deliver: true}},
		{"new", messageFacts{task: true}, messageVerdict{deliver: true}},
		{"new: no ID, a window that does not replay", messageFacts{withoutID: true, task: true, held: 4},
			messageVerdict{deliver: true}},
		{"new: no ID, no task", messageFacts{withoutID: true, replaying: true},
			messageVerdict{deliver: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.reason, _, _ = strings.Cut(tc.name, ":")
			require.Equal(t, tc.want, decideMessage(tc.f))
		})
	}
}
