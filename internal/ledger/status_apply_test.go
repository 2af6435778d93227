package ledger

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Each row of the table in status_apply.go's comment: the facts of a
// status and the verdict decideStatus gives, named by its rows (a message
// row and a status row, or "replay").
func TestDecideStatusFollowsItsTable(t *testing.T) {
	for _, tc := range []struct {
		f    statusFacts
		want statusVerdict
	}{
		{statusFacts{checkReplay: true, replayed: true, message: messageWithID, known: true, version: versionRevised},
			statusVerdict{reason: "replay", drop: true}},
		{statusFacts{replayed: true, sameState: true, sameMessage: true},
			statusVerdict{reason: "no message", status: "same status"}},
		{statusFacts{checkReplay: true},
			statusVerdict{reason: "no message", status: "new status", deliver: true}},
		{statusFacts{message: messageWithID, known: true, version: versionRevised, sameState: true, sameMessage: true},
			statusVerdict{reason: "message revised", status: "same status", known: true, revise: true}},
		{statusFacts{message: messageWithID, known: true, version: versionRevised, sameMessage: true},
			statusVerdict{reason: "message revised", status: "new status", known: true, revise: true, deliver: true}},
		{statusFacts{message: messageWithID, known: true, version: versionOld, sameState: true, sameMessage: true},
			statusVerdict{reason: "message older", status: "same status", known: true, replayed: true}},
		{statusFacts{message: messageWithID, known: true, version: versionSame, sameState: true},
			statusVerdict{reason: "message as held", status: "new status", known: true, deliver: true}},
		{statusFacts{message: messageWithoutID, heldCopy: true, sameState: true, sameMessage: true},
			statusVerdict{reason: "message held", status: "same status"}},
		{statusFacts{message: messageWithoutID, heldCopy: true},
			statusVerdict{reason: "message held", status: "new status", deliver: true}},
		{statusFacts{message: messageWithoutID, sameState: true},
			statusVerdict{reason: "message new", status: "new status", carry: true, deliver: true}},
		{statusFacts{sameState: true, ended: true},
			statusVerdict{reason: "no message", status: "same ending"}},
		{statusFacts{message: messageWithID, known: true, version: versionSame, sameState: true, ended: true},
			statusVerdict{reason: "message as held", status: "same ending", known: true}},
		{statusFacts{message: messageWithoutID, heldCopy: true, sameState: true, ended: true},
			statusVerdict{reason: "message held", status: "same ending"}},
		{statusFacts{message: messageWithID, sameState: true, ended: true},
			statusVerdict{reason: "message new", status: "new status", carry: true, deliver: true}},
		{statusFacts{ended: true},
			statusVerdict{reason: "no message", status: "new status", deliver: true}},
		{statusFacts{message: messageWithID, sameState: true, sameMessage: false},
			statusVerdict{reason: "message new", status: "new status", carry: true, deliver: true}},
	} {
		t.Run(strings.TrimSuffix(tc.want.reason+"; "+tc.want.status, "; "), func(t *testing.T) {
			require.Equal(t, tc.want, decideStatus(tc.f))
		})
	}
}
