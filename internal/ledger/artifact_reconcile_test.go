package ledger

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Each row of the table in artifact_reconcile.go's comment: the facts of a
// whole task's artifact and the verdict decideReconcile gives, the row
// named by its reason (a second case of a row adds what differs).
func TestDecideReconcileFollowsItsTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    reconcileFacts
		want reconcileVerdict
	}{
		{"new artifact", reconcileFacts{known: false, open: true, parts: 3, retired: -1},
			reconcileVerdict{act: actOpen, deliver: true}},
		{"labels taken back", reconcileFacts{known: true, authoritative: true, parts: 2, held: 2, grows: true, retired: -1},
			reconcileVerdict{act: actReplace, deliver: true}},
		{"labels taken back: the window closes", reconcileFacts{known: true, authoritative: true, open: true, parts: 2, held: 2, grows: true, retired: -1},
			reconcileVerdict{act: actReplace, deliver: true, win: windowStep{live: true}}},
		{"as held", reconcileFacts{known: true, parts: 2, held: 2, grows: true, labelsChange: true, retired: -1},
			reconcileVerdict{act: actCursor, ver: verCurrent, pos: 2}},
		{"as held: present, labels that change nothing", reconcileFacts{known: true, present: true, parts: 2, held: 2, grows: true, retired: -1},
			reconcileVerdict{act: actCursor, ver: verCurrent, pos: 2}},
		{"as held: authoritative, every label held", reconcileFacts{known: true, authoritative: true, present: true, parts: 2, held: 2, grows: true, labelsReach: true, retired: -1},
			reconcileVerdict{act: actCursor, ver: verCurrent, pos: 2}},
		{"new tail", reconcileFacts{known: true, open: true, parts: 5, held: 2, grows: true, retired: -1},
			reconcileVerdict{act: actFold, deliver: true, tail: 2, win: windowStep{live: true}}},
		{"new tail: the window replays", reconcileFacts{known: true, open: true, replaying: true, parts: 5, held: 2, grows: true, retired: -1},
			reconcileVerdict{act: actFold, deliver: true, tail: 2}},
		{"new tail: labels only, a present task", reconcileFacts{known: true, present: true, open: true, parts: 2, held: 2, grows: true, labelsChange: true, retired: -1},
			reconcileVerdict{act: actFold, deliver: true, tail: 2}},
		{"fewer parts", reconcileFacts{known: true, open: true, parts: 1, held: 3, lags: true, retired: -1},
			reconcileVerdict{act: actCursor, ver: verCurrent, pos: 1, win: windowStep{replayed: true}}},
		{"fewer parts: the window closed", reconcileFacts{known: true, parts: 1, held: 3, lags: true, retired: -1},
			reconcileVerdict{act: actCursor, ver: verCurrent, pos: 1}},
		{"replaced version", reconcileFacts{known: true, open: true, parts: 2, held: 3, retired: 0},
			reconcileVerdict{act: actCursor, ver: 0, pos: 2, win: windowStep{replayed: true}}},
		{"replacement", reconcileFacts{known: true, open: true, parts: 2, held: 3, retired: -1},
			reconcileVerdict{act: actReplace, deliver: true, win: windowStep{live: true}}},
		{"replacement: authoritative, fewer parts", reconcileFacts{known: true, authoritative: true, parts: 1, held: 3, retired: -1},
			reconcileVerdict{act: actReplace, deliver: true}},
		{"replacement: the window replays, and stays open", reconcileFacts{known: true, open: true, replaying: true, parts: 2, held: 3, retired: -1},
			reconcileVerdict{act: actReplace, deliver: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := decideReconcile(tc.f)
			tc.want.reason, _, _ = strings.Cut(tc.name, ":")
			require.Equal(t, tc.want, got)
		})
	}
}
