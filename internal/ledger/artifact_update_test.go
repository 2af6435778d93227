package ledger

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Each row of the table in artifact_update.go's comment: the facts of an
// artifact update and the verdict decideUpdate gives, the row named by its
// reason (a second case of a row adds what differs).
func TestDecideUpdateFollowsItsTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    updateFacts
		want updateVerdict
	}{
		{"new artifact", updateFacts{known: false, appends: true, open: true, replaying: true, parts: 2},
			updateVerdict{act: actOpen, deliver: true}},
		{"replayed version", updateFacts{known: true, open: true, anchored: true, at: atRetired, ver: 0, pos: 3, parts: 2, replays: true, replayVer: 1},
			updateVerdict{act: actCursor, ver: 1, pos: 2, win: windowStep{replayed: true, drop: true}}},
		{"replayed version: the window replays already", updateFacts{known: true, open: true, replaying: true, parts: 2, replays: true, replayVer: verCurrent},
			updateVerdict{act: actCursor, ver: verCurrent, pos: 2, win: windowStep{drop: true}}},
		{"version held pending", updateFacts{known: true, open: true, replaying: true, parts: 4},
			updateVerdict{act: actHold, ver: verPending, pos: 4}},
		{"same version", updateFacts{known: true, parts: 2, same: true},
			updateVerdict{act: actNone}},
		{"same version: in a replay past the current version", updateFacts{known: true, open: true, replaying: true, reached: true, parts: 2, same: true},
			updateVerdict{act: actNone}},
		{"replacement", updateFacts{known: true, open: true, parts: 2},
			updateVerdict{act: actReplace, deliver: true, win: windowStep{live: true}}},
		{"replacement: in a replay past the current version", updateFacts{known: true, open: true, replaying: true, reached: true, parts: 2},
			updateVerdict{act: actReplace, deliver: true}},
		{"replacement: no parts, the window stays", updateFacts{known: true, open: true, parts: 0},
			updateVerdict{act: actReplace, deliver: true}},
		{"append live", updateFacts{known: true, appends: true, parts: 1},
			updateVerdict{act: actFold, deliver: true}},
		{"append to pending", updateFacts{known: true, appends: true, open: true, replaying: true, at: atPending, ver: verPending, parts: 1},
			updateVerdict{act: actExtend}},
		{"append to retired", updateFacts{known: true, appends: true, open: true, anchored: true, at: atRetired, ver: 2, pos: 1, parts: 3},
			updateVerdict{act: actCursor, ver: 2, pos: 4, win: windowStep{replayed: true}}},
		{"append replayed", updateFacts{known: true, appends: true, open: true, anchored: true, at: atCurrent, ver: verCurrent, pos: 1, parts: 2, prefix: 2},
			updateVerdict{act: actCursor, ver: verCurrent, pos: 3, win: windowStep{replayed: true}}},
		{"append replayed: not anchored, the window learns nothing", updateFacts{known: true, appends: true, open: true, at: atCurrent, ver: verCurrent, parts: 2, prefix: 2},
			updateVerdict{act: actCursor, ver: verCurrent, pos: 2}},
		{"append replayed: no parts, labels that change nothing", updateFacts{known: true, appends: true, open: true, at: atCurrent, ver: verCurrent, pos: 2},
			updateVerdict{act: actCursor, ver: verCurrent, pos: 2}},
		{"append new tail", updateFacts{known: true, appends: true, open: true, at: atCurrent, ver: verCurrent, parts: 2},
			updateVerdict{act: actFold, deliver: true, win: windowStep{live: true}}},
		{"append new tail: after an anchored prefix the window replays", updateFacts{known: true, appends: true, open: true, anchored: true, at: atCurrent, ver: verCurrent, pos: 1, parts: 3, prefix: 1},
			updateVerdict{act: actFold, deliver: true, tail: 1, win: windowStep{replayed: true}}},
		{"append new tail: the window replays already", updateFacts{known: true, appends: true, open: true, replaying: true, anchored: true, at: atCurrent, ver: verCurrent, pos: 1, parts: 3, prefix: 1},
			updateVerdict{act: actFold, deliver: true, tail: 1}},
		{"append labels only", updateFacts{known: true, appends: true, open: true, at: atCurrent, ver: verCurrent, pos: 2, labelsChange: true},
			updateVerdict{act: actFold, deliver: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := decideUpdate(&tc.f)
			reason, _, _ := strings.Cut(tc.name, ":")
			tc.want.reason = reason
			require.Equal(t, tc.want, got)
		})
	}
}
