package ledger

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/a2astream/a2astream/a2a"
)

// statusWith returns a working status (in state s) carrying message id
// with text, at ts (zero for none).
func statusWith(s a2a.TaskState, id, text string, ts time.Time) *a2a.StatusUpdate {
	m := a2a.NewTextMessage(a2a.RoleAgent, text)
	m.ID = id
	return &a2a.StatusUpdate{TaskID: "t-1", ContextID: "c-1", Status: a2a.TaskStatus{State: s, Message: m, Timestamp: ts}}
}

// A status whose time cannot tell it, with a message the history holds as
// it came, is remembered on the message's record and nowhere else; one in
// a state a2a does not name, or with a message the history does not hold
// so, is remembered by the status cursor. Either way it is seen.
func TestUntimedStatusesAreRememberedOnTheirMessagesRecord(t *testing.T) {
	l := New()
	l.Apply(nil, statusWith(a2a.StateWorking, "m-1", "hello", time.Time{}))
	working := statusWith(a2a.StateWorking, "m-1", "hello", time.Time{}).Status
	require.True(t, l.statusSeen(&working))
	require.Empty(t, l.statuses.seen, "on the record, not the cursor")
	require.True(t, l.msgs.record("m-1").statuses.untimed().has(a2a.StateWorking))
	other := statusWith(a2a.StateInputRequired, "m-1", "hello", time.Time{}).Status
	require.False(t, l.statusSeen(&other), "another state")

	l.noteStatus(&statusWith("paused", "m-1", "hello", time.Time{}).Status, false)
	paused := statusWith("paused", "m-1", "hello", time.Time{}).Status
	require.True(t, l.statusSeen(&paused))
	require.Len(t, l.statuses.seen, 1, "a state with no bit: on the cursor")
}

// When the version held of a message is replaced, the statuses its record
// remembered become the cursor's, for the version replaced: the old
// version's statuses are still seen, the new one's are not yet.
func TestStatusesOfARevisedMessageMoveToTheCursor(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := New()
	l.Apply(nil, statusWith(a2a.StateWorking, "m-1", "hello", time.Time{}))
	l.Apply(nil, statusWith(a2a.StateWorking, "m-2", "first", at))
	l.Apply(nil, statusWith(a2a.StateInputRequired, "m-2", "first", at))
	require.True(t, l.msgs.record("m-2").statuses.latest().has(a2a.StateInputRequired))
	require.Empty(t, l.statuses.atLatest)

	evs := l.Apply(nil, statusWith(a2a.StateWorking, "m-1", "goodbye", time.Time{}))
	require.IsType(t, &a2a.MessageRevision{}, evs[0])
	old := statusWith(a2a.StateWorking, "m-1", "hello", time.Time{}).Status
	require.True(t, l.statusSeen(&old), "the version replaced, in its state")
	require.Len(t, l.statuses.seen, 1)
	require.True(t, l.statusSeen(&statusWith(a2a.StateWorking, "m-1", "goodbye", time.Time{}).Status), "noted as it came")

	evs = l.Apply(nil, statusWith(a2a.StateInputRequired, "m-2", "second", at))
	require.IsType(t, &a2a.MessageRevision{}, evs[0])
	for _, s := range []a2a.TaskState{a2a.StateWorking, a2a.StateInputRequired} {
		replayed, decided := l.statusByTime(&statusWith(s, "m-2", "first", at).Status)
		require.True(t, decided)
		require.True(t, replayed, "%s with the version replaced, at that instant", s)
	}
	require.Len(t, l.statuses.atLatest, 2)
	replayed, decided := l.statusByTime(&statusWith(a2a.StateWorking, "m-2", "second", at).Status)
	require.True(t, decided)
	require.False(t, replayed, "the new version was seen at that instant in another state only")
}

// A newer instant forgets the statuses of the one before it, on the
// records too: a status of the old instant is then older, and one of the
// new instant not seen is news.
func TestANewerInstantClearsTheRecordsOfTheOldOne(t *testing.T) {
	t1 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t2 := t1.Add(time.Second)
	l := New()
	l.Apply(nil, statusWith(a2a.StateWorking, "m-1", "one", t1))
	l.Apply(nil, statusWith(a2a.StateWorking, "m-2", "two", t1))
	require.Len(t, l.msgs.atLatest, 2)
	l.Apply(nil, statusWith(a2a.StateWorking, "m-3", "three", t2))
	require.Len(t, l.msgs.atLatest, 1)
	for _, id := range []string{"m-1", "m-2"} {
		require.Zero(t, l.msgs.record(id).statuses.latest(), id)
	}
	replayed, decided := l.statusByTime(&statusWith(a2a.StateWorking, "m-1", "one", t1).Status)
	require.True(t, decided)
	require.True(t, replayed, "older")
	replayed, decided = l.statusByTime(&statusWith(a2a.StateWorking, "m-3", "three", t2).Status)
	require.True(t, decided)
	require.True(t, replayed, "seen at the newest instant")
	replayed, decided = l.statusByTime(&statusWith(a2a.StateWorking, "m-4", "four", t2).Status)
	require.True(t, decided)
	require.False(t, replayed, "not seen at the newest instant: news")
}

// A record's marks keep their three parts apart: clearing the states of
// the newest instant, or every state, keeps the rest.
func TestStatusMarksKeepTheirPartsApart(t *testing.T) {
	var m statusMarks
	require.True(t, m.addUntimed(a2a.StateWorking))
	require.True(t, m.addLatest(a2a.StateUnknown))
	require.False(t, m.addLatest("paused"), "a state a2a does not name has no bit")
	m.setInStatus()
	require.Equal(t, stateBit(a2a.StateWorking), m.untimed())
	require.Equal(t, stateBit(a2a.StateUnknown), m.latest())
	m.clearLatest()
	require.True(t, m.inStatus())
	require.Zero(t, m.latest())
	require.Equal(t, stateBit(a2a.StateWorking), m.untimed())
	require.True(t, m.addLatest(a2a.StateRejected))
	m.clearStates()
	require.True(t, m.inStatus())
	require.Zero(t, m.untimed())
	require.Zero(t, m.latest())
	var all []a2a.TaskState
	for s := range (stateBit(a2a.StateSubmitted) | stateBit(a2a.StateUnknown)).all() {
		all = append(all, s)
	}
	require.Equal(t, []a2a.TaskState{a2a.StateSubmitted, a2a.StateUnknown}, all)
}
