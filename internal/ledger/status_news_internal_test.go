package ledger

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// Inside the replay window, a status update that the window's connection
// brought as news is news when it comes again in that connection, at the
// newest instant or without a timestamp; a status older in time is still
// a replay, a whole task's status is never asked, and the next connection
// starts with nothing noted.
func TestAStatusNewsInAConnectionIsNewsAgainInIt(t *testing.T) {
	at := func(sec int) time.Time { return time.Date(2026, 1, 1, 0, 0, sec, 0, time.UTC) }
	for _, ts := range []time.Time{at(2), {}} {
		l := New()
		l.Apply(nil, statusWith(a2a.StateWorking, "m-0", "before", at(1)))
		l.OpenReplayWindow()
		a := statusWith(a2a.StateWorking, "m-1", "A", ts)
		require.False(t, l.statusNewsHere(&a.Status), "not yet news of this connection")
		require.Len(t, l.Apply(nil, a), 1)
		b := l.Apply(nil, statusWith(a2a.StateWorking, "m-1", "B", ts))
		require.Len(t, b, 1, "the revision alone: the status held takes it")
		require.Equal(t, "B", b[0].(*a2a.MessageRevision).Message.Text())

		again := statusWith(a2a.StateWorking, "m-1", "A", ts)
		require.True(t, l.statusNewsHere(&again.Status))
		f := l.statusReplayFacts(&again.Status, true)
		require.True(t, f.again)
		require.False(t, l.statusReplayFacts(&again.Status, false).again, "a whole task's status is not asked")
		out := l.Apply(nil, again)
		require.Len(t, out, 1, "A again: its revision")
		require.Equal(t, "A", out[0].(*a2a.MessageRevision).Message.Text())
		require.Equal(t, "A", l.Task().Status.Message.Text())

		older := statusWith(a2a.StateWorking, "m-0", "before", at(1))
		require.False(t, l.statusNewsHere(&older.Status), "older in time: a replay")

		l.OpenReplayWindow()
		require.False(t, l.statusNewsHere(&again.Status), "the next connection starts with nothing noted")
	}
}
