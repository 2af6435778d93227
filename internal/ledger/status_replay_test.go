package ledger

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Each row of the table in status_replay.go's comment: the facts of a
// status and whether decideStatusReplay takes it for a replay, the row
// named by its reason (a second case of a row adds what differs).
func TestDecideStatusReplayFollowsItsTable(t *testing.T) {
	for _, tc := range []struct {
		name     string
		f        statusReplayFacts
		replayed bool
	}{
		{"again", statusReplayFacts{again: true, timed: true, timeReplay: true, seenBefore: true}, false},
		{"seen in time", statusReplayFacts{timed: true, timeReplay: true}, true},
		{"news in time", statusReplayFacts{timed: true, seenBefore: true, message: messageWithID, known: true, version: versionOld}, false},
		{"seen before", statusReplayFacts{seenBefore: true, message: messageWithID, known: true, version: versionRevised}, true},
		{"content held", statusReplayFacts{message: messageWithoutID, contentHeld: true}, true},
		{"content news", statusReplayFacts{message: messageWithoutID}, false},
		{"content news: one of its content travelled in a status", statusReplayFacts{message: messageWithoutID, contentHeld: true, contentInStatus: true}, false},
		{"no message known", statusReplayFacts{message: noMessage}, false},
		{"no message known: its ID never delivered", statusReplayFacts{message: messageWithID}, false},
		{"older version", statusReplayFacts{message: messageWithID, known: true, version: versionOld, inStatus: true}, true},
		{"revised", statusReplayFacts{message: messageWithID, known: true, version: versionRevised}, false},
		{"same message, new status", statusReplayFacts{message: messageWithID, known: true, version: versionSame, inStatus: true}, false},
		{"same message", statusReplayFacts{message: messageWithID, known: true, version: versionSame}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			replayed, reason := decideStatusReplay(tc.f)
			want, _, _ := strings.Cut(tc.name, ":")
			require.Equal(t, want, reason)
			require.Equal(t, tc.replayed, replayed)
		})
	}
}

// Each row of the table of a replayed status's message, in
// status_replay.go: whether decideReplayedMessage delivers it.
func TestDecideReplayedMessageFollowsItsTable(t *testing.T) {
	for _, tc := range []struct {
		name    string
		f       statusReplayFacts
		deliver bool
	}{
		{"no message", statusReplayFacts{message: noMessage}, false},
		{"content held", statusReplayFacts{message: messageWithoutID, contentHeld: true}, false},
		{"content missed", statusReplayFacts{message: messageWithoutID}, true},
		{"delivered", statusReplayFacts{message: messageWithID, known: true}, false},
		{"missed", statusReplayFacts{message: messageWithID}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			deliver, reason := decideReplayedMessage(tc.f)
			require.Equal(t, tc.name, reason)
			require.Equal(t, tc.deliver, deliver)
		})
	}
}
